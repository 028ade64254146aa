/* The seed's RCU implementation #4: rcu_read_lock() takes the current
 * CPU's lock; the reader migrates; rcu_read_unlock() releases the lock of
 * the CPU it now runs on. */
// expect: cross-cpu-unlock
// log: released as CPU
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
static pthread_mutex_t per_cpu_lock[2];
static void run_on(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        exit(3);
    sched_yield();
}
static void rcu_read_lock_percpu(void) { pthread_mutex_lock(&per_cpu_lock[sched_getcpu() & 1]); }
static void rcu_read_unlock_percpu(void) { pthread_mutex_unlock(&per_cpu_lock[sched_getcpu() & 1]); }
int main(void)
{
    volatile int ncpu = 2; /* a loop the compiler keeps: one init site, one class */
    for (int i = 0; i < ncpu; i++)
        pthread_mutex_init(&per_cpu_lock[i], NULL);
    run_on(0);
    rcu_read_lock_percpu();
    run_on(1); /* preempted and migrated inside the read-side section */
    rcu_read_unlock_percpu();
    return 0;
}
