#!/usr/bin/env python3
"""check_streams.py PROGRAM_OUTPUT REPORT_JSON LABEL — compares the hot data streams a
program planted (progs/streams.c prints "expect_stream WALKS NODE1 NODE2 ...", nodes of 16
bytes) with `hotprof report --streams --format json --top 0`. A planted stream is found when a
reported stream's references, mapped to the planted nodes they fall in (consecutive repeats
merged), contain the planted node sequence in order and contiguously. Its estimated frequency
(sampled frequency / observed sampling frequency) must be within 30% of WALKS.
Prints planted vs found; one ok/FAIL line per planted stream, plus one for spurious streams."""
import json
import sys

NODE = 16


def node_seq(addrs, nodes):
    seq = []
    for a in addrs:
        base = a - (a % NODE)
        n = base if base in nodes else None
        if n is not None and (not seq or seq[-1] != n):
            seq.append(n)
    return seq


def contains(seq, sub):
    return any(seq[i:i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))


def main():
    out, rep_path, label = sys.argv[1], sys.argv[2], sys.argv[3]
    rep = json.load(open(rep_path))
    planted = []
    for line in open(out):
        p = line.split()
        if p and p[0] == "expect_stream":
            planted.append((int(p[1]), [int(x, 16) for x in p[2:]]))
    nodes = {n for _, ns in planted for n in ns}
    streams = [(s, node_seq([int(a, 16) for a in s["addrs"]], nodes)) for s in rep["streams"]]
    print("# %s: %d planted, %d reported (%s)" % (label, len(planted), len(streams), rep.get("datastream")))
    failed = 0
    used = set()
    for i, (want, ns) in enumerate(planted):
        hit = [k for k, (s, seq) in enumerate(streams) if contains(seq, ns)]
        name = "%s: planted stream %d (%d nodes, %d x)" % (label, i, len(ns), want)
        if not hit:
            print("FAIL %s: not among the reported streams" % name)
            failed += 1
            continue
        s = streams[hit[0]][0]
        used.update(hit)
        est = s["estimated_freq"] or 0
        print("# planted %d: %s -> found rank %d, length %d, freq %d, est. %d (true %d)" %
              (i, " ".join(hex(n) for n in ns[:3]) + " ...", s["rank"], s["length"], s["freq"], est, want))
        if abs(est - want) > 0.3 * want:
            print("FAIL %s: estimated frequency %d, want %d +- 30%%" % (name, est, want))
            failed += 1
        else:
            print("ok %s: rank %d, est. frequency %d" % (name, s["rank"], est))
    # Other reported streams must be made of planted references too (pieces of a planted stream, or
    # a thread's own variant of one: the noise state lives on each thread's stack): a stream whose
    # references mostly fall outside the planted nodes is noise reported as hot.
    def planted_share(s):
        return sum(1 for a in s["addrs"] if int(a, 16) - int(a, 16) % NODE in nodes) / len(s["addrs"])
    other = [s for k, (s, seq) in enumerate(streams) if k not in used]
    spurious = [s for s in other if planted_share(s) < 0.5 and s["heat"] >= 0.25 * streams[0][0]["heat"]]
    print("# %d other reported streams, %d of them mostly unplanted references" %
          (len(other), len([s for s in other if planted_share(s) < 0.5])))
    if spurious:
        print("FAIL %s: %d hot streams not planted (first: %s)" % (label, len(spurious), spurious[0]["addrs"][:4]))
        failed += 1
    else:
        print("ok %s: no hot stream of unplanted references" % label)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
