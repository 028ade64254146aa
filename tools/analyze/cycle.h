/* Lock-order cycles named by their sites, for `rtdd run --confirm` and
 * `rtdd confirm` (docs/confirm.md): a cycle's edges are read off its report
 * as module+offset sites (no addresses: they move with ASLR), written as a
 * steering plan for the runtime, and a rerun's deadlock report is matched
 * to the cycle by the same sites. Also the "confirm:" lines the CLI writes
 * into a report, read back by the analyser. */
#ifndef AZ_CYCLE_H
#define AZ_CYCLE_H
#include "report.h"
#include <stddef.h>

#define AZ_SITE_MAX 96

struct az_cycle_edge {
    char acquire[AZ_SITE_MAX]; /* MODULE+0xOFFSET of the acquisition that waits */
    char held[AZ_SITE_MAX];    /* where the lock it holds was taken ("-": any, a cond cycle's signaller) */
};

struct az_cycle {
    unsigned nedges;
    struct az_cycle_edge edges[AZ_MAX_CYCLE];
    char names[512]; /* "a -> b -> a", from the report's cycle line ("" when absent) */
    int cond;        /* a cond-lock-order cycle: edge 0 the wait, edge 1 the signaller's lock call */
};

/* The confirmation states (the analyser's outputs name them). */
enum az_confirm { AZ_CONFIRM_NOT_TRIED, AZ_CONFIRM_CONFIRMED, AZ_CONFIRM_NOT_CONFIRMED };
const char *az_confirm_name(int state); /* "not tried", "confirmed", "not confirmed" */

/* 1 when the kind is one --confirm steers (lock-order-inversion,
 * latent-lock-order, cond-lock-order). */
int az_cycle_kind(int kind);
/* The edges of a lock-order report. 0, or -1 when it has no usable cycle
 * (an edge without a module+offset frame, fewer than 2 edges). */
int az_cycle_from_report(const struct az_report *r, struct az_cycle *c);
/* 1 when a and b are one cycle: the same edges, in any order. */
int az_cycle_same(const struct az_cycle *a, const struct az_cycle *b);
/* 1 when deadlock report d is c's cycle: every blocked thread whose stack
 * it shows waits at one of c's acquisition sites (at least one does). A
 * cond cycle's: a thread waits at each of its two sites (on the condition
 * or semaphore, and for the lock). */
int az_cycle_deadlock_matches(const struct az_cycle *c, const struct az_report *d);
/* The runtime's plan (detect/order/steer.c) for c; no_pause: an edge whose
 * thread does not wait (-1: all wait). Returns the length, or -1 if cap is short. */
int az_cycle_plan(const struct az_cycle *c, int no_pause, unsigned pause_ms, char *out, size_t cap);
/* A "confirm: ..." line of a report (without the prefix): the state it states. */
int az_confirm_line_state(const char *s, size_t n);
#endif
