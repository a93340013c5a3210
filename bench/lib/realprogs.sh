#!/usr/bin/env bash
# bench/lib/realprogs.sh - the three real programs of /work/shared/realprogs (QuickJS `qjs`, TinyCC
# `tcc`, Brotli `brotli`) as benchmark programs: build them natively (clang -O2) and with
# `hotprof cc --hooks=SET`, write their inputs, and check that every build's output equals the
# native build's. Shared by bench/fastpath/real.sh, bench/hps_sweep/real.sh, bench/xray/real.sh.
#
# Two uses:
#   source bench/lib/realprogs.sh      functions rp_* and the common option parser rp_parse
#   bash bench/lib/realprogs.sh prepare [--quick] [--programs "qjs tcc brotli"]
#        [--hooks "native functions ..."] [--build-dir DIR]
#                                      builds + checks, then prints one manifest line per build:
#                                      PROG<TAB>HOOKS<TAB>BINARY<TAB>TEXT_BYTES<TAB>ARGS...
#                                      (ARGS: the run's arguments; an argument "@OUT" stands for
#                                      an output file the caller chooses)
#
# Invariants: the pristine sources are copied (cp -r) into BUILD/PROG-HOOKS and never edited; a
# build is redone when its compile command, the runtime or the dual plugin changed (stamp file); a build
# whose output differs from native's is an error (exit 1), never a manifest line; inputs are
# written once per size into BUILD/inputs and are deterministic (same bytes on every call).
# Builds run with HOTPROF_MODE=off so that a build tool built by hotprof cc (qjsc) records nothing.

RP_ROOT=${RP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RP_SRC=${HOTPROF_REALPROGS:-$RP_ROOT/../shared/realprogs}   # the pristine copies (never edited)
RP_HOTPROF="$RP_ROOT/build/bin/hotprof"
RP_ALL_PROGRAMS="qjs tcc brotli"
RP_ALL_HOOKS="native functions blocks xray dual-functions dual-blocks"

rp_log() { echo "[${RP_TAG:-realprogs} $(date +%H:%M:%S)] $*" >&2; }
rp_die() { echo "${RP_TAG:-realprogs}: $1" >&2; exit "${2:-1}"; }

# rp_parse ARGS...: the options every real-program script takes. Sets RP_RUNS (default
# RP_DEFAULT_RUNS, 1 with --quick), RP_QUICK, RP_PROGRAMS, RP_BUILD, RP_RESULTS; options it does not
# know are left in RP_REST (an array) for the caller; --help calls the caller's usage function.
rp_parse() {
    RP_RUNS=""; RP_QUICK=0; RP_PROGRAMS=$RP_ALL_PROGRAMS
    RP_BUILD=${RP_BUILD:-$RP_ROOT/build/bench-realprogs}; RP_RESULTS=$RP_ROOT/bench/results; RP_REST=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --quick) RP_QUICK=1 ;;
            --runs) [ $# -ge 2 ] || rp_die "--runs needs a value" 2; RP_RUNS=$2; shift ;;
            --programs) [ $# -ge 2 ] || rp_die "--programs needs a list" 2; RP_PROGRAMS=$2; shift ;;
            --build-dir) [ $# -ge 2 ] || rp_die "--build-dir needs a directory" 2; RP_BUILD=$2; shift ;;
            --results) [ $# -ge 2 ] || rp_die "--results needs a directory" 2; RP_RESULTS=$2; shift ;;
            -h|--help) usage 0 ;;
            *) RP_REST+=("$1") ;;
        esac
        shift
    done
    [ -n "$RP_RUNS" ] || { [ "$RP_QUICK" = 1 ] && RP_RUNS=1 || RP_RUNS=${RP_DEFAULT_RUNS:-3}; }
    case "$RP_RUNS" in ''|*[!0-9]*|0) rp_die "--runs needs a positive integer, not '$RP_RUNS'" 2 ;; esac
    local p
    for p in $RP_PROGRAMS; do
        case " $RP_ALL_PROGRAMS " in *" $p "*) ;; *) rp_die "unknown program '$p' (known: $RP_ALL_PROGRAMS)" 2 ;; esac
    done
    mkdir -p "$RP_BUILD" "$RP_RESULTS"
    RP_BUILD=$(cd "$RP_BUILD" && pwd)
}

# rp_ensure_hotprof: build hotprof and its runtime if missing (the plugin comes with `make`).
rp_ensure_hotprof() {
    if [ ! -x "$RP_HOTPROF" ] || [ ! -f "$RP_ROOT/build/lib/libhotprof_rt.a" ]; then
        rp_log "building hotprof"
        make -s -C "$RP_ROOT" build/bin/hotprof build/lib/libhotprof_rt.a >&2
    fi
    # (a script asked for no real program, e.g. budget.sh --programs "", needs no sources)
    [ -z "${RP_PROGRAMS// /}" ] || [ -d "$RP_SRC/quickjs" ] || rp_die "no real programs in $RP_SRC (set HOTPROF_REALPROGS)"
}

# rp_has_dual: the dual hook sets exist (the LLVM pass plugin was built).
rp_has_dual() { [ -f "$RP_ROOT/build/lib/hotprof_dual.so" ]; }

# rp_hooks_available LIST: LIST without the dual sets when the plugin is absent (with a message).
rp_hooks_available() {
    local h out=""
    for h in $1; do
        case "$h" in
            dual-*) if rp_has_dual; then out="$out $h"; else rp_log "no build/lib/hotprof_dual.so: skipping $h"; fi ;;
            *) out="$out $h" ;;
        esac
    done
    echo $out
}

# A hook set name SET+count (e.g. dual-blocks+count) is SET built with inline count sites
# (`hotprof cc --dual-sites=count`, docs/dual.md); SET[+count]:OPT[,OPT...] adds the dual
# plugin's options (e.g. dual-blocks:-hotprof-dual-peel-max=24: `-mllvm OPT` each) and hotprof
# cc's own (an OPT that starts with "--", e.g. dual-blocks:--dual-latch=branch, goes as it is);
# rp_set, rp_sites and rp_opts split it.
rp_set() { local s=${1%%:*}; echo "${s%+count}"; }
# rp_label HOOKS: the hook set's name for a CSV column (its options' commas as ';')
rp_label() { echo "${1//,/;}"; }
rp_sites() { case "${1%%:*}" in *+count) echo count ;; *) echo nop ;; esac; }
rp_opts() {
    case "$1" in *:*) ;; *) return ;; esac
    local o out="" IFS=,
    for o in ${1#*:}; do case $o in --*) out="$out $o" ;; *) out="$out -mllvm $o" ;; esac; done
    echo "${out# }"
}

rp_stamp() {   # HOOKS: what a build depends on besides the sources (the compile command, the runtime)
    [ "$1" = native ] && { clang --version | head -n 1; return; }
    # shellcheck disable=SC2046
    "$RP_HOTPROF" cc --hooks="$(rp_set "$1")" --dual-sites="$(rp_sites "$1")" $(rp_opts "$1") --print-command -O2 -c x.c 2>&1
    stat -c '%n %Y %s' "$RP_ROOT/build/lib/libhotprof_rt.a" "$RP_ROOT/build/lib/hotprof_dual.so" 2>/dev/null
}

# rp_compiler HOOKS SCRIPT: the compiler for HOOKS as one word (clang, or SCRIPT written to run
# hotprof-cc with the hook set's options): qjs's Makefile quotes CC into -DCONFIG_CC=\"$(CC)\",
# which splits a CC with options in it into words the compiler then gets as arguments.
rp_compiler() {
    [ "$1" = native ] && { echo clang; return; }
    printf '#!/bin/sh\nexec %s %s "$@"\n' "$RP_ROOT/build/bin/hotprof-cc" "$(rp_opts "$1")" >"$2" && chmod +x "$2" &&
        echo "$2"
}

# rp_build_dir PROG HOOKS: where rp_build builds PROG with HOOKS (and DIR.cc its compiler script).
rp_build_dir() { echo "$RP_BUILD/$1-$2"; }

# rp_clean PROG HOOKS: removes that build (its directory and compiler script).
rp_clean() {
    local dir; dir=$(rp_build_dir "$1" "$2")
    rm -rf "$dir" "$dir.cc"
}

# rp_build PROG HOOKS: build PROG with HOOKS ("native" = clang -O2) in rp_build_dir;
# prints the binary's path.
rp_build() {
    local prog=$1 hooks=$2 dir cc bin
    dir=$(rp_build_dir "$prog" "$hooks")
    case "$prog" in qjs) bin="$dir/qjs" ;; tcc) bin="$dir/tcc" ;; brotli) bin="$dir/brotli" ;; esac
    if [ -x "$bin" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$(rp_stamp "$hooks")" ]; then echo "$bin"; return; fi
    rp_log "building $prog ($hooks)"
    rp_clean "$prog" "$hooks"
    cc=$(rp_compiler "$hooks" "$dir.cc")
    local t0=$SECONDS
    (   export HOTPROF_HOOKS=$(rp_set "$hooks") HOTPROF_DUAL_SITES=$(rp_sites "$hooks") HOTPROF_MODE=off
        export HOTPROF_QUIET=1 HOTPROF_OUTPUT=/dev/null
        [ "$hooks" = native ] && unset HOTPROF_HOOKS HOTPROF_DUAL_SITES
        case "$prog" in
            qjs) cp -r "$RP_SRC/quickjs" "$dir" && cd "$dir" && make -s -j2 qjs CC="$cc" >build.log 2>&1 ;;
            tcc) cp -r "$RP_SRC/tinycc" "$dir" && cd "$dir" && ./configure --cc="$cc" --config-predefs=no >build.log 2>&1 &&
                     make -s -j2 tcc >>build.log 2>&1 ;;
            brotli) cp -r "$RP_SRC/brotli" "$dir" && cd "$dir" &&
                     $cc -O2 -g -Ic/include c/common/*.c c/dec/*.c c/enc/*.c c/tools/brotli.c -lm -o brotli >build.log 2>&1 ;;
        esac
    ) || { tail -20 "$dir/build.log" >&2; rp_die "build of $prog with $hooks failed (log: $dir/build.log)"; }
    echo $((SECONDS - t0)) >"$dir/.build_seconds"
    rp_stamp "$hooks" >"$dir/.stamp"
    echo "$bin"
}

# rp_text_bytes BINARY: size of the program's .text (the runtime's own code included for hooked
# builds; see bench/fastpath/real.sh for the split).
rp_text_bytes() { size -A "$1" | awk '$1 == ".text" {print $2}'; }

# rp_size PROG: the input size parameter (full: ~1-3 s native; --quick: ~0.1-0.3 s).
# qjs: rounds of the script; tcc: functions in the C file; brotli: KB of text.
rp_size() {
    case "$1:$RP_QUICK" in
        qjs:0) echo 100 ;;   qjs:1) echo 6 ;;      # rounds
        tcc:0) echo 80000 ;; tcc:1) echo 800 ;;     # functions
        brotli:0) echo 4000 ;; brotli:1) echo 300 ;; # KB of text, quality 10
    esac
}

# rp_input PROG: write PROG's input for its size (once) and print its path.
rp_input() {
    local prog=$1 n; n=$(rp_size "$1")
    mkdir -p "$RP_BUILD/inputs"
    local f="$RP_BUILD/inputs/$prog-$n"
    case "$prog" in qjs) f="$f.js" ;; tcc) f="$f.c" ;; brotli) f="$f.txt" ;; esac
    if [ ! -s "$f" ]; then
        case "$prog" in
            qjs) rp_js_input "$n" >"$f.tmp" ;;
            tcc) rp_c_input "$n" >"$f.tmp" ;;
            brotli) rp_text_input "$n" "$f.tmp" ;;
        esac
        mv "$f.tmp" "$f"
    fi
    echo "$f"
}

# rp_args PROG INPUT: the run's arguments (@OUT: the output file, chosen by the caller).
rp_args() {
    case "$1" in
        qjs) echo "$2" ;;
        tcc) echo "-B$RP_BUILD/tcc-native -c $2 -o @OUT" ;;
        brotli) echo "-f -q 10 $2 -o @OUT" ;;
    esac
}

# rp_run BINARY PROG INPUT OUT: one run, its result (stdout for qjs, the output file otherwise)
# in OUT.
rp_run() {
    local args; args=$(rp_args "$2" "$3")
    args=${args//@OUT/$4.o}
    # shellcheck disable=SC2086
    if [ "$2" = qjs ]; then "$1" $args >"$4"; else "$1" $args && mv "$4.o" "$4"; fi
}

# rp_check PROG BINARY NATIVE_BINARY: BINARY's output equals the native build's (run in
# HOTPROF_MODE=off and exhaustively for hooked builds; the exhaustive run is the check that
# matters: every hook on).
rp_check() {
    local prog=$1 bin=$2 native=$3 in; in=$(rp_input "$prog")
    local d="$RP_BUILD/check" base; base=$(basename "$in")   # one native output per input
    mkdir -p "$d"
    [ -s "$d/$base.native" ] && [ "$d/$base.native" -nt "$native" ] && [ "$d/$base.native" -nt "$in" ] ||
        rp_run "$native" "$prog" "$in" "$d/$base.native" || rp_die "native $prog failed on $in"
    [ "$bin" = "$native" ] && return 0
    HOTPROF_QUIET=1 HOTPROF_OUTPUT="$d/$base.check.data" rp_run "$bin" "$prog" "$in" "$d/$base.hooked" ||
        rp_die "$bin failed on $in"
    cmp -s "$d/$base.native" "$d/$base.hooked" || rp_die "$bin: output differs from native's ($d/$base.{native,hooked})"
    if [ "$prog" = brotli ]; then   # the compressed stream must also round-trip
        "$native" -d -c "$d/$base.hooked" | cmp -s - "$in" || rp_die "$bin: output does not decompress to the input"
    fi
}

# rp_prepare HOOKS_LIST: build + check every program of RP_PROGRAMS with every hook set; print the
# manifest (see the header).
rp_prepare() {
    rp_ensure_hotprof
    local prog h bin native in
    for prog in $RP_PROGRAMS; do
        in=$(rp_input "$prog")
        native=$(rp_build "$prog" native)
        for h in $(rp_hooks_available "$1"); do
            bin=$(rp_build "$prog" "$h")
            rp_check "$prog" "$bin" "$native"
            printf '%s\t%s\t%s\t%s\t%s\n' "$prog" "$h" "$bin" "$(rp_text_bytes "$bin")" "$(rp_args "$prog" "$in")"
        done
    done
}

# --- inputs ------------------------------------------------------------------------------------

# rp_js_input N: a JavaScript program of N rounds (objects, closures, strings, arrays, sort,
# recursion, a regexp), printing one checksum line.
rp_js_input() {
    cat <<EOF
"use strict";
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function Point(x, y) { this.x = x; this.y = y; }
Point.prototype.norm2 = function () { return this.x * this.x + this.y * this.y; };
function shapes(n) {
    let s = 0;
    for (let i = 0; i < n; i++) { const p = new Point(i % 97, i % 89); s = (s + p.norm2()) % 1000003; }
    return s;
}
function words(n) {
    const parts = [];
    for (let i = 0; i < n; i++) parts.push("w" + (i * 7919 % 1000).toString(36));
    const text = parts.join(" ");
    const m = text.match(/w[a-f]+/g) || [];
    const counts = {};
    for (const w of text.split(" ")) counts[w] = (counts[w] || 0) + 1;
    return m.length + Object.keys(counts).length;
}
function sorting(n) {
    const a = [];
    let x = 12345;
    for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; a.push(x % 100000); }
    a.sort((p, q) => p - q);
    return a[n >> 1];
}
function closures(n) {
    const fs = [];
    for (let i = 0; i < 64; i++) fs.push(v => (v * (i + 1)) % 65521);
    let v = 1;
    for (let i = 0; i < n; i++) v = fs[i & 63](v + 1);
    return v;
}
let sum = 0;
for (let r = 0; r < $1; r++) {
    sum = (sum + fib(18) + shapes(20000) + words(3000) + sorting(8000) + closures(40000)) % 1000000007;
}
console.log("ok " + sum);
EOF
}

# rp_c_input N: a self-contained C file (no #include) of N functions for tcc -c: structs,
# loops, switches, macros, pointer arithmetic.
rp_c_input() {
    cat <<'EOF'
typedef unsigned long size_t;
struct node { struct node *next; long key; double w; char tag[8]; };
#define MIX(a, b) (((a) << 5) ^ ((b) >> 3) ^ ((a) * 31 + (b)))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))
static long table[256];
long f0_ptr(long k);
EOF
    awk -v n="$1" 'BEGIN {
        for (i = 0; i < n; i++) {
            prev = i > 0 ? i - 1 : 0
            printf "static long f%d(struct node *n, long k, const char *s)\n{\n", i
            printf "    long acc = %d, j;\n", i
            printf "    for (j = 0; n && j < k; j++, n = n->next) {\n"
            printf "        switch ((n->key + j) & 3) {\n"
            printf "        case 0: acc += MIX(n->key, j) + table[(j + %d) & 255]; break;\n", i
            printf "        case 1: acc ^= (long)(n->w * 3.5) + s[j & 7]; break;\n"
            printf "        case 2: acc -= CLAMP(n->key, -%d, %d) * 7; break;\n", i, i
            printf "        default: acc = acc * 13 + n->tag[j & 7];\n        }\n    }\n"
            printf "    while (acc > 1000000L) acc = (acc >> 1) - %d;\n", i % 97
            printf "    return acc + (k > 0 ? f%d_ptr(k - 1) : 0);\n}\n", prev
            printf "long f%d_ptr(long k) { return k * %d; }\n", i, i % 13 + 1
        }
    }'
}

# rp_text_input KB FILE: KB kilobytes of text from /usr/share (licenses, docs, Perl
# modules, word lists) into FILE, concatenated in sorted order, repeated if there is too little.
rp_text_input() {
    local want=$(( $1 * 1000 )) files total
    files=$(find /usr/share/common-licenses /usr/share/doc /usr/share/perl /usr/share/dict \
                 -type f \( -name '*.txt' -o -name 'copyright' -o -name '*.pm' -o -name 'README*' \
                 -o -path '*/common-licenses/*' -o -path '*/dict/*' \) -size -2M 2>/dev/null | LC_ALL=C sort)
    [ -n "$files" ] || rp_die "no text found under /usr/share for the brotli input"
    # shellcheck disable=SC2086
    total=$(cat $files | wc -c)
    : >"$2"
    local have=0
    while [ "$have" -lt "$want" ]; do
        # shellcheck disable=SC2086
        cat $files >>"$2"
        have=$(( have + total ))
    done
    truncate -s "$want" "$2"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then   # run as a command
    set -euo pipefail
    RP_TAG=realprogs
    usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
    [ "${1:-}" = prepare ] || usage 2 >&2
    shift
    rp_parse "$@"
    hooks=$RP_ALL_HOOKS
    set -- "${RP_REST[@]+"${RP_REST[@]}"}"
    while [ $# -gt 0 ]; do
        case "$1" in
            --hooks) hooks=$2; shift ;;
            *) rp_die "unknown argument '$1'" 2 ;;
        esac
        shift
    done
    rp_prepare "$hooks"
fi
