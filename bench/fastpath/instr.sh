#!/usr/bin/env bash
# bench/fastpath/instr.sh [--variants "NAME=HOOKS[:OPT,...] ..."] [--programs "..."] [--jobs N]
# [--sizes "PROGRAM=SIZE ..."] [--results DIR] — the switched-off floor in instructions (cachegrind),
# workloads x variants beside native: see instr.py's header. Needs valgrind and the dual plugin for
# the dual-* variants. Takes ~25 minutes with the defaults at 2 jobs; writes
# bench/results/fastpath_instr.{txt,csv}.
set -eu
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "instr.sh: needs valgrind" >&2; exit 1; }
make -s build/bin/hotprof build/lib/libhotprof_rt.a dual-plugin >&2
HEADER="# bench/fastpath/instr.sh $*
# tree at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
exec python3 bench/fastpath/instr.py --header "$HEADER" "$@"
