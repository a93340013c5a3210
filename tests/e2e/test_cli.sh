#!/usr/bin/env bash
# test_cli.sh — the hotprof command on bad input: unknown commands and options, a missing
# program, a program not built with hotprof cc, corrupt / truncated / wrong-version / empty
# profiles, and binaries without debug info or symbols. Each gets one clear message and a
# non-zero status, never a crash; a good profile is never lost.
. "$(dirname "$0")/lib.sh"
cd "$T"
cat > work.c <<'C'
__attribute__((noinline)) int leaf(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s = leaf(s); return s == 1000 ? 0 : 1; }
C
"$HP" cc -O2 -o work work.c
check "--help" sh -c "'$HP' --help | grep -q report"
check "--version" sh -c "'$HP' --version | grep -qE '[0-9]+\.[0-9]+'"
check "help run" sh -c "'$HP' help run | grep -q -- '--output'"
check_fails_cleanly "unknown command" "not a hotprof command" "$HP" frobnicate
check_fails_cleanly "unknown option" "unknown option|unrecognized" "$HP" report --bogus
check_fails_cleanly "bad --top value" "top" "$HP" report --top banana
check_fails_cleanly "bad --sort key" "sort" "$HP" report --sort sideways
check_fails_cleanly "missing program" "cannot run" "$HP" run -- ./does-not-exist
check_fails_cleanly "run without a program" "program|usage" "$HP" run
cc -O2 -o plain work.c
check_fails_cleanly "program not built with hotprof cc" "hotprof cc" "$HP" run -o plain.data -- ./plain

check "good profile" "$HP" run -o good.data -- ./work
good_sum=$(md5sum < good.data)
check "report reads it" sh -c "'$HP' report good.data | grep -q leaf"
check "info reads it" sh -c "'$HP' info good.data | grep -qi modules"
check_fails_cleanly "missing profile" "No such file" "$HP" report nothere.data
: > empty.data
check_fails_cleanly "empty profile" "too short|empty|not a hotprof" "$HP" report empty.data
head -c 4096 /dev/urandom > random.data
check_fails_cleanly "random bytes" "not a hotprof profile" "$HP" report random.data
check_fails_cleanly "a directory" "directory|read" "$HP" report "$T"
cp good.data version.data; printf '\x07' | dd of=version.data bs=1 seek=8 conv=notrunc 2>/dev/null
check_fails_cleanly "wrong version" "version" "$HP" report version.data
size=$(stat -c %s good.data)
head -c 20 good.data > cut-header.data
check_fails_cleanly "file cut inside its header" "short|truncat" "$HP" report cut-header.data
cp good.data flipped.data; printf '\xff' | dd of=flipped.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
check_fails_cleanly "a flipped byte in a section" "checksum|corrupt" "$HP" report flipped.data
head -c $((size - 7)) good.data > cut-tail.data
"$HP" report cut-tail.data >cut-tail.out 2>cut-tail.err; rc=$?
check_eq "file cut in its last group still reads" "$rc" 0
check "... and warns that the last group is incomplete" grep -qi "incomplete" cut-tail.err
check_eq "reading never modifies a profile" "$(md5sum < good.data)" "$good_sum"

cp good.data keep.data
check_fails_cleanly "program not built with hotprof cc keeps an earlier profile" "hotprof cc" "$HP" run -o keep.data -- ./plain
check_eq "... the earlier profile is intact" "$(md5sum < keep.data)" "$good_sum"
check "unwritable output refused before running" sh -c "! '$HP' run -o /nonexistent-dir/x.data -- ./work 2>err && grep -qi 'nonexistent-dir' err"
cp work nodebug && strip --strip-debug nodebug
check "binary without debug info: names from the symbol table" sh -c "'$HP' run -o nd.data -- ./nodebug && '$HP' report nd.data | grep -q leaf"
cp work stripped && strip stripped
check "stripped binary: report shows addresses, no crash" sh -c "'$HP' run -o st.data -- ./stripped && '$HP' report st.data | grep -qE '0x[0-9a-f]+|\\+0x'"
rm -f work
check "program binary deleted after the run: still reports" sh -c "'$HP' report good.data >/dev/null"

# report's output: -o FILE appears whole or not at all; a write error exits 1 (it printed a message
# and exited 0 before).
"$HP" cc -O2 -o work2 work.c
"$HP" run -q -o out.data -- ./work2 >/dev/null
"$HP" report out.data >stdout.txt
check "a report to compare with" grep -q leaf stdout.txt
check "report -o FILE writes what stdout gets" sh -c "'$HP' report -o file.txt out.data && cmp -s file.txt stdout.txt"
check "report -o - writes to stdout" sh -c "'$HP' report -o - out.data | cmp -s - stdout.txt"
check_fails_cleanly "report to a full disk (stdout) exits 1" "cannot write.*space" sh -c "'$HP' report out.data >/dev/full"
check_fails_cleanly "report -o /dev/full exits 1" "cannot write '/dev/full'" "$HP" report -o /dev/full out.data
check "report -o /dev/null works" "$HP" report -o /dev/null out.data
check_fails_cleanly "report -o into a missing directory" "cannot write" "$HP" report -o nodir/r.txt out.data
echo "good old report" >keep.txt
cp out.data bad.data && printf 'NOTAPROF' | dd of=bad.data conv=notrunc 2>/dev/null
check_fails_cleanly "report -o of a corrupt profile" "not a hotprof profile|magic" "$HP" report -o keep.txt bad.data
check_eq "... leaves the earlier file as it was" "$(cat keep.txt)" "good old report"
( trap '' XFSZ; ulimit -f 1; "$HP" report --format json --top 0 -o keep.txt out.data ) >/dev/null 2>xfsz.err; rc=$?
check_eq "report -o cut by a file size limit exits 1" "$rc" 1
check "... saying why" grep -q "cannot write 'keep.txt': File too large" xfsz.err
check_eq "... leaves the earlier file as it was" "$(cat keep.txt)" "good old report"
check_eq "... and no temporary file" "$(ls keep.txt.tmp.* 2>/dev/null)" ""
