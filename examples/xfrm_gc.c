/* The seed's bug, re-enacted: in 2.6.12-rc1, xfrm_policy_gc_task() freed a
 * policy whose embedded lock another context still held; the -rt patch's
 * RT_DEADLOCK_DETECT reported "active lock ... freed!". Here a gc worker
 * frees a policy while a user thread holds policy->lock.
 *
 *   make demo      (or: rtdd run -- build/examples/xfrm_gc)            */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct xfrm_policy {
    int refcnt;
    char selector[64];
    pthread_mutex_t lock; /* protects the policy's lifetime state */
    struct xfrm_policy *next;
};

static pthread_mutex_t gc_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xfrm_policy *gc_list;
static pthread_barrier_t lock_taken, gc_done;

static struct xfrm_policy *policy_alloc(const char *selector)
{
    struct xfrm_policy *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->refcnt = 1;
    strncpy(p->selector, selector, sizeof p->selector - 1);
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

/* The bug: the policy is freed without waiting for users of its lock. */
static void policy_gc_task(struct xfrm_policy *policy)
{
    free(policy);
}

static void *worker_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "gc_worker");
    pthread_barrier_wait(&lock_taken);
    pthread_mutex_lock(&gc_list_lock);
    struct xfrm_policy *policy = gc_list;
    gc_list = NULL;
    pthread_mutex_unlock(&gc_list_lock);
    if (policy)
        policy_gc_task(policy);
    pthread_barrier_wait(&gc_done);
    return NULL;
}

static void *policy_user(void *arg)
{
    struct xfrm_policy *policy = arg;
    pthread_setname_np(pthread_self(), "policy_user");
    pthread_mutex_lock(&policy->lock);
    pthread_barrier_wait(&lock_taken); /* holds the lock while gc runs */
    pthread_barrier_wait(&gc_done);
    /* The real code would now unlock freed memory; stop short of that. */
    return NULL;
}

int main(void)
{
    pthread_t gc, user;
    pthread_barrier_init(&lock_taken, NULL, 2);
    pthread_barrier_init(&gc_done, NULL, 2);
    struct xfrm_policy *policy = policy_alloc("10.0.0.0/8 -> tunnel0");
    gc_list = policy;
    pthread_create(&user, NULL, policy_user, policy);
    pthread_create(&gc, NULL, worker_thread, NULL);
    pthread_join(gc, NULL);
    pthread_join(user, NULL);
    printf("xfrm_gc: policy freed by the gc worker while its lock was held\n");
    return 0;
}
