#!/usr/bin/env bash
# test_dual_progs.sh — two-version code keeps the program's behaviour: the e2e programs with C++
# exceptions (rt_throw), setjmp/longjmp (rt_longjmp), threads (rt_threads), a signal handler
# (patch_sigtrap: int3 to the program's own SIGTRAP handler), and shared libraries (dso_main with a
# linked and a dlopen'ed/dlclose'd instrumented library) print the same as their native build in
# every dual hook set, exhaustive, bursty (patched windows at 1/100), count-triggered bursts
# (HOTPROF_BURSTS=count: trampolines; the dlopen'ed library gets its own when it registers) and
# with HOTPROF_MODE=off — and dual-blocks and dual-functions builds with inline count sites
# (dual-blocks-cs, dual-functions-cs: `hotprof cc --dual-sites=count`, whose loop-free functions'
# entries are 16-byte pads, the wrapper form's F.hotprof calling F + 16) and one with return sites (dual-blocks-rs: `hotprof cc
# --dual-return-sites=on`; these two and dual-blocks also with count-mode subpaths, where return
# sites are written, the dlopen'ed library's at registration) and the loop-entry form (dual-blocks-le:
# -mllvm -hotprof-dual-loops=entry, with its way back) and the latch branches as sites
# (dual-blocks-lb: `hotprof cc --dual-latch=branch`, the dlopen'ed library's switched when it
# registers, dlclose'd ones forgotten); exhaustive runs also report the
# programs' own expected counts ("expect F N" lines, check_expect.py) where they print them.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual progs: no plugin built (llvm-14-dev missing): skipped"; exit 0; }

# same_output LABEL ARGS...: native vs each dual set x mode
same_output() {
    local label=$1; shift
    "./$label.native" "$@" 2>&1 | grep -v '^rss_kb' >"$label.want"
    for hs in dual-functions dual-blocks dual-memory dual-blocks-cs dual-functions-cs dual-blocks-rs dual-blocks-le dual-blocks-lb; do
        local modes="exhaustive off bursty count"
        case $hs in dual-blocks|dual-blocks-cs|dual-blocks-rs|dual-blocks-le|dual-blocks-lb) modes="$modes subpath";; esac
        for mode in $modes; do
            local sample="methods:period=99,burst=1;callpairs:period=99,burst=1"
            [ $mode = subpath ] && sample=subpath
            HOTPROF_SAMPLE="$sample" HOTPROF_BURSTS=$(case $mode in count|subpath) echo count;; *) echo auto;; esac) \
            HOTPROF_MODE=$(case $mode in count|subpath) echo bursty;; *) echo $mode;; esac) HOTPROF_OUTPUT="$label.$hs.$mode.data" LD_LIBRARY_PATH="$T/$hs" "./$label.$hs" "$@" 2>&1 |
                grep -v '^rss_kb' >"$label.$hs.$mode.got"
            check_eq "$label $hs $mode: same output as native" "$(cat "$label.$hs.$mode.got")" "$(cat "$label.want")"
        done
        if grep -q '^expect ' "$label.want"; then
            "$HP" report --format json --top 0 "$label.$hs.exhaustive.data" >"$label.$hs.json" &&
                python3 "$ROOT/tests/e2e/check_expect.py" "$label.want" "$label.$hs.json" "$label $hs"
        fi
    done
}

build() { # LABEL COMPILER SRC EXTRA...: native and the three dual builds
    local label=$1 comp=$2 src=$3; shift 3
    $comp -O2 -o "$label.native" "$src" "$@" -lpthread || { fail "$label: native build"; return 1; }
    for hs in dual-functions dual-blocks dual-memory; do
        "$HP" "$comp" --hooks="$hs" -O2 -o "$label.$hs" "$src" "$@" -lpthread || { fail "$label: $hs build"; return 1; }
    done
    "$HP" "$comp" --hooks=dual-blocks --dual-sites=count -O2 -o "$label.dual-blocks-cs" "$src" "$@" -lpthread ||
        { fail "$label: dual-blocks --dual-sites=count build"; return 1; }
    "$HP" "$comp" --hooks=dual-functions --dual-sites=count -O2 -o "$label.dual-functions-cs" "$src" "$@" -lpthread ||
        { fail "$label: dual-functions --dual-sites=count build"; return 1; }
    "$HP" "$comp" --hooks=dual-blocks --dual-return-sites=on -O2 -o "$label.dual-blocks-rs" "$src" "$@" -lpthread ||
        { fail "$label: dual-blocks --dual-return-sites=on build"; return 1; }
    # shellcheck disable=SC2046
    "$HP" "$comp" $(hsflags dual-blocks-le) -O2 -o "$label.dual-blocks-le" "$src" "$@" -lpthread ||
        { fail "$label: dual-blocks loop-entry form build"; return 1; }
    # shellcheck disable=SC2046
    "$HP" "$comp" $(hsflags dual-blocks-lb) -O2 -o "$label.dual-blocks-lb" "$src" "$@" -lpthread ||
        { fail "$label: dual-blocks --dual-latch=branch build"; return 1; }
}
hsflags() {
    case $1 in
        dual-blocks-rs) echo "--hooks=dual-blocks --dual-return-sites=on" ;;
        dual-blocks-le) echo "--hooks=dual-blocks -mllvm -hotprof-dual-loops=entry" ;;
        dual-blocks-lb) echo "--hooks=dual-blocks --dual-latch=branch" ;;
        *) echo "--hooks=$1" ;;
    esac
}

build rt_throw c++ "$P/rt_throw.cpp" && same_output rt_throw 1000
build rt_longjmp cc "$P/rt_longjmp.c" && same_output rt_longjmp 1000
build rt_threads cc "$P/rt_threads.c" && same_output rt_threads 200
build patch_sigtrap cc "$P/patch_sigtrap.c" && same_output patch_sigtrap siginfo 15000 20 2

# shared libraries: libdso_lib.so linked, libdso_plugin.so dlopen'ed and dlclose'd
clang -O2 -shared -fPIC -o libdso_lib.so "$P/dso_lib.c" && clang -O2 -shared -fPIC -DDSO_PLUGIN -o plugin.so "$P/dso_lib.c" &&
    clang -O2 -o dso.native "$P/dso_main.c" -L. -ldso_lib -Wl,-rpath,'$ORIGIN' -ldl || fail "dso: native build"
for hs in dual-functions dual-blocks dual-memory dual-blocks-rs dual-blocks-le dual-blocks-lb; do
    mkdir -p "$hs"
    # shellcheck disable=SC2046
    "$HP" cc $(hsflags $hs) -O2 -shared -fPIC -o "$hs/libdso_lib.so" "$P/dso_lib.c" &&
        "$HP" cc $(hsflags $hs) -O2 -shared -fPIC -DDSO_PLUGIN -o "$hs/plugin.so" "$P/dso_lib.c" &&
        "$HP" cc $(hsflags $hs) -O2 -o "dso.$hs" "$P/dso_main.c" -L"$hs" -ldso_lib -ldl || fail "dso: $hs build"
done
./dso.native ./plugin.so >dso.want 2>&1
for hs in dual-blocks dual-blocks-rs dual-blocks-le dual-blocks-lb; do
    HOTPROF_MODE=bursty HOTPROF_BURSTS=count HOTPROF_SAMPLE=subpath HOTPROF_OUTPUT="dso.$hs.s.data" \
        LD_LIBRARY_PATH="$T/$hs" "./dso.$hs" "./$hs/plugin.so" >"dso.$hs.s.got" 2>&1
    check_eq "dso $hs count subpaths: same output as native" "$(cat "dso.$hs.s.got")" "$(cat dso.want)"
done
for hs in dual-functions dual-blocks dual-memory dual-blocks-rs dual-blocks-le dual-blocks-lb; do
    HOTPROF_OUTPUT="dso.$hs.data" LD_LIBRARY_PATH="$T/$hs" "./dso.$hs" "./$hs/plugin.so" >"dso.$hs.got" 2>&1
    check_eq "dso $hs: same output as native" "$(cat "dso.$hs.got")" "$(cat dso.want)"
    HOTPROF_MODE=bursty HOTPROF_SAMPLE="methods:period=9,burst=1" HOTPROF_OUTPUT="dso.$hs.b.data" \
        LD_LIBRARY_PATH="$T/$hs" "./dso.$hs" "./$hs/plugin.so" >"dso.$hs.b.got" 2>&1
    check_eq "dso $hs bursty: same output as native" "$(cat "dso.$hs.b.got")" "$(cat dso.want)"
    HOTPROF_MODE=bursty HOTPROF_BURSTS=count HOTPROF_SAMPLE="methods:period=9,burst=1" HOTPROF_OUTPUT="dso.$hs.c.data" \
        LD_LIBRARY_PATH="$T/$hs" "./dso.$hs" "./$hs/plugin.so" >"dso.$hs.c.got" 2>&1
    check_eq "dso $hs count: same output as native" "$(cat "dso.$hs.c.got")" "$(cat dso.want)"
    "$HP" report --format json --top 0 "dso.$hs.data" >"dso.$hs.json" &&
        python3 "$ROOT/tests/e2e/check_expect.py" dso.want "dso.$hs.json" "dso $hs"
done
