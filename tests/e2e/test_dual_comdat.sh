#!/usr/bin/env bash
# test_dual_comdat.sh — a C++ inline function kept out of line in two objects (a comdat: the
# linker keeps one copy and discards the other's sections) under the dual hook sets. The records
# the plugin writes from inline asm (sites in __hotprof_dual, block hooks in __hotprof_blkra:
# plugin/dual_hookcall.h recordSection) lie in the function's comdat group, so the discarded copy
# takes its records along. Before that fix the link failed ("referenced in section
# `__hotprof_dual' ... defined in discarded section"). Per build (dual-functions, dual-blocks,
# dual-blocks with count sites, with return sites, and both sets with --dual-latch=branch, which
# assembles with GNU as: its latch branches' records lie in the group too, and the group's
# __patchable_function_entries links, whose fields LLVM prints in an order gas refused):
#   - it links, and each object's records of the inline function are in a group section;
#   - same output as native switched off, exhaustive and in count mode;
#   - exhaustive calls and back-edges of every function equal the plain blocks build's.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual comdat: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
cat >work.hpp <<'CPP'
#include <cstddef>
#include <vector>
__attribute__((noinline)) inline long work(const std::vector<int> &v)
{
    long s = 0;
    for (std::size_t i = 0; i < v.size(); i++) s += (v[i] & 1) ? v[i] : -v[i] / 3;
    return s;
}
long first();
CPP
cat >a.cpp <<'CPP'
#include "work.hpp"
long first() { std::vector<int> v(1000); for (int i = 0; i < 1000; i++) v[i] = i * 7; return work(v); }
CPP
cat >b.cpp <<'CPP'
#include "work.hpp"
#include <cstdio>
static long second() { std::vector<int> v(500); for (int i = 0; i < 500; i++) v[i] = i * 3; return work(v); }
int main() { long t = 0; for (int r = 0; r < 300; r++) t += first() + second(); std::printf("%ld\n", t); }
CPP
clang++ -O2 -o native a.cpp b.cpp && ./native >want.out || fail "native build"
"$HP" c++ --hooks=blocks -O2 -o blocks a.cpp b.cpp && HOTPROF_OUTPUT=blocks.data ./blocks >/dev/null ||
    fail "blocks build"
methods() {
    "$HP" report --format json --top 0 "$1" | python3 -c 'import json, sys
print(" ".join(sorted("%s:%d:%d" % (m["function"], m["calls"], m["backedges"]) for m in json.load(sys.stdin)["methods"])))'
}
want=$(methods blocks.data)
for b in dual-functions dual-blocks dual-blocks.count dual-blocks.ret dual-functions.branch dual-blocks.branch; do
    opts=(--hooks="${b%%.*}")
    case $b in
        *.count) opts+=(--dual-sites=count) ;; *.ret) opts+=(--dual-return-sites=on) ;;
        *.branch) opts+=(--dual-latch=branch) ;;
    esac
    "$HP" c++ "${opts[@]}" -O2 -c a.cpp -o "$b.a.o" && "$HP" c++ "${opts[@]}" -O2 -c b.cpp -o "$b.b.o" ||
        { fail "$b: compile"; continue; }
    grouped=$(readelf -SW "$b.a.o" | grep -cE '__hotprof_(dual|blkra) +PROGBITS +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ +AG ')
    check_eq "$b: records of the inline function lie in its comdat group" "$([ "$grouped" -gt 0 ] && echo yes)" yes
    case $b in *.branch)
        grouped=$(readelf -SW "$b.a.o" | grep -cE '__hotprof_dualbr +PROGBITS +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ +AG ')
        check_eq "$b: latch branch records of the inline function lie in its group" "$([ "$grouped" -gt 0 ] && echo yes)" yes
    esac
    "$HP" c++ "${opts[@]}" -O2 -o "$b" "$b.a.o" "$b.b.o" 2>link.err || { fail "$b: link" "$(tail -2 link.err)"; continue; }
    check_eq "$b: same output as native switched off" "$(HOTPROF_MODE=off "./$b")" "$(cat want.out)"
    check_eq "$b: same output as native, exhaustive" "$(HOTPROF_OUTPUT=$b.data "./$b")" "$(cat want.out)"
    [ "${b%%.*}" = dual-blocks ] && check_eq "$b: exhaustive calls and back-edges = the blocks build's" \
        "$(methods "$b.data")" "$want"
    out=$("$HP" run -o "$b.count.data" --bursts count --sample methods:period=99,burst=1 -- "./$b" 2>run.err)
    check_eq "$b --bursts count: same output as native" "$out" "$(cat want.out)"
done
