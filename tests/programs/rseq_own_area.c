/* Programs that register rseq areas of their own run under rtdd as they do
 * alone, on two threads, with locks taken at every step:
 *  - where glibc registers none (rseq_own_area_glibc_off.c runs this file
 *    so), the program registers, uses, unregisters and registers again its
 *    own area as tcmalloc and librseq do: the area the runtime registered
 *    to read the CPU from makes way on the thread, and comes back;
 *  - where glibc has one, the program unregisters glibc's area, registers
 *    its own, and puts glibc's back.
 * Every rseq call succeeds as without rtdd, and nothing is reported (which
 * area the runtime reads the CPU from meanwhile, detect/core/cpu.c, the program
 * cannot see). */
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

static long rseq_call(void *a, int flags, unsigned sig)
{
    return syscall(SYS_rseq, a, sizeof(struct rseq), flags, sig);
}

/* The program's own area, registered and used; 0 if the kernel took it. */
static int use_own_area(const char *who)
{
    area.cpu_id = (uint32_t)RSEQ_CPU_ID_UNINITIALIZED;
    if (rseq_call(&area, 0, MY_SIG) != 0) {
        if (errno == ENOSYS || errno == EPERM)
            printf("%s: this kernel takes no rseq area\n", who);
        else
            printf("FAIL: %s: registering its own area: %s\n", who, strerror(errno));
        return -1;
    }
    take();
    if ((int32_t)area.cpu_id < 0)
        printf("FAIL: %s: the kernel does not keep the program's area current\n", who);
    return 0;
}

static void *run(void *arg)
{
    const char *who = arg;
    void *glibc_area = (char *)__builtin_thread_pointer() + __rseq_offset;
    take();
    if (__rseq_size && rseq_call(glibc_area, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) != 0) {
        printf("FAIL: %s: unregistering glibc's area: %s\n", who, strerror(errno));
        return NULL;
    }
    take();
    if (use_own_area(who) != 0)
        return NULL;
    if (rseq_call(&area, RSEQ_FLAG_UNREGISTER, MY_SIG) != 0)
        printf("FAIL: %s: unregistering its own area: %s\n", who, strerror(errno));
    take();
    if (__rseq_size) {
        if (rseq_call(glibc_area, 0, RSEQ_SIG) != 0)
            printf("FAIL: %s: putting glibc's area back: %s\n", who, strerror(errno));
    } else {
        use_own_area(who); /* and left registered at thread exit: the kernel lets go */
    }
    take();
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, run, "worker");
    pthread_join(t, NULL);
    run("main");
    return 0;
}
