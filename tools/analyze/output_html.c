/* One self-contained HTML page for people: the findings by count, each
 * with its stacks (source lines shown where the source is found) and its
 * lock-order cycle drawn as inline SVG by Graphviz. No external files,
 * scripts or fonts. */
#include "output.h"
#include "cycle.h"
#include "dot.h"
#include "report/kinds.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

#define SOURCE_CONTEXT 2      /* lines shown before and after */
#define SOURCE_FRAMES 6       /* frames per stack shown with source */

static const char style[] =
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}"
    "table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #ddd}"
    "td.n{text-align:right}.new{color:#b00;font-weight:bold}.baseline,.suppressed{color:#777}"
    "pre,code{font-family:monospace;font-size:90%}section{border-top:2px solid #ccc;margin-top:1.5em}"
    ".frame{margin:.1em 0}.src{background:#f6f6f6;margin:.2em 0 .4em 2em;padding:.3em}"
    ".hl{background:#ffe08a}.meta{color:#555}.cycle svg{max-width:100%;height:auto}";

static void esc(FILE *out, const char *s)
{
    az_xml_escape(out, s);
}

/* Shows the source around file:line when the file can be read from here. */
static void source_snippet(FILE *out, const char *file, unsigned line)
{
    if (!file || !line)
        return;
    FILE *src = fopen(file, "r");
    if (!src)
        return;
    char buf[4096];
    unsigned n = 0;
    int open = 0;
    while (fgets(buf, sizeof buf, src)) {
        size_t len = strlen(buf);
        int whole = len && buf[len - 1] == '\n';
        if (whole)
            n++;
        if (n + SOURCE_CONTEXT >= line && n <= line + SOURCE_CONTEXT) {
            if (!open) {
                fputs("<pre class=\"src\">", out);
                open = 1;
            }
            if (whole)
                buf[len - 1] = 0;
            fprintf(out, "<span%s>%5u  ", n == line ? " class=\"hl\"" : "", n);
            esc(out, buf);
            fputs("</span>\n", out);
        }
        if (n > line + SOURCE_CONTEXT)
            break;
    }
    fclose(src);
    if (open)
        fputs("</pre>", out);
}

static void finding_section(FILE *out, const struct az_analysis *a, const struct az_finding *f, unsigned index)
{
    const struct az_report *r = f->example;
    enum az_status st = az_finding_status(f);
    fprintf(out, "<section id=\"f%u\"><h2>%u. ", index, index);
    esc(out, f->sig.title);
    fprintf(out, " <span class=\"%s\">(%s)</span></h2>\n<p class=\"meta\">", az_status_name(st), az_status_name(st));
    char loc[512], first[512], last[512];
    az_finding_location(f, loc, sizeof loc);
    az_seen_format(a, &f->first, first, sizeof first);
    az_seen_format(a, &f->last, last, sizeof last);
    fprintf(out, "%s, %lu report%s in %u log%s, at <code>", f->kind >= 0 ? rt_kind_table[f->kind].name : "?", f->count,
            f->count == 1 ? "" : "s", f->nlogs, f->nlogs == 1 ? "" : "s");
    esc(out, loc);
    fprintf(out, "</code>, signature <code>%s</code><br>first seen <code>", f->sig.hex);
    esc(out, first);
    fputs("</code> ", out);
    esc(out, f->first.time ? f->first.time : "");
    fputs(", last seen <code>", out);
    esc(out, last);
    fputs("</code> ", out);
    esc(out, f->last.time ? f->last.time : "");
    fputs("</p>\n", out);
    if (r->headline) {
        fputs("<pre>", out);
        esc(out, r->headline);
        fputs("</pre>\n", out);
    }
    if (az_cycle_kind(f->kind)) {
        /* What rtdd run --confirm found (docs/confirm.md). */
        fprintf(out, "<p class=\"%s\">", f->confirm == AZ_CONFIRM_CONFIRMED ? "new" : "baseline");
        esc(out, f->confirm_detail ? f->confirm_detail : "not tried (rtdd run --confirm)");
        fputs("</p>\n", out);
    }
    if (az_finding_has_cycle(f)) {
        fputs("<div class=\"cycle\"><h3>lock-order cycle</h3>\n", out);
        char *svg = az_dot_render_svg(f);
        if (svg) {
            fputs(svg, out);
            free(svg);
        } else {
            fputs("<p>(Graphviz's <code>dot</code> is not installed; the cycle as text:)</p>", out);
        }
        fputs("<pre>", out);
        for (unsigned i = 0; i < r->ncycle; i++) {
            fputs(i ? " -&gt; " : "", out);
            esc(out, r->cycle[i]);
        }
        fputs("</pre></div>\n", out);
    }
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        if (!s->is_stack)
            continue;
        fputs("<h3>", out);
        esc(out, s->title ? s->title : "stack:");
        fputs("</h3>\n", out);
        if (!s->nframes)
            fputs("<p>(stack unavailable)</p>\n", out);
        for (unsigned j = 0; j < s->nframes; j++) {
            char fr[1024];
            az_frame_format(&s->frames[j], fr, sizeof fr);
            fputs("<div class=\"frame\"><code>", out);
            esc(out, fr);
            fputs("</code></div>\n", out);
            if (j < SOURCE_FRAMES)
                source_snippet(out, s->frames[j].file, s->frames[j].line);
        }
    }
    fputs("</section>\n", out);
}

int az_write_html(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<title>rtdd analyze: %u findings</title>\n<style>%s</style></head><body>\n",
            a->nfindings, style);
    fprintf(out, "<h1>rtdd analyze</h1>\n<p>%u findings in %u logs (%u new, %u in baseline, %u suppressed), %lu reports, "
                 "%lu reports suppressed, %lu truncated or corrupt reports. rtdd %s.</p>\n",
            a->nfindings, a->nlogs, az_analysis_count_status(a, AZ_NEW), az_analysis_count_status(a, AZ_BASELINE),
            az_analysis_count_status(a, AZ_SUPPRESSED), a->reports, a->suppressed_reports,
            a->truncated_total + a->corrupt_total, ctx->version);
    if (a->nfindings) {
        fputs("<table><tr><th>count</th><th>kind</th><th>title</th><th>status</th><th>confirm</th></tr>\n", out);
        for (unsigned i = 0; i < a->nfindings; i++) {
            const struct az_finding *f = a->findings[i];
            enum az_status st = az_finding_status(f);
            fprintf(out, "<tr><td class=\"n\">%lu</td><td>%s</td><td><a href=\"#f%u\">", f->count,
                    f->kind >= 0 ? rt_kind_table[f->kind].name : "?", i + 1);
            esc(out, f->sig.title);
            fprintf(out, "</a></td><td class=\"%s\">%s</td><td>%s</td></tr>\n", az_status_name(st), az_status_name(st),
                    az_cycle_kind(f->kind) ? az_confirm_name(f->confirm) : "");
        }
        fputs("</table>\n", out);
    }
    for (unsigned i = 0; i < a->nread_errors; i++) {
        fputs("<p class=\"new\">unreadable: ", out);
        esc(out, a->read_errors[i]);
        fputs("</p>\n", out);
    }
    if (a->nproblems) {
        fputs("<h2>truncated and corrupt reports</h2><ul>\n", out);
        for (unsigned i = 0; i < a->nproblems; i++) {
            const struct az_problem *p = &a->problems[i];
            fputs("<li><code>", out);
            esc(out, a->logs[p->log_index]);
            fprintf(out, ":%lu</code> ", p->line);
            esc(out, p->reason);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    for (unsigned i = 0; i < a->nfindings; i++)
        finding_section(out, a, a->findings[i], i + 1);
    fputs("</body></html>\n", out);
    return ferror(out) ? -1 : 0;
}
