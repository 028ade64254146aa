#define UNW_LOCAL_ONLY
#include "unwind.h"
#include <libunwind.h>

/* Code whose leading frames are left out: the runtime, and RCU libraries
 * whose hooks call into it. */
#define MAX_SKIP 4
static struct { uintptr_t lo, hi; } skip[MAX_SKIP];
static unsigned nskip;

void rt_unwind_set_runtime_range(uintptr_t lo, uintptr_t hi)
{
    skip[0].lo = lo;
    skip[0].hi = hi;
    if (nskip == 0)
        nskip = 1;
}

void rt_unwind_add_skip_range(uintptr_t lo, uintptr_t hi)
{
    if (nskip == 0)
        nskip = 1; /* slot 0 is the runtime's */
    if (nskip < MAX_SKIP) {
        skip[nskip].lo = lo;
        skip[nskip].hi = hi;
        nskip++;
    }
}

static int skipped(uintptr_t ip)
{
    for (unsigned i = 0; i < nskip; i++)
        if (ip >= skip[i].lo && ip < skip[i].hi)
            return 1;
    return 0;
}

void rt_unwind_init(void)
{
    /* Per-thread caches keep warm unwinds free of libunwind's own locks. */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

rt_stack_id rt_stack_capture(unsigned max_depth)
{
    uintptr_t pcs[RT_STACK_MAX];
    uintptr_t sps[RT_STACK_MAX];
    uint32_t frame_sizes[RT_STACK_MAX];
    unw_context_t ctx;
    unw_cursor_t cur;
    unsigned n = 0;
    int leading = 1;

    if (max_depth > RT_STACK_MAX)
        max_depth = RT_STACK_MAX;
    if (unw_getcontext(&ctx) < 0 || unw_init_local(&cur, &ctx) < 0)
        return 0;
    do {
        unw_word_t ip, sp;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        unw_get_reg(&cur, UNW_REG_SP, &sp);
        if (leading && skipped(ip))
            continue;
        leading = 0;
        pcs[n] = ip;
        sps[n] = sp;
        n++;
    } while (n < max_depth && unw_step(&cur) > 0);
    /* A frame's size is the distance from its stack pointer to its caller's. */
    for (unsigned i = 0; i < n; i++)
        frame_sizes[i] = i + 1 < n && sps[i + 1] > sps[i] ? (uint32_t)(sps[i + 1] - sps[i]) : 0;
    return rt_stack_intern(pcs, frame_sizes, n);
}
