/* --dot: the lock-order cycles of all findings as one Graphviz digraph.
 * A node per lock name, an edge per "A -> B" step of a cycle, labelled
 * with the finding's guilty function and how often it was seen; edges of
 * failing findings are drawn red. The same drawing serves the HTML page. */
#include "output.h"
#include "dot.h"
#include "report/kinds.h"
#include "util.h"
#include <string.h>

static void quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void az_dot_cycle_edges(FILE *out, const struct az_finding *f, const char *indent)
{
    const struct az_report *r = f->example;
    /* The function the finding is named after, and how often it was seen. */
    const struct az_frame *g = az_finding_guilty_frame(f);
    const char *fn = f->sig.ncycle_functions ? f->sig.cycle_functions[0] : g && g->function ? g->function : "";
    char label[512];
    snprintf(label, sizeof label, "%s%s(%lu)", fn, *fn ? " " : "", f->count);
    for (unsigned i = 0; i + 1 < r->ncycle; i++) {
        fputs(indent, out);
        quoted(out, r->cycle[i]);
        fputs(" -> ", out);
        quoted(out, r->cycle[i + 1]);
        fputs(" [label=", out);
        quoted(out, label);
        fprintf(out, ", tooltip=");
        quoted(out, f->sig.title);
        fprintf(out, "%s];\n", az_finding_fails(f) ? ", color=red, fontcolor=red" : "");
    }
}

void az_dot_header(FILE *out, const char *name)
{
    fprintf(out, "digraph ");
    quoted(out, name);
    fprintf(out, " {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"monospace\"];\n"
                 "  edge [fontname=\"monospace\", fontsize=10];\n");
}

int az_write_dot(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    (void)ctx;
    az_dot_header(out, "lock-order cycles");
    for (unsigned i = 0; i < a->nfindings; i++) {
        const struct az_finding *f = a->findings[i];
        if (!az_finding_has_cycle(f))
            continue;
        fprintf(out, "  /* %s [%s] */\n", f->sig.title, f->sig.hex);
        az_dot_cycle_edges(out, f, "  ");
    }
    fprintf(out, "}\n");
    return ferror(out) ? -1 : 0;
}
