#!/usr/bin/env bash
# gen_man.sh HOTPROF OUTDIR — writes the manual pages into OUTDIR (make runs it into build/man/):
#   hotprof.1 and hotprof-CMD.1 for every command of HOTPROF's table (`hotprof help --complete`):
#     `hotprof help --man [CMD]` (from the option tables --help prints), then the hand-written
#     sections docs/man/NAME.roff if there is one (EXAMPLES, ENVIRONMENT, ...), then SEE ALSO;
#   hotprof-format.5 from docs/format.md (scripts/md2man.awk).
# The pages are made in OUTDIR.tmp and moved into place together: a failed run leaves the old
# pages (or none), never a partial set, and a command that left the table leaves no stale page.
set -eu
hp=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/.*HOTPROF_VERSION "\(.*\)".*/\1/p' "$root/include/hotprof/version.h")
tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"

# SEE ALSO of page NAME: every other page.
see_also() {
    local self=$1 cmd refs=()
    [ "$self" = hotprof ] || refs+=(".BR hotprof (1)")
    for cmd in $("$hp" help --complete); do
        [ "hotprof-$cmd" = "$self" ] || refs+=(".BR hotprof\\-$cmd (1)")
    done
    refs+=(".BR hotprof\\-format (5)")
    echo ".SH SEE ALSO"
    local last=$((${#refs[@]} - 1)) i
    for i in "${!refs[@]}"; do
        if [ "$i" -lt "$last" ]; then echo "${refs[$i]},"; else echo "${refs[$i]}"; fi
    done
}

# page NAME [CMD]: hotprof help --man CMD, the hand-written sections, SEE ALSO.
page() {
    local name=$1
    shift
    {
        "$hp" help --man "$@"
        if [ -f "$root/docs/man/$name.roff" ]; then cat "$root/docs/man/$name.roff"; fi
        see_also "$name"
    } > "$tmp/$name.1"
}

page hotprof
for cmd in $("$hp" help --complete); do page "hotprof-$cmd" "$cmd"; done
{
    printf "'\\\\\" t\n.TH HOTPROF\\-FORMAT 5 \"\" \"hotprof %s\" \"hotprof manual\"\n" "$version"
    printf ".SH NAME\nhotprof\\-format \\\\- the hotprof profile file (hotprof.data), format version 1\n"
    awk -f "$root/scripts/md2man.awk" "$root/docs/format.md"
    see_also hotprof-format
} > "$tmp/hotprof-format.5"
rm -rf "$out"
mv "$tmp" "$out"
