#!/usr/bin/env bash
# bench/xray/real.sh - XRay mode against dual-functions on the real programs (issue 14, "XRay's
# fate"): both hook sets at methods + call pairs period=999,burst=1 (the default setting; change
# with --settings), samples recorded per run, methods and call-pair overlap against each build's
# own exhaustive profile, recorded share vs B/(B+S), the bias check and the slowdown. XRay builds
# run in their own mode (time-driven bursts over XRay sleds; they record no call pairs);
# dual-functions with --bursts patch. A thin wrapper of bench/hps_sweep/real.sh (same options:
# --runs N, --quick, --programs, --build-dir, --results, --settings; --help there).
# Output: bench/results/xray_real.{csv,txt}.
set -euo pipefail
for a in "$@"; do
    case "$a" in -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
done
exec bash "$(dirname "$0")/../hps_sweep/real.sh" --hooks "xray dual-functions" --modes patch --settings "999:1" \
    --name xray_real "$@"
