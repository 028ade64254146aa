/* One source, two RCUs: each tests/programs/rcu case is built against
 * librtdd_rcu (RCU_RTDD) and against liburcu's memb flavour (RCU_URCU,
 * without _LGPL_SOURCE, so its functions can be seen). */
#ifndef RCU_API_H
#define RCU_API_H
#include <pthread.h>
#include <stddef.h>
#ifdef RCU_URCU
#include <urcu.h>
#define test_rcu_online() rcu_register_thread()
#define test_rcu_offline() rcu_unregister_thread()
#define rcu_barrier_all() rcu_barrier()
/* liburcu has neither: its updaters use rcu_dereference() under their lock. */
#define rcu_dereference_protected(p, c) rcu_dereference(p)
#define lockdep_is_held(lock) 1
#else
#include <rtdd/rcu.h>
#define test_rcu_online() ((void)0)
#define test_rcu_offline() ((void)0)
#define rcu_barrier_all() rcu_barrier()
#endif
#define container_of_head(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#endif
