#include "core/rt_alloc.h"
#include "core/quietwrite.h"
#include "core/rt_common.h"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RT_CHUNK (4u << 20)

static rt_spin_t arena_lock = RT_SPIN_INIT;
static char *arena_cur, *arena_end;

void *rt_zalloc(size_t size)
{
    /* A block of a cache line or more starts on a line: a lock record (one
     * line) or a batch of them is read in one line each, and no two
     * threads' objects share one (a record across two lines cost two
     * misses per lookup, and a write to its neighbour invalidated it). */
    size_t align = size >= 64 ? 64 : 16;
    size = (size + 15) & ~(size_t)15;
    if (size >= RT_CHUNK / 4) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    rt_spin_lock(&arena_lock);
    if (arena_cur)
        arena_cur = (char *)(((uintptr_t)arena_cur + align - 1) & ~(uintptr_t)(align - 1));
    if (!arena_cur || arena_cur > arena_end || (size_t)(arena_end - arena_cur) < size) {
        void *p = mmap(NULL, RT_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            rt_spin_unlock(&arena_lock);
            return NULL;
        }
        arena_cur = p;
        arena_end = arena_cur + RT_CHUNK;
    }
    void *r = arena_cur;
    arena_cur += size;
    rt_spin_unlock(&arena_lock);
    return r;
}

int rt_grow_array(void **arr, unsigned *cap, unsigned need, size_t size)
{
    if (need <= *cap)
        return 0;
    unsigned n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    void *bigger = rt_zalloc((size_t)n * size);
    if (!bigger)
        return -1;
    if (*arr)
        memcpy(bigger, *arr, (size_t)*cap * size);
    *arr = bigger;
    *cap = n;
    return 0;
}

struct pool_node { struct pool_node *next; };

#define POOL_SLOTS 16
#define POOL_BATCH 32 /* objects moved between a thread and its pool at once */
static struct rt_pool *_Atomic pool_of_slot[POOL_SLOTS];
static _Atomic unsigned pool_slots_used;
static __thread struct pool_cache {
    struct pool_node *head;
    unsigned count;
} pool_caches[POOL_SLOTS] __attribute__((tls_model("initial-exec")));

static struct pool_cache *cache_of(struct rt_pool *pool)
{
    unsigned slot = __atomic_load_n(&pool->slot, __ATOMIC_ACQUIRE);
    if (unlikely(slot == 0)) {
        rt_spin_lock(&pool->lock);
        slot = pool->slot;
        if (slot == 0) {
            unsigned i = __atomic_fetch_add(&pool_slots_used, 1, __ATOMIC_RELAXED);
            if (i < POOL_SLOTS) {
                __atomic_store_n(&pool_of_slot[i], pool, __ATOMIC_RELEASE);
                slot = i + 1;
            } else {
                slot = RT_POOL_SHARED; /* more pools than slots */
            }
            __atomic_store_n(&pool->slot, slot, __ATOMIC_RELEASE);
        }
        rt_spin_unlock(&pool->lock);
    }
    return slot <= POOL_SLOTS ? &pool_caches[slot - 1] : NULL;
}

/* Moves up to n objects from the shared list to the cache. */
static void refill(struct rt_pool *pool, struct pool_cache *c, unsigned n)
{
    rt_spin_lock(&pool->lock);
    struct pool_node *first = pool->freelist, *last = NULL;
    unsigned taken = 0;
    for (struct pool_node *p = first; p && taken < n; p = p->next) {
        last = p;
        taken++;
    }
    if (last) {
        pool->freelist = last->next;
        last->next = c->head;
        c->head = first;
        c->count += taken;
    }
    rt_spin_unlock(&pool->lock);
}

void *rt_pool_get(struct rt_pool *pool)
{
    struct pool_cache *c = cache_of(pool);
    struct pool_node *n = NULL;
    if (c) {
        if (!c->head)
            refill(pool, c, POOL_BATCH);
        if ((n = c->head) != NULL) {
            c->head = n->next;
            c->count--;
        }
    } else {
        rt_spin_lock(&pool->lock);
        if ((n = pool->freelist) != NULL)
            pool->freelist = n->next;
        rt_spin_unlock(&pool->lock);
    }
    if (n) {
        memset(n, 0, pool->objsize);
        return n;
    }
    if (!c)
        return rt_zalloc(pool->objsize);
    /* Fresh objects come from the arena a batch at a time: one arena lock
     * per batch, and a thread's objects side by side. */
    char *batch = rt_zalloc(pool->objsize * POOL_BATCH);
    if (!batch)
        return NULL;
    for (unsigned i = POOL_BATCH - 1; i > 0; i--) {
        struct pool_node *spare = (struct pool_node *)(batch + i * pool->objsize);
        spare->next = c->head;
        c->head = spare;
        c->count++;
    }
    return batch;
}

/* Gives the cache's first n objects back to the shared list. */
static void spill(struct rt_pool *pool, struct pool_cache *c, unsigned n)
{
    struct pool_node *first = c->head, *last = first;
    if (!first)
        return;
    unsigned moved = 1;
    while (moved < n && last->next) {
        last = last->next;
        moved++;
    }
    c->head = last->next;
    c->count -= moved;
    rt_spin_lock(&pool->lock);
    last->next = pool->freelist;
    pool->freelist = first;
    rt_spin_unlock(&pool->lock);
}

void rt_pool_put(struct rt_pool *pool, void *obj)
{
    struct pool_cache *c = cache_of(pool);
    struct pool_node *n = obj;
    if (c) {
        n->next = c->head;
        c->head = n;
        if (++c->count > 2 * POOL_BATCH)
            spill(pool, c, POOL_BATCH);
        return;
    }
    rt_spin_lock(&pool->lock);
    n->next = pool->freelist;
    pool->freelist = n;
    rt_spin_unlock(&pool->lock);
}

void rt_pool_thread_flush(void)
{
    unsigned used = __atomic_load_n(&pool_slots_used, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < used && i < POOL_SLOTS; i++) {
        struct rt_pool *pool = __atomic_load_n(&pool_of_slot[i], __ATOMIC_ACQUIRE);
        if (pool && pool_caches[i].count)
            spill(pool, &pool_caches[i], pool_caches[i].count);
    }
}

void rt_out_of_memory(const char *what)
{
    static _Atomic int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    static const char pre[] = "rtdd: out of memory for ";
    static const char post[] = "; checking continues with less detail\n";
    rt_quiet_write(2, pre, sizeof(pre) - 1);
    rt_quiet_write(2, what, strlen(what));
    rt_quiet_write(2, post, sizeof(post) - 1);
}

void rt_alloc_after_fork(void)
{
    rt_spin_reinit(&arena_lock);
}
