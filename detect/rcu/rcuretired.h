/* Objects unpublished from an RCU pointer and not yet freed (retired): a
 * pointer cell inside one no longer publishes anything, since no reader
 * can reach the object once its grace period ends; it still points where
 * it did (a node replaced by a copy keeps its successor) until it is
 * freed. Kept by start address, lossy (a collision forgets the older
 * object, which can only bring a report back, never hide one). */
#ifndef RTDD_RCURETIRED_H
#define RTDD_RCURETIRED_H
#include <stddef.h>
#include <stdint.h>

/* How far into a retired object a cell may lie. */
#define RT_RETIRED_REACH 256

void rt_rcuretired_add(uintptr_t obj);
/* obj is published again (its address reused for a new object). */
void rt_rcuretired_remove(uintptr_t obj);
/* free() of [start, start+len): the objects that began there are gone. */
void rt_rcuretired_freed(uintptr_t start, size_t len);
/* The retired object that begins nearest below addr within the reach
 * (0: none). */
uintptr_t rt_rcuretired_below(uintptr_t addr);
void rt_rcuretired_after_fork(void);
#endif
