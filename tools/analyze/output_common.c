#include "output.h"
#include "report/kinds.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

const char *az_status_name(enum az_status st)
{
    return st == AZ_NEW ? "new" : st == AZ_BASELINE ? "baseline" : "suppressed";
}

void az_seen_format(const struct az_analysis *a, const struct az_seen *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s:%lu", s->log_index < a->nlogs ? a->logs[s->log_index] : "?", s->line);
}

void az_frame_format(const struct az_frame *f, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "%s%s", f->function ? f->function : "??", f->inlined ? " (inlined)" : "");
    if (o < cap && f->file)
        o += (size_t)snprintf(out + o, cap - o, " %s:%u", f->file, f->line);
    if (o < cap && f->module && f->has_module_offset)
        snprintf(out + o, cap - o, " [%s+0x%llx]", f->module, (unsigned long long)f->module_offset);
}

int az_finding_has_cycle(const struct az_finding *f)
{
    return f->example->ncycle >= 2;
}

char *az_finding_describe(const struct az_analysis *a, const struct az_finding *f)
{
    size_t cap = 4096, len = 0;
    char *buf = az_xmalloc(cap);
    buf[0] = 0;
#define ADD(...)                                                                                                   \
    do {                                                                                                           \
        int n_ = snprintf(buf + len, cap - len, __VA_ARGS__);                                                      \
        if (n_ > 0 && (size_t)n_ >= cap - len) {                                                                   \
            cap = (len + (size_t)n_ + 1) * 2;                                                                      \
            buf = az_xrealloc(buf, cap);                                                                           \
            snprintf(buf + len, cap - len, __VA_ARGS__);                                                           \
        }                                                                                                          \
        if (n_ > 0)                                                                                                \
            len += (size_t)n_;                                                                                     \
    } while (0)
    const struct az_report *r = f->example;
    char first[512], last[512], loc[512];
    az_seen_format(a, &f->first, first, sizeof first);
    az_seen_format(a, &f->last, last, sizeof last);
    az_finding_location(f, loc, sizeof loc);
    ADD("%s\n", r->headline ? r->headline : f->sig.title);
    ADD("signature %s, %lu report%s in %u log%s, at %s\n", f->sig.hex, f->count, f->count == 1 ? "" : "s", f->nlogs,
        f->nlogs == 1 ? "" : "s", loc);
    ADD("first seen %s%s%s%s, last seen %s%s%s%s\n", first, f->first.time ? " (" : "", f->first.time ? f->first.time : "",
        f->first.time ? ")" : "", last, f->last.time ? " (" : "", f->last.time ? f->last.time : "", f->last.time ? ")" : "");
    if (r->ncycle) {
        ADD("cycle:");
        for (unsigned i = 0; i < r->ncycle; i++)
            ADD("%s%s", i ? " -> " : " ", r->cycle[i]);
        ADD("\n");
    }
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        if (!s->is_stack)
            continue;
        ADD("%s\n", s->title ? s->title : "stack:");
        for (unsigned j = 0; j < s->nframes; j++) {
            char fr[1024];
            az_frame_format(&s->frames[j], fr, sizeof fr);
            ADD("  %s\n", fr);
        }
        if (!s->nframes)
            ADD("  (stack unavailable)\n");
        if (s->dropped)
            ADD("  ... %u more frames\n", s->dropped);
    }
#undef ADD
    return buf;
}
