/* Checks for annotated locks (detect/annotated.c): claims of the lock's
 * own code that no real lock allows. */
#ifndef RTDD_ANNOTATED_H
#define RTDD_ANNOTATED_H
#include "engine.h"

/* t acquires lock l (at addr), in read mode if read: reports, and returns
 * 1, when another thread holds it in a mode that excludes this one. */
int rt_annotated_acquire_check(struct rt_thread *t, struct rt_lock *l, uintptr_t addr, int read);
/* t releases addr in read mode if read: reports, and returns 1, when t
 * holds it in the other mode. */
int rt_annotated_release_check(struct rt_thread *t, uintptr_t addr, int read);
#endif
