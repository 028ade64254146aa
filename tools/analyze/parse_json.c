#include "parse_json.h"
#include "cycle.h"
#include "report/kinds.h"
#include "parse_text.h"
#include "util.h"
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

int az_json_candidate(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i < n && s[i] == '{' && memmem(s + i, n - i < 16 ? n - i : 16, "\"rtdd\"", 6) != NULL;
}

static const char *get_str(struct az_report *r, json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return az_report_str(r, json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

static int get_u64(json_object *o, const char *key, uint64_t *out)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return 0;
    if (json_object_is_type(v, json_type_int)) {
        *out = (uint64_t)json_object_get_int64(v);
        return 1;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        size_t len = (size_t)json_object_get_string_len(v);
        return len && az_parse_hex(s, len, out) == len;
    }
    return 0;
}

static void read_frame(struct az_report *r, struct az_section *sec, json_object *jf)
{
    if (!json_object_is_type(jf, json_type_object)) {
        az_report_set_corrupt(r, "a frame is not an object");
        return;
    }
    struct az_frame f = {0};
    f.function = get_str(r, jf, "function");
    f.file = get_str(r, jf, "file");
    f.module = get_str(r, jf, "module");
    uint64_t v;
    if (get_u64(jf, "line", &v))
        f.line = (unsigned)v;
    if (get_u64(jf, "pc", &v))
        f.pc = v;
    if (get_u64(jf, "module_offset", &v)) {
        f.module_offset = v;
        f.has_module_offset = 1;
    }
    json_object *inl;
    f.inlined = json_object_object_get_ex(jf, "inlined", &inl) && json_object_get_boolean(inl);
    if (!f.function && !f.has_module_offset)
        az_report_set_corrupt(r, "a frame has neither function nor module_offset");
    az_report_add_frame(r, sec, &f);
}

static void read_sections(struct az_report *r, json_object *arr)
{
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n; i++) {
        json_object *js = json_object_array_get_idx(arr, i), *frames, *more;
        if (!json_object_is_type(js, json_type_object)) {
            az_report_set_corrupt(r, "section %zu is not an object", i);
            continue;
        }
        if (i == 0 && json_object_object_get_ex(js, "more_frames", &more) && json_object_get_boolean(more) &&
            json_object_object_get_ex(js, "frames", &frames) && json_object_is_type(frames, json_type_array)) {
            /* A stack cut between two pieces: its frames go on here. */
            struct az_section *sec = az_report_current_section(r);
            size_t nf = json_object_array_length(frames);
            for (size_t j = 0; j < nf; j++)
                read_frame(r, sec, json_object_array_get_idx(frames, j));
            continue;
        }
        const char *title = get_str(r, js, "title");
        if (title && !strcmp(title, "[report truncated]"))
            r->runtime_truncated = 1;
        /* The cycle belongs in "cycle"; a writer that leaves it as a text
         * line "cycle: A -> B -> A" still tells the same. */
        if (title && !r->ncycle && !strncmp(title, "cycle: ", 7))
            az_text_cycle(r, title, strlen(title));
        int has_frames = json_object_object_get_ex(js, "frames", &frames);
        /* Text lines are kept while there is room; stacks always are. */
        if (!has_frames && r->nsections >= AZ_MAX_SECTIONS - 8)
            continue;
        struct az_section *sec = az_report_add_section(r, title, title ? strlen(title) : 0);
        if (!sec || !has_frames)
            continue;
        sec->is_stack = 1;
        if (!json_object_is_type(frames, json_type_array)) {
            az_report_set_corrupt(r, "\"frames\" is not an array");
            continue;
        }
        size_t nf = json_object_array_length(frames);
        for (size_t j = 0; j < nf; j++)
            read_frame(r, sec, json_object_array_get_idx(frames, j));
    }
}

static void read_modules(struct az_report *r, json_object *arr)
{
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n && r->nmodules < AZ_MAX_MODULES; i++) {
        json_object *jm = json_object_array_get_idx(arr, i);
        if (!json_object_is_type(jm, json_type_object))
            continue;
        struct az_module m = {get_str(r, jm, "name"), get_str(r, jm, "build_id"), get_str(r, jm, "path")};
        if (m.name)
            r->modules[r->nmodules++] = m;
    }
}

/* The object of one line, or NULL with r->corrupt set. */
static json_object *parse_line(struct az_report *r, const char *s, size_t n)
{
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) {
        az_report_set_corrupt(r, "out of memory");
        return NULL;
    }
    json_object *o = n > (size_t)INT32_MAX ? NULL : json_tokener_parse_ex(tok, s, (int)n);
    enum json_tokener_error err = json_tokener_get_error(tok);
    /* Anything after the object but blanks makes the line not one report. */
    size_t used = o ? json_tokener_get_parse_end(tok) : 0;
    while (used < n && (s[used] == ' ' || s[used] == '\t'))
        used++;
    json_tokener_free(tok);
    if (!o || err != json_tokener_success || used != n) {
        az_report_set_corrupt(r, "invalid JSON report: %s",
                              !o && err == json_tokener_continue ? "cut off"
                              : o                                ? "text after the object"
                                                                 : json_tokener_error_desc(err));
        json_object_put(o);
        return NULL;
    }
    if (!json_object_is_type(o, json_type_object)) {
        az_report_set_corrupt(r, "JSON report is not an object");
        json_object_put(o);
        return NULL;
    }
    return o;
}

static void copy_id(json_object *o, const char *key, char *out, size_t cap)
{
    json_object *v;
    out[0] = 0;
    if (cap && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        snprintf(out, cap, "%s", json_object_get_string(v));
}

/* What every piece may carry: sections; the last piece, the rest. */
static void read_body(struct az_report *r, json_object *o, int first_piece)
{
    json_object *v;
    const char *s;
    if (json_object_object_get_ex(o, "sections", &v) && json_object_is_type(v, json_type_array))
        read_sections(r, v);
    else
        az_report_set_corrupt(r, "no \"sections\" array");
    if ((s = get_str(r, o, "location")) != NULL || first_piece)
        r->location = s;
    if ((s = get_str(r, o, "function")) != NULL || first_piece)
        r->function = s;
    if (json_object_object_get_ex(o, "modules", &v) && json_object_is_type(v, json_type_array))
        read_modules(r, v);
    if (json_object_object_get_ex(o, "confirm", &v) && json_object_is_type(v, json_type_string) && !r->confirm_detail) {
        /* Written into the report by rtdd run --confirm (docs/confirm.md). */
        const char *c = json_object_get_string(v);
        size_t cn = (size_t)json_object_get_string_len(v);
        r->confirm = (unsigned char)az_confirm_line_state(c, cn);
        r->confirm_detail = az_report_str(r, c, cn);
    }
    if (json_object_object_get_ex(o, "cycle", &v) && json_object_is_type(v, json_type_array)) {
        size_t nc = json_object_array_length(v);
        r->ncycle = 0; /* the field, not a "cycle:" text line, is the cycle */
        for (size_t i = 0; i < nc && r->ncycle < AZ_MAX_CYCLE; i++) {
            json_object *e = json_object_array_get_idx(v, i);
            if (json_object_is_type(e, json_type_string))
                r->cycle[r->ncycle++] = az_report_str(r, json_object_get_string(e), (size_t)json_object_get_string_len(e));
        }
    }
}

void az_json_report(struct az_report *r, const char *s, size_t n, char *continues, size_t cap)
{
    r->origin = AZ_ORIGIN_JSON;
    if (cap)
        continues[0] = 0;
    json_object *o = parse_line(r, s, n);
    if (!o)
        return;
    const char *kind = get_str(r, o, "kind");
    r->kind = kind ? rt_kind_lookup(kind, strlen(kind)) : -1;
    if (r->kind < 0)
        az_report_set_corrupt(r, kind ? "unknown kind '%s'" : "no \"kind\" field%s", kind ? kind : "");
    r->headline = get_str(r, o, "headline");
    r->comm = get_str(r, o, "comm");
    r->time = get_str(r, o, "time");
    read_body(r, o, 1);
    copy_id(o, "continues", continues, cap);
    json_object_put(o);
}

int az_json_continued_id(const char *s, size_t n, char *id, size_t cap)
{
    static const char key[] = "\"continued\":\"";
    const char *k = memmem(s, n < 48 ? n : 48, key, sizeof key - 1);
    if (!k || !cap)
        return 0;
    const char *v = k + sizeof key - 1, *end = memchr(v, '"', (size_t)(s + n - v));
    if (!end || end == v || (size_t)(end - v) >= cap)
        return 0;
    memcpy(id, v, (size_t)(end - v));
    id[end - v] = 0;
    return 1;
}

void az_json_continuation(struct az_report *r, const char *s, size_t n, char *continues, size_t cap)
{
    if (cap)
        continues[0] = 0;
    json_object *o = parse_line(r, s, n);
    if (!o)
        return;
    read_body(r, o, 0);
    copy_id(o, "continues", continues, cap);
    json_object_put(o);
}
