/* A program that unregisters glibc's rseq area on a thread and registers
 * one of its own there runs under rtdd as it does alone: every rseq call
 * succeeds as without rtdd and nothing is reported, with locks taken at
 * each step (the runtime then reads the CPU from the program's area, and
 * from glibc's once the program puts that back: detect/cpu.c). */
// expect: none
// no-output: FAIL
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MY_SIG 0x0badc0deu
static __thread struct rseq area;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void take(void)
{
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
}

static long rseq_call(void *a, unsigned len, int flags, unsigned sig)
{
    return syscall(SYS_rseq, a, len, flags, sig);
}

static void *run(void *arg)
{
    const char *who = arg;
    void *glibc_area = (char *)__builtin_thread_pointer() + __rseq_offset;
    take();
    if (rseq_call(glibc_area, sizeof(struct rseq), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) != 0) {
        printf("FAIL: %s: unregistering glibc's area: %s\n", who, strerror(errno));
        return NULL;
    }
    take();
    area.cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED;
    if (rseq_call(&area, sizeof area, 0, MY_SIG) != 0)
        printf("FAIL: %s: registering its own area: %s\n", who, strerror(errno));
    take();
    if ((int32_t)area.cpu_id < 0)
        printf("FAIL: %s: the kernel does not keep the program's area current\n", who);
    if (rseq_call(&area, sizeof area, RSEQ_FLAG_UNREGISTER, MY_SIG) != 0)
        printf("FAIL: %s: unregistering its own area: %s\n", who, strerror(errno));
    take();
    if (rseq_call(glibc_area, sizeof(struct rseq), 0, RSEQ_SIG) != 0)
        printf("FAIL: %s: putting glibc's area back: %s\n", who, strerror(errno));
    take();
    return NULL;
}

int main(void)
{
    if (!__rseq_size) {
        printf("glibc registered no rseq areas: nothing to replace\n");
        return 0;
    }
    pthread_t t;
    pthread_create(&t, NULL, run, "worker");
    pthread_join(t, NULL);
    run("main");
    return 0;
}
