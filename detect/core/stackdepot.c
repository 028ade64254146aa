#include "core/stackdepot.h"
#include "core/rt_alloc.h"
#include "core/rt_common.h"
#include <string.h>

struct depot_entry {
    struct depot_entry *next;
    uint64_t hash;
    rt_stack_id id;
    unsigned depth;
    uintptr_t *pcs;
    uint32_t *frame_sizes;
};

#define DEPOT_BUCKETS (1u << 16)
#define ID_PAGE_BITS 12
#define ID_PAGES 4096 /* up to 16M distinct stacks */

static struct depot_entry *_Atomic buckets[DEPOT_BUCKETS];
static struct depot_entry **_Atomic id_pages[ID_PAGES];
static _Atomic uint32_t next_id = 1;

static uint64_t stack_hash(const uintptr_t *pcs, unsigned depth)
{
    uint64_t h = depth;
    for (unsigned i = 0; i < depth; i++)
        h = rt_hash64(h ^ pcs[i]);
    return h;
}

static struct depot_entry *find(struct depot_entry *e, uint64_t h, const uintptr_t *pcs, unsigned depth)
{
    for (; e; e = e->next)
        if (e->hash == h && e->depth == depth && !memcmp(e->pcs, pcs, depth * sizeof *pcs))
            return e;
    return NULL;
}

static int publish_id(struct depot_entry *e)
{
    uint32_t page = e->id >> ID_PAGE_BITS;
    if (page >= ID_PAGES)
        return -1;
    struct depot_entry **slots = __atomic_load_n(&id_pages[page], __ATOMIC_ACQUIRE);
    if (!slots) {
        struct depot_entry **fresh = rt_zalloc(sizeof(*fresh) << ID_PAGE_BITS);
        if (!fresh)
            return -1;
        struct depot_entry **expected = NULL;
        if (__atomic_compare_exchange_n(&id_pages[page], &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            slots = fresh;
        else
            slots = expected; /* another thread won; ours is a small leak */
    }
    __atomic_store_n(&slots[e->id & ((1u << ID_PAGE_BITS) - 1)], e, __ATOMIC_RELEASE);
    return 0;
}

rt_stack_id rt_stack_intern(const uintptr_t *pcs, const uint32_t *frame_sizes, unsigned depth)
{
    if (depth == 0)
        return 0;
    if (depth > RT_STACK_MAX)
        depth = RT_STACK_MAX;
    uint64_t h = stack_hash(pcs, depth);
    struct depot_entry *_Atomic *bucket = &buckets[h & (DEPOT_BUCKETS - 1)];
    struct depot_entry *head = __atomic_load_n(bucket, __ATOMIC_ACQUIRE);
    struct depot_entry *e = find(head, h, pcs, depth);
    if (e)
        return e->id;
    e = rt_zalloc(sizeof *e + depth * (sizeof(uintptr_t) + sizeof(uint32_t)));
    if (!e) {
        rt_out_of_memory("stacks");
        return 0;
    }
    e->hash = h;
    e->depth = depth;
    e->pcs = (uintptr_t *)(e + 1);
    e->frame_sizes = (uint32_t *)(e->pcs + depth);
    memcpy(e->pcs, pcs, depth * sizeof *pcs);
    if (frame_sizes)
        memcpy(e->frame_sizes, frame_sizes, depth * sizeof *frame_sizes);
    e->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    if (publish_id(e) < 0) {
        rt_out_of_memory("stack ids");
        return 0;
    }
    for (;;) {
        e->next = head;
        if (__atomic_compare_exchange_n(bucket, &head, e, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            return e->id;
        /* Someone inserted meanwhile: it may be the same stack. */
        struct depot_entry *other = find(head, h, pcs, depth);
        if (other)
            return other->id; /* our entry stays reachable by id only */
    }
}

unsigned rt_stack_get(rt_stack_id id, const uintptr_t **pcs, const uint32_t **frame_sizes)
{
    uint32_t page = id >> ID_PAGE_BITS;
    if (id == 0 || page >= ID_PAGES)
        return 0;
    struct depot_entry **slots = __atomic_load_n(&id_pages[page], __ATOMIC_ACQUIRE);
    struct depot_entry *e = slots ? __atomic_load_n(&slots[id & ((1u << ID_PAGE_BITS) - 1)], __ATOMIC_ACQUIRE) : NULL;
    if (!e)
        return 0;
    *pcs = e->pcs;
    if (frame_sizes)
        *frame_sizes = e->frame_sizes;
    return e->depth;
}

unsigned rt_stack_count(void)
{
    return __atomic_load_n(&next_id, __ATOMIC_RELAXED) - 1;
}
