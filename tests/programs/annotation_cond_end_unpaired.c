/* A library's condition wait annotated wrongly: one wait is described
 * correctly (BEGIN, then END), then the code calls RTDD_COND_WAIT_END with
 * no RTDD_COND_WAIT_BEGIN before it and takes its lock again. The report
 * names the annotation mistake (a cond-misuse report about
 * RTDD_COND_WAIT_END, located in this file), not a lock bug it would
 * otherwise look like ("destroying a held lock ... a pthread_mutex_t"); the
 * lock's own use after it stays silent. clean_annotated_locks.c is the
 * correct look-alike. */
// expect: cond-misuse
// log: calls RTDD_COND_WAIT_END(cond, lock) with no RTDD_COND_WAIT_BEGIN before it on this thread, at:
// log: lock: [0x
// log: An annotation mistake (include/rtdd/annotate.h)
// log: SUMMARY: rtdd: cond-misuse annotation_cond_end_unpaired.c:
// no-log: destroying a held lock
// no-log: pthread_mutex_t
#include <pthread.h>
#include <unistd.h>
#include "../../include/rtdd/annotate.h"

/* A spinlock and a condition of a library's own (no pthread call). */
static int qlock, qcond;
static void q_lock(void) { RTDD_LOCK_PRE(&qlock, 0); while (__atomic_exchange_n(&qlock, 1, __ATOMIC_ACQUIRE)) usleep(100); RTDD_LOCK_POST(&qlock, 0, 1); }
static void q_unlock(void) { RTDD_LOCK_RELEASE(&qlock, 0); __atomic_store_n(&qlock, 0, __ATOMIC_RELEASE); }

int main(void)
{
    q_lock();
    RTDD_COND_WAIT_BEGIN(&qcond, &qlock, RTDD_LOCK_TIMED); /* a timed wait that times out: correct */
    __atomic_store_n(&qlock, 0, __ATOMIC_RELEASE);
    usleep(1000);
    while (__atomic_exchange_n(&qlock, 1, __ATOMIC_ACQUIRE))
        usleep(100);
    RTDD_COND_WAIT_END(&qcond, &qlock);
    q_unlock();

    RTDD_COND_WAIT_END(&qcond, &qlock); /* the mistake: no BEGIN */
    q_lock();
    q_unlock();
    return 0;
}
