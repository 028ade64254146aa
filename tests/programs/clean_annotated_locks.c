/* Annotated locks used correctly: a recursive lock taken again by its
 * holder, a reader-writer lock read by two threads at once and nested in
 * one order, trylocks that back off, and a condition wait of the library's
 * own around an annotated lock, signalled by another thread. Nothing to
 * report. */
// expect: none
#include <pthread.h>
#include <unistd.h>
#include "../../include/rtdd/annotate.h"

struct rlock { pthread_mutex_t m; };   /* stands for a library's recursive lock */
struct rwlock { pthread_rwlock_t rw; }; /* ... and its reader-writer lock */
static struct rlock big;
static struct rwlock table;
/* A library's condition: a spinlock whose waiters drop it, sleep and
 * look again (no pthread call rtdd would see), and a flag. */
static int qlock, qcond, ready;
static void q_lock(void) { RTDD_LOCK_PRE(&qlock, 0); while (__atomic_exchange_n(&qlock, 1, __ATOMIC_ACQUIRE)) usleep(100); RTDD_LOCK_POST(&qlock, 0, 1); }
static void q_unlock(void) { RTDD_LOCK_RELEASE(&qlock, 0); __atomic_store_n(&qlock, 0, __ATOMIC_RELEASE); }
static void q_wait(void)
{
    RTDD_COND_WAIT_BEGIN(&qcond, &qlock, 0);
    __atomic_store_n(&qlock, 0, __ATOMIC_RELEASE);
    usleep(1000);
    while (__atomic_exchange_n(&qlock, 1, __ATOMIC_ACQUIRE))
        usleep(100);
    RTDD_COND_WAIT_END(&qcond, &qlock);
}

static void r_lock(struct rlock *l) { RTDD_LOCK_PRE(l, 0); pthread_mutex_lock(&l->m); RTDD_LOCK_POST(l, 0, 1); }
static void r_unlock(struct rlock *l) { RTDD_LOCK_RELEASE(l, 0); pthread_mutex_unlock(&l->m); }
static void rd_lock(struct rwlock *l) { RTDD_LOCK_PRE(l, RTDD_LOCK_READ); pthread_rwlock_rdlock(&l->rw); RTDD_LOCK_POST(l, RTDD_LOCK_READ, 1); }
static void rd_unlock(struct rwlock *l) { RTDD_LOCK_RELEASE(l, RTDD_LOCK_READ); pthread_rwlock_unlock(&l->rw); }
static int rd_trylock(struct rwlock *l)
{
    RTDD_LOCK_PRE(l, RTDD_LOCK_READ | RTDD_LOCK_TRY);
    int ok = pthread_rwlock_tryrdlock(&l->rw) == 0;
    RTDD_LOCK_POST(l, RTDD_LOCK_READ | RTDD_LOCK_TRY, ok);
    return ok;
}

static void *reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        r_lock(&big);
        rd_lock(&table);
        if (rd_trylock(&table))
            rd_unlock(&table);
        rd_unlock(&table);
        r_unlock(&big);
    }
    q_lock();
    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        q_wait();
    q_unlock();
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&big.m, &a);
    RTDD_LOCK_CREATE(&big, RTDD_LOCK_RECURSIVE);
    pthread_rwlock_init(&table.rw, NULL);
    RTDD_LOCK_CREATE(&table, RTDD_LOCK_RW);
    r_lock(&big);
    r_lock(&big); /* recursive: allowed */
    r_unlock(&big);
    r_unlock(&big);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    usleep(100000);
    q_lock();
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    RTDD_COND_SIGNAL(&qcond);
    q_unlock();
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    RTDD_LOCK_DESTROY(&big);
    pthread_mutex_destroy(&big.m);
    RTDD_LOCK_DESTROY(&table);
    pthread_rwlock_destroy(&table.rw);
    return 0;
}
