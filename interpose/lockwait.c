/* RTI_PEEK_THEN_BLOCK's calls into the engine (lockwrap.h), for every lock
 * type: out of line, on the contended path of a thread holding nothing. */
#include "lockwrap.h"

RT_HIDDEN void rti_note_lock_wait(uintptr_t obj, enum rt_lock_type type, unsigned flags, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    struct rt_lock *l = rt_lock_lookup(t, obj, type, pc);
    if (l)
        rt_on_lock_wait(t, l, flags, pc);
    rti_leave();
}

RT_HIDDEN void rti_note_lock_wait_over(void)
{
    struct rt_thread *t = rti_self;
    if (t && !rti_guard)
        rt_on_lock_failed(t);
}

RT_HIDDEN void rti_lock_refused(uintptr_t obj, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    rt_on_lock_refused(t, obj, pc);
    rti_leave();
}
