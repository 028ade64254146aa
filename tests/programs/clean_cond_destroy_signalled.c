/* A condition variable destroyed once no thread is blocked on it, while a
 * waiter it released has yet to re-take its mutex and return: POSIX allows
 * it (compiler-rt's tsan test cond_destruction, its three orders of
 * signal, unlock and destroy; TSan is silent by design). In the third
 * order and in the broadcast round the destroying thread still holds the
 * mutex, so the released waiters cannot have returned: the window is hit
 * on every iteration. Also a GCond-free C11 pair (cnd_signal, cnd_destroy). */
// expect: none
#include <pthread.h>
#include <stdio.h>
#include <threads.h>

static pthread_mutex_t m;
static pthread_cond_t c;
static int done1, done2, go, entered;

/* Tells main it runs, then waits until main says done2. */
static void *partner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    done1 = 1;
    pthread_cond_signal(&c);
    while (!done2)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void one_round(int order)
{
    pthread_t th;
    pthread_mutex_init(&m, NULL);
    pthread_cond_init(&c, NULL);
    done1 = done2 = 0;
    pthread_create(&th, NULL, partner, NULL);
    pthread_mutex_lock(&m);
    while (!done1)
        pthread_cond_wait(&c, &m);
    done2 = 1; /* the partner is in its wait: it gave up m for it */
    if (order == 0) {
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        pthread_cond_destroy(&c);
    } else if (order == 1) {
        pthread_mutex_unlock(&m);
        pthread_cond_signal(&c);
        pthread_cond_destroy(&c);
    } else {
        pthread_cond_signal(&c);
        pthread_cond_destroy(&c); /* the partner waits for m: released, not returned */
        pthread_mutex_unlock(&m);
    }
    pthread_join(th, NULL);
    pthread_mutex_destroy(&m);
}

static void *idle(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    entered++;
    while (!go)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

/* Three waiters, one broadcast, destroyed before any can return. */
static void broadcast_round(void)
{
    pthread_t th[3];
    pthread_mutex_init(&m, NULL);
    pthread_cond_init(&c, NULL);
    go = entered = 0;
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, idle, NULL);
    for (int ready = 0; !ready;) {
        pthread_mutex_lock(&m);
        ready = entered == 3; /* all three are in their waits once m is ours */
        if (ready) {
            go = 1;
            pthread_cond_broadcast(&c);
            pthread_cond_destroy(&c);
        }
        pthread_mutex_unlock(&m);
        if (!ready)
            sched_yield();
    }
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&m);
}

static mtx_t cm;
static cnd_t cc;
static int cgo, cin;

static int c11_waiter(void *arg)
{
    (void)arg;
    mtx_lock(&cm);
    cin = 1;
    while (!cgo)
        cnd_wait(&cc, &cm);
    mtx_unlock(&cm);
    return 0;
}

static void c11_round(void)
{
    thrd_t th;
    mtx_init(&cm, mtx_plain);
    cnd_init(&cc);
    cgo = cin = 0;
    thrd_create(&th, c11_waiter, NULL);
    for (int ready = 0; !ready;) {
        mtx_lock(&cm);
        ready = cin;
        if (ready) {
            cgo = 1;
            cnd_signal(&cc);
            cnd_destroy(&cc);
        }
        mtx_unlock(&cm);
        if (!ready)
            thrd_yield();
    }
    thrd_join(th, NULL);
    mtx_destroy(&cm);
}

int main(void)
{
    for (int i = 0; i < 200; i++) {
        one_round(i % 3);
        if (i % 10 == 0) {
            broadcast_round();
            c11_round();
        }
    }
    puts("done");
    return 0;
}
