#!/usr/bin/env bash
# test_value_modules.sh — value-sampling customization modules (issue 10, DCPI §2.4;
# include/hotprof/module.h, docs/value-modules.md) through the real CLI:
#   - float-operands (build/lib/modules/float_operands.so): only floating-point instructions are
#     captured (no list at load_sevens' integer load), use_one's argument prints as the double 1 with
#     a share >= 97%, the run's INFO names the module and counts its tuples;
#   - same-address: a loop that stores a slot at one instruction and loads it back at another gets,
#     at the load, a module list whose top value is the storing instruction's pc ("after 0x...");
#   - the program's output is unchanged with a module;
#   - bad modules: a missing file, a shared object without hotprof_module_get, a module of another
#     ABI, --module without --values or without --mode timer, report --module with a bad module:
#     one clear message, non-zero exit.
. "$(dirname "$0")/lib.sh"
MODS="$ROOT/build/lib/modules"
[ -f "$MODS/float_operands.so" ] && [ -f "$MODS/same_address.so" ] || { fail vm_built "run make first"; exit 1; }
gcc -O2 -g -o "$T/kv" "$ROOT/tests/workloads/vs_known_values.c" -lm || { fail vm_build_kv; exit 1; }

want=$("$T/kv" 60)
got=$("$HP" run -q --mode timer --values 64/1 --module "$MODS/float_operands.so" -o "$T/f.data" -- "$T/kv" 60 2>/dev/null)
check_eq vm_float_output_unchanged "$got" "$want"
read -r ints ones <<<"$("$HP" report --type value --format json --top 100000 "$T/f.data" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["values"]
ints = sum(1 for r in rows if r["function"] == "load_sevens" for l in r["lists"])
ones = any(l["kind"] == "xmm" and l["values"] and l["values"][0]["value"] == "0x3ff0000000000000"
           and l["values"][0]["share"] >= 0.97 for r in rows if r["function"] == "use_one" for l in r["lists"])
print(ints, int(ones))')"
check_eq vm_float_no_integer_lists "$ints" 0
check_eq vm_float_argument_1.0_found "$ones" 1
check "vm_float_report_prints_doubles" sh -c "'$HP' report --type value --module '$MODS/float_operands.so' '$T/f.data' | grep -A3 use_one | grep -qE ' 1 [0-9.]+%'"
info() { "$HP" info "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
check_eq vm_float_info_names_module "$(info "$T/f.data" values.module)" float-operands
check "vm_float_info_counts_tuples" test "$(info "$T/f.data" values.module.out)" -gt 0

cat > "$T/fwd.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long slot;
__attribute__((noinline)) static unsigned long forward(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++) { slot = i * 3; s += slot; }
    return s;
}
int main(int argc, char **argv)
{
    unsigned long r = 0, n = argc > 1 ? strtoul(argv[1], 0, 10) : 50;
    for (unsigned long k = 0; k < n; k++) r += forward(2000000);
    printf("%lu\n", r);
    return 0;
}
C
gcc -O2 -g -o "$T/fwd" "$T/fwd.c" || { fail vm_build_fwd; exit 1; }
want=$("$T/fwd" 40)
got=$("$HP" run -q --mode timer --values 16/1 --module "$MODS/same_address.so" -o "$T/s.data" -- "$T/fwd" 40 2>/dev/null)
check_eq vm_same_output_unchanged "$got" "$want"
pair=$("$HP" report --type value --format json --top 100000 "$T/s.data" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["values"]
ok = 0
for r in rows:
    if not r["function"].startswith("forward"): continue
    for l in r["lists"]:
        if l["kind"] != "module" or not l["values"]: continue
        top = int(l["values"][0]["value"], 16)
        pc = int(r["addr"], 16)
        if top != pc and abs(top - pc) < 64 and l["values"][0]["share"] >= 0.5: ok = 1
print(ok)')
check_eq vm_same_address_load_after_store "$pair" 1
check "vm_same_report_prints_after" sh -c "'$HP' report --type value --module '$MODS/same_address.so' '$T/s.data' | grep -q 'after 0x'"

# flags "where asked": a module that captures only FLAGS gets flags lists (arithmetic bits only);
# without a module no flags list exists (the runs above)
printf '#include "hotprof/module.h"\nstatic const hotprof_module m = {.abi = HOTPROF_MODULE_ABI, .capture = 1u << HOTPROF_KIND_FLAGS, .name = "flags"};\nconst hotprof_module *hotprof_module_get(void) { return &m; }\n' > "$T/flags.c"
gcc -shared -fPIC -I"$ROOT/include" -o "$T/flags.so" "$T/flags.c"
"$HP" run -q --mode timer --values 8/1 --module "$T/flags.so" -o "$T/fl.data" -- "$T/kv" 20 >/dev/null 2>&1
read -r nflags others bad <<<"$("$HP" report --type value --format json --top 100000 "$T/fl.data" | python3 -c '
import json, sys
ls = [l for r in json.load(sys.stdin)["values"] for l in r["lists"]]
fl = [l for l in ls if l["kind"] == "flags"]
bad = sum(1 for l in fl for v in l["values"] if int(v["value"], 16) & ~0x8d5)
print(len(fl), len(ls) - len(fl), bad)')"
check "vm_flags_captured_when_asked" test "${nflags:-0}" -gt 0
check_eq vm_flags_module_captures_nothing_else "$others" 0
check_eq vm_flags_arithmetic_bits_only "$bad" 0
noflags=$("$HP" report --type value --format json --top 100000 "$T/s.data" | python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin)["values"] for l in r["lists"] if l["kind"] == "flags"))')
check_eq vm_no_flags_without_asking "$noflags" 0

# bad modules
printf 'int not_a_module(void) { return 1; }\n' > "$T/nomod.c"
gcc -shared -fPIC -o "$T/nomod.so" "$T/nomod.c"
printf '#include "hotprof/module.h"\nstatic const hotprof_module m = {.abi = 99, .name = "x"};\nconst hotprof_module *hotprof_module_get(void) { return &m; }\n' > "$T/abi.c"
gcc -shared -fPIC -I"$ROOT/include" -o "$T/abi.so" "$T/abi.c"
check_fails_cleanly vm_missing_module "module.*No such file" "$HP" run --mode timer --values 4/2 --module "$T/none.so" -- "$T/fwd" 1
check_fails_cleanly vm_module_without_abi "does not export hotprof_module_get" "$HP" run --mode timer --values 4/2 --module "$T/nomod.so" -- "$T/fwd" 1
check_fails_cleanly vm_module_other_abi "another ABI" "$HP" run --mode timer --values 4/2 --module "$T/abi.so" -- "$T/fwd" 1
check_fails_cleanly vm_module_needs_values "need --values" "$HP" run --mode timer --module "$MODS/same_address.so" -- "$T/fwd" 1
check_fails_cleanly vm_module_needs_timer "needs --mode timer" "$HP" run --module "$MODS/same_address.so" -- "$T/fwd" 1
check_fails_cleanly vm_report_bad_module "does not export" "$HP" report --type value --module "$T/nomod.so" "$T/s.data"
