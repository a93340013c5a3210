"""bench/lib/benchlib.py - running one benchmark process and timing it, shared by
bench/hps_sweep/sweep.py, bench/overhead/measure.py and bench/fastpath/fastpath.py
(standard library only).

run_once runs argv with stdout and stderr into one temporary file and returns
(cpu seconds, wall seconds, output text, exit status); cpu is the user+sys time of the
process tree from os.wait4's rusage (microsecond resolution). With a timeout it polls every
5 ms and kills the child once the timeout has passed; without one it simply waits. While it
runs, the child is in CURRENT, so on_signal (install it for SIGTERM/SIGINT) kills it.
output_ok is the workloads' own check: exit status 0 and a line starting with "ok".
callgrind_instructions runs argv under callgrind (bench/shadow/price.py, bench/fastpath/instr.py,
bench/fastpath/floor_split.py) and returns (instructions executed, stdout); it exits with one message if the run fails.
nop_lengths splits bytes into x86 nops (floor_split.py, tests/e2e/check_dual_sites.py).
instructions does the same with cachegrind (--cache-sim=no) for a total alone (bench/fastpath/instr.py):
callgrind takes a jump into another object as a call, and count mode's sites jump to trampolines on
anonymous pages and back, so in a loop that never returns (a workload's main) its call stack grew by
an entry or two per event until the machine ran out of memory (lexgen's dual-functions build: 4.1 GB
at size 20, 16 GB at the quick size; --pop-on-jump halves it, a returning jump is then taken for a
jump and pushes again); cachegrind tracks no calls (70 MB at both sizes). Both count every
instruction the program executes; their totals differ by a constant few thousand (callgrind starts
counting a little later), 1e-5 of a workload's quick run.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# Benchmarks name dual builds by their sites: SET is the nop build, SET+count (or
# --dual-sites=count) the build with inline count sites, hotprof cc's default for dual-functions
# and dual-blocks since session 39. So every committed result keeps its meaning, a bench run
# builds nop sites unless told otherwise.
os.environ.setdefault("HOTPROF_DUAL_SITES", "nop")

CURRENT = []   # the child being timed, killed if we are interrupted


def on_signal(signum, frame):
    for proc in CURRENT:
        proc.kill()
    sys.exit(128 + signum)


def handle_signals():
    """SIGTERM and SIGINT end the benchmark through on_signal (the child being timed killed first)."""
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def run_once(argv, timeout=None, env=None):
    """Run argv; return (cpu seconds, wall seconds, stdout+stderr text, exit status)."""
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        CURRENT[:] = [proc]
        if timeout is None:
            pid, status, usage = os.wait4(proc.pid, 0)
        else:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - start > timeout:
                    proc.kill()
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.005)
        wall = time.monotonic() - start
        CURRENT.clear()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    return usage.ru_utime + usage.ru_stime, wall, text, proc.returncode


def output_ok(rc, text):
    """A workload's run passed: exit 0 and a line of its output starts with "ok"."""
    return rc == 0 and any(line.startswith("ok") for line in text.splitlines())


def _valgrind_total(tool, argv, env, pattern):
    """(the total PATTERN's group 1 reads from valgrind TOOL's report on argv, argv's stdout);
    exits with one message if the run fails."""
    res = subprocess.run(["valgrind"] + tool + argv, capture_output=True, text=True, env=env)
    m = re.search(pattern, res.stderr)
    if res.returncode != 0 or not m:
        sys.exit("%s failed on %s (exit %d): %s" % (tool[0].split("=")[1], " ".join(argv), res.returncode,
                                                   res.stderr[-800:]))
    return int(m.group(1).replace(",", "")), res.stdout


def callgrind_instructions(argv, env=None, profile="/dev/null", options=()):
    """(instructions callgrind collected for argv, argv's stdout); the profile goes to PROFILE
    (nowhere by default), OPTIONS are callgrind's own (e.g. --dump-instr=yes)."""
    return _valgrind_total(["--tool=callgrind", "--callgrind-out-file=" + profile] + list(options), argv, env,
                           r"Collected : (\d+)")


def instructions(argv, env=None):
    """(instructions cachegrind counted for argv, argv's stdout): a total without callgrind's call
    tracking (the module's docstring says why)."""
    return _valgrind_total(["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"], argv, env,
                           r"I\s+refs:\s+([\d,]+)")


def nop_lengths(b):
    """The lengths of the x86 nops the bytes b are made of (0x66/0x2e prefixes, then 0f 1f with a
    memory operand, or 0x90: what clang and GNU as pad with), or None if b is something else.
    Used by bench/fastpath/floor_split.py and tests/e2e/check_dual_sites.py."""
    out, i = [], 0
    while i < len(b):
        j = i
        while j < len(b) and b[j] in (0x66, 0x2E):
            j += 1
        if j < len(b) and b[j] == 0x90:
            n = j + 1 - i
        elif b[j:j + 2] == b"\x0f\x1f" and j + 2 < len(b):
            mod, rm = b[j + 2] >> 6, b[j + 2] & 7
            n = j + 3 - i + (1 if rm == 4 and mod != 3 else 0) + {0: 0, 1: 1, 2: 4, 3: 0}[mod]
        else:
            return None
        out.append(n)
        i += n
    return out if i == len(b) else None


def info_keys(hotprof, profile):
    """The INFO keys of a profile (`hotprof info`: indented KEY VALUE lines; later groups override
    earlier ones), as strings."""
    text = subprocess.run([hotprof, "info", profile], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, timeout=600).stdout
    keys = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and line.startswith("  "):
            keys[parts[0]] = parts[1].strip()
    return keys
