#!/usr/bin/env bash
# setup.sh — installs the Debian packages hotprof needs to build, test and benchmark, only those
# that are missing (a no-op when all are present). Needs root (or sudo) when something is missing.
set -eu
packages=(make gcc clang libclang-rt-14-dev llvm-14-dev libdw-dev libelf-dev zlib1g-dev libzstd-dev libcapstone-dev
          libseccomp-dev libprotobuf-c-dev protobuf-c-compiler valgrind python3 hyperfine cmake
          man-db groff-base pkg-config bash-completion libncurses-dev tmux libunwind-dev
          chromium golang-go bzip2 xz-utils sqlite3 linux-perf libgoogle-perftools4 time)
          # chromium, golang-go: tests only (test_html.sh renders the HTML report headless;
          # test_pprof.sh reads our pprof with go tool pprof); tmux: test_top.sh drives hotprof top's
          # screen; libunwind-dev: timer mode's unwinder (its header at build time, libunwind.so.8
          # dlopen'ed at run time); bzip2, xz-utils, sqlite3: Debian programs timer mode is tested on
          # (test_timer.sh, test_interp_debian.sh); linux-perf, libgoogle-perftools4 (libprofiler.so):
          # the peers of bench/value_sampling; time (GNU time): max RSS in bench/osp and
          # bench/multihash_real
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
