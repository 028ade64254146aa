#include "util.h"
#include <stdlib.h>
#include <string.h>

static void *check(void *p)
{
    if (!p) {
        fputs("rtdd analyze: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

void *az_xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *az_xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *az_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *az_xstrdup(const char *s) { return check(strdup(s)); }
char *az_xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }

size_t az_parse_hex(const char *s, size_t n, uint64_t *out)
{
    size_t i = 0;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        i = 2;
    size_t start = i;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        v = v << 4 | d;
    }
    if (i == start)
        return 0;
    *out = v;
    return i;
}

size_t az_parse_dec(const char *s, size_t n, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (i)
        *out = v;
    return i;
}

int az_starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

uint64_t az_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void az_xml_escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* XML 1.0 forbids most control characters even as references. */
            if (c < 0x20 && c != '\n' && c != '\t')
                fputc('?', out);
            else
                fputc(c, out);
        }
    }
}
