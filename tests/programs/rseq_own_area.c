/* A program that registers rseq areas of its own, as tcmalloc and librseq
 * do where glibc registers none, runs under rtdd as it does alone: the
 * area the runtime registers to read the CPU from makes way on the thread,
 * the CPU is read from the program's area while that is registered, and
 * the runtime's comes back when the program unregisters its own. Locks
 * are taken before, during and after, on two threads. */
// expect: none
// env: GLIBC_TUNABLES=glibc.pthread.rseq=0
// no-output: FAIL
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIG 0x0badc0deu
static __thread struct rseq area;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void take(void)
{
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
}

static void *run(void *arg)
{
    const char *who = arg;
    take();
    area.cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED;
    if (syscall(SYS_rseq, &area, sizeof area, 0, SIG) != 0) {
        if (errno == ENOSYS || errno == EPERM)
            printf("%s: this kernel takes no rseq area\n", who);
        else
            printf("FAIL: %s: registering its rseq area: %s\n", who, strerror(errno));
        return NULL;
    }
    take();
    if ((int32_t)area.cpu_id < 0)
        printf("FAIL: %s: the kernel does not keep the program's area current\n", who);
    if (syscall(SYS_rseq, &area, sizeof area, RSEQ_FLAG_UNREGISTER, SIG) != 0)
        printf("FAIL: %s: unregistering its rseq area: %s\n", who, strerror(errno));
    take();
    /* Registered again, and left so at thread exit (the kernel lets go). */
    if (syscall(SYS_rseq, &area, sizeof area, 0, SIG) != 0)
        printf("FAIL: %s: registering its rseq area again: %s\n", who, strerror(errno));
    take();
    return NULL;
}

int main(void)
{
    if (__rseq_size) {
        printf("glibc registered rseq areas: nothing to check\n");
        return 0;
    }
    pthread_t t;
    pthread_create(&t, NULL, run, "worker");
    pthread_join(t, NULL);
    run("main");
    return 0;
}
