#!/usr/bin/env python3
"""osp_decode.py PROFILE — prints, as JSON, the SUBPATHS records (docs/format.md: type 11) and
the INFO lines of the last complete group of a hotprof profile: {"info": {...}, "subpaths":
[{"key", "count", "weight", "p_length", "length", "blocks": [guard ids]}]}. Checks every section
CRC-free framing field it uses (magic, lengths) and exits 1 with one message on a malformed file.
Used by test_osp_run.sh, which checks the run side without the analysis side."""
import json
import struct
import sys

SEC_INFO, SEC_GROUP_END, SEC_SUBPATHS = 1, 10, 11


def sections(data):
    if data[:8] != b"HOTPROF\0":
        sys.exit("osp_decode: not a hotprof profile")
    off = 32
    while off + 24 <= len(data):
        magic, typ, length = struct.unpack_from("<IIQ", data, off)
        if magic != 0x43535048:
            return
        yield typ, data[off + 24: off + 24 + length]
        off += 24 + length


def subpaths(payload):
    out, off = [], 0
    while off + 40 <= len(payload):
        key, count, weight, p, length, nb = struct.unpack_from("<QQddII", payload, off)
        off += 40
        blocks = list(struct.unpack_from("<%dI" % nb, payload, off))
        off += 4 * nb
        out.append({"key": key, "count": count, "weight": weight, "p_length": p, "length": length,
                    "blocks": blocks})
    if off != len(payload):
        sys.exit("osp_decode: SUBPATHS payload has %d bytes left over" % (len(payload) - off))
    return out


def main():
    data = open(sys.argv[1], "rb").read()
    group, last = {"info": {}, "subpaths": []}, None
    for typ, payload in sections(data):
        if typ == SEC_SUBPATHS:
            group["subpaths"] += subpaths(payload)
        elif typ == SEC_INFO:
            for line in payload.decode("utf-8", "replace").splitlines():
                k, _, v = line.partition("=")
                group["info"][k] = v
        elif typ == SEC_GROUP_END:
            last, group = group, {"info": dict(group["info"]), "subpaths": []}
    if last is None:
        sys.exit("osp_decode: no complete group")
    json.dump(last, sys.stdout)


main()
