#!/usr/bin/env bash
# test_realprogs.sh — bench/lib/realprogs.sh, the real-program helpers of the benchmarks (no real
# build here: that takes minutes; the benchmarks check every build's output against native's):
#  (a) bad options get one clear message and a non-zero exit (unknown program, bad --runs, bad
#      --modes; build_time.sh: an unknown option, --runs 0; real.sh and bench/fastpath/windows.py: a
#      --baseline that is no built tree, --runs 0); a hook set's compiler is one word; rp_clean
#      removes one build (its directory and compiler script) and nothing else;
#  (b) inputs are deterministic: written twice in two build directories, byte for byte the same;
#  (c) rp_check compares a build with native's output *for the same input*: with the full-size
#      and the --quick input both present, checking at one size and then at the other passes
#      (a regression: native outputs were cached per program, not per input, so a --quick check
#      after a full-size one compared against the wrong output), and a build whose output differs
#      is refused with a message naming both files;
#  (d) a hook set name splits into set, sites and the plugin's options (SET[+count][:OPT,...]), and
#      its compiler is one word that passes them on (qjs's Makefile splits a CC with spaces).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
RP="$ROOT/bench/lib/realprogs.sh"

# ---- (a)
check_fails_cleanly "realprogs: unknown program" "unknown program 'perl'" bash "$RP" prepare --programs perl
check_fails_cleanly "realprogs: --runs must be a number" "runs needs a positive integer" \
    bash "$ROOT/bench/fastpath/real.sh" --runs x --build-dir "$T/b"
check_fails_cleanly "realprogs: --modes checked" "is not patch, live or count" \
    bash "$ROOT/bench/hps_sweep/real.sh" --modes fast --build-dir "$T/b"
check_fails_cleanly "realprogs: prepare needs its verb" "usage|prepare" bash "$RP" build
check_fails_cleanly "realprogs: windows.py --runs 0" "runs must be at least 1" \
    python3 "$ROOT/bench/fastpath/windows.py" --runs 0 --build-dir "$T/b"
check_fails_cleanly "realprogs: windows.py --baseline needs a tree" "needs a built hotprof tree" \
    python3 "$ROOT/bench/fastpath/windows.py" --baseline "$T/none" --build-dir "$T/b"
check_fails_cleanly "realprogs: build_time.sh unknown option" "unknown option '--bogus'" \
    bash "$ROOT/bench/fastpath/build_time.sh" --bogus --build-dir "$T/b"
check_fails_cleanly "realprogs: build_time.sh --runs 0" "runs needs a positive integer" \
    bash "$ROOT/bench/fastpath/build_time.sh" --runs 0 --build-dir "$T/b"
check_fails_cleanly "realprogs: real.sh --baseline needs a tree" "needs a built hotprof tree" \
    bash "$ROOT/bench/fastpath/real.sh" --baseline "$T/none" --build-dir "$T/b"

# ---- (d)
split() { bash -c 'rp=$1; shift; . "$rp"; for h in "$@"; do printf "%s|%s|%s;" "$(rp_set "$h")" "$(rp_sites "$h")" "$(rp_opts "$h")"; done' \
    split "$RP" "$@"; }
check_eq "realprogs: hook set names split into set, sites, options" \
    "$(split dual-blocks dual-blocks+count "dual-blocks:-hotprof-dual-peel-max=24" "dual-functions+count:-a=1,-b=2")" \
    "dual-blocks|nop|;dual-blocks|count|;dual-blocks|nop|-mllvm -hotprof-dual-peel-max=24;dual-functions|count|-mllvm -a=1 -mllvm -b=2;"
check_eq "realprogs: a hook set's CSV label has no comma" \
    "$(bash -c '. "$1"; rp_label "dual-blocks:-a=1,--dual-latch=site"' sh "$RP")" "dual-blocks:-a=1;--dual-latch=site"
# the compiler a build gets is one word that passes the options on (qjs's Makefile quotes CC into
# -DCONFIG_CC=\"$(CC)\": a CC with options in it split there, and its qjs builds failed)
comp=$(RP_ROOT="$ROOT" bash -c '. "$1"; rp_compiler "dual-blocks:-hotprof-dual-peel-max=24,--dual-latch=site" "$2"' sh "$RP" "$T/cc1")
check_eq "realprogs: a hook set's compiler is one word" "$comp" "$T/cc1"
check "realprogs: ... that survives qjs's CONFIG_CC quoting and passes the options" sh -c \
    "$comp --print-command -DCONFIG_CC=\\\"$comp\\\" -O2 -c x.c | grep -- '-mllvm -hotprof-dual-peel-max=24' | grep -vq -- -fno-integrated-as"
# a build's directory and compiler script are where rp_build puts them, and rp_clean removes both
# and nothing else (build_time.sh removed them by spelling the layout out itself)
mkdir -p "$T/rb/tcc-dual-blocks" "$T/rb/tcc-native" && touch "$T/rb/tcc-dual-blocks.cc"
check_eq "realprogs: rp_clean removes a build and its compiler script, only those" \
    "$(RP_BUILD="$T/rb" bash -c '. "$1"; [ "$(rp_build_dir tcc dual-blocks)" = "$RP_BUILD/tcc-dual-blocks" ] && rp_clean tcc dual-blocks; ls "$RP_BUILD"' sh "$RP")" \
    "tcc-native"

# ---- (b)
gen() { # DIR QUICK: every program's input, their checksums
    RP_BUILD=$1 RP_QUICK=$2 bash -c '. "$1"; for p in qjs tcc brotli; do md5sum < "$(rp_input $p)"; done' sh "$RP"
}
mkdir -p one two
check_eq "realprogs: --quick inputs are deterministic" "$(gen "$T/one" 1)" "$(gen "$T/two" 1)"
check "realprogs: the tcc input is valid C" env RP_BUILD="$T/one" RP_QUICK=1 bash -c '. "$1"; cc -fsyntax-only -w "$(rp_input tcc)"' sh "$RP"

# ---- (c) fake qjs builds: output = a checksum of the script
printf '#!/bin/sh\nmd5sum < "$1"\n' >native; chmod +x native
cp native hooked
printf '#!/bin/sh\necho different\n' >broken; chmod +x broken
rpc() { RP_BUILD="$T/c" RP_QUICK=$1 bash -c '. "$1"; rp_check qjs "$2" "$3"' sh "$RP" "$2" "$3"; }
mkdir -p c
RP_BUILD="$T/c" RP_QUICK=1 bash -c '. "$1"; rp_input qjs >/dev/null' sh "$RP"
RP_BUILD="$T/c" RP_QUICK=0 bash -c '. "$1"; rp_input qjs >/dev/null' sh "$RP"
check "realprogs: check at the full size" rpc 0 "$T/hooked" "$T/native"
check "realprogs: then at the --quick size (native output per input)" rpc 1 "$T/hooked" "$T/native"
check "realprogs: and back at the full size" rpc 0 "$T/hooked" "$T/native"
check_fails_cleanly "realprogs: a build whose output differs is refused" "output differs from native's" \
    rpc 1 "$T/broken" "$T/native"
