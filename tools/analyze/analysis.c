#include "analysis.h"
#include "cycle.h"
#include "report/kinds.h"
#include "util.h"
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

void az_analysis_init(struct az_analysis *a)
{
    memset(a, 0, sizeof *a);
}

void az_analysis_destroy(struct az_analysis *a)
{
    for (unsigned i = 0; i < a->nfindings; i++) {
        struct az_finding *f = a->findings[i];
        az_report_free(f->example);
        free(f->logs);
        free(f->first_time);
        free(f->last_time);
        free(f->confirm_detail);
        free(f);
    }
    free(a->findings);
    free(a->table);
    for (unsigned i = 0; i < a->nproblems; i++)
        free(a->problems[i].reason);
    free(a->problems);
    for (unsigned i = 0; i < a->nlogs; i++)
        free(a->logs[i]);
    free(a->logs);
    for (unsigned i = 0; i < a->nbaseline; i++)
        free(a->baseline[i]);
    free(a->baseline);
    for (unsigned i = 0; i < a->nread_errors; i++)
        free(a->read_errors[i]);
    free(a->read_errors);
}

void az_analysis_read_error(struct az_analysis *a, const char *message)
{
    a->read_errors = az_xrealloc(a->read_errors, (a->nread_errors + 1) * sizeof *a->read_errors);
    a->read_errors[a->nread_errors++] = az_xstrdup(message);
}

unsigned az_analysis_add_log(struct az_analysis *a, const char *name)
{
    if (a->nlogs == a->caplogs) {
        a->caplogs = a->caplogs ? a->caplogs * 2 : 16;
        a->logs = az_xrealloc(a->logs, a->caplogs * sizeof *a->logs);
    }
    a->logs[a->nlogs] = az_xstrdup(strcmp(name, "-") ? name : "<stdin>");
    return a->nlogs++;
}

static void add_problem(struct az_analysis *a, const struct az_report *r, const char *reason, int counted)
{
    a->problems_total++;
    if (a->nproblems == AZ_MAX_PROBLEMS)
        return;
    if (a->nproblems == a->capproblems) {
        a->capproblems = a->capproblems ? a->capproblems * 2 : 16;
        a->problems = az_xrealloc(a->problems, a->capproblems * sizeof *a->problems);
    }
    struct az_problem *p = &a->problems[a->nproblems++];
    p->log_index = r->log_index;
    p->line = r->line;
    p->end_line = r->end_line;
    p->kind = r->kind;
    p->frames = az_report_frame_count(r);
    p->counted = counted;
    p->reason = az_xstrdup(reason);
}

static int suppressed(const struct az_analysis *a, const struct az_report *r)
{
    if (!a->suppressions || r->kind < 0)
        return 0;
    /* The pattern may match the function, source file or module of any frame. */
    const char *strings[5];
    char norm[128];
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        for (unsigned j = 0; j < s->nframes; j++) {
            unsigned n = 0;
            const struct az_frame *f = &s->frames[j];
            strings[n++] = f->function;
            strings[n++] = f->file;
            /* As the runtime: a pattern may name the file by its base name. */
            if (f->file && strrchr(f->file, '/'))
                strings[n++] = strrchr(f->file, '/') + 1;
            strings[n++] = f->module;
            if (f->function) {
                az_normalize_function(f->function, norm, sizeof norm);
                strings[n++] = norm;
            }
            if (rt_suppressions_match(a->suppressions, rt_kind_table[r->kind].name, strings, n))
                return 1;
        }
    }
    return 0;
}

static uint64_t sig_value(const char *hex)
{
    uint64_t v = 0;
    az_parse_hex(hex, strlen(hex), &v);
    return v;
}

static struct az_finding **slot_for(struct az_analysis *a, const char *hex)
{
    if ((a->nfindings + 1) * 2 > a->nslots) {
        size_t nslots = a->nslots ? a->nslots * 2 : 1024;
        struct az_finding **t = az_xcalloc(nslots, sizeof *t);
        for (unsigned i = 0; i < a->nfindings; i++) {
            size_t j = sig_value(a->findings[i]->sig.hex) & (nslots - 1);
            while (t[j])
                j = (j + 1) & (nslots - 1);
            t[j] = a->findings[i];
        }
        free(a->table);
        a->table = t;
        a->nslots = nslots;
    }
    size_t j = sig_value(hex) & (a->nslots - 1);
    while (a->table[j] && strcmp(a->table[j]->sig.hex, hex))
        j = (j + 1) & (a->nslots - 1);
    return &a->table[j];
}

static void seen_at(struct az_seen *s, const struct az_report *r)
{
    s->log_index = r->log_index;
    s->line = r->line;
}

void az_analysis_report(void *ctx, struct az_report *r)
{
    struct az_analysis *a = ctx;
    a->reports++;
    if (r->corrupt) {
        a->corrupt_total++;
        add_problem(a, r, r->corrupt, 0);
        return;
    }
    if (a->symbolizer)
        az_symbolize_report(a->symbolizer, r);
    struct az_signature sig;
    az_signature_compute(r, &sig);
    int is_suppressed = suppressed(a, r);
    a->suppressed_reports += (unsigned long)is_suppressed;
    if (r->runtime_truncated) {
        a->truncated_total++;
        add_problem(a, r, "report truncated by the runtime (its buffer was full); still counted", 1);
    }
    struct az_finding **slot = slot_for(a, sig.hex);
    struct az_finding *f = *slot;
    if (!f) {
        f = az_xcalloc(1, sizeof *f);
        f->sig = sig;
        f->kind = r->kind;
        f->example = az_report_clone(r);
        seen_at(&f->first, r);
        f->first_time = r->time ? az_xstrdup(r->time) : NULL;
        *slot = f;
        if (a->nfindings == a->capfindings) {
            a->capfindings = a->capfindings ? a->capfindings * 2 : 64;
            a->findings = az_xrealloc(a->findings, a->capfindings * sizeof *a->findings);
        }
        a->findings[a->nfindings++] = f;
    } else if (r->time && (!f->first_time || strcmp(r->time, f->first_time) < 0)) {
        /* First and last seen follow the reports' clocks when they have them. */
        free(f->first_time);
        f->first_time = az_xstrdup(r->time);
        seen_at(&f->first, r);
    }
    if (r->confirm_detail && r->confirm != AZ_CONFIRM_NOT_TRIED &&
        (f->confirm == AZ_CONFIRM_NOT_TRIED || (r->confirm == AZ_CONFIRM_CONFIRMED && f->confirm != r->confirm))) {
        f->confirm = r->confirm;
        free(f->confirm_detail);
        f->confirm_detail = az_xstrdup(r->confirm_detail);
    }
    if (!f->last_time || !r->time || strcmp(r->time, f->last_time) >= 0) {
        if (r->time) {
            free(f->last_time);
            f->last_time = az_xstrdup(r->time);
        }
        seen_at(&f->last, r);
    }
    f->count++;
    f->suppressed += (unsigned long)is_suppressed;
    if (!f->nlogs || f->logs[f->nlogs - 1] != r->log_index) {
        int known = 0;
        for (unsigned i = 0; i < f->nlogs && !known; i++)
            known = f->logs[i] == r->log_index;
        if (!known) {
            if (f->nlogs == f->caplogs) {
                f->caplogs = f->caplogs ? f->caplogs * 2 : 4;
                f->logs = az_xrealloc(f->logs, f->caplogs * sizeof *f->logs);
            }
            f->logs[f->nlogs++] = r->log_index;
        }
    }
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int az_analysis_load_baseline(struct az_analysis *a, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        snprintf(err, errlen, "cannot read baseline '%s': %s", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        snprintf(err, errlen, "baseline '%s' is empty: expected the JSON output of an earlier rtdd analyze --format=json",
                 path);
        return -1;
    }
    json_object *root = json_object_from_file(path);
    if (!root) {
        const char *why = json_util_get_last_err();
        snprintf(err, errlen, "baseline '%s' is not valid JSON%s%s", path, why ? ": " : "", why ? why : "");
        return -1;
    }
    json_object *arr;
    if (!json_object_object_get_ex(root, "findings", &arr) || !json_object_is_type(arr, json_type_array)) {
        snprintf(err, errlen, "baseline '%s' is not an rtdd analyze JSON output (no \"findings\" array)", path);
        json_object_put(root);
        return -1;
    }
    size_t n = json_object_array_length(arr);
    a->baseline = az_xrealloc(a->baseline, (a->nbaseline + n) * sizeof *a->baseline);
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(arr, i), *sig;
        if (json_object_is_type(f, json_type_object) && json_object_object_get_ex(f, "signature", &sig) &&
            json_object_is_type(sig, json_type_string))
            a->baseline[a->nbaseline++] = az_xstrdup(json_object_get_string(sig));
    }
    json_object_put(root);
    qsort(a->baseline, a->nbaseline, sizeof *a->baseline, cmp_str);
    return 0;
}

static int cmp_findings(const void *x, const void *y)
{
    const struct az_finding *a = *(const struct az_finding *const *)x, *b = *(const struct az_finding *const *)y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int c = strcmp(a->sig.title, b->sig.title);
    return c ? c : strcmp(a->sig.hex, b->sig.hex);
}

void az_analysis_finish(struct az_analysis *a)
{
    for (unsigned i = 0; i < a->nfindings; i++) {
        const char *key = a->findings[i]->sig.hex;
        a->findings[i]->in_baseline =
            a->nbaseline && bsearch(&key, a->baseline, a->nbaseline, sizeof *a->baseline, cmp_str) != NULL;
        a->findings[i]->first.time = a->findings[i]->first_time;
        a->findings[i]->last.time = a->findings[i]->last_time;
    }
    if (a->nfindings)
        qsort(a->findings, a->nfindings, sizeof *a->findings, cmp_findings);
}

enum az_status az_finding_status(const struct az_finding *f)
{
    if (f->suppressed == f->count)
        return AZ_SUPPRESSED;
    return f->in_baseline ? AZ_BASELINE : AZ_NEW;
}

int az_finding_fails(const struct az_finding *f)
{
    return az_finding_status(f) == AZ_NEW && f->kind >= 0 && az_finding_severity(f) != RT_SEV_INFO;
}

int az_finding_severity(const struct az_finding *f)
{
    if (f->confirm == AZ_CONFIRM_CONFIRMED)
        return RT_SEV_BUG;
    return f->kind >= 0 ? (int)rt_kind_table[f->kind].severity : RT_SEV_WARNING;
}

const struct az_frame *az_finding_guilty_frame(const struct az_finding *f)
{
    if (f->sig.primary < 0 || f->sig.guilty_frame < 0)
        return NULL;
    return &f->example->sections[f->sig.primary].frames[f->sig.guilty_frame];
}

void az_finding_location(const struct az_finding *f, char *out, size_t cap)
{
    const struct az_frame *g = az_finding_guilty_frame(f);
    if (g && g->file && g->line)
        snprintf(out, cap, "%s:%u", g->file, g->line);
    else if (g && g->module && g->has_module_offset)
        snprintf(out, cap, "%s+0x%llx", g->module, (unsigned long long)g->module_offset);
    else if (g && g->function)
        snprintf(out, cap, "%s", g->function); /* kernel frames: no file, no module offset */
    else
        snprintf(out, cap, "%s", f->example->location ? f->example->location : "[no stack]");
}

unsigned az_analysis_count_status(const struct az_analysis *a, enum az_status st)
{
    unsigned n = 0;
    for (unsigned i = 0; i < a->nfindings; i++)
        n += az_finding_status(a->findings[i]) == st;
    return n;
}
