/* The entry points include/rtdd/annotate.h finds with dlsym. */
#include "interpose.h"

RTI_EXPORT void rtdd_annotate_lock_name(void *lock, const char *name)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_name(t, (uintptr_t)lock, name, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_lock_nested(void *lock, unsigned level)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_nested(t, (uintptr_t)lock, level, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_lock_no_order(void *lock)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_no_order(t, (uintptr_t)lock, RTI_CALLER());
        rti_leave();
    }
}
