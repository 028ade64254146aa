#include "core/cpu.h"
#include "core/raw_syscall.h"
#include <stddef.h>
#include <sys/rseq.h>
#include <sys/syscall.h>

int rt_cpu_rseq;

/* Not glibc's signature: ours only has to match between our own register
 * and unregister calls (we define no rseq critical sections). */
#define RT_RSEQ_SIG 0x52544444u

enum own_state { OWN_NONE, OWN_REGISTERED, OWN_YIELDED };
static int use_own; /* glibc registered none and the kernel took ours */

static __thread struct rseq own_area __attribute__((tls_model("initial-exec"))) = {
    .cpu_id_start = 0, .cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED
};
static __thread int own_state __attribute__((tls_model("initial-exec")));
/* The program's own area on this thread, while it has one registered. */
static __thread const struct rseq *program_area __attribute__((tls_model("initial-exec")));
/* The program unregistered glibc's area on this thread (to register its own). */
static __thread int glibc_area_gone __attribute__((tls_model("initial-exec")));

static const uint32_t cpu_unknown = (uint32_t)-1;

static const volatile uint32_t *glibc_word(void)
{
    return (const volatile uint32_t *)((char *)__builtin_thread_pointer() + __rseq_offset +
                                       offsetof(struct rseq, cpu_id));
}

static int register_own(void)
{
    own_area.cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED;
    if (rt_raw_syscall6(SYS_rseq, (long)&own_area, sizeof own_area, 0, RT_RSEQ_SIG, 0, 0) != 0)
        return -1;
    own_state = OWN_REGISTERED;
    return 0;
}

void rt_cpu_setup(int may_register)
{
    if (__rseq_size) {
        rt_cpu_rseq = 1;
        return;
    }
    /* Once per process: the kernel takes one area per thread (and the
     * program may have registered its own on this one already). */
    use_own = may_register && (own_state == OWN_REGISTERED || program_area || register_own() == 0);
    rt_cpu_rseq = use_own;
}

const volatile uint32_t *rt_cpu_thread_word(void)
{
    if (program_area)
        return &program_area->cpu_id;
    if (__rseq_size && !glibc_area_gone)
        return glibc_word();
    if (use_own && (own_state == OWN_REGISTERED || register_own() == 0))
        return &own_area.cpu_id;
    return &cpu_unknown; /* the kernel refused (the program's area came first?) */
}

void rt_cpu_before_register(void)
{
    if (own_state != OWN_REGISTERED)
        return;
    rt_raw_syscall6(SYS_rseq, (long)&own_area, sizeof own_area, RSEQ_FLAG_UNREGISTER, RT_RSEQ_SIG, 0, 0);
    own_state = OWN_YIELDED;
    own_area.cpu_id = (uint32_t)-1; /* stale from here on */
}

const volatile uint32_t *rt_cpu_after_register(const void *area, long result)
{
    if (result == 0)
        program_area = area;
    else if (own_state == OWN_YIELDED)
        register_own(); /* theirs failed: ours back */
    return rt_cpu_thread_word();
}

const volatile uint32_t *rt_cpu_after_unregister(const void *area, long result)
{
    if (result == 0 && area == program_area) {
        program_area = NULL;
        if (own_state == OWN_YIELDED)
            register_own();
    } else if (result == 0 && __rseq_size && (const char *)area + offsetof(struct rseq, cpu_id) ==
                                                  (const char *)glibc_word()) {
        glibc_area_gone = 1;
    }
    return rt_cpu_thread_word();
}
