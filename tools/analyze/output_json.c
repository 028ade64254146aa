/* The JSON output: everything the analysis found, for scripts, and the
 * input of a later run's --baseline (which reads "findings[].signature"). */
#include "output.h"
#include "cycle.h"
#include "report/kinds.h"
#include "util.h"
#include <json-c/json.h>

#define STR(s) ((s) ? json_object_new_string(s) : NULL)

static json_object *seen(const struct az_analysis *a, const struct az_seen *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "log", json_object_new_string(a->logs[s->log_index]));
    json_object_object_add(o, "line", json_object_new_int64((int64_t)s->line));
    if (s->time)
        json_object_object_add(o, "time", json_object_new_string(s->time));
    return o;
}

static json_object *frame(const struct az_frame *f)
{
    json_object *o = json_object_new_object();
    if (f->function)
        json_object_object_add(o, "function", STR(f->function));
    if (f->inlined)
        json_object_object_add(o, "inlined", json_object_new_boolean(1));
    if (f->file) {
        json_object_object_add(o, "file", STR(f->file));
        json_object_object_add(o, "line", json_object_new_int64(f->line));
    }
    if (f->module)
        json_object_object_add(o, "module", STR(f->module));
    char hex[32];
    if (f->pc) {
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)f->pc);
        json_object_object_add(o, "pc", json_object_new_string(hex));
    }
    if (f->has_module_offset) {
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)f->module_offset);
        json_object_object_add(o, "module_offset", json_object_new_string(hex));
    }
    return o;
}

static json_object *finding(const struct az_analysis *a, const struct az_finding *f)
{
    const struct az_report *r = f->example;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "signature", json_object_new_string(f->sig.hex));
    json_object_object_add(o, "kind", json_object_new_string(f->kind >= 0 ? rt_kind_table[f->kind].name : "unknown"));
    if (f->kind >= 0)
        json_object_object_add(o, "severity", json_object_new_string(rt_severity_name(az_finding_severity(f))));
    if (az_cycle_kind(f->kind)) {
        /* What rtdd run --confirm found: confirmed, not confirmed, not tried. */
        json_object_object_add(o, "confirm", json_object_new_string(az_confirm_name(f->confirm)));
        if (f->confirm_detail)
            json_object_object_add(o, "confirm_detail", json_object_new_string(f->confirm_detail));
    }
    json_object_object_add(o, "title", json_object_new_string(f->sig.title));
    json_object_object_add(o, "status", json_object_new_string(az_status_name(az_finding_status(f))));
    json_object_object_add(o, "count", json_object_new_int64((int64_t)f->count));
    json_object_object_add(o, "suppressed", json_object_new_int64((int64_t)f->suppressed));
    char loc[512];
    az_finding_location(f, loc, sizeof loc);
    json_object_object_add(o, "location", json_object_new_string(loc));
    const struct az_frame *g = az_finding_guilty_frame(f);
    if (g && g->function)
        json_object_object_add(o, "function", json_object_new_string(g->function));
    json_object *logs = json_object_new_array();
    for (unsigned i = 0; i < f->nlogs; i++)
        json_object_array_add(logs, json_object_new_string(a->logs[f->logs[i]]));
    json_object_object_add(o, "logs", logs);
    json_object_object_add(o, "first_seen", seen(a, &f->first));
    json_object_object_add(o, "last_seen", seen(a, &f->last));
    json_object *sigframes = json_object_new_array();
    for (unsigned s = 0; s < 2 && !f->sig.ncycle_functions; s++)
        for (unsigned i = 0; i < f->sig.nframes[s]; i++)
            json_object_array_add(sigframes, json_object_new_string(f->sig.frames[s][i]));
    for (unsigned i = 0; i < f->sig.ncycle_functions; i++)
        json_object_array_add(sigframes, json_object_new_string(f->sig.cycle_functions[i]));
    json_object_object_add(o, "signature_frames", sigframes);
    if (r->ncycle) {
        json_object *cycle = json_object_new_array();
        for (unsigned i = 0; i < r->ncycle; i++)
            json_object_array_add(cycle, json_object_new_string(r->cycle[i]));
        json_object_object_add(o, "cycle", cycle);
    }
    if (r->headline)
        json_object_object_add(o, "headline", json_object_new_string(r->headline));
    json_object *stacks = json_object_new_array();
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        if (!s->is_stack)
            continue;
        json_object *st = json_object_new_object(), *frames = json_object_new_array();
        if (s->title)
            json_object_object_add(st, "title", json_object_new_string(s->title));
        for (unsigned j = 0; j < s->nframes; j++)
            json_object_array_add(frames, frame(&s->frames[j]));
        json_object_object_add(st, "frames", frames);
        json_object_array_add(stacks, st);
    }
    json_object_object_add(o, "stacks", stacks);
    return o;
}

int az_write_json(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "rtdd_analyze", json_object_new_int(1));
    json_object_object_add(root, "version", json_object_new_string(ctx->version));
    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "logs", json_object_new_int64(a->nlogs));
    json_object_object_add(sum, "reports", json_object_new_int64((int64_t)a->reports));
    json_object_object_add(sum, "findings", json_object_new_int64(a->nfindings - az_analysis_count_status(a, AZ_SUPPRESSED)));
    json_object_object_add(sum, "new", json_object_new_int64(az_analysis_count_status(a, AZ_NEW)));
    json_object_object_add(sum, "baseline", json_object_new_int64(az_analysis_count_status(a, AZ_BASELINE)));
    json_object_object_add(sum, "suppressed_findings", json_object_new_int64(az_analysis_count_status(a, AZ_SUPPRESSED)));
    json_object_object_add(sum, "suppressed_reports", json_object_new_int64((int64_t)a->suppressed_reports));
    json_object_object_add(sum, "truncated_reports", json_object_new_int64((int64_t)a->truncated_total));
    json_object_object_add(sum, "corrupt_reports", json_object_new_int64((int64_t)a->corrupt_total));
    json_object_object_add(root, "summary", sum);
    json_object *logs = json_object_new_array();
    for (unsigned i = 0; i < a->nlogs; i++)
        json_object_array_add(logs, json_object_new_string(a->logs[i]));
    json_object_object_add(root, "logs", logs);
    json_object *findings = json_object_new_array();
    for (unsigned i = 0; i < a->nfindings; i++)
        json_object_array_add(findings, finding(a, a->findings[i]));
    json_object_object_add(root, "findings", findings);
    json_object *problems = json_object_new_array();
    for (unsigned i = 0; i < a->nproblems; i++) {
        const struct az_problem *p = &a->problems[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "log", json_object_new_string(a->logs[p->log_index]));
        json_object_object_add(o, "line", json_object_new_int64((int64_t)p->line));
        json_object_object_add(o, "end_line", json_object_new_int64((int64_t)p->end_line));
        if (p->kind >= 0)
            json_object_object_add(o, "kind", json_object_new_string(rt_kind_table[p->kind].name));
        json_object_object_add(o, "frames", json_object_new_int64(p->frames));
        json_object_object_add(o, "counted", json_object_new_boolean(p->counted));
        json_object_object_add(o, "reason", json_object_new_string(p->reason));
        json_object_array_add(problems, o);
    }
    json_object_object_add(root, "problems", problems);
    json_object *errors = json_object_new_array();
    for (unsigned i = 0; i < a->nread_errors; i++)
        json_object_array_add(errors, json_object_new_string(a->read_errors[i]));
    json_object_object_add(root, "read_errors", errors);
    fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
    fputc('\n', out);
    json_object_put(root);
    return ferror(out) ? -1 : 0;
}
