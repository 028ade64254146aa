/* failed-call's way into the engine (lockwrap.h's RTI_CHECKED): out of
 * line, on the path of a call that failed. */
#include "lockwrap.h"

RT_HIDDEN void rti_call_failed(const char *call, uintptr_t obj, int err, unsigned mark, uintptr_t pc)
{
    int saved = errno; /* sem_* callers read it next */
    struct rt_thread *t;
    /* A report begun since the wrapper began is about this call: it wins. */
    if (rt_reports_begun_here == mark && (t = rti_enter()) != NULL) {
        rt_on_call_failed(t, call, obj, err, pc);
        rti_leave();
    }
    errno = saved;
}
