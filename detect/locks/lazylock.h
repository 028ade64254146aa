/* Mutexes initialized without a lock record (lookup.c makes one when a lock
 * is first nested, waited for, used a second time, reported or looked up).
 * A million mutexes each initialized and taken once would otherwise cost a
 * 64-byte record apiece, and on this machine every fresh 4 KiB page costs
 * about 1.5 us to fault in: the record alone doubled the program's time.
 *
 * One 16-byte entry per 256-byte line (direct-mapped on the line, tagged
 * with it) holds the init site and thread shared by the line's lazy
 * mutexes and a bit per 8-byte slot; a line whose mutexes come from two
 * sites or threads, or whose entry another line holds, gets records as
 * before. Entries change with one 16-byte compare-and-swap, so a bit is
 * taken (cleared) by exactly one thread, which then owns that lock's
 * record-to-be. A second map remembers, per slot, that the lock has been
 * acquired once; its updates may be lost, which only makes a record sooner
 * or later. */
#ifndef RTDD_LAZYLOCK_H
#define RTDD_LAZYLOCK_H
#include "core/core.h"
#include <stddef.h>
#include <stdint.h>

/* What a lazy mutex's record is made from. */
struct rt_lazy_init {
    uintptr_t pc;       /* the init call site: the lock's class */
    rt_stack_id stack;  /* its stack */
    int tid;            /* the initializing thread */
};

/* The index of init site pc (whose stack is stack) for rt_lazylock_add;
 * 0 when the site table is full (such locks get records at once). */
uint32_t rt_lazylock_site(uintptr_t pc, rt_stack_id stack);
/* Records the mutex at addr (8-byte aligned) as initialized at site by
 * tid, without a record; 0 when it needs a record (the line's entry holds
 * other sites, threads or lines). Forgets that it was ever acquired. */
int rt_lazylock_add(uintptr_t addr, uint32_t site, int tid);
/* Is addr a lazy mutex? (A hint: rt_lazylock_take decides.) */
int rt_lazylock_test(uintptr_t addr);
/* The acquisition of a lazy mutex with nothing held: 1 the first time (no
 * record needed yet), 0 if addr is no lazy mutex or was acquired before. */
int rt_lazylock_first_use(uintptr_t addr);
/* Ends addr's lazy life: 1 with *init filled if it was a lazy mutex, 0 if
 * not (or another thread took it first). */
int rt_lazylock_take(uintptr_t addr, struct rt_lazy_init *init);
/* Takes every lazy mutex that overlaps [start, start+len) (a mutex is 40
 * bytes) in lines the lock filter marks, calling fn for each. Returns the
 * number taken. */
typedef void (*rt_lazy_visit_fn)(uintptr_t addr, const struct rt_lazy_init *init, void *arg);
unsigned rt_lazylock_take_range(uintptr_t start, size_t len, rt_lazy_visit_fn fn, void *arg);
void rt_lazylock_after_fork(void);
#endif
