#!/usr/bin/env bash
# test_cc.sh — `hotprof cc` as a compiler wrapper: -c compiles, multi-file links, shared
# libraries, -O0..-O3, C++, the hook sets' flags, gcc where it can and a clear error where not;
# the one-word drivers hotprof-cc / hotprof-c++ in a Makefile project and after make install.
# e2e: alone (it runs make install in the tree)
. "$(dirname "$0")/lib.sh"
cd "$T"
cat > a.c <<'C'
int helper(int x);
int lib_twice(int x);
int main(int argc, char **argv) { (void)argv; int s = 0; for (int i = 0; i < 100 * argc; i++) s += helper(i); return s == 999999 ? 1 : 0; }
C
cat > b.c <<'C'
__attribute__((noinline)) int helper(int x) { return x * 3; }
C
cat > lib.c <<'C'
__attribute__((noinline)) int lib_twice(int x) { return 2 * x; }
C
cat > m.c <<'C'
int lib_twice(int x);
int main(void) { int s = 0; for (int i = 0; i < 50; i++) s += lib_twice(i); return s == 2450 ? 0 : 1; }
C
cat > mem.c <<'C'
int g[100];
int main(int argc, char **argv) { (void)argv; for (int i = 0; i < argc; i++) g[i] += g[i + 1]; return g[3]; }
C
cat > p.cpp <<'C'
#include <vector>
struct Acc { long s = 0; void add(long v) { s += v; } };
int main() { std::vector<long> v(100, 2); Acc a; for (long x : v) a.add(x); return a.s == 200 ? 0 : 1; }
C
for o in -O0 -O1 -O2 -O3; do
    check "compile and link at $o" "$HP" cc $o -o prog$o a.c b.c
    check "instrumented program runs at $o" ./prog$o
done
check "separate -c compiles" "$HP" cc -O2 -c a.c -o a.o
check "-c output has function hooks" sh -c "nm a.o | grep -q __cyg_profile_func_enter"
check "-c output has block hooks" sh -c "nm a.o | grep -q __sanitizer_cov_trace_pc_guard"
check "-c step links no runtime" sh -c "! nm a.o | grep -q ' T __cyg_profile_func_enter'"
check "link of objects" sh -c "'$HP' cc -O2 -c b.c -o b.o && '$HP' cc -o prog_obj a.o b.o && ./prog_obj"
check "linked program carries the runtime" sh -c "nm prog_obj | grep -q ' T __cyg_profile_func_enter'"
check "shared library builds" "$HP" cc -O2 -shared -fPIC -o libtw.so lib.c
check "shared library has no runtime of its own" sh -c "nm -D libtw.so | grep -q ' U __cyg_profile_func_enter'"
check "program linked with the shared library runs" sh -c "'$HP' cc -O2 -o m m.c -L. -ltw -Wl,-rpath,'$T' && ./m"
check "c++ wrapper" sh -c "'$HP' c++ -O2 -o pp p.cpp && ./pp"
check "--hooks=memory adds load/store hooks" sh -c "'$HP' cc --hooks=memory -O2 -c mem.c -o am.o && nm am.o | grep -q __sanitizer_cov_load4"
check "--hooks=compares adds compare hooks" sh -c "'$HP' cc --hooks=compares -O2 -c a.c -o ac.o && nm ac.o | grep -q __sanitizer_cov_trace_"
check "--hooks=functions adds no block hooks" sh -c "'$HP' cc --hooks=functions -O2 -c a.c -o af.o && ! nm af.o | grep -q __sanitizer_cov"
check "HOTPROF_HOOKS selects the hook set" sh -c "HOTPROF_HOOKS=functions '$HP' cc --print-command -c a.c | grep -qv fsanitize-coverage"
check "--calls=source uses -finstrument-functions" sh -c "'$HP' cc --calls=source --print-command -c a.c | grep -q -- '-finstrument-functions '"
# -hotprof-dual-site-exits=dedicated with -g crashed LLVM 14's instruction-referencing
# LiveDebugValues on QuickJS (__JS_EvalInternal); such builds get the classic variable locations
if [ -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    check "dedicated site exits: classic variable locations" sh -c "'$HP' cc --hooks=dual-blocks --print-command -mllvm -hotprof-dual-site-exits=dedicated -c a.c | grep -q -- '-mllvm -experimental-debug-variable-locations=false'"
    check "default site exits: no workaround" sh -c "! '$HP' cc --hooks=dual-blocks --print-command -c a.c | grep -q -- experimental-debug-variable-locations"
    check "dedicated site exits build with -g" "$HP" cc --hooks=dual-blocks -g -O2 -mllvm -hotprof-dual-site-exits=dedicated -c a.c -o ad.o
    check "kept site exits: classic variable locations" sh -c "'$HP' cc --hooks=dual-blocks --print-command -mllvm -hotprof-dual-site-exits=kept -c a.c | grep -q -- '-mllvm -experimental-debug-variable-locations=false'"
fi
check "gcc builds function hooks" sh -c "'$HP' cc --compiler=gcc --hooks=functions -O2 -o pg a.c b.c && ./pg && nm pg | grep -q ' T __cyg_profile_func_enter'"
check_fails_cleanly "gcc with block hooks is refused clearly" "gcc lacks" "$HP" cc --compiler=gcc --hooks=blocks -c a.c
check_fails_cleanly "unknown hook set" "unknown hook set" "$HP" cc --hooks=bogus -c a.c
check_fails_cleanly "missing compiler" "cannot run compiler" "$HP" cc --compiler=/nonexistent/cc -c a.c
check_fails_cleanly "missing compiler with --hooks=functions" "cannot run compiler" "$HP" cc --hooks=functions --compiler=/nonexistent/gcc -c a.c
check "compiler errors pass through with its status" sh -c "echo 'int x = ;' > bad.c; ! '$HP' cc -c bad.c 2>/dev/null"
check "--help lists hook sets" sh -c "'$HP' cc --help | grep -q memory"
check "make install puts command, runtime and header under PREFIX" sh -c "make -s -C '$ROOT' install PREFIX='$T/prefix' >/dev/null && test -x '$T/prefix/bin/hotprof' && test -f '$T/prefix/lib/libhotprof_rt.a' && test -f '$T/prefix/include/hotprof/hotprof.h'"
check "installed hotprof cc finds its runtime" sh -c "'$T/prefix/bin/hotprof' cc -O2 -o inst a.c b.c && '$T/prefix/bin/hotprof' run -q -o inst.data -- ./inst && '$T/prefix/bin/hotprof' report inst.data | grep -q helper"

# One-word compiler drivers: hotprof-cc / hotprof-c++ (a build system that wants a compiler path).
# The Makefile writes $(CC) into a C string, which breaks with CC="hotprof cc" on some builds.
mkdir -p mk && cat > mk/Makefile <<'M'
prog: a.c b.c
	$(CC) -O2 -DBUILT_WITH='"$(CC)"' -o prog a.c b.c
M
cp a.c b.c mk/
check "hotprof-cc builds a Makefile project (CC=hotprof-cc)" make -s -C mk CC="$ROOT/build/bin/hotprof-cc"
check "... its program records calls" sh -c "'$HP' run -q -o mk.data -- ./mk/prog && '$HP' report mk.data | grep -q helper"
check "hotprof-c++ compiles and runs C++ with hooks" sh -c "'$ROOT/build/bin/hotprof-c++' -O2 -o pp2 p.cpp && ./pp2 && nm pp2 | grep -q __cyg_profile_func_enter"
check "hotprof-cc --help is the cc help" sh -c "'$ROOT/build/bin/hotprof-cc' --help | grep -q memory"
check "make install adds hotprof-cc and hotprof-c++" sh -c "test -x '$T/prefix/bin/hotprof-cc' && test -x '$T/prefix/bin/hotprof-c++' && '$T/prefix/bin/hotprof-cc' -O2 -o inst2 a.c b.c && ./inst2"
mkdir -p cm/src cm/build && cat > cm/src/CMakeLists.txt <<'M'
cmake_minimum_required(VERSION 3.10)
project(demo C)
add_executable(prog a.c b.c)
M
cp a.c b.c cm/src/
check "CMake project with CC=hotprof-cc configures and builds" sh -c "cd cm/build && CC='$ROOT/build/bin/hotprof-cc' cmake -S ../src -B . >cmake.log 2>&1 && make -s >make.log 2>&1"
check "... its program records calls" sh -c "'$HP' run -q -o cm.data -- ./cm/build/prog && '$HP' report cm.data | grep -q helper"
check "make uninstall removes what install put under PREFIX" sh -c "make -s -C '$ROOT' uninstall PREFIX='$T/prefix' >/dev/null && test ! -e '$T/prefix/bin/hotprof' && test ! -e '$T/prefix/bin/hotprof-cc' && test ! -e '$T/prefix/lib/libhotprof_rt.a' && test ! -e '$T/prefix/include/hotprof'"
