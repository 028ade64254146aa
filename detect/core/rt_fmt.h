/* A formatter that never allocates and never touches stdio, for building
 * reports inside wrappers and signal handlers. */
#ifndef RTDD_FMT_H
#define RTDD_FMT_H
#include <stdarg.h>
#include <stddef.h>

struct rt_buf {
    char *data;
    size_t len, cap;
    int truncated; /* set when output did not fit; the text stays terminated */
};

void rt_buf_init(struct rt_buf *b, char *storage, size_t cap);
void rt_buf_putc(struct rt_buf *b, char c);
void rt_buf_puts(struct rt_buf *b, const char *s);
void rt_buf_putn(struct rt_buf *b, const char *s, size_t n);
/* printf subset: %s %c %% %d %i %u %x %p with l/ll/z, width, '-' and '0'
 * flags, and %.*s; unknown conversions are copied literally. */
void rt_buf_printf(struct rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap);
/* Text from outside (a file, the environment) for a message: bytes that
 * are not printable ASCII written as \xNN, at most cap - 1 bytes, into
 * out; returns out. */
const char *rt_quote(char *out, size_t cap, const char *s, size_t n);
/* JSON string body escaping (no surrounding quotes). */
void rt_buf_json_str(struct rt_buf *b, const char *s);
#endif
