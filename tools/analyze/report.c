#include "report.h"
#include "report/demangle.h"
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void az_report_init(struct az_report *r)
{
    memset(r, 0, sizeof *r);
    r->kind = -1;
    az_arena_init(&r->arena, 16384);
}

void az_report_reset(struct az_report *r)
{
    struct az_arena keep = r->arena;
    az_arena_reset(&keep);
    memset(r, 0, sizeof *r);
    r->kind = -1;
    r->arena = keep;
}

void az_report_destroy(struct az_report *r)
{
    az_arena_free(&r->arena);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        len = 2, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        len = 3, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        len = 4, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    unsigned v = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return len;
}

/* 1 if s[0..n) is all printable ASCII (checked eight bytes at a time). */
static int plain_ascii(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t del = x ^ (ones * 0x7f);
        if (((x - ones * 0x20) | x | ((del - ones) & ~del)) & highs)
            return 0;
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

const char *az_report_str(struct az_report *r, const char *s, size_t n)
{
    char *d = az_arena_alloc(&r->arena, n + 1);
    if (plain_ascii(s, n)) { /* the common case: nothing to replace */
        memcpy(d, s, n);
        d[n] = 0;
        return d;
    }
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n) {
        if (u[i] >= 0x20 && u[i] < 0x7f) {
            d[o++] = (char)u[i++];
            continue;
        }
        size_t len = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 0;
        if (len) {
            memcpy(d + o, u + i, len);
            o += len;
            i += len;
        } else {
            d[o++] = u[i] == '\t' ? ' ' : '?';
            i++;
        }
    }
    d[o] = 0;
    return d;
}

struct az_section *az_report_add_section(struct az_report *r, const char *title, size_t n)
{
    if (r->nsections == AZ_MAX_SECTIONS) {
        r->dropped_sections++;
        r->last_dropped = 1;
        return NULL;
    }
    struct az_section *s = &r->sections[r->nsections++];
    memset(s, 0, sizeof *s);
    s->title = title ? az_report_str(r, title, n) : NULL;
    return s;
}

struct az_section *az_report_current_section(struct az_report *r)
{
    if (r->last_dropped)
        return NULL;
    if (r->nsections)
        return &r->sections[r->nsections - 1];
    return az_report_add_section(r, NULL, 0);
}

struct az_frame *az_report_add_frame(struct az_report *r, struct az_section *s, const struct az_frame *f)
{
    if (!s)
        return NULL;
    s->is_stack = 1;
    if (s->nframes == AZ_MAX_FRAMES) {
        s->dropped++;
        return NULL;
    }
    if (s->nframes == s->capacity) {
        unsigned cap = s->capacity ? s->capacity * 2 : 8;
        struct az_frame *nf = az_arena_alloc(&r->arena, cap * sizeof *nf);
        if (s->nframes)
            memcpy(nf, s->frames, s->nframes * sizeof *nf);
        s->frames = nf;
        s->capacity = cap;
    }
    s->frames[s->nframes] = *f;
    return &s->frames[s->nframes++];
}

const struct az_module *az_report_module(const struct az_report *r, const char *name)
{
    for (unsigned i = 0; name && i < r->nmodules; i++)
        if (!strcmp(r->modules[i].name, name))
            return &r->modules[i];
    return NULL;
}

void az_report_set_corrupt(struct az_report *r, const char *fmt, ...)
{
    if (r->corrupt)
        return; /* the first reason is the one that explains the rest */
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    r->corrupt = az_report_str(r, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

unsigned az_report_frame_count(const struct az_report *r)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->nsections; i++)
        n += r->sections[i].nframes;
    return n;
}

#define DUP(field) c->field = az_arena_strdup(&c->arena, r->field)

/* A name as people write it (NULL stays NULL). */
static const char *plain_name(struct az_report *r, const char *name)
{
    char plain[512];
    if (!name || !rt_demangle(name, plain, sizeof plain))
        return name;
    return az_report_str(r, plain, strlen(plain));
}

/* Logs of C++ programs may carry mangled names (an older runtime, or
 * symbols another tool wrote): the SUMMARY's function, the frames' and the
 * cycle's lock names read as C++, before signatures, titles and
 * suppressions see them. */
void az_report_demangle(struct az_report *r)
{
    r->function = plain_name(r, r->function);
    for (unsigned i = 0; i < r->nsections; i++)
        for (unsigned j = 0; j < r->sections[i].nframes; j++)
            r->sections[i].frames[j].function = plain_name(r, r->sections[i].frames[j].function);
    for (unsigned i = 0; i < r->ncycle; i++)
        r->cycle[i] = plain_name(r, r->cycle[i]);
}

struct az_report *az_report_clone(const struct az_report *r)
{
    struct az_report *c = az_xmalloc(sizeof *c);
    memcpy(c, r, sizeof *c);
    /* One chunk big enough for a typical report; more are added as needed. */
    az_arena_init(&c->arena, 4096);
    DUP(headline);
    DUP(comm);
    DUP(time);
    DUP(location);
    DUP(function);
    DUP(corrupt);
    DUP(confirm_detail);
    for (unsigned i = 0; i < c->nsections; i++) {
        struct az_section *s = &c->sections[i];
        s->title = az_arena_strdup(&c->arena, s->title);
        s->capacity = s->nframes;
        s->frames = s->nframes ? az_arena_alloc(&c->arena, s->nframes * sizeof *s->frames) : NULL;
        for (unsigned j = 0; j < s->nframes; j++) {
            struct az_frame f = r->sections[i].frames[j];
            f.function = az_arena_strdup(&c->arena, f.function);
            f.file = az_arena_strdup(&c->arena, f.file);
            f.module = az_arena_strdup(&c->arena, f.module);
            s->frames[j] = f;
        }
    }
    for (unsigned i = 0; i < c->nmodules; i++) {
        struct az_module *m = &c->modules[i];
        m->name = az_arena_strdup(&c->arena, m->name);
        m->build_id = az_arena_strdup(&c->arena, m->build_id);
        m->path = az_arena_strdup(&c->arena, m->path);
    }
    for (unsigned i = 0; i < c->ncycle; i++)
        c->cycle[i] = az_arena_strdup(&c->arena, c->cycle[i]);
    return c;
}

void az_report_free(struct az_report *r)
{
    if (r) {
        az_arena_free(&r->arena);
        free(r);
    }
}
