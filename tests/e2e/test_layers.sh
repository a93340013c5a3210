#!/usr/bin/env bash
# test_layers.sh — the runtime's layering rules (docs/runtime.md, Sources), checked on the sources
# and the built objects:
#  (a) a runtime file includes only runtime headers of its own level or below, in the order
#      base < config < tab, thread, blockmap, modules < ctl/ < pt/ < writer < init, api < hooks;
#      the one exception is thread.c -> init.h (hp_rt_ensure_init on a thread's first event);
#  (b) only init.c, api.c and thread.c include init.h (nothing else calls up into init);
#  (c) only base.o defines a writable process global (hp_g); thread.o's hp_tls is per thread, and
#      pt/'s descriptors are const tables; anything else is file-static (not a global symbol).
. "$(dirname "$0")/lib.sh"
cd "$ROOT/src/runtime"

level() {
    case $1 in
        base.*) echo 0 ;; config.*) echo 1 ;;
        tab.* | thread.* | blockmap.* | modules.*) echo 2 ;;
        ctl/*) echo 3 ;; pt/*) echo 4 ;; writer.*) echo 5 ;;
        init.* | api.*) echo 6 ;; hooks*) echo 7 ;;
        *) echo 99 ;;
    esac
}

bad=""
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    lf=$(level "$f")
    [ "$lf" = 99 ] && bad="$bad $f(no level)"
    for inc in $(sed -n 's|^#include "runtime/\(.*\)"|\1|p' "$f"); do
        li=$(level "$inc")
        [ "$f" = thread.c ] && [ "$inc" = init.h ] && continue
        [ "$li" -le "$lf" ] || bad="$bad $f->$inc"
    done
done
check_eq "layers: every runtime include points down (or within a level)" "${bad# }" ""

users=$(grep -rl '#include "runtime/init.h"' . | sed 's|^\./||' | sort | tr '\n' ' ')
check_eq "layers: only init.c, api.c and thread.c include init.h" "$users" "api.c init.c thread.c "

globals=""
for o in $(find "$ROOT/build/src/runtime" -name '*.o' | sort); do
    for s in $(nm "$o" | awk '$2 ~ /^[BDCGSV]$/ {print $3}'); do
        case "$(basename "$o"):$s" in
            base.o:hp_g | thread.o:hp_tls | registry.o:hp_rt_ptypes | *.o:hp_pt_*) ;;
            *) globals="$globals $(basename "$o"):$s" ;;
        esac
    done
done
check_eq "layers: only base.c defines process globals" "${globals# }" ""
