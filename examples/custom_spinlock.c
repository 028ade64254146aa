/* A lock rtdd cannot see by itself — a hand-written spinlock, as a library
 * with its own futex or atomic lock has — checked like a pthread mutex by
 * five annotations in its own code (include/rtdd/annotate.h). Two threads
 * take the account and audit locks in opposite orders, one after the
 * other: no hang in this run, but rtdd reports the lock-order inversion
 * that would deadlock in another.
 *
 *   rtdd run -- build/examples/custom_spinlock       (docs/custom-locks.md) */
#include <pthread.h>
#include <stdio.h>
#include "../include/rtdd/annotate.h"

struct spinlock {
    int locked;
};

static void spin_init(struct spinlock *s)
{
    s->locked = 0;
    RTDD_LOCK_CREATE(s, 0);
}

static void spin_lock(struct spinlock *s)
{
    RTDD_LOCK_PRE(s, 0); /* the checks run before the thread can spin for ever */
    while (__atomic_exchange_n(&s->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&s->locked, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    RTDD_LOCK_POST(s, 0, 1);
}

static void spin_unlock(struct spinlock *s)
{
    RTDD_LOCK_RELEASE(s, 0);
    __atomic_store_n(&s->locked, 0, __ATOMIC_RELEASE);
}

static struct spinlock account_lock, audit_lock;
static long balance, audited;

static void *transfer(void *arg)
{
    (void)arg;
    spin_lock(&account_lock);
    spin_lock(&audit_lock); /* account, then audit */
    balance += 10;
    audited++;
    spin_unlock(&audit_lock);
    spin_unlock(&account_lock);
    return NULL;
}

static void *audit(void *arg)
{
    (void)arg;
    spin_lock(&audit_lock);
    spin_lock(&account_lock); /* audit, then account: the inversion */
    audited += balance;
    spin_unlock(&account_lock);
    spin_unlock(&audit_lock);
    return NULL;
}

int main(void)
{
    spin_init(&account_lock);
    spin_init(&audit_lock);
    RTDD_LOCK_NAME(&account_lock, "account_lock");
    RTDD_LOCK_NAME(&audit_lock, "audit_lock");
    pthread_t t;
    pthread_create(&t, NULL, transfer, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, audit, NULL);
    pthread_join(t, NULL);
    printf("balance %ld, audited %ld\n", balance, audited);
    return 0;
}
