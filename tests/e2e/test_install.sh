#!/usr/bin/env bash
# test_install.sh — `make install` like a real tool: a manual page per command of the table
# (none missing, groff -ww clean, found by man through MANPATH, listing every option --help has),
# hotprof-format(5), hotprof.pc (a plain-cc program that calls the online API builds and runs
# with pkg-config's flags alone), the bash completion (sourced and called as bash calls it), an
# Autotools-style project (a hand-written configure honouring CC), DESTDIR staging, and
# `make uninstall` leaving no file behind. Expected lists come from the binary itself
# (`hotprof help --complete`, `--help`), never from a list written here.
# e2e: alone (it runs make install in the tree)
. "$(dirname "$0")/lib.sh"
cd "$T"
P="$T/prefix"
IHP="$P/bin/hotprof"
export MANWIDTH=200
check "make install PREFIX=..." make -s -C "$ROOT" install PREFIX="$P"
cmds=$("$HP" help --complete)
check "the command table is not empty" test -n "$cmds"

# --- manual pages
for c in $cmds; do
    check "man page of '$c' installed" test -f "$P/share/man/man1/hotprof-$c.1"
done
check "hotprof(1) and hotprof-format(5) installed" test -f "$P/share/man/man1/hotprof.1" -a -f "$P/share/man/man5/hotprof-format.5"
for page in "$P"/share/man/man1/*.1 "$P"/share/man/man5/*.5; do
    groff -t -man -Tutf8 -ww -z "$page" > "$T/groff.out" 2>&1
    check_eq "groff -ww has nothing to say about $(basename "$page")" "$(cat "$T/groff.out")" ""
done
check "man -l renders hotprof-run.1" sh -c "man -l '$P/share/man/man1/hotprof-run.1' | grep -q 'hotprof-run - '"
check "MANPATH=PREFIX/share/man man hotprof-run" sh -c "MANPATH='$P/share/man' man hotprof-run | grep -q SYNOPSIS"
check "MANPATH=PREFIX/share/man man 5 hotprof-format" sh -c "MANPATH='$P/share/man' man 5 hotprof-format | grep -q 'GROUP_END'"
check "hotprof(1) names every command's page" sh -c "MANPATH='$P/share/man' man hotprof > hotprof.txt"
for c in $cmds; do
    check "hotprof(1) lists hotprof-$c(1)" grep -qF "hotprof-$c(1)" hotprof.txt
done
# Every option the binary knows (help --complete CMD, the --help tables) is in the command's page.
for c in $cmds; do
    MANPATH="$P/share/man" man "hotprof-$c" > "man-$c.txt" 2>&1
    for o in $("$HP" help --complete "$c" | sed '/^@/d; s/[ =].*//'); do
        check "hotprof-$c(1) documents $o" grep -qF -- "$o" "man-$c.txt"
    done
done

check_fails_cleanly "help --man of an unknown command" "not a hotprof command" "$HP" help --man bogus
check_fails_cleanly "help --man and --complete together" "not both" "$HP" help --man --complete run
check_fails_cleanly "help --man to a full disk" "cannot write the manual page" sh -c "'$HP' help --man run > /dev/full"
check_fails_cleanly "help --complete to a full disk" "cannot write the completion" sh -c "'$HP' help --complete report > /dev/full"
check_fails_cleanly "help --complete of an unknown command" "not a hotprof command" "$HP" help --complete bogus

# --- pkg-config: a program built with plain cc that calls the online API, and reads the top
# functions of a shared library built with hotprof cc -shared (which binds to that runtime).
cat > lib.c <<'C'
__attribute__((noinline)) int lib_work(int x) { return x * 7 + 1; }
C
cat > api.c <<'C'
#include <hotprof/hotprof.h>
#include <stdio.h>
#include <string.h>
int lib_work(int x);
int main(void)
{
    int s = 0;
    for (int i = 0; i < 1000; i++) s += lib_work(i);
    hotprof_topk_entry top[4];
    int n = hotprof_snapshot_topk(HOTPROF_SAMPLE_METHODS, 4, top);
    printf("version %s\ntop %d %llu\n", hotprof_version(), n, n > 0 ? (unsigned long long)top[0].count : 0ull);
    return strcmp(hotprof_version(), HOTPROF_VERSION) != 0 || s == 0;
}
C
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
check_eq "pkg-config --modversion hotprof is hotprof --version" "$(pkg-config --modversion hotprof)" "$("$HP" --version | sed 's/^hotprof //')"
check "pkg-config --cflags names PREFIX/include" sh -c "pkg-config --cflags hotprof | grep -qF -- '-I$P/include'"
check "shared library built with the installed hotprof cc -shared" "$IHP" cc -O2 -shared -fPIC -o libwork.so lib.c
check "plain cc + \$(pkg-config --cflags --libs hotprof) builds the API program" \
    sh -c "cc -O2 -o api api.c -L. -lwork -Wl,-rpath,'$T' \$(pkg-config --cflags --libs hotprof)"
check "... it runs with no LD_LIBRARY_PATH" sh -c "env -u LD_LIBRARY_PATH ./api > api.out"
check_eq "... hotprof_version() is the installed version" "$(sed -n 's/^version //p' api.out)" "$(pkg-config --modversion hotprof)"
calls=$(awk '/^top/ {print $3}' api.out)
check_eq "... hotprof_snapshot_topk sees lib_work's 1000 calls" "$calls" 1000
check "... hotprof run profiles it and report names lib_work" sh -c "'$IHP' run -q -o api.data -- ./api >/dev/null && '$IHP' report api.data | grep -q lib_work"

# --- bash completion, installed where bash-completion looks for it
BC="$P/share/bash-completion/completions/hotprof"
mkdir -p cw/sub
cp api.data cw/prof.data
cp hotprof.txt cw/   # starts with "HOTPROF(1)": the magic is "HOTPROF" and a NUL
echo 'not a profile' > cw/notes.txt
cd cw
# complete WORD... : the completions bash would offer for the command line WORD... (last = cursor)
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hotprof; printf "%s\n" "${COMPREPLY[@]}"' _ "$BC" "$@" | sort | tr '\n' ' '
}
sorted() { tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' '; }
check_eq "completion: the commands" "$(complete_words "$IHP" "")" "$(echo $cmds | sorted)"
for c in $cmds; do
    want=$("$HP" help --complete "$c" | sed -n 's/^\(--[^ ]*\) .*/\1/p' | sorted)
    check_eq "completion: hotprof $c --<TAB> offers its long options" "$(complete_words "$IHP" "$c" --)" "$want"
done
check_eq "completion: profile files (and directories) for report FILE" "$(complete_words "$IHP" report "")" "prof.data sub/ "
check_eq "completion: -i FILE is a profile too" "$(complete_words "$IHP" report -i p)" "prof.data "
fmts=$("$HP" help report | sed -n 's/.*--format FMT *\([a-z|]*\).*/\1/p' | tr '|' ' ' | sorted)
check_eq "completion: report --format values are the --help list" "$(complete_words "$IHP" report --format "")" "$fmts"
check_eq "completion: --format=j (bash splits at =)" "$(complete_words "$IHP" report --format = j)" "json "
types=$("$HP" run --sample bogus -- true 2>&1 | sed -n 's/.*unknown sample type .* (\(.*\))$/\1/p' | tr -d ',' | tr ' ' '\n' | sed 's/$/:/' | sorted)
check_eq "completion: run --sample offers the sampled types" "$(complete_words "$IHP" run --sample "")" "$types"
check "completion: after run's PROGRAM, its arguments are files" sh -c "echo '$(complete_words "$IHP" run -o x.data ./api n)' | grep -q notes.txt"
cd "$T"
check "bash-completion loads it from PREFIX/share (XDG_DATA_DIRS)" test -f /usr/share/bash-completion/bash_completion
check "... and 'complete -p hotprof' names _hotprof" bash -c "source /usr/share/bash-completion/bash_completion; XDG_DATA_DIRS='$P/share' PATH='$P/bin:$PATH' __load_completion hotprof; complete -p hotprof | grep -q _hotprof"

# --- an Autotools-style project: ./configure CC=... writes the Makefile (hand-written configure
# honouring CC from the environment or the command line, as autoconf's does).
mkdir -p at && cp "$ROOT/tests/e2e/progs/loops.c" at/main.c
cat > at/configure <<'S'
#!/bin/sh
# configure — hand-written, autoconf-style: CC from the environment or CC=... on the command line.
for a in "$@"; do case $a in CC=*) CC=${a#CC=};; esac; done
: "${CC:=cc}"
printf 'int main(void){return 0;}\n' > conftest.c
"$CC" -o conftest conftest.c || { echo "configure: error: C compiler cannot create executables" >&2; exit 77; }
rm -f conftest conftest.c
echo "checking for C compiler... $CC"
sed "s|@CC@|$CC|" Makefile.in > Makefile
S
chmod +x at/configure
printf 'CC = @CC@\nprog: main.c\n\t$(CC) -O2 -o prog main.c\n' > at/Makefile.in
check "Autotools-style: ./configure CC=hotprof-cc && make" sh -c "cd at && ./configure CC='$P/bin/hotprof-cc' >configure.log && make -s >make.log 2>&1"
check "... its program is instrumented and profiled" sh -c "'$IHP' run -q -o at.data -- ./at/prog >/dev/null && '$IHP' report --format json at.data | grep -q '\"calls\"'"

# --- a dual-functions build from the installed tree: the pass plugin and the assembler front of
# the default --dual-latch=branch (lib/hotprof-as/as, a link to bin/hotprof) are found there
if [ -f "$P/lib/hotprof_dual.so" ]; then
    printf 'int f(int n){int s=0;for(int i=0;i<n;i++)s+=i*i;return s;}\nint main(void){return f(1000)==332833500?0:1;}\n' >dual.c
    check "installed hotprof cc --hooks=dual-functions builds (the default latch branch)" \
        sh -c "HOTPROF_AS_STATS=1 '$P/bin/hotprof-cc' --hooks=dual-functions -O2 -o dualprog dual.c 2>dual.as && grep -q 'rewritten branches' dual.as"
    check "... and runs switched off" env HOTPROF_MODE=off ./dualprog
else
    ok "no dual plugin installed (llvm-14-dev missing): the dual build is not checked"
fi

# --- DESTDIR stages under DESTDIR/PREFIX; hotprof.pc names PREFIX
check "make install DESTDIR=... PREFIX=/opt/hp" make -s -C "$ROOT" install DESTDIR="$T/stage" PREFIX=/opt/hp
check "... files land under DESTDIR/PREFIX" test -x "$T/stage/opt/hp/bin/hotprof" -a -f "$T/stage/opt/hp/share/man/man1/hotprof-run.1"
check "... hotprof.pc says prefix=/opt/hp" grep -qx 'prefix=/opt/hp' "$T/stage/opt/hp/lib/pkgconfig/hotprof.pc"

# --- uninstall leaves no file
check "make uninstall PREFIX=..." make -s -C "$ROOT" uninstall PREFIX="$P"
check_eq "... no file or link left under PREFIX" "$(find "$P" ! -type d | head -n 3)" ""
check "make uninstall DESTDIR=... PREFIX=/opt/hp" make -s -C "$ROOT" uninstall DESTDIR="$T/stage" PREFIX=/opt/hp
check_eq "... no file or link left under DESTDIR" "$(find "$T/stage" ! -type d | head -n 3)" ""
