/* RCU lists for the cases built against both RCUs: rculist.h's for
 * librtdd_rcu, liburcu's cds_list_*_rcu for liburcu. list_for_each_check
 * walks outside a read section where cond holds (liburcu has no such form:
 * a plain walk, judged against the updaters' locks). */
#ifndef LIST_API_H
#define LIST_API_H
#include "rcu_api.h"
#ifdef RCU_URCU
#include <urcu/rculist.h>
#define list_head cds_list_head
#define list_init(h) CDS_INIT_LIST_HEAD(h)
#define list_add_rcu(n, h) cds_list_add_rcu(n, h)
#define list_del_rcu(n) cds_list_del_rcu(n)
#define list_for_each_rcu(pos, h, m) cds_list_for_each_entry_rcu(pos, h, m)
#define list_for_each_check(pos, h, m, cond) cds_list_for_each_entry_rcu(pos, h, m)
#else
#include <rtdd/rculist.h>
#define list_head rcu_list_head
#define list_init(h) rcu_list_init(h)
#define list_add_rcu(n, h) rcu_list_add(n, h)
#define list_del_rcu(n) rcu_list_del(n)
#define list_for_each_rcu(pos, h, m) rcu_list_for_each_entry(pos, h, m)
#define list_for_each_check(pos, h, m, cond) rcu_list_for_each_entry_check(pos, h, m, cond)
#endif
#endif
