/* page.c — hp_html_write (html.h): the HTML page, in this order: <head> with the inline style;
 * the header (program, command and mode as a list, then the text report's header preformatted:
 * mode, seed, totals, distinct counts, sampling configuration, how the run ended) and the
 * warnings; a table of contents; the icicle (flame.c); the bar charts (bars.c); every wanted
 * profile type's table in registry order (its `html` hook, else its `text` table preformatted);
 * with a reference, the accuracy section (cmpsec.c).
 * No script, no external resource, no timestamp: the same profile gives the same bytes.
 */
#include "analysis/html/html.h"
#include "analysis/html/page.h"
#include "analysis/ptype/aptype.h"
#include "core/format/info_keys.h"

static const char style[] =
    "body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;max-width:1240px}"
    "h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1em}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{padding:2px 8px;border-bottom:1px solid #eee;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums}pre{background:#f8f8f8;padding:.6em;overflow-x:auto}dl{display:grid;grid-template-columns:"
    "max-content auto;gap:2px 12px}dt{font-weight:bold}dd{margin:0}.warn li{color:#a40}.note{color:#555}"
    "svg{display:block;margin:.5em 0;max-width:100%;height:auto}svg text{font:12px monospace;fill:#000}"
    "svg.flame rect{stroke:#fff;stroke-width:.5}svg g:hover rect{stroke:#000;stroke-width:1}";

static void dl_item(FILE *out, const char *key, const char *value)
{
    if (!value || !value[0]) return;
    fprintf(out, "<dt>%s</dt><dd>", key);
    hp_html_escape(out, value);
    fputs("</dd>\n", out);
}

static int text_header(FILE *f, const void *p) { return hp_report_text_header(f, p), 0; }

static void warnings(FILE *out, const hp_profile *p, hp_symbolizer *s)
{
    size_t n = p->nwarnings + hp_sym_nwarnings(s) + (size_t)hp_sym_left_mangled(s);
    if (!n) return;
    fputs("<h2 id=\"warnings\">Warnings</h2>\n<ul class=\"warn\">\n", out);
    for (size_t i = 0; i < n; i++) {
        fputs("<li>", out);
        hp_html_escape(out, i < p->nwarnings                            ? p->warnings[i]
                            : i < p->nwarnings + hp_sym_nwarnings(s) ? hp_sym_warning(s, i - p->nwarnings)
                                                                     : "C++ names are shown mangled (no "
                                                                       "__cxa_demangle found)");
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

static int header(FILE *out, const hp_profile *p, hp_symbolizer *s)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>hotprof report: ", out);
    hp_html_escape(out, p->name);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>hotprof report: ", style);
    hp_html_escape(out, p->name);
    fputs("</h1>\n<dl>\n", out);
    dl_item(out, "program", hp_profile_info(p, HP_INFO_PROGRAM));
    dl_item(out, "command", hp_profile_info(p, HP_INFO_ARGS));
    dl_item(out, "mode", hp_profile_info(p, HP_INFO_MODE));
    fputs("</dl>\n", out);
    int rc = hp_html_pre(out, text_header, p);
    warnings(out, p, s);
    return rc;
}

static int wanted(const hp_aptype *t, const hp_profile *p, const hp_report_opts *o) { return hp_aptype_shown(t, p, o); }

typedef struct text_table { const hp_aptype *t; const hp_profile *p; hp_symbolizer *s; const hp_report_opts *o; } text_table;

static int write_text_table(FILE *f, const void *ctx)
{
    const text_table *c = ctx;
    return c->t->text(f, c->p, c->s, c->o);
}

static int tables(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        text_table c = {t, p, s, o};
        if (!wanted(t, p, o) || (!t->html && !t->text)) continue;
        fprintf(out, "<section id=\"%s\">\n", hp_ptypes[i]->name);
        if (t->html ? t->html(out, p, s, o) : hp_html_pre(out, write_text_table, &c)) return -1;
        fputs("</section>\n", out);
    }
    return 0;
}

static void contents(FILE *out, const hp_profile *p, const hp_report_opts *o)
{
    fputs("<p>Sections: <a href=\"#flame\">flame graph</a> &middot; <a href=\"#bars\">heaviest members</a>", out);
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!wanted(t, p, o) || (!t->html && !t->text)) continue;
        fprintf(out, " &middot; <a href=\"#%s\">", hp_ptypes[i]->name);
        hp_html_escape(out, hp_ptypes[i]->title);
        fputs("</a>", out);
    }
    if (o->compare_ref) fputs(" &middot; <a href=\"#compare\">accuracy</a>", out);
    fputs("</p>\n", out);
}

typedef int (*section_fn)(FILE *, const hp_profile *, hp_symbolizer *, const hp_report_opts *);

static int section(FILE *out, const char *id, section_fn write, const hp_profile *p, hp_symbolizer *s,
                   const hp_report_opts *o)
{
    fprintf(out, "<section id=\"%s\">\n", id);
    int rc = write(out, p, s, o);
    fputs("</section>\n", out);
    return rc;
}

static int flame(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    return hp_html_flame(out, p, s);
}

static int accuracy(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    return hp_html_compare(out, p, o->compare_ref);
}

int hp_html_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    int rc = header(out, p, s);
    if (!rc) contents(out, p, o);
    if (!rc) rc = section(out, "flame", flame, p, s, o);
    if (!rc) rc = section(out, "bars", hp_html_bars, p, s, o);
    if (!rc) rc = tables(out, p, s, o);
    if (!rc && o->compare_ref) rc = section(out, "compare", accuracy, p, s, o);
    fputs("</body>\n</html>\n", out);
    return rc || ferror(out) ? -1 : 0;
}
