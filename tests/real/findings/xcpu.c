/* check-real finding (xfs_repair, reduced): a hand-off release is reported
 * as cross-CPU unlock confusion. Thread B locks m[1]; main, holding its own
 * m[0] (same init site, so same class) taken on CPU 0, moves to CPU 1 and
 * releases m[1] for B, then releases m[0] normally.
 * Expected: non-owner-unlock. rtdd as of fe4b6b4: cross-cpu-unlock ("CPU 0's
 * lock stays held forever", which is false) plus a false lock-held-at-exit
 * for B, which holds nothing when it exits. Needs 2 CPUs.
 * Build: gcc -g -O1 -pthread -o xcpu xcpu.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
static pthread_mutex_t m[2];
static pthread_barrier_t bar;
__attribute__((noinline)) static void init_one(pthread_mutex_t *x) { pthread_mutex_init(x, NULL); }
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
static void *b_thread(void *a) { (void)a; pthread_mutex_lock(&m[1]); pthread_barrier_wait(&bar); pthread_barrier_wait(&bar); return NULL; }
int main(void)
{
    for (int i = 0; i < 2; i++) init_one(&m[i]);
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t b; pthread_create(&b, NULL, b_thread, NULL);
    pthread_barrier_wait(&bar);          /* B holds m[1] */
    pin(0); pthread_mutex_lock(&m[0]);   /* A's own lock, CPU 0 */
    pin(1); pthread_mutex_unlock(&m[1]); /* hand-off release of B's lock, on CPU 1 */
    pthread_mutex_unlock(&m[0]);
    pthread_barrier_wait(&bar); pthread_join(b, NULL);
    puts("done");
    return 0;
}
