/* The program's own rseq registrations. Where glibc registered no rseq
 * area, the runtime registers one per thread to read the CPU from
 * (detect/core/cpu.h); the kernel takes only one per thread, so a program that
 * registers its own through syscall(2) would find the thread taken. Its
 * call is seen here: the runtime's area makes way, and the CPU is read from
 * the program's area while that one is registered. */
#include "interpose.h"
#include "core/core.h"
#include <errno.h>
#include <linux/rseq.h>
#include <stdarg.h>
#include <sys/syscall.h>

static long rseq_call(long area, long len, long flags, long sig)
{
    const volatile uint32_t *word;
    long r;
    if (flags & RSEQ_FLAG_UNREGISTER) {
        r = rt_raw_syscall6(SYS_rseq, area, len, flags, sig, 0, 0);
        word = rt_cpu_after_unregister((const void *)area, r);
    } else {
        rt_cpu_before_register();
        r = rt_raw_syscall6(SYS_rseq, area, len, flags, sig, 0, 0);
        word = rt_cpu_after_register((const void *)area, r);
    }
    struct rt_thread *t = rti_self;
    if (t)
        t->rcu.cpu_id = word;
    return r;
}

/* syscall(2) as glibc's: six arguments passed on whatever the caller gave,
 * -1 and errno on failure. */
RT_HIDDEN long rti_vsyscall(long number, va_list ap)
{
    long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
    long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
    long r = number == SYS_rseq ? rseq_call(a1, a2, a3, a4) : rt_raw_syscall6(number, a1, a2, a3, a4, a5, a6);
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

RTI_EXPORT long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long r = rti_vsyscall(number, ap);
    va_end(ap);
    return r;
}
