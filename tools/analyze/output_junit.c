/* JUnit XML (the de-facto Ant schema that Jenkins and GitLab read): one
 * test case per finding; failing findings are <failure>, baseline and
 * suppressed ones <skipped>; truncated and corrupt reports go to
 * <system-err> so they are seen without failing a test of their own. */
#include "output.h"
#include "report/kinds.h"
#include "util.h"
#include <stdlib.h>

int az_write_junit(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    (void)ctx;
    unsigned failures = 0, skipped = 0;
    for (unsigned i = 0; i < a->nfindings; i++) {
        failures += (unsigned)az_finding_fails(a->findings[i]);
        skipped += az_finding_status(a->findings[i]) != AZ_NEW;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuites name=\"rtdd analyze\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\">\n",
            a->nfindings, failures, skipped);
    fprintf(out, "  <testsuite name=\"rtdd analyze\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"0\">\n",
            a->nfindings, failures, skipped);
    fprintf(out, "    <properties>\n      <property name=\"logs\" value=\"%u\"/>\n"
                 "      <property name=\"reports\" value=\"%lu\"/>\n"
                 "      <property name=\"suppressed_reports\" value=\"%lu\"/>\n    </properties>\n",
            a->nlogs, a->reports, a->suppressed_reports);
    for (unsigned i = 0; i < a->nfindings; i++) {
        const struct az_finding *f = a->findings[i];
        const char *kind = f->kind >= 0 ? rt_kind_table[f->kind].name : "unknown";
        char loc[512];
        az_finding_location(f, loc, sizeof loc);
        fprintf(out, "    <testcase classname=\"rtdd.");
        az_xml_escape(out, kind);
        fprintf(out, "\" name=\"");
        az_xml_escape(out, f->sig.title);
        fprintf(out, "\" file=\"");
        az_xml_escape(out, loc);
        fprintf(out, "\" time=\"0\">\n");
        char *text = az_finding_describe(a, f);
        enum az_status st = az_finding_status(f);
        if (az_finding_fails(f)) {
            fprintf(out, "      <failure type=\"%s\" message=\"", kind);
            az_xml_escape(out, f->sig.title);
            fprintf(out, " (%lu report%s)\">", f->count, f->count == 1 ? "" : "s");
            az_xml_escape(out, text);
            fprintf(out, "</failure>\n");
        } else if (st != AZ_NEW) {
            fprintf(out, "      <skipped message=\"%s\"/>\n", st == AZ_BASELINE ? "in the baseline" : "suppressed");
            fprintf(out, "      <system-out>");
            az_xml_escape(out, text);
            fprintf(out, "</system-out>\n");
        } else {
            /* An INFO finding: reported, not failed. */
            fprintf(out, "      <system-out>");
            az_xml_escape(out, text);
            fprintf(out, "</system-out>\n");
        }
        free(text);
        fprintf(out, "    </testcase>\n");
    }
    if (a->nproblems || a->nread_errors) {
        fprintf(out, "    <system-err>");
        for (unsigned i = 0; i < a->nread_errors; i++) {
            fprintf(out, "unreadable: ");
            az_xml_escape(out, a->read_errors[i]);
            fprintf(out, "\n");
        }
        for (unsigned i = 0; i < a->nproblems; i++) {
            const struct az_problem *p = &a->problems[i];
            fprintf(out, "%s report at ", p->counted ? "truncated" : "corrupt");
            az_xml_escape(out, a->logs[p->log_index]);
            fprintf(out, ":%lu: ", p->line);
            az_xml_escape(out, p->reason);
            fprintf(out, "\n");
        }
        fprintf(out, "</system-err>\n");
    }
    fprintf(out, "  </testsuite>\n</testsuites>\n");
    return ferror(out) ? -1 : 0;
}
