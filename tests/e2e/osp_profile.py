#!/usr/bin/env python3
"""osp_profile.py — writes synthetic subpath profiles for tests/e2e/test_osp_report.sh.

Usage: osp_profile.py IN.data OUT.data KIND [TRUTH.json]
Takes a real profile (IN: a run of a hotprof-built program, so that modules and the block map
are real and the blocks symbolize), and inserts before its last GROUP_END a group INFO section
(subpath.* keys, docs/format.md) and one SUBPATHS section (format.h hp_rec_subpath). The
subpaths are built over the block map's guards, in pc order: subpath i covers `len` consecutive
guards starting at guard index 2*i (lengths 2, 4, 8, 2, 4, 8...).
KIND:
  exact       summary=exact: count = weight = executions (8000, 7000, ... by subpath), p_length 1
  sampled     summary=sampled: count c_i, weight w_i, p_length 1/len (estimates = w_i * len):
              the hottest five in the exact order, then two swapped, one exact subpath missing
  exactenc    like sampled, but subpath.params says enc=exact (compare must refuse)
  counting    like sampled, with list=counting and tau 64, plus one length-8 subpath held on 1
              sample whose estimate (9000) is the highest: ranked by estimate x c / (c + tau - 1)
              it falls below every subpath counted 30 times or more
  bad-length  a record of length 0; bad-nblocks: nblocks > length; bad-plen: p_length 0;
  bad-weight  weight NaN; bad-cut: the last record's blocks run past the section
TRUTH (optional): the records written, as JSON (key, count, weight, p_length, length), so the
test computes what the report must print.
"""
import json
import math
import struct
import sys
import zlib

SEC_INFO, SEC_BLOCKMAP, SEC_GROUP_END, SEC_SUBPATHS = 1, 5, 10, 11
MAGIC = 0x43535048
EXACT_COUNTS = [8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000, 500, 250, 120, 60]


def sections(data):
    off = 32
    while off + 24 <= len(data):
        magic, typ, length, _pcrc, _hcrc = struct.unpack_from("<IIQII", data, off)
        assert magic == MAGIC, "not a section at %d" % off
        yield off, typ, length
        off += 24 + length


def section(typ, payload):
    head = struct.pack("<IIQI", MAGIC, typ, len(payload), zlib.crc32(payload) & 0xFFFFFFFF)
    return head + struct.pack("<I", zlib.crc32(head) & 0xFFFFFFFF) + payload


def mix(x):  # any 64-bit mixer: the test only needs distinct keys
    x = (x ^ (x >> 33)) * 0xFF51AFD7ED558CCD & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 33)


def guards_in_pc_order(data):
    recs = []
    for off, typ, length in sections(data):
        if typ == SEC_BLOCKMAP:
            for k in range(0, length, 16):
                g, _f, pc = struct.unpack_from("<IIQ", data, off + 24 + k)
                recs.append((pc, g))
    return [g for _pc, g in sorted(set(recs))]


def subpaths(guards, kind):
    out = []
    for i, count in enumerate(EXACT_COUNTS):
        length = [2, 4, 8][i % 3]
        seq = [guards[(2 * i + j) % len(guards)] for j in range(length)]
        key = (length << 40) ^ mix(i + 1)
        if kind == "exact":
            out.append(dict(key=key, count=count, weight=float(count), p_length=1.0, length=length, blocks=seq))
            continue
        if i == 9:
            continue  # the sample missed this one
        est = count * (1.1 if i == 5 else 1.0)  # exact rank 6: 3300, 10% high
        if i == 6:
            est = 3500  # exact rank 7 (2000) estimated above rank 6: the two swap
        c = max(1, int(round(est / 100)))
        out.append(dict(key=key, count=c, weight=est / length, p_length=1.0 / length, length=length, blocks=seq))
    if kind == "counting":
        seq = [guards[j % len(guards)] for j in range(8)]
        out.append(dict(key=(8 << 40) ^ mix(99), count=1, weight=9000 / 8, p_length=1.0 / 8, length=8, blocks=seq))
    return out


def record(r, kind):
    length, blocks, plen, weight = r["length"], r["blocks"], r["p_length"], r["weight"]
    nblocks = len(blocks)
    if kind == "bad-length":
        length = 0
    if kind == "bad-nblocks":
        length = nblocks - 1
    if kind == "bad-plen":
        plen = 0.0
    if kind == "bad-weight":
        weight = float("nan")
    fixed = struct.pack("<QQddII", r["key"], r["count"], weight, plen, length, nblocks)
    return fixed + struct.pack("<%dI" % nblocks, *blocks)


def main():
    src, dst, kind = sys.argv[1:4]
    data = open(src, "rb").read()
    base = "sampled" if kind.startswith("bad") or kind == "exactenc" else kind
    counting = kind == "counting"
    recs = subpaths(guards_in_pc_order(data), base)
    payload = b"".join(record(r, kind if i == 0 else "") for i, r in enumerate(recs))
    if kind == "bad-cut":
        payload = payload[:-4]
    enc = "exact" if kind == "exactenc" else "xor"
    blocks = sum(r["count"] * r["length"] for r in subpaths(guards_in_pc_order(data), "exact")) * 2
    info = ("subpath.summary=%s\nsubpath.params=mem=65536,len=pow2,maxlen=32,enc=%s,minf=64,weight=count%s\n"
            "subpath.skip=%s\nsubpath.blocks=%d\nsubpath.tau=%s\n"
            % ("exact" if base == "exact" else "sampled", enc, ",list=counting" if counting else "",
               "exact" if base == "exact" else "live", blocks, "1" if base == "exact" else "64" if counting else "2.5"))
    last_end = [off for off, typ, _l in sections(data) if typ == SEC_GROUP_END][-1]
    out = data[:last_end] + section(SEC_INFO, info.encode()) + section(SEC_SUBPATHS, payload) + data[last_end:]
    open(dst, "wb").write(out)
    if len(sys.argv) > 4:
        json.dump(dict(blocks=blocks, records=[{k: v for k, v in r.items()} for r in recs]), open(sys.argv[4], "w"))


if __name__ == "__main__":
    main()
