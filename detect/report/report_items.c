#include "report/report_items.h"
#include "core/core.h"

#define ITEM_TEXT_MIN 1024 /* less room left: a chunk takes no more lines */

static struct rt_pool chunk_pool = RT_POOL_INIT_SHARED(struct rt_item_chunk);

void rt_items_init(struct rt_items *s)
{
    s->last = &s->first;
    s->lost = 0;
    s->first.next = NULL;
    s->first.nitems = 0;
    rt_buf_init(&s->first.textbuf, s->first.text, sizeof s->first.text);
}

/* The chunk with room for one more line (a fresh one if fresh is set);
 * NULL when out of memory. */
static struct rt_item_chunk *chunk_for_item(struct rt_items *s, int fresh)
{
    struct rt_item_chunk *c = s->last;
    if (!fresh && c->nitems < RT_CHUNK_ITEMS && c->textbuf.cap - c->textbuf.len > ITEM_TEXT_MIN)
        return c;
    struct rt_item_chunk *n = rt_pool_get(&chunk_pool);
    if (!n) {
        rt_out_of_memory("a long report");
        return NULL;
    }
    rt_buf_init(&n->textbuf, n->text, sizeof n->text);
    c->next = n;
    s->last = n;
    return n;
}

void rt_items_add(struct rt_items *s, int is_stack, rt_stack_id stack, const char *fmt, va_list ap)
{
    struct rt_item_chunk *c = chunk_for_item(s, 0);
    if (!c) {
        s->lost++; /* the report says how many */
        return;
    }
    size_t at = c->textbuf.len;
    va_list again;
    va_copy(again, ap);
    rt_buf_vprintf(&c->textbuf, fmt, ap);
    if (c->textbuf.truncated && at > 0) {
        /* Longer than the room left: the line goes whole into a fresh chunk. */
        c->textbuf.len = at;
        c->textbuf.truncated = 0;
        c->textbuf.data[at] = 0;
        c = chunk_for_item(s, 1);
        if (!c) {
            va_end(again);
            s->lost++;
            return;
        }
        at = 0;
        rt_buf_vprintf(&c->textbuf, fmt, again);
    }
    va_end(again);
    rt_buf_putn(&c->textbuf, "", 1); /* keep the NUL inside the buffer */
    struct rt_item *it = &c->items[c->nitems++];
    it->is_stack = is_stack;
    it->stack = stack;
    it->text = c->textbuf.data + at;
}

void rt_items_release(struct rt_items *s)
{
    for (struct rt_item_chunk *c = s->first.next, *next; c; c = next) {
        next = c->next;
        rt_pool_put(&chunk_pool, c);
    }
    s->first.next = NULL;
    s->last = &s->first;
}

void rt_items_after_fork(void)
{
    rt_spin_reinit(&chunk_pool.lock);
}
