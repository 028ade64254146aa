#include "core/options.h"
#include <string.h>

const struct rt_option_info rt_option_table[] = {
#define RT_OPT(key, type, def, min, max, vals, help) { #key, RT_OPT_##type, def, vals, help, min, max },
#include "core/options.def"
#undef RT_OPT
};
const unsigned rt_option_count = sizeof(rt_option_table) / sizeof(rt_option_table[0]);

/* Where each option lives inside struct rt_options, in table order. */
static void *field_of(struct rt_options *o, unsigned idx)
{
    void *fields[] = {
#define RT_OPT(key, type, def, min, max, vals, help) &o->key,
#include "core/options.def"
#undef RT_OPT
    };
    return fields[idx];
}

const struct rt_option_info *rt_option_find(const char *key, size_t keylen)
{
    for (unsigned i = 0; i < rt_option_count; i++)
        if (strlen(rt_option_table[i].key) == keylen && !memcmp(rt_option_table[i].key, key, keylen))
            return &rt_option_table[i];
    return NULL;
}

static void list_keys(struct rt_buf *err)
{
    rt_buf_puts(err, "; valid options: ");
    for (unsigned i = 0; i < rt_option_count; i++)
        rt_buf_printf(err, "%s%s", i ? ", " : "", rt_option_table[i].key);
}

/* Index of value in a '|'-separated list, or -1. */
static int enum_index(const char *values, const char *val, size_t vallen)
{
    int idx = 0;
    for (const char *p = values; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == vallen && !memcmp(p, val, n))
            return idx;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static int parse_long(const char *s, size_t n, long *out)
{
    long v = 0;
    if (n == 0 || n > 12)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* A log path names a file (or stderr, stdout); %p is the pid, %% a percent
 * sign; anything else after % is a mistake, not a file name. */
static int check_log_path(const char *val, size_t vallen, struct rt_buf *err)
{
    char shown[160];
    if (vallen == 0) {
        rt_buf_puts(err, "option 'log_path' is empty: give stderr, stdout or a file path");
        return -1;
    }
    for (size_t i = 0; i < vallen; i++) {
        if (val[i] != '%')
            continue;
        if (i + 1 < vallen && (val[i + 1] == 'p' || val[i + 1] == '%')) {
            i++;
            continue;
        }
        rt_buf_printf(err, "option 'log_path': unknown escape '%s' in '%s' (%%p is the process id, %%%% a %%)",
                      i + 1 < vallen ? rt_quote(shown, 8, val + i, 2) : "%", rt_quote(shown + 8, sizeof shown - 8, val, vallen));
        return -1;
    }
    return 0;
}

int rt_option_set(struct rt_options *o, const char *key, size_t keylen, const char *val, size_t vallen,
                  struct rt_buf *err)
{
    const struct rt_option_info *info = rt_option_find(key, keylen);
    char shown[160];
    if (!info) {
        rt_buf_printf(err, "unknown option '%s'", rt_quote(shown, sizeof shown, key, keylen));
        list_keys(err);
        return -1;
    }
    void *field = field_of(o, (unsigned)(info - rt_option_table));
    long num;
    switch (info->type) {
    case RT_OPT_BOOL:
    case RT_OPT_INT:
        if (parse_long(val, vallen, &num) < 0 || num < info->min || num > info->max) {
            rt_buf_printf(err, "bad value '%s' for option '%s': expected %s from %ld to %ld",
                          rt_quote(shown, sizeof shown, val, vallen), info->key, info->type == RT_OPT_BOOL ? "0 or 1, a whole number" : "a whole number",
                          info->min, info->max);
            list_keys(err);
            return -1;
        }
        if (info->type == RT_OPT_BOOL)
            *(int *)field = (int)num;
        else
            *(long *)field = num;
        return 0;
    case RT_OPT_ENUM: {
        int idx = enum_index(info->values, val, vallen);
        if (idx < 0) {
            rt_buf_printf(err, "bad value '%s' for option '%s': expected one of %s",
                          rt_quote(shown, sizeof shown, val, vallen), info->key, info->values);
            list_keys(err);
            return -1;
        }
        *(int *)field = idx;
        return 0;
    }
    case RT_OPT_STRING:
        if (vallen >= RT_OPT_STRING_MAX) {
            rt_buf_printf(err, "value for option '%s' is longer than %d bytes", info->key, RT_OPT_STRING_MAX - 1);
            return -1;
        }
        if (!strcmp(info->key, "log_path") && check_log_path(val, vallen, err) < 0)
            return -1;
        memcpy(field, val, vallen);
        ((char *)field)[vallen] = 0;
        return 0;
    }
    return -1;
}

void rt_options_defaults(struct rt_options *o)
{
    struct rt_buf sink;
    char scratch[8];
    rt_buf_init(&sink, scratch, sizeof scratch);
    memset(o, 0, sizeof *o);
    for (unsigned i = 0; i < rt_option_count; i++) {
        const struct rt_option_info *info = &rt_option_table[i];
        rt_option_set(o, info->key, strlen(info->key), info->def, strlen(info->def), &sink);
    }
}

int rt_options_parse(struct rt_options *o, const char *text, struct rt_buf *err)
{
    const char *p = text ? text : "";
    while (*p) {
        size_t n = strcspn(p, ":,");
        if (n > 0) {
            const char *eq = memchr(p, '=', n);
            if (!eq) {
                char shown[160];
                rt_buf_printf(err, "option '%s' has no value (expected key=value)", rt_quote(shown, sizeof shown, p, n));
                list_keys(err);
                return -1;
            }
            if (rt_option_set(o, p, (size_t)(eq - p), eq + 1, n - (size_t)(eq - p) - 1, err) < 0)
                return -1;
        }
        p += n;
        if (*p)
            p++;
    }
    return 0;
}
