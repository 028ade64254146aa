/* lookup.c's entry points for the rest of locks/ (the public ones,
 * rt_lock_find, rt_lock_lookup_slow and rt_lock_record_lazy, are locks.h's). */
#ifndef RTDD_LOOKUP_H
#define RTDD_LOOKUP_H
#include "locks/locktab.h"
#include <stdint.h>

struct rt_thread;
/* What the live object at addr says of itself (robust, process-shared):
 * rt_lock_object_traits' answer, 0 without the hook. */
uint8_t rt_lock_traits_read(uintptr_t addr, enum rt_lock_type type);
/* A lazy mutex's init: no record, a bit in its line's entry. 0 when it
 * needs a record (one is there already, or the line cannot hold it). */
int rt_lock_lazy_init(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
#endif
