/* A reader loop with an updater, silent: nothing to report. Under rtdd a
 * program linked with librtdd_rcu.so has its read side recorded inline
 * (record mode), into the record the runtime attached to the thread's
 * reader slot, or by the runtime's own entry points; never through the
 * library's slow functions (which count their entries). Both are checked
 * here. Record mode reads the CPU from an rseq area: glibc's, or where
 * glibc registers none (read_side_no_rseq.c makes that so) the runtime's
 * own; only where the kernel takes no rseq area at all must the runtime's
 * entry points record every section instead. Linked in statically
 * (RCU_STATIC) the hooks must see the sections instead. */
// expect: none
// no-output: read side went through
#include "rcu_api.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>
#define SECTIONS 100000
struct item { long value; struct rcu_head rcu; };
static struct item *shared;
static volatile int stop;
static unsigned long updates; /* each may make one dereference call out */

/* Times the calling thread was switched out: each may move it to another
 * CPU, and a section that sees its CPU change calls out. */
static long switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw + ru.ru_nivcsw : 0;
}
static void free_item(struct rcu_head *h) { free(container_of_head(h, struct item, rcu)); }
static void *updater(void *arg)
{
    (void)arg;
    test_rcu_online();
    for (long v = 1; !stop; v++) {
        struct item *fresh = malloc(sizeof *fresh), *old = shared;
        fresh->value = v;
        rcu_assign_pointer(shared, fresh);
        if (v % 2)
            call_rcu(&old->rcu, free_item);
        else {
            synchronize_rcu();
            free(old);
        }
        __atomic_fetch_add(&updates, 1, __ATOMIC_RELAXED);
    }
    test_rcu_offline();
    return NULL;
}
int main(void)
{
    shared = calloc(1, sizeof *shared);
    test_rcu_online();
    pthread_t u;
    pthread_create(&u, NULL, updater, NULL);
    long sum = 0;
    unsigned long updates_before = __atomic_load_n(&updates, __ATOMIC_RELAXED);
    long switches_before = switches();
    for (int i = 0; i < SECTIONS; i++) {
        rcu_read_lock();
        sum += rcu_dereference(shared)->value;
        rcu_read_unlock();
    }
    unsigned long updates_during = __atomic_load_n(&updates, __ATOMIC_RELAXED) - updates_before;
    unsigned long switched = (unsigned long)(switches() - switches_before);
    stop = 1;
    pthread_join(u, NULL);
    (void)updates_during;
    (void)switched;
#if defined(RCU_RTDD) && !defined(RCU_STATIC)
    struct rtdd_rcu_stats st;
    rtdd_rcu_get_stats(&st);
    if ((__atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED) & RTDD_RCU_SLOW_HOOKS) &&
        st.read_slow_calls >= SECTIONS)
        printf("read side went through librtdd_rcu's slow functions %llu times\n",
               (unsigned long long)st.read_slow_calls);
    /* Record mode: the sections were recorded, nearly all without a call
     * (a dereference calls out once after each update: the runtime notes
     * the line's first reference after each step of its clock; and a
     * section that finds itself on another CPU after a switch calls out:
     * on a loaded machine the reader is switched out often). */
    const struct rtdd_rcu_record *rec = rtdd_rcu_self->record;
    /* Does the kernel take rseq areas? (Unregistering nothing fails with
     * EINVAL where it does, ENOSYS or EPERM where it or a sandbox does not.) */
    int kernel_rseq = __rseq_size || syscall(SYS_rseq, NULL, 0, RSEQ_FLAG_UNREGISTER, 0) == 0 ||
                      (errno != ENOSYS && errno != EPERM);
    /* Where glibc has none, the runtime registers its own unless told not to. */
    const char *options = getenv("RTDD_OPTIONS");
    if (!__rseq_size && options && strstr(options, "register_rseq=0"))
        kernel_rseq = 0;
    if (__atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED) & RTDD_RCU_SLOW_HOOKS) {
        if (!rec && kernel_rseq)
            printf("read side went through the runtime: no record attached (glibc's rseq size %u)\n", __rseq_size);
        else if (rec && !kernel_rseq)
            printf("read side went through a record without rseq\n");
        else if (rec && (rec->sections < SECTIONS ||
                         rec->callouts > SECTIONS / 4 + 4 * updates_during + 4 * switched))
            printf("read side went through the runtime %lu times for %lu sections (%lu updates, %lu switches)\n",
                   rec->callouts, rec->sections, updates_during, switched);
    }
#endif
    rcu_barrier_all();
    test_rcu_offline();
    return sum < 0;
}
