/* invalid-lock: memory that is not a lock, used as one (TSan's "invalid
 * mutex", DRD's "not a mutex"). Such an object is reported and then left
 * out of the model: in no thread's held locks and in no lock order, so
 * that one misuse report is not followed by reports about a lock that
 * never existed. */
#ifndef RTDD_INVALID_H
#define RTDD_INVALID_H
#include "locks/thread.h"
#include <stddef.h>
#include <stdint.h>

/* Is addr, used as a lock of type (a pthread mutex, rwlock or condition
 * variable; other types are never judged), not a lock? Evidence only:
 * it lies inside another lock object, a known object of another kind is
 * there, or it is misaligned for its type and was never initialized as
 * one. 1 with the reason in why (a sentence fragment), else 0. */
int rt_lock_invalid(uintptr_t addr, enum rt_lock_type type, char *why, size_t cap);
/* Only the "inside another lock object" evidence (for unlocks, whose
 * type the engine does not know). */
int rt_lock_inside_another(uintptr_t addr, char *why, size_t cap);
/* Reports it: thread t uses addr as a lock of type (its name says what
 * the program took it for; an annotated type: "a lock", type unknown) in doing ("pthread_mutex_unlock()", "a
 * condition wait"); why as rt_lock_invalid says. Once per object. */
void rt_report_invalid_lock(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, const char *doing,
                            const char *why);
#endif
