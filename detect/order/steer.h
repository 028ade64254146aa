/* Steering for `rtdd run --confirm` (docs/confirm.md): the plan the CLI
 * writes (confirm_plan=FILE) names a lock-order cycle by its acquisition
 * sites; a thread that reaches one of them holding the lock the cycle
 * says it holds is paused, bounded, until the other edges' threads reach
 * theirs, so that they meet in the cycle. Private to order/ (and its unit
 * tests); order.h declares the entry points locks/ and interpose/ call. */
#ifndef RTDD_STEER_H
#define RTDD_STEER_H
#include <stddef.h>
#include <stdint.h>

#define RT_STEER_MAX_EDGES 32
#define RT_STEER_MODULE_MAX 64

/* A site: a return address given as module file name + offset (ASLR-free). */
struct rt_steer_site {
    char module[RT_STEER_MODULE_MAX];
    uint64_t offset;
};

/* Edge i: the thread acquires at acquire while holding a lock taken at held
 * (a free edge, held written "-": whatever it holds, even nothing: the
 * signaller of a cond-lock-order cycle, which takes the lock the waiter
 * holds). */
struct rt_steer_plan {
    unsigned nedges;
    unsigned pause_ms;   /* bound of one pause */
    unsigned max_pauses; /* pauses that may time out before steering stops */
    uint64_t no_pause;   /* edges whose threads arrive but do not wait */
    uint64_t free;       /* edges with no held-lock condition */
    uint64_t wait;       /* edges whose acquire site is a condition or semaphore wait (plan line "wait") */
    struct rt_steer_site acquire[RT_STEER_MAX_EDGES], held[RT_STEER_MAX_EDGES];
};

/* Parses a plan's text (format in docs/confirm.md). Returns 0, or -1 with
 * a message in err. */
struct rt_buf;
int rt_steer_plan_parse(struct rt_steer_plan *p, const char *text, size_t n, struct rt_buf *err);
/* Installs p as the plan (tests; rt_steer_setup reads the file). */
void rt_steer_install(const struct rt_steer_plan *p);
/* The edges whose acquire (resp. held) site is module+offset. */
uint64_t rt_steer_plan_match(const struct rt_steer_plan *p, const char *module, uint64_t offset, int held);
/* A thread arrives at edge: 1 when every edge has arrived (the last one
 * releases the others) or the others released it, 0 when its pause timed
 * out, -1 when another thread already waits at this edge (it goes on). */
int rt_steer_meet(unsigned edge);
/* Counters for tests: meetings released, pauses timed out. */
unsigned rt_steer_met(void);
unsigned rt_steer_timeouts(void);
/* The edges whose threads wait now (tests). */
uint64_t rt_steer_arrived(void);
#endif
