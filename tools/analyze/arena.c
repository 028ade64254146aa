#include "arena.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

struct az_chunk {
    struct az_chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void az_arena_init(struct az_arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size < 256 ? 256 : chunk_size;
}

void *az_arena_alloc(struct az_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    struct az_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t want = size > a->chunk_size ? size : a->chunk_size;
        c = az_xmalloc(sizeof *c + want);
        c->used = 0;
        c->size = want;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *az_arena_strndup(struct az_arena *a, const char *s, size_t n)
{
    char *d = az_arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *az_arena_strdup(struct az_arena *a, const char *s)
{
    return s ? az_arena_strndup(a, s, strlen(s)) : NULL;
}

void az_arena_reset(struct az_arena *a)
{
    struct az_chunk *c = a->head;
    if (!c)
        return;
    /* Keep the oldest (first) chunk only when it has the standard size. */
    while (c->next) {
        struct az_chunk *next = c->next;
        free(c);
        c = next;
    }
    if (c->size != a->chunk_size) {
        free(c);
        a->head = NULL;
        return;
    }
    c->used = 0;
    a->head = c;
}

void az_arena_free(struct az_arena *a)
{
    for (struct az_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
}

size_t az_arena_footprint(const struct az_arena *a)
{
    size_t n = 0;
    for (const struct az_chunk *c = a->head; c; c = c->next)
        n += sizeof *c + c->size;
    return n;
}
