/* Maps the benchmark onto one RCU flavour per binary: rtdd (librtdd_rcu) or
 * a liburcu flavour (memb, mb, bp, qsbr).  Selected with -DFLAVOR_*. */
#ifndef RTDD_BENCH_RCU_FLAVOR_H
#define RTDD_BENCH_RCU_FLAVOR_H

#if defined(FLAVOR_RTDD)
#include <rtdd/rcu.h>
#define FLAVOR_NAME "rtdd"
#define FLAVOR_NEEDS_QS 0
static inline void flavor_thread_online(void) {} /* registration is lazy */
static inline void flavor_thread_offline(void) {}
static inline void flavor_quiescent(void) {}

#else
/* liburcu's own inline (LGPL) read side: the fair comparison with ours. */
#define _LGPL_SOURCE
#endif

#if defined(FLAVOR_RTDD)
#elif defined(FLAVOR_URCU_MEMB) || defined(FLAVOR_URCU_MB)
#if defined(FLAVOR_URCU_MEMB)
#define RCU_MEMBARRIER
#define FLAVOR_NAME "urcu-memb"
#else
#define RCU_MB
#define FLAVOR_NAME "urcu-mb"
#endif
#include <urcu.h>
#include <urcu/call-rcu.h>
#define FLAVOR_NEEDS_QS 0
static inline void flavor_thread_online(void) { rcu_register_thread(); }
static inline void flavor_thread_offline(void) { rcu_unregister_thread(); }
static inline void flavor_quiescent(void) {}

#elif defined(FLAVOR_URCU_BP)
#include <urcu-bp.h>
#include <urcu/call-rcu.h>
#define FLAVOR_NAME "urcu-bp"
#define FLAVOR_NEEDS_QS 0
static inline void flavor_thread_online(void) {}
static inline void flavor_thread_offline(void) {}
static inline void flavor_quiescent(void) {}

#elif defined(FLAVOR_URCU_QSBR)
#include <urcu-qsbr.h>
#include <urcu/call-rcu.h>
#define FLAVOR_NAME "urcu-qsbr"
#define FLAVOR_NEEDS_QS 1
static inline void flavor_thread_online(void) { rcu_register_thread(); }
static inline void flavor_thread_offline(void) { rcu_unregister_thread(); }
/* QSBR readers are free; the cost moves here (amortised in the loops). */
static inline void flavor_quiescent(void) { rcu_quiescent_state(); }

#else
#error "define one of FLAVOR_RTDD, FLAVOR_URCU_MEMB, FLAVOR_URCU_MB, FLAVOR_URCU_BP, FLAVOR_URCU_QSBR"
#endif

#endif
