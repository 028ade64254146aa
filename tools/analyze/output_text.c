/* The summary for people (REPORT-EXAMPLES.md, "The analyser's summary"). */
#include "output.h"
#include "cycle.h"
#include "report/kinds.h"
#include <string.h>

static void plural(FILE *out, unsigned long n, const char *what)
{
    fprintf(out, "%lu %s%s", n, what, n == 1 ? "" : "s");
}

int az_write_text(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    (void)ctx;
    unsigned shown = a->nfindings - az_analysis_count_status(a, AZ_SUPPRESSED);
    unsigned fresh = az_analysis_count_status(a, AZ_NEW), base = az_analysis_count_status(a, AZ_BASELINE);
    plural(out, shown, "finding");
    fprintf(out, " in ");
    plural(out, a->nlogs, "log");
    fprintf(out, " (%u new, %u in baseline), ", fresh, base);
    plural(out, a->suppressed_reports, "report");
    fprintf(out, " suppressed");
    if (a->truncated_total + a->corrupt_total) {
        fprintf(out, ", ");
        plural(out, a->truncated_total + a->corrupt_total, "truncated or corrupt report");
    }
    fprintf(out, "\n");
    if (a->nfindings) {
        size_t kw = 4;
        for (unsigned i = 0; i < a->nfindings; i++)
            if (a->findings[i]->kind >= 0 && strlen(rt_kind_table[a->findings[i]->kind].name) > kw)
                kw = strlen(rt_kind_table[a->findings[i]->kind].name);
        size_t tw = 5;
        for (unsigned i = 0; i < a->nfindings; i++)
            if (strlen(a->findings[i]->sig.title) > tw)
                tw = strlen(a->findings[i]->sig.title);
        fprintf(out, "\n  %5s  %-*s  %s\n", "count", (int)kw, "kind", "title");
        for (unsigned i = 0; i < a->nfindings; i++) {
            const struct az_finding *f = a->findings[i];
            fprintf(out, "  %5lu  %-*s  %-*s  (%s)\n", f->count, (int)kw, f->kind >= 0 ? rt_kind_table[f->kind].name : "?",
                    (int)tw, f->sig.title, az_status_name(az_finding_status(f)));
        }
        fprintf(out, "\n");
        for (unsigned i = 0; i < a->nfindings; i++) {
            const struct az_finding *f = a->findings[i];
            char loc[512], first[512], last[512];
            az_finding_location(f, loc, sizeof loc);
            az_seen_format(a, &f->first, first, sizeof first);
            az_seen_format(a, &f->last, last, sizeof last);
            fprintf(out, "[%u] %s\n    signature %s at %s, in %u log%s: ", i + 1, f->sig.title, f->sig.hex, loc, f->nlogs,
                    f->nlogs == 1 ? "" : "s");
            for (unsigned j = 0; j < f->nlogs && j < 5; j++)
                fprintf(out, "%s%s", j ? ", " : "", a->logs[f->logs[j]]);
            if (f->nlogs > 5)
                fprintf(out, ", and %u more", f->nlogs - 5);
            fprintf(out, "\n    first seen %s%s%s%s, last seen %s%s%s%s\n", first, f->first.time ? " (" : "",
                    f->first.time ? f->first.time : "", f->first.time ? ")" : "", last, f->last.time ? " (" : "",
                    f->last.time ? f->last.time : "", f->last.time ? ")" : "");
            if (f->example->ncycle) {
                fprintf(out, "    cycle:");
                for (unsigned j = 0; j < f->example->ncycle; j++)
                    fprintf(out, "%s%s", j ? " -> " : " ", f->example->cycle[j]);
                fprintf(out, "\n");
            }
            if (az_cycle_kind(f->kind))
                fprintf(out, "    %s\n",
                        f->confirm_detail ? f->confirm_detail
                                          : "not tried: run `rtdd confirm LOG -- PROGRAM` to try to make it deadlock");
            if (f->suppressed && f->suppressed < f->count)
                fprintf(out, "    %lu of its reports suppressed\n", f->suppressed);
        }
    }
    if (a->problems_total || a->nread_errors)
        fprintf(out, "\n");
    for (unsigned i = 0; i < a->nproblems; i++) {
        const struct az_problem *p = &a->problems[i];
        int truncated = p->counted || strstr(p->reason, "cut off") != NULL;
        fprintf(out, "%s: %s:%lu (%s%s%s)\n", truncated ? "truncated" : "corrupt", a->logs[p->log_index], p->line,
                p->kind >= 0 ? rt_kind_table[p->kind].name : "", p->kind >= 0 ? ": " : "", p->reason);
    }
    for (unsigned i = 0; i < a->nread_errors; i++)
        fprintf(out, "unreadable: %s\n", a->read_errors[i]);
    if (a->problems_total > a->nproblems)
        fprintf(out, "... and %lu more truncated or corrupt reports\n", a->problems_total - a->nproblems);
    return ferror(out) ? -1 : 0;
}
