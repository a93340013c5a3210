# md2man.awk — turns the Markdown of docs/*.md (headings, paragraphs, * and 1. lists, nested
# - lists, pipe tables, `code`, **bold**, *italic*) into the body of a roff man page, for
# hotprof-format(5) from docs/format.md (scripts/gen_man.sh writes its .TH and NAME; the page
# starts with '\" t so man runs tbl). The level-1 heading is dropped (the page's NAME says it).
# Every line is escaped: backslashes, hyphens, a leading '.' or "'", and the few non-ASCII
# characters the docs use, so `groff -t -man -ww` has nothing to say.

function inline(s,    out, i, c, code, bold, ital) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    gsub(/−/, "\\-", s)
    out = ""; code = 0; bold = 0; ital = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "`") { out = out (code ? "\\fR" : "\\fB"); code = !code; continue }
        if (!code && substr(s, i, 2) == "**") { out = out (bold ? "\\fR" : "\\fB"); bold = !bold; i++; continue }
        if (!code && c == "*" && (ital || substr(s, i + 1, 1) ~ /[A-Za-z]/)) { out = out (ital ? "\\fR" : "\\fI"); ital = !ital; continue }
        out = out c
    }
    gsub(/Σ/, "\\(*S", out)   # after the loop: its '*' is no emphasis
    gsub(/→/, "\\(->", out)
    if (out ~ /^[.']/) out = "\\&" out
    return out
}

# Tables are set ragged-right (.ad l): narrow columns cannot be justified.
function end_table() { if (in_table) { print ".TE\n.ad"; in_table = 0 } }

# A table row "| a | b |" into cells[1..n]; returns n.
function split_row(line, cells,    n, i, parts) {
    sub(/^[ \t]*\|/, "", line); sub(/\|[ \t]*$/, "", line)
    n = split(line, parts, "|")
    for (i = 1; i <= n; i++) { cells[i] = parts[i]; gsub(/^[ \t]+|[ \t]+$/, "", cells[i]) }
    return n
}

function table_row(line,    cells, n, i, spec) {
    n = split_row(line, cells)
    if (!in_table) {
        spec = ""
        for (i = 1; i <= n; i++) spec = spec (i > 1 ? " " : "") (i == n ? "lbx" : "lb")
        spec = spec "\n"
        for (i = 1; i <= n; i++) spec = spec (i > 1 ? " " : "") (i == n ? "lx" : "l")
        print ".ad l\n.TS\nallbox tab(\t);\n" spec "."
        in_table = 1
    }
    for (i = 1; i <= n; i++) printf "%sT{\n%s\nT}", (i > 1 ? "\t" : ""), inline(cells[i])
    printf "\n"
}

/^# / { next }
/^## / { end_table(); print ".SH " toupper(inline(substr($0, 4))); para = 0; next }
/^### / { end_table(); print ".SS " inline(substr($0, 5)); para = 0; next }
/^[ \t]*\|[-:| ]+\|[ \t]*$/ { next }            # a table's separator row
/^[ \t]*\|/ { table_row($0); para = 0; next }
/^[ \t]*$/ { end_table(); para = 0; blank = 1; next }
/^\* / { end_table(); print ".IP \\(bu 2"; print inline(substr($0, 3)); para = 1; next }
/^[0-9]+\. / { end_table(); n = index($0, " "); print ".IP " substr($0, 1, n - 1) " 4"; print inline(substr($0, n + 1)); para = 1; next }
/^[ \t]+- / { sub(/^[ \t]+- /, ""); print ".IP \\(bu 6"; print inline($0); para = 1; next }
{
    end_table()
    line = $0; sub(/^[ \t]+/, "", line)
    if (!para) print ".PP"
    print inline(line); para = 1
}
END { end_table() }
