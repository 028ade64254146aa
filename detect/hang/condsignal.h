/* cond-signal-unlocked: a condition variable signalled by a thread that
 * neither holds nor has lately used the mutex its waiters use (Helgrind's
 * "dubious" signal, DRD's "signaled but the associated mutex is not locked
 * by the signalling thread"), the shape of a lost wakeup. */
#ifndef RTDD_CONDSIGNAL_H
#define RTDD_CONDSIGNAL_H
#include "locks/thread.h"
#include <stdint.h>

/* Thread t begins a wait on condvar cond (its record) with mutex, which it
 * holds (held entry h): the mutex becomes the condition's associated one. */
void rt_cond_note_waiter(struct rt_thread *t, const struct rt_lock *cond, const struct rt_held *h, uintptr_t pc);
/* Thread t signals or broadcasts the condvar at cond (before the real
 * call): reported, once per call site, when a wait associated a mutex with
 * it that t does not hold and has not used lately. */
void rt_on_cond_signal(struct rt_thread *t, uintptr_t cond, uintptr_t pc);
#endif
