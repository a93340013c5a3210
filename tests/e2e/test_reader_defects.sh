#!/usr/bin/env bash
# test_reader_defects.sh — the reader on inputs that are not profile files (issue 8, defect 1):
# an endless device (/dev/zero, /dev/urandom) must end with one clear message and exit 1, quickly
# and in bounded memory (the header is checked before anything else is read); a file larger than
# the reader's limit (1 GiB, docs/format.md) is refused without being read. Defect 11: a real
# profile cut right after the MODULES or BLOCKMAP that follow a GROUP_END warns.
# e2e: alone (a wall-clock bound: "quickly" is under 5 s)
. "$(dirname "$0")/lib.sh"
cd "$T"
# Bounded memory: 512 MiB of address space, unless the binary carries a sanitizer (which
# reserves terabytes of it by design).
limit_vm() { if ldd "$HP" 2>/dev/null | grep -q 'libasan'; then "$@"; else (ulimit -v 524288; "$@"); fi; }
bounded() { limit_vm timeout 20 "$@"; }
check_fails_cleanly "report /dev/zero ends with one message" "not a hotprof profile" bounded "$HP" report /dev/zero
check_fails_cleanly "info /dev/urandom ends with one message" "not a hotprof profile" bounded "$HP" info /dev/urandom
check_fails_cleanly "compare /dev/zero ends with one message" "not a hotprof profile" bounded "$HP" compare /dev/zero /dev/zero
start=$(date +%s)
bounded "$HP" report /dev/zero >/dev/null 2>&1
check_eq "... and quickly" "$(( $(date +%s) - start < 5 ))" 1
# A valid file header (from a real profile), then a sparse hole up to past the limit: refused by
# its size, not read.
cat > work.c <<'C'
__attribute__((noinline)) int leaf(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s = leaf(s); return s == 1000 ? 0 : 1; }
C
"$HP" cc -O2 -o work work.c && "$HP" run -q -o good.data -- ./work
head -c 32 good.data > big.data
truncate -s 1100M big.data
check_fails_cleanly "a file over the size limit is refused" "too large|larger than" bounded "$HP" report big.data
check_fails_cleanly "... also by info" "too large|larger than" bounded "$HP" info big.data
check "a profile read through a pipe still reads" sh -c "cat good.data | '$HP' report /dev/stdin | grep -q leaf"
check "a profile under the limit still reads" sh -c "'$HP' report good.data | grep -q leaf"

# Defect 11: a real two-group profile (hotprof_flush, then exit) cut right after the MODULES, and
# right after the BLOCKMAP, that open its second group: the report warns that the last group is
# incomplete (docs/format.md, reading rule 5) and shows the first group's counts.
cat > flush.c <<'C'
#include <hotprof/hotprof.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s = leaf(s); hotprof_flush(); return s == 1000 ? 0 : 1; }
C
if "$HP" cc -O2 -I"$ROOT/include" -o flush flush.c && "$HP" run -q -o two.data -- ./flush; then
    # "  index  offset  type  length  group" rows of `hotprof info`: the end of the first section of
    # the given type after the first group_end
    end_after_first_group() {
        "$HP" info two.data | awk -v want="$1" '
            $3 == "group_end" && !seen { seen = 1; next }
            seen && $3 == want { print $2 + 24 + $4; exit }'
    }
    for what in modules blockmap; do
        cut_at=$(end_after_first_group $what)
        if [ -z "$cut_at" ]; then fail "cut after $what: no $what after the first group"; continue; fi
        head -c "$cut_at" two.data > "cut-$what.data"
        "$HP" report "cut-$what.data" >"cut-$what.out" 2>"cut-$what.err"; rc=$?
        check_eq "file cut after the second group's $what reads" "$rc" 0
        check "... warns that the last group is incomplete" grep -q "incomplete group" "cut-$what.err"
        check "... and shows the first group's counts" grep -q leaf "cut-$what.out"
    done
else
    fail "defect 11: build or run of the two-group program"
fi
