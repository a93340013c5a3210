#!/usr/bin/env bash
# bench/fastpath/run.sh [--runs N] [--workloads "..."] [--variants "..."] — the cost of each
# hook mechanism, piece by piece (see fastpath.py's header); writes bench/results/fastpath.csv.
set -eu
cd "$(dirname "$0")/../.."
make -s build/bin/hotprof build/lib/libhotprof_rt.a build/lib/libhotprof_core.a
exec python3 bench/fastpath/fastpath.py "$@"
