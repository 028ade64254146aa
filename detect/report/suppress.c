#include "report/suppress.h"
#include "report/kinds.h"
#include "core/core.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rule {
    char kind[40];   /* kind name or "*" */
    char pattern[216];
};

struct rt_suppressions {
    unsigned count;
    struct rule rules[];
};

int rt_glob_match(const char *p, const char *s)
{
    const char *star = NULL, *retry = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            retry = s;
        } else if (*p == '?' || *p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star;
            s = ++retry;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

static size_t trim(const char **p, size_t n)
{
    while (n && (**p == ' ' || **p == '\t')) {
        (*p)++;
        n--;
    }
    while (n && ((*p)[n - 1] == ' ' || (*p)[n - 1] == '\t' || (*p)[n - 1] == '\r'))
        n--;
    return n;
}

struct rt_suppressions *rt_suppressions_parse(const char *text, size_t len, const char *name, struct rt_buf *err)
{
    unsigned lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    struct rt_suppressions *s = rt_zalloc(sizeof *s + lines * sizeof(struct rule));
    if (!s) {
        rt_buf_printf(err, "%s: out of memory", name);
        return NULL;
    }
    const char *p = text, *end = text + len;
    for (unsigned lineno = 1; p < end; lineno++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *line = p;
        p += n + 1;
        const char *hash = memchr(line, '#', n);
        if (hash)
            n = (size_t)(hash - line);
        n = trim(&line, n);
        if (n == 0)
            continue;
        const char *colon = memchr(line, ':', n);
        if (!colon) {
            char shown[200];
            rt_buf_printf(err, "%s:%u: expected KIND:PATTERN, got '%s'", name, lineno, rt_quote(shown, sizeof shown, line, n));
            return NULL;
        }
        const char *kind = line;
        size_t klen = trim(&kind, (size_t)(colon - line));
        const char *pat = colon + 1;
        size_t plen = trim(&pat, n - (size_t)(colon - line) - 1);
        if (!(klen == 1 && kind[0] == '*') && rt_kind_lookup(kind, klen) < 0) {
            char shown[200];
            rt_buf_printf(err, "%s:%u: unknown report kind '%s' (valid: * or a kind such as %s)", name, lineno,
                          rt_quote(shown, sizeof shown, kind, klen), rt_kind_table[0].name);
            return NULL;
        }
        if (plen == 0 || plen >= sizeof s->rules[0].pattern) {
            rt_buf_printf(err, "%s:%u: %s pattern", name, lineno, plen ? "over-long" : "empty");
            return NULL;
        }
        struct rule *r = &s->rules[s->count++];
        memcpy(r->kind, kind, klen);
        memcpy(r->pattern, pat, plen);
    }
    return s;
}

struct rt_suppressions *rt_suppressions_load(const char *path, struct rt_buf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        rt_buf_printf(err, "cannot read suppressions file '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *text = rt_zalloc(cap);
    ssize_t n;
    while (text && len < cap - 1 && (n = read(fd, text + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    if (!text) {
        rt_buf_printf(err, "%s: out of memory", path);
        return NULL;
    }
    return rt_suppressions_parse(text, len, path, err);
}

int rt_suppressions_match(const struct rt_suppressions *s, const char *kind, const char *const *strings,
                          unsigned nstrings)
{
    for (unsigned i = 0; s && i < s->count; i++) {
        const struct rule *r = &s->rules[i];
        if (strcmp(r->kind, "*") && strcmp(r->kind, kind))
            continue;
        for (unsigned j = 0; j < nstrings; j++)
            if (strings[j] && strings[j][0] && rt_glob_match(r->pattern, strings[j]))
                return 1;
    }
    return 0;
}

unsigned rt_suppressions_count(const struct rt_suppressions *s)
{
    return s ? s->count : 0;
}
