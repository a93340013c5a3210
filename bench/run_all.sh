#!/usr/bin/env bash
# bench/run_all.sh — `make bench`: every benchmark, one after another (they must not overlap:
# the machine has 2 cores and each measures CPU time side by side). Each prints its table and
# rewrites its CSV/SVG in bench/results/. Pass --quick for a smoke run (smaller sizes, fewer runs).
set -eu
cd "$(dirname "$0")/.."
quick=""
[ "${1:-}" = "--quick" ] && quick=1
echo "== bench/summaries (bounded summaries: speed, memory, accuracy; multi-hash error)"
bench/streams/record.sh build/streams
bench/summaries/run.sh   # picks up the recorded streams in build/streams
echo "== bench/overhead (exhaustive hooks vs native, per hook set)"
bench/overhead/run.sh ${quick:+--quick}
echo "== bench/fastpath (cost of each hook mechanism, piece by piece)"
bench/fastpath/run.sh ${quick:+--runs 2 --workloads "fft interp"}
if [ -f build/lib/hotprof_dual.so ] && command -v valgrind >/dev/null; then
    echo "== bench/fastpath/instr.sh (switched-off floors in instructions: callgrind)"
    bench/fastpath/instr.sh ${quick:+--programs "fft mt_work" --sizes "fft=30 mt_work=20000" --results build/bench-quick}
    echo "== bench/fastpath/floor_split.py (the switched-off floor: the sites' nops and the rest)"
    python3 bench/fastpath/floor_split.py --variants "dfn=dual-functions dblk=dual-blocks dblk-ra=dual-blocks:-hotprof-dual-rejoin-all=on dblk-le=dual-blocks:-hotprof-dual-loops=entry" \
        ${quick:+--programs "fft mt_work" --sizes "fft=30 mt_work=20000" --results build/bench-quick}
fi
if [ -x bench/hps_sweep/run.sh ]; then
    echo "== bench/hps_sweep (bursty sampling: overlap vs slowdown)"
    bench/hps_sweep/run.sh ${quick:+--quick}
fi
if [ -x bench/osp/run.sh ]; then
    echo "== bench/osp (online subpath profiling: sizes, overhead split, memory, top-10 accuracy)"
    bench/osp/run.sh ${quick:+--quick}
fi
echo "== bench/xray (XRay burst mode: methods overlap per workload)"
bench/xray/accuracy.sh
echo "== bench/export (reading a profile: report formats, annotate, merge vs perf report)"
bench/export/run.sh ${quick:+--quick}
echo "== bench/fastpath/real.sh (real programs: switched-off floor, code size, HPS Figure 7)"
bench/fastpath/real.sh ${quick:+--quick}
echo "== bench/fastpath/windows.py (real programs: what a patched window costs besides the hooks)"
[ -n "$quick" ] || python3 bench/fastpath/windows.py
echo "== bench/hps_sweep/real.sh (real programs: overlap, recorded share, bias, slowdown per burst mode)"
bench/hps_sweep/real.sh ${quick:+--quick}
echo "== bench/xray/real.sh (real programs: XRay mode vs dual-functions)"
bench/xray/real.sh ${quick:+--quick}
