#include "core/rt_fmt.h"
#include <stdint.h>
#include <string.h>

void rt_buf_init(struct rt_buf *b, char *storage, size_t cap)
{
    b->data = storage;
    b->cap = cap;
    b->len = 0;
    b->truncated = 0;
    if (cap)
        storage[0] = 0;
}

void rt_buf_putn(struct rt_buf *b, const char *s, size_t n)
{
    if (b->cap == 0)
        return;
    size_t room = b->cap - 1 - b->len;
    if (n > room) {
        n = room;
        b->truncated = 1;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void rt_buf_putc(struct rt_buf *b, char c) { rt_buf_putn(b, &c, 1); }
void rt_buf_puts(struct rt_buf *b, const char *s) { rt_buf_putn(b, s ? s : "(null)", strlen(s ? s : "(null)")); }

static void pad(struct rt_buf *b, char c, int n)
{
    while (n-- > 0)
        rt_buf_putc(b, c);
}

static void put_field(struct rt_buf *b, const char *s, size_t n, int width, int left, char padc)
{
    int fill = width > (int)n ? width - (int)n : 0;
    if (!left)
        pad(b, padc, fill);
    rt_buf_putn(b, s, n);
    if (left)
        pad(b, ' ', fill);
}

static size_t utoa(char *out, uint64_t v, unsigned base)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

void rt_buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            rt_buf_putn(b, p, n);
            p += n - 1;
            continue;
        }
        const char *start = p++;
        int left = 0, zero = 0, width = 0, longs = 0, precision = -1;
        for (; *p == '-' || *p == '0'; p++)
            *p == '-' ? (left = 1) : (zero = 1);
        for (; *p >= '0' && *p <= '9'; p++)
            width = width * 10 + (*p - '0');
        if (*p == '.' && p[1] == '*') {
            precision = va_arg(ap, int);
            p += 2;
        }
        for (; *p == 'l' || *p == 'z'; p++)
            longs = *p == 'z' ? 1 : longs + 1;
        char num[24];
        size_t n;
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            n = precision >= 0 ? strnlen(s, (size_t)precision) : strlen(s);
            put_field(b, s, n, width, left, ' ');
            break;
        }
        case 'c':
            num[0] = (char)va_arg(ap, int);
            put_field(b, num, 1, width, left, ' ');
            break;
        case 'd':
        case 'i': {
            int64_t v = longs ? va_arg(ap, long) : va_arg(ap, int);
            uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
            n = 0;
            if (v < 0)
                num[n++] = '-';
            n += utoa(num + n, u, 10);
            put_field(b, num, n, width, left, zero && !left ? '0' : ' ');
            break;
        }
        case 'u':
        case 'x': {
            uint64_t v = longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            n = utoa(num, v, *p == 'x' ? 16 : 10);
            put_field(b, num, n, width, left, zero && !left ? '0' : ' ');
            break;
        }
        case 'p': {
            uintptr_t v = (uintptr_t)va_arg(ap, void *);
            num[0] = '0';
            num[1] = 'x';
            n = 2 + utoa(num + 2, v, 16);
            put_field(b, num, n, width, left, ' ');
            break;
        }
        case '%':
            rt_buf_putc(b, '%');
            break;
        default:
            if (!*p) {
                rt_buf_puts(b, start);
                return;
            }
            rt_buf_putn(b, start, (size_t)(p - start + 1));
        }
    }
}

void rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rt_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void rt_buf_json_str(struct rt_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            rt_buf_putc(b, '\\');
            rt_buf_putc(b, (char)c);
        } else if (c < 0x20) {
            rt_buf_printf(b, "\\u%04x", c);
        } else {
            rt_buf_putc(b, (char)c);
        }
    }
}

const char *rt_quote(char *out, size_t cap, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (cap)
        out[o < cap ? o : cap - 1] = 0;
    return out;
}
