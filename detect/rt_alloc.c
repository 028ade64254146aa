#include "rt_alloc.h"
#include "rt_common.h"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RT_CHUNK (4u << 20)

static rt_spin_t arena_lock = RT_SPIN_INIT;
static char *arena_cur, *arena_end;

void *rt_zalloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size >= RT_CHUNK / 4) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    rt_spin_lock(&arena_lock);
    if (!arena_cur || (size_t)(arena_end - arena_cur) < size) {
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

/* The freelist is guarded by a spinlock rather than a lock-free stack to
 * stay clear of ABA; pools are only touched on slow paths. */
void *rt_pool_get(struct rt_pool *pool)
{
    rt_spin_t *l = &pool->lock;
    rt_spin_lock(l);
    struct pool_node *n = pool->freelist;
    if (n)
        pool->freelist = n->next;
    rt_spin_unlock(l);
    if (n) {
        memset(n, 0, pool->objsize);
        return n;
    }
    return rt_zalloc(pool->objsize);
}

void rt_pool_put(struct rt_pool *pool, void *obj)
{
    rt_spin_t *l = &pool->lock;
    struct pool_node *n = obj;
    rt_spin_lock(l);
    n->next = pool->freelist;
    pool->freelist = n;
    rt_spin_unlock(l);
}

void rt_out_of_memory(const char *what)
{
    static _Atomic int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    static const char pre[] = "rtdd: out of memory for ";
    static const char post[] = "; checking continues with less detail\n";
    ssize_t r = write(2, pre, sizeof(pre) - 1);
    r = write(2, what, strlen(what));
    r = write(2, post, sizeof(post) - 1);
    (void)r;
}

void rt_alloc_after_fork(void)
{
    rt_spin_reinit(&arena_lock);
}
