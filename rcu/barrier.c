/* The update side's half of the asymmetric barrier.  Readers use only
 * compiler barriers; membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every
 * running thread of the process execute a full barrier, which is what their
 * missing fences would have provided.  Without membarrier (old kernel, or
 * RTDD_RCU_NO_MEMBARRIER=1) readers are switched to real fences before any
 * of them can run: this is decided in the library constructor. */
#include "rcu_internal.h"

#include <linux/membarrier.h>
#include <stdlib.h>

static int use_membarrier;

static long membarrier_call(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

static bool membarrier_register(void)
{
    long cmds = membarrier_call(MEMBARRIER_CMD_QUERY);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return false;
    return membarrier_call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void rtdd_rcu_barrier_init(void)
{
    const char *off = getenv("RTDD_RCU_NO_MEMBARRIER");
    bool forced_off = off && *off && *off != '0';
    if (!forced_off && membarrier_register()) {
        __atomic_store_n(&use_membarrier, 1, __ATOMIC_RELAXED);
        __atomic_fetch_and(&rtdd_rcu_read_slow, ~RTDD_RCU_SLOW_FENCE, __ATOMIC_SEQ_CST);
    } else {
        __atomic_store_n(&use_membarrier, 0, __ATOMIC_RELAXED);
        __atomic_fetch_or(&rtdd_rcu_read_slow, RTDD_RCU_SLOW_FENCE, __ATOMIC_SEQ_CST);
    }
}

bool rtdd_rcu_has_membarrier(void)
{
    return __atomic_load_n(&use_membarrier, __ATOMIC_RELAXED) != 0;
}

void rtdd_rcu_master_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!rtdd_rcu_has_membarrier())
        return; /* readers fence for themselves */
    if (membarrier_call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
        /* Registration lost (should not happen after the fork handler
         * re-registers): the global command is slower but always valid. */
        if (membarrier_call(MEMBARRIER_CMD_GLOBAL) != 0) {
            static int warned;
            rtdd_rcu_warn_once(&warned, "rtdd_rcu: membarrier failed; aborting to avoid a "
                                        "broken grace period\n");
            abort();
        }
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
