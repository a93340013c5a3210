# hotprof.bash -- bash completion for hotprof (installed as
# PREFIX/share/bash-completion/completions/hotprof; or `source completions/hotprof.bash`).
#
# The words come from the hotprof being completed: `hotprof help --complete` lists the commands
# and `hotprof help --complete CMD` a command's options with their values (src/cli/complete.h),
# rendered from the same tables as --help, so a new command or option completes with no change
# here. It completes: commands; options (after '-'); an option's values when its help lists
# them (--format text|json, --sample TYPE:, --type ...); profile files (files that start with
# the profile magic "HOTPROF", and directories) for a command's FILE arguments and for option
# values named FILE except --output; the program and its arguments after `hotprof run`; files for
# cc and c++. Needs nothing from the bash-completion package.

# The hotprof to ask: the one typed, if it is a path to an executable, else hotprof on PATH.
_hotprof_bin() {
    local w=${COMP_WORDS[0]}
    w=${w/#\~/$HOME}
    if [[ $w == */* && -x $w ]]; then printf '%s\n' "$w"; else printf 'hotprof\n'; fi
}

# Adds to COMPREPLY the profile files and the directories whose names start with $1.
_hotprof_profiles() {
    local f magic
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            COMPREPLY+=("$f/")
            compopt -o nospace 2>/dev/null
        elif [[ -f $f && -r $f ]]; then
            magic=x # the magic is "HOTPROF" and a NUL: read stops at the NUL, found in 8 bytes
            LC_ALL=C read -r -d '' -n 8 magic < "$f" 2>/dev/null && [[ $magic == HOTPROF ]] && COMPREPLY+=("$f")
        fi
    done < <(compgen -f -- "$1")
}

# Adds the words of $1 that start with $2; words ending in '=' or ':' take their value glued on.
_hotprof_words() {
    local w
    while IFS= read -r w; do
        [[ -n $w ]] || continue
        COMPREPLY+=("$w")
        [[ $w == *= || $w == *: ]] && compopt -o nospace 2>/dev/null
    done < <(compgen -W "$1" -- "$2")
}

# The spec line of option $2 ("--type" or "--hooks=") in the spec $1, or nothing.
_hotprof_option() {
    local name rest
    while read -r name rest; do
        if [[ $name == "$2" || $name == "$2=" ]]; then printf '%s %s\n' "$name" "$rest"; return; fi
    done <<< "$1"
}

# Completes the value $3 of option $2 (spec $1); fails if $2 takes no value.
_hotprof_value() {
    local line name value choices
    line=$(_hotprof_option "$1" "$2")
    read -r name value choices <<< "$line"
    [[ -n $line && $value != - ]] || return 1
    if [[ -n $choices ]]; then _hotprof_words "$choices" "$3"
    elif [[ $value == FILE && $2 != --output && $2 != -o ]]; then _hotprof_profiles "$3"
    elif [[ $value == FILE || $value == PATH ]]; then COMPREPLY+=($(compgen -f -- "$3"))
    fi
    return 0
}

_hotprof() {
    COMPREPLY=()
    local cur=${COMP_WORDS[COMP_CWORD]} prev= hp cmd= cmdi=0 i w
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    hp=$(_hotprof_bin)
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w != -* ]]; then cmd=$w cmdi=$i; break; fi
    done
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then _hotprof_words "--help --version" "$cur"
        else _hotprof_words "$("$hp" help --complete 2>/dev/null)" "$cur"; fi
        return 0
    fi
    local spec kind
    spec=$("$hp" help --complete "$cmd" 2>/dev/null) || return 0
    kind=$(sed -n 's/^@args //p' <<< "$spec")
    # --opt=value: bash splits it at '=' into "--opt" "=" "value".
    if [[ $cur == = ]]; then _hotprof_value "$spec" "$prev" "" && return 0; fi
    if [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
        _hotprof_value "$spec" "${COMP_WORDS[COMP_CWORD - 2]}" "$cur" && return 0
    fi
    if [[ $cur == --*=* ]]; then _hotprof_value "$spec" "${cur%%=*}" "${cur#*=}" && return 0; fi
    if [[ $prev == -* && $prev != *= ]] && ((COMP_CWORD - 1 > cmdi)); then
        _hotprof_value "$spec" "$prev" "$cur" && return 0
    fi
    # The positional arguments before the cursor (option values and '=' pieces skipped).
    local npos=0 dashdash=0 line value
    for ((i = cmdi + 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((dashdash)) || [[ $w != -* ]]; then
            [[ $w == = || ${COMP_WORDS[i - 1]} == = ]] || ((npos++))
            continue
        fi
        if [[ $w == -- ]]; then dashdash=1; continue; fi
        line=$(_hotprof_option "$spec" "$w")
        read -r _ value _ <<< "$line"
        [[ -n $line && $value != - && ${COMP_WORDS[i + 1]} != = ]] && ((i++))
    done
    if [[ $kind == program ]] && ((npos > 0)); then COMPREPLY+=($(compgen -f -- "$cur")); return 0; fi
    if [[ $cur == -* ]] && ((!dashdash)); then
        _hotprof_words "$(sed '/^@/d; s/ .*//' <<< "$spec")" "$cur"
        return 0
    fi
    case $kind in
        profile) _hotprof_profiles "$cur" ;;
        command) _hotprof_words "$("$hp" help --complete 2>/dev/null)" "$cur" ;;
        program) COMPREPLY+=($(compgen -f -- "$cur")); [[ -n $cur ]] && COMPREPLY+=($(compgen -c -- "$cur")) ;;
        *) COMPREPLY+=($(compgen -f -- "$cur")) ;;
    esac
    return 0
}
complete -F _hotprof hotprof
