/* SARIF 2.1.0 for code scanning: a rule per report kind (help from
 * docs/kinds), a result per finding with its guilty frame as location,
 * the stacks both as `stacks` and as `codeFlows` (GitHub shows only the
 * latter), the signature as partial fingerprint (so the alert stays the
 * same alert across runs), suppressed findings with `suppressions`, and
 * truncated/corrupt reports as tool execution notifications. */
#include "output.h"
#include "cycle.h"
#include "kinddoc.h"
#include "report/kinds.h"
#include "util.h"
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static json_object *text_msg(const char *text)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "text", json_object_new_string(text));
    return m;
}

static const char *level(int kind)
{
    if (kind < 0)
        return "warning";
    switch (rt_kind_table[kind].severity) {
    case RT_SEV_BUG: return "error";
    case RT_SEV_WARNING: return "warning";
    default: return "note";
    }
}

/* A file name as a URI reference: absolute paths as file:// URIs,
 * anything outside the unreserved set percent-encoded. */
static json_object *uri(const char *path)
{
    size_t n = strlen(path);
    char *out = az_xmalloc(n * 3 + 8);
    size_t o = 0;
    if (path[0] == '/') {
        memcpy(out, "file://", 7);
        o = 7;
    }
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            out[o++] = (char)*p;
        else
            o += (size_t)sprintf(out + o, "%%%02X", *p);
    }
    out[o] = 0;
    json_object *s = json_object_new_string(out);
    free(out);
    return s;
}

static json_object *file_location(const char *file, unsigned line)
{
    json_object *phys = json_object_new_object(), *art = json_object_new_object();
    json_object_object_add(art, "uri", uri(file));
    json_object_object_add(phys, "artifactLocation", art);
    if (line) {
        json_object *region = json_object_new_object();
        json_object_object_add(region, "startLine", json_object_new_int64(line));
        json_object_object_add(phys, "region", region);
    }
    return phys;
}

static json_object *frame_location(const struct az_frame *f)
{
    json_object *loc = json_object_new_object();
    if (f->file) {
        json_object_object_add(loc, "physicalLocation", file_location(f->file, f->line));
    } else if (f->module && f->has_module_offset) {
        json_object *phys = json_object_new_object(), *addr = json_object_new_object();
        char name[512];
        snprintf(name, sizeof name, "%s+0x%llx", f->module, (unsigned long long)f->module_offset);
        json_object_object_add(addr, "relativeAddress", json_object_new_int64((int64_t)f->module_offset));
        json_object_object_add(addr, "kind", json_object_new_string("instruction"));
        json_object_object_add(addr, "fullyQualifiedName", json_object_new_string(name));
        json_object_object_add(phys, "address", addr);
        json_object_object_add(loc, "physicalLocation", phys);
    }
    if (f->function) {
        json_object *ll = json_object_new_array(), *l = json_object_new_object();
        json_object_object_add(l, "fullyQualifiedName", json_object_new_string(f->function));
        json_object_object_add(l, "kind", json_object_new_string("function"));
        json_object_array_add(ll, l);
        json_object_object_add(loc, "logicalLocations", ll);
    }
    char text[1024];
    az_frame_format(f, text, sizeof text);
    json_object_object_add(loc, "message", text_msg(text));
    return loc;
}

static json_object *rule(int kind, const struct az_output_context *ctx)
{
    const struct rt_kind_info *k = &rt_kind_table[kind];
    json_object *r = json_object_new_object();
    json_object_object_add(r, "id", json_object_new_string(k->name));
    json_object_object_add(r, "name", json_object_new_string(k->name));
    json_object_object_add(r, "shortDescription", text_msg(k->title));
    json_object_object_add(r, "fullDescription", text_msg(k->headline));
    int from_page;
    char *help = az_kind_help(kind, ctx->docs_dir, &from_page);
    json_object *h = text_msg(help);
    json_object_object_add(h, "markdown", json_object_new_string(help));
    json_object_object_add(r, "help", h);
    free(help);
    json_object *conf = json_object_new_object();
    json_object_object_add(conf, "level", json_object_new_string(level(kind)));
    json_object_object_add(r, "defaultConfiguration", conf);
    json_object *props = json_object_new_object(), *tags = json_object_new_array();
    json_object_array_add(tags, json_object_new_string("concurrency"));
    json_object_array_add(tags, json_object_new_string(k->name[0] == 'r' && k->name[1] == 'c' ? "rcu" : "locking"));
    json_object_object_add(props, "tags", tags);
    json_object_object_add(r, "properties", props);
    return r;
}

static json_object *result(const struct az_analysis *a, const struct az_finding *f)
{
    const struct az_report *r = f->example;
    json_object *res = json_object_new_object();
    const char *kind = f->kind >= 0 ? rt_kind_table[f->kind].name : "unknown";
    json_object_object_add(res, "ruleId", json_object_new_string(kind));
    if (f->kind >= 0)
        json_object_object_add(res, "ruleIndex", json_object_new_int(f->kind));
    /* A cycle a rerun deadlocked (rtdd run --confirm) is a bug: level error. */
    json_object_object_add(res, "level", json_object_new_string(f->confirm == AZ_CONFIRM_CONFIRMED ? "error" : level(f->kind)));
    char msg[1024];
    snprintf(msg, sizeof msg, "%s (%lu report%s in %u log%s)", f->sig.title, f->count, f->count == 1 ? "" : "s",
             f->nlogs, f->nlogs == 1 ? "" : "s");
    json_object_object_add(res, "message", text_msg(msg));
    /* The primary location: the guilty frame, or the first frame with a source file. */
    const struct az_frame *g = az_finding_guilty_frame(f);
    if ((!g || !g->file) && f->sig.primary >= 0) {
        const struct az_section *s = &r->sections[f->sig.primary];
        for (unsigned i = 0; i < s->nframes; i++)
            if (s->frames[i].file && s->frames[i].line) {
                g = &s->frames[i];
                break;
            }
    }
    json_object *locs = json_object_new_array();
    if (g)
        json_object_array_add(locs, frame_location(g));
    json_object_object_add(res, "locations", locs);
    json_object *fp = json_object_new_object();
    json_object_object_add(fp, "rtddSignature/v1", json_object_new_string(f->sig.hex));
    json_object_object_add(res, "fingerprints", fp);
    json_object *pfp = json_object_new_object();
    json_object_object_add(pfp, "rtddSignature/v1", json_object_new_string(f->sig.hex));
    /* GitHub tracks alerts by this one key only; the signature keeps an
     * alert the same alert when lines move. */
    json_object_object_add(pfp, "primaryLocationLineHash", json_object_new_string(f->sig.hex));
    json_object_object_add(res, "partialFingerprints", pfp);
    json_object_object_add(res, "occurrenceCount", json_object_new_int64((int64_t)f->count));
    enum az_status st = az_finding_status(f);
    json_object_object_add(res, "baselineState", json_object_new_string(st == AZ_BASELINE ? "unchanged" : "new"));
    if (st == AZ_SUPPRESSED) {
        json_object *sups = json_object_new_array(), *s = json_object_new_object();
        json_object_object_add(s, "kind", json_object_new_string("external"));
        json_object_object_add(s, "justification", json_object_new_string("matched a suppressions file rule"));
        json_object_array_add(sups, s);
        json_object_object_add(res, "suppressions", sups);
    }
    json_object *stacks = json_object_new_array(), *flows = json_object_new_array();
    for (unsigned i = 0; i < r->nsections; i++) {
        const struct az_section *s = &r->sections[i];
        if (!s->is_stack || !s->nframes)
            continue;
        const char *title = s->title ? s->title : "stack:";
        json_object *st = json_object_new_object(), *frames = json_object_new_array();
        json_object_object_add(st, "message", text_msg(title));
        json_object *flow = json_object_new_object(), *steps = json_object_new_array();
        json_object_object_add(flow, "message", text_msg(title));
        for (unsigned j = 0; j < s->nframes; j++) {
            json_object *fr = json_object_new_object();
            json_object_object_add(fr, "location", frame_location(&s->frames[j]));
            if (s->frames[j].module)
                json_object_object_add(fr, "module", json_object_new_string(s->frames[j].module));
            json_object_array_add(frames, fr);
            /* A flow reads in execution order: outermost call first. */
            json_object *step = json_object_new_object();
            json_object_object_add(step, "location", frame_location(&s->frames[s->nframes - 1 - j]));
            json_object_object_add(step, "nestingLevel", json_object_new_int((int)j));
            json_object_array_add(steps, step);
        }
        json_object_object_add(st, "frames", frames);
        /* SARIF wants the stacks of a result unique: a repeated one adds nothing. */
        int repeated = 0;
        for (size_t k = 0; k < json_object_array_length(stacks) && !repeated; k++)
            repeated = json_object_equal(st, json_object_array_get_idx(stacks, k));
        if (repeated) {
            json_object_put(st);
            json_object_put(flow);
            json_object_put(steps);
            continue;
        }
        json_object_array_add(stacks, st);
        json_object_object_add(flow, "locations", steps);
        json_object_array_add(flows, flow);
    }
    json_object_object_add(res, "stacks", stacks);
    if (json_object_array_length(flows)) {
        json_object *cf = json_object_new_object(), *cfs = json_object_new_array();
        json_object_object_add(cf, "threadFlows", flows);
        json_object_array_add(cfs, cf);
        json_object_object_add(res, "codeFlows", cfs);
    } else {
        json_object_put(flows);
    }
    json_object *props = json_object_new_object(), *logs = json_object_new_array();
    for (unsigned i = 0; i < f->nlogs; i++)
        json_object_array_add(logs, json_object_new_string(a->logs[f->logs[i]]));
    json_object_object_add(props, "logs", logs);
    char seen[600];
    az_seen_format(a, &f->first, seen, sizeof seen);
    json_object_object_add(props, "firstSeen", json_object_new_string(seen));
    az_seen_format(a, &f->last, seen, sizeof seen);
    json_object_object_add(props, "lastSeen", json_object_new_string(seen));
    if (f->first.time)
        json_object_object_add(props, "firstSeenTime", json_object_new_string(f->first.time));
    if (f->last.time)
        json_object_object_add(props, "lastSeenTime", json_object_new_string(f->last.time));
    json_object_object_add(props, "status", json_object_new_string(az_status_name(st)));
    json_object_object_add(props, "suppressedReports", json_object_new_int64((int64_t)f->suppressed));
    if (r->ncycle) {
        json_object *cycle = json_object_new_array();
        for (unsigned i = 0; i < r->ncycle; i++)
            json_object_array_add(cycle, json_object_new_string(r->cycle[i]));
        json_object_object_add(props, "cycle", cycle);
    }
    if (az_cycle_kind(f->kind)) {
        json_object_object_add(props, "confirm", json_object_new_string(az_confirm_name(f->confirm)));
        if (f->confirm_detail)
            json_object_object_add(props, "confirmDetail", json_object_new_string(f->confirm_detail));
    }
    json_object_object_add(res, "properties", props);
    return res;
}

int az_write_sarif(FILE *out, const struct az_analysis *a, const struct az_output_context *ctx)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "$schema", json_object_new_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_object_add(root, "version", json_object_new_string("2.1.0"));
    json_object *run = json_object_new_object(), *tool = json_object_new_object(), *driver = json_object_new_object();
    json_object_object_add(driver, "name", json_object_new_string("rtdd"));
    json_object_object_add(driver, "version", json_object_new_string(ctx->version));
    json_object_object_add(driver, "semanticVersion", json_object_new_string(ctx->version));
    json_object *rules = json_object_new_array();
    for (int k = 0; k < RT_KIND_COUNT; k++)
        json_object_array_add(rules, rule(k, ctx));
    json_object_object_add(driver, "rules", rules);
    json_object_object_add(tool, "driver", driver);
    json_object_object_add(run, "tool", tool);
    json_object *inv = json_object_new_object(), *notes = json_object_new_array();
    /* A log that could not be read makes the run incomplete. */
    json_object_object_add(inv, "executionSuccessful", json_object_new_boolean(a->nread_errors == 0));
    for (unsigned i = 0; i < a->nread_errors; i++) {
        json_object *n = json_object_new_object();
        json_object_object_add(n, "message", text_msg(a->read_errors[i]));
        json_object_object_add(n, "level", json_object_new_string("error"));
        json_object_array_add(notes, n);
    }
    for (unsigned i = 0; i < a->nproblems; i++) {
        const struct az_problem *p = &a->problems[i];
        json_object *n = json_object_new_object(), *locs = json_object_new_array(), *loc = json_object_new_object();
        char text[1024];
        snprintf(text, sizeof text, "%s report%s%s: %s", p->counted ? "truncated" : "corrupt", p->kind >= 0 ? " of kind " : "",
                 p->kind >= 0 ? rt_kind_table[p->kind].name : "", p->reason);
        json_object_object_add(n, "message", text_msg(text));
        json_object_object_add(n, "level", json_object_new_string("warning"));
        json_object_object_add(loc, "physicalLocation", file_location(a->logs[p->log_index], (unsigned)p->line));
        json_object_array_add(locs, loc);
        json_object_object_add(n, "locations", locs);
        json_object_array_add(notes, n);
    }
    json_object_object_add(inv, "toolExecutionNotifications", notes);
    json_object *invs = json_object_new_array();
    json_object_array_add(invs, inv);
    json_object_object_add(run, "invocations", invs);
    json_object *results = json_object_new_array();
    for (unsigned i = 0; i < a->nfindings; i++)
        json_object_array_add(results, result(a, a->findings[i]));
    json_object_object_add(run, "results", results);
    json_object *runs = json_object_new_array();
    json_object_array_add(runs, run);
    json_object_object_add(root, "runs", runs);
    fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
    fputc('\n', out);
    json_object_put(root);
    return ferror(out) ? -1 : 0;
}
