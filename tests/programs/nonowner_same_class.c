/* Regression from check-real (xfs_repair, reduced): releasing a lock that
 * another thread holds, while holding a same-class lock taken on another
 * CPU, is a hand-off (non-owner-unlock), not cross-CPU confusion. */
// expect: non-owner-unlock
// log: if these are per-CPU locks
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
