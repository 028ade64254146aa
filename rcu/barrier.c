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
/* A forked child's mm has lost the parent's registration: it registers at
 * its first barrier, so a child that never waits for a grace period (most
 * exec or exit) makes no membarrier call. Set only while one thread runs. */
static int register_pending;

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

void rtdd_rcu_barrier_after_fork_child(void)
{
    if (__atomic_load_n(&use_membarrier, __ATOMIC_RELAXED))
        __atomic_store_n(&register_pending, 1, __ATOMIC_RELAXED);
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
    /* Grace periods are serialized: one barrier at a time gets here. If the
     * child cannot register, the global command below serves. */
    if (__atomic_load_n(&register_pending, __ATOMIC_RELAXED)) {
        membarrier_register();
        __atomic_store_n(&register_pending, 0, __ATOMIC_RELAXED);
    }
    if (membarrier_call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
        /* Registration lost (a child whose registration failed): the
         * global command is slower but always valid. */
        if (membarrier_call(MEMBARRIER_CMD_GLOBAL) != 0) {
            static int warned;
            rtdd_rcu_warn_once(&warned, "rtdd_rcu: membarrier failed; aborting to avoid a "
                                        "broken grace period\n");
            abort();
        }
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
