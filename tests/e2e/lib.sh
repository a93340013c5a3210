# lib.sh — shared helpers for end-to-end tests (sourced). Each check prints "ok NAME" or
# "FAIL NAME: why" (tests/run_e2e.sh counts them). Tests build into a fresh temp dir, removed
# at exit unless HOTPROF_KEEP_TMP=1.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HP="$ROOT/build/bin/hotprof"
T=$(mktemp -d /tmp/hotprof-e2e.XXXXXX)
[ "${HOTPROF_KEEP_TMP:-0}" = 1 ] || trap 'rm -rf "$T"' EXIT
export HOTPROF_QUIET=1
# Dual builds get nop sites unless a test asks for count sites (--dual-sites=count): the tests
# written for nop sites keep testing them; hotprof cc's own default (count sites for dual-functions
# and dual-blocks, since session 39) is tested with this unset (test_dual_default_sites.sh).
export HOTPROF_DUAL_SITES=nop

ok() { echo "ok $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
# check NAME CMD... : ok if CMD succeeds
check() { local name=$1; shift; if "$@" >"$T/.out" 2>&1; then ok "$name"; else fail "$name" "$(tail -n 5 "$T/.out")"; fi; }
# check_eq NAME GOT WANT
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# check_fails_cleanly NAME PATTERN CMD... : CMD must exit 1..127, print PATTERN on stderr in one
# message, and not crash (no signal, no sanitizer report).
check_fails_cleanly() {
    local name=$1 pattern=$2; shift 2
    "$@" >"$T/.out" 2>"$T/.err"; local rc=$?
    if [ $rc -eq 0 ] || [ $rc -gt 127 ]; then fail "$name" "exit status $rc"; return; fi
    if grep -qE 'Sanitizer|runtime error|Segmentation|core dumped' "$T/.err"; then fail "$name" "$(head -n 3 "$T/.err")"; return; fi
    # (a compiler's crash report after the message is not a clean refusal)
    if grep -qE 'PLEASE submit a bug report|Stack dump' "$T/.err"; then fail "$name" "a crash report: $(head -n 2 "$T/.err")"; return; fi
    if ! grep -qiE "$pattern" "$T/.err"; then fail "$name" "stderr lacks /$pattern/: $(head -n 3 "$T/.err")"; return; fi
    ok "$name"
}
# workload_size NAME: a small input for tests (callgrind runs ~50x slower than native)
small_size() {
    case $1 in
        *) echo "${SMALL_SIZE:-}";;
    esac
}
# dual_count_sites_in BINARY: its inline count sites (records {site, target, kind, flags} of
# section __hotprof_dual with flag 1; docs/dual.md), 0 without the section.
dual_count_sites_in() {
    objcopy -O binary --only-section=__hotprof_dual "$1" "$T/.recs" 2>/dev/null || { echo 0; return; }
    python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read()
print(sum(struct.unpack_from("<iiII", d, i)[3] & 1 for i in range(0, len(d) - 15, 16)))' "$T/.recs"
}
