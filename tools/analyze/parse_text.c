#include "parse_text.h"
#include "report/kinds.h"
#include "util.h"
#include <string.h>

static const char *find(const char *s, size_t n, const char *needle)
{
    return memmem(s, n, needle, strlen(needle));
}

static const char *rfind(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    if (n < k)
        return NULL;
    /* Candidates are the places of the needle's first byte, from the right. */
    for (size_t end = n - k + 1; end > 0;) {
        const char *c = memrchr(s, needle[0], end);
        if (!c)
            return NULL;
        if (!memcmp(c, needle, k))
            return c;
        end = (size_t)(c - s);
    }
    return NULL;
}

void az_split_file_line(struct az_report *r, const char *s, size_t n, struct az_frame *f)
{
    const char *colon = memrchr(s, ':', n);
    uint64_t line = 0;
    if (colon && colon + 1 < s + n) {
        size_t tail = (size_t)(s + n - colon - 1);
        if (az_parse_dec(colon + 1, tail, &line) == tail && line < 100000000) {
            f->file = az_report_str(r, s, (size_t)(colon - s));
            f->line = (unsigned)line;
            return;
        }
    }
    f->file = az_report_str(r, s, n);
    f->line = 0;
}

/* "NAME+0xOFF/0xSIZE": the length of NAME, or n when the suffix is absent. */
static size_t strip_offset_size(const char *s, size_t n)
{
    const char *plus = memrchr(s, '+', n);
    if (!plus || plus == s)
        return n;
    size_t rest = (size_t)(s + n - plus - 1);
    uint64_t v;
    size_t a = az_parse_hex(plus + 1, rest, &v);
    if (a < 3 || plus[1] != '0' || a >= rest || plus[1 + a] != '/')
        return n;
    size_t b = az_parse_hex(plus + 2 + a, rest - a - 1, &v);
    return b && a + 1 + b == rest ? (size_t)(plus - s) : n;
}

/* Finds where the symbol part ends: " (N) " or " (inlined)" followed by a
 * blank or the end. Returns the offset of " (" or -1. */
static long symbol_end(const char *s, size_t n, int *inlined)
{
    for (size_t i = 0; i + 3 < n; i++) {
        if (s[i] != ' ' || s[i + 1] != '(')
            continue;
        const char *p = s + i + 2;
        size_t left = n - i - 2;
        if (left >= 8 && !memcmp(p, "inlined)", 8) && (left == 8 || p[8] == ' ')) {
            *inlined = 1;
            return (long)i;
        }
        uint64_t v;
        size_t d = az_parse_dec(p, left, &v);
        if (d && d < left && p[d] == ')' && (d + 1 == left || p[d + 1] == ' ')) {
            *inlined = 0;
            return (long)i;
        }
    }
    return -1;
}

int az_text_frame(struct az_report *r, const char *s, size_t n, struct az_frame *f)
{
    memset(f, 0, sizeof *f);
    if (!az_starts_with(s, n, " [<"))
        return -1;
    size_t h = az_parse_hex(s + 3, n - 3, &f->pc);
    if (!h || !az_starts_with(s + 3 + h, n - 3 - h, ">] "))
        return -1;
    const char *rest = s + 3 + h + 3;
    size_t left = n - 3 - h - 3;
    int inlined = 0;
    long end = symbol_end(rest, left, &inlined);
    if (end <= 0)
        return -1;
    f->inlined = (unsigned char)inlined;
    size_t symlen = (size_t)end;
    if (!(symlen == 2 && !memcmp(rest, "??", 2)))
        f->function = az_report_str(r, rest, inlined ? symlen : strip_offset_size(rest, symlen));
    /* Skip past the closing parenthesis and the blank. */
    const char *close = memchr(rest + end, ')', left - (size_t)end);
    size_t skip = (size_t)(close - rest) + 1;
    if (skip >= left || rest[skip] != ' ')
        return -1;
    rest += skip + 1;
    left -= skip + 1;
    const char *sp = memchr(rest, ' ', left);
    size_t modlen = sp ? (size_t)(sp - rest) : left;
    const char *plus = rfind(rest, modlen, "+0x");
    if (!plus || plus == rest)
        return -1;
    size_t hexlen = modlen - (size_t)(plus - rest) - 1;
    if (az_parse_hex(plus + 1, hexlen, &f->module_offset) != hexlen)
        return -1;
    f->has_module_offset = 1;
    f->module = az_report_str(r, rest, (size_t)(plus - rest));
    if (sp && sp + 1 < rest + left)
        az_split_file_line(r, sp + 1, (size_t)(rest + left - sp - 1), f);
    return 0;
}

int az_text_module(struct az_report *r, const char *s, size_t n)
{
    if (!az_starts_with(s, n, "module: "))
        return -1;
    const char *b = find(s, n, " build-id "), *base = find(s, n, " base 0x"), *path = find(s, n, " path ");
    /* The fields may be empty but must not overlap (" build-id base 0x..."). */
    if (!b || !base || !path || !(s + 8 <= b && b + 10 <= base && base + 8 <= path))
        return -1;
    if (r->nmodules == AZ_MAX_MODULES)
        return 0; /* frames of the extra modules stay unsymbolized */
    struct az_module *m = &r->modules[r->nmodules++];
    m->name = az_report_str(r, s + 8, (size_t)(b - s - 8));
    const char *id = b + 10;
    size_t idlen = (size_t)(base - id);
    m->build_id = idlen == 0 || (idlen == 1 && id[0] == '-') ? NULL : az_report_str(r, id, idlen);
    m->path = az_report_str(r, path + 6, (size_t)(s + n - path - 6));
    return 0;
}

int az_text_context(struct az_report *r, const char *s, size_t n)
{
    if (!az_starts_with(s, n, "CPU: "))
        return -1;
    const char *comm = find(s, n, " Comm: "), *time = rfind(s, n, " Time: ");
    if (!comm || !find(s, n, " TID: "))
        return -1;
    const char *comm_end = time && time >= comm + 7 ? time : s + n;
    r->comm = az_report_str(r, comm + 7, (size_t)(comm_end - comm - 7));
    if (time && time >= comm + 7)
        r->time = az_report_str(r, time + 7, (size_t)(s + n - time - 7));
    return 0;
}

int az_text_summary(struct az_report *r, const char *s, size_t n)
{
    static const char prefix[] = "SUMMARY: rtdd: ";
    if (!az_starts_with(s, n, prefix))
        return -1;
    const char *k = s + sizeof prefix - 1, *end = s + n;
    const char *sp = memchr(k, ' ', (size_t)(end - k));
    const char *in = rfind(s, n, " in ");
    if (!sp || !in || in <= sp)
        return -1; /* no location between the kind and " in " */
    int kind = rt_kind_lookup(k, (size_t)(sp - k));
    if (kind < 0)
        return -1;
    r->kind = kind;
    r->location = az_report_str(r, sp + 1, (size_t)(in - sp - 1));
    r->function = az_report_str(r, in + 4, (size_t)(end - in - 4));
    return 0;
}

int az_text_cycle(struct az_report *r, const char *s, size_t n)
{
    if (!az_starts_with(s, n, "cycle: "))
        return -1;
    const char *p = s + 7, *end = s + n;
    r->ncycle = 0;
    while (p < end && r->ncycle < AZ_MAX_CYCLE) {
        const char *arrow = memmem(p, (size_t)(end - p), " -> ", 4);
        const char *stop = arrow ? arrow : end;
        if (stop == p)
            return -1;
        r->cycle[r->ncycle++] = az_report_str(r, p, (size_t)(stop - p));
        p = arrow ? arrow + 4 : end;
    }
    return r->ncycle >= 2 ? 0 : -1;
}
