/* munmap ends the life of every lock in the range, like free. */
#include "interpose.h"
#include "locks/locks.h"
#include <errno.h>
#include <sys/mman.h>

RTI_EXPORT int munmap(void *addr, size_t len)
{
    if (unlikely(!rti_resolved()))
        return -1;
    if ((__atomic_load_n(&rt_free_checks, __ATOMIC_RELAXED) & RT_FREE_LOCKS) &&
        rt_locktab_may_overlap((uintptr_t)addr, len)) {
        struct rt_thread *t = rti_enter();
        if (t) {
            int saved = errno;
            rt_on_free(t, (uintptr_t)addr, len, RTI_CALLER());
            errno = saved;
            rti_leave();
        }
    }
    return rti_real.munmap(addr, len);
}
