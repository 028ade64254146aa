/* The lines of a report being built (report.c): as many as it needs, with
 * no budget that loses any. They live in chunks: one inside the report,
 * more from a pool as it grows. */
#ifndef RTDD_REPORT_ITEMS_H
#define RTDD_REPORT_ITEMS_H
#include "core/core.h"
#include <stdarg.h>

#define RT_CHUNK_ITEMS 64
#define RT_CHUNK_TEXT 8192

/* A text line, or (is_stack) a section title followed by a stack's frames. */
struct rt_item {
    int is_stack;
    rt_stack_id stack;
    const char *text;
};

struct rt_item_chunk {
    struct rt_item_chunk *next;
    unsigned nitems;
    struct rt_item items[RT_CHUNK_ITEMS];
    struct rt_buf textbuf;
    char text[RT_CHUNK_TEXT];
};

struct rt_items {
    struct rt_item_chunk *last; /* where the next line goes */
    unsigned lost;              /* lines left out: no memory for another chunk */
    struct rt_item_chunk first;
};

void rt_items_init(struct rt_items *s);
/* Appends a line, whole (up to RT_CHUNK_TEXT - 1 bytes); when the runtime
 * has no memory for another chunk, counts it in lost instead. */
void rt_items_add(struct rt_items *s, int is_stack, rt_stack_id stack, const char *fmt, va_list ap);
/* Gives the extra chunks back to their pool. */
void rt_items_release(struct rt_items *s);
void rt_items_after_fork(void);

/* Walks the lines in order. */
struct rt_item_iter {
    struct rt_item_chunk *c;
    unsigned i;
};
static inline struct rt_item *rt_item_next(struct rt_item_iter *it)
{
    while (it->c && it->i >= it->c->nitems) {
        it->c = it->c->next;
        it->i = 0;
    }
    return it->c ? &it->c->items[it->i++] : 0;
}
static inline struct rt_item *rt_item_first(struct rt_items *s, struct rt_item_iter *it)
{
    it->c = &s->first;
    it->i = 0;
    return rt_item_next(it);
}
#endif
