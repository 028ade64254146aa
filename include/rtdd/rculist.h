/* RCU-safe circular doubly linked lists and hash lists.
 *
 * Updaters serialise among themselves (a mutex of their choice) and call the
 * add/del/replace helpers; readers traverse with the *_for_each* macros inside
 * rcu_read_lock()/rcu_read_unlock() with no lock at all.  A deleted entry
 * keeps its forward link so a reader standing on it can move on; free it only
 * after a grace period (synchronize_rcu() or call_rcu()).
 */
#ifndef RTDD_RCULIST_H
#define RTDD_RCULIST_H

#include <rtdd/rcu.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Value left in back links of deleted entries: a use faults at once. */
#define RCU_LIST_POISON ((void *)0x100)

/* The unlinking store of a deletion: readers need no ordering from it
 * (what they reach was published before), but the checker must see the
 * pointer stop holding the entry. */
#define rtdd_rcu_unlink_store_(p, v)                                           \
    do {                                                                       \
        __typeof__(p) rtdd_u_ = (v);                                           \
        if (rtdd_rcu_checking_())                                              \
            rtdd_rcu_debug_publish((const void *)rtdd_u_, (const void *)&(p)); \
        __atomic_store_n(&(p), rtdd_u_, __ATOMIC_RELAXED);                     \
    } while (0)

#define rcu_container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ---- circular doubly linked list ---- */

struct rcu_list_head {
    struct rcu_list_head *next, *prev;
};

#define RCU_LIST_HEAD_INIT(name) {&(name), &(name)}
#define RCU_LIST_HEAD(name) struct rcu_list_head name = RCU_LIST_HEAD_INIT(name)

static inline void rcu_list_init(struct rcu_list_head *head)
{
    __atomic_store_n(&head->next, head, __ATOMIC_RELAXED);
    head->prev = head;
}

static inline int rcu_list_empty(const struct rcu_list_head *head)
{
    return __atomic_load_n(&head->next, __ATOMIC_RELAXED) == head;
}

/* Link entry between prev and next; the entry is fully built before the
 * publishing store makes it reachable for readers. */
static inline void rcu_list_link_(struct rcu_list_head *entry, struct rcu_list_head *prev,
                                  struct rcu_list_head *next)
{
    entry->next = next;
    entry->prev = prev;
    rcu_assign_pointer(prev->next, entry);
    next->prev = entry;
}

/* Insert entry right after head (stack order). */
static inline void rcu_list_add(struct rcu_list_head *entry, struct rcu_list_head *head)
{
    rcu_list_link_(entry, head, head->next);
}

/* Insert entry right before head (queue order). */
static inline void rcu_list_add_tail(struct rcu_list_head *entry, struct rcu_list_head *head)
{
    rcu_list_link_(entry, head->prev, head);
}

/* Unlink entry.  Readers may still be on it; entry->next stays valid. */
static inline void rcu_list_del(struct rcu_list_head *entry)
{
    struct rcu_list_head *prev = entry->prev, *next = entry->next;
    rtdd_rcu_unlink_store_(prev->next, next);
    next->prev = prev;
    entry->prev = (struct rcu_list_head *)RCU_LIST_POISON;
}

/* Put replacement where old was, in one publishing store. */
static inline void rcu_list_replace(struct rcu_list_head *old, struct rcu_list_head *replacement)
{
    replacement->next = old->next;
    replacement->prev = old->prev;
    rcu_assign_pointer(replacement->prev->next, replacement);
    replacement->next->prev = replacement;
    old->prev = (struct rcu_list_head *)RCU_LIST_POISON;
}

#define rcu_list_entry(ptr, type, member) rcu_container_of(ptr, type, member)

/* Iterate over list nodes; pos is a struct rcu_list_head *. */
#define rcu_list_for_each(pos, head)                                           \
    for ((pos) = rcu_dereference((head)->next); (pos) != (head);               \
         (pos) = rcu_dereference((pos)->next))

/* Iterate over the structures that embed the nodes as `member`. */
#define rcu_list_for_each_entry(pos, head, member)                             \
    for ((pos) = rcu_list_entry(rcu_dereference((head)->next), __typeof__(*(pos)), member); \
         &(pos)->member != (head);                                             \
         (pos) = rcu_list_entry(rcu_dereference((pos)->member.next),           \
                                __typeof__(*(pos)), member))

/* The same, legal outside a read section where cond holds (e.g. the
 * updaters' lock is held: lockdep_is_held(&lock)), as with
 * rcu_dereference_check(). */
#define rcu_list_for_each_entry_check(pos, head, member, cond)                 \
    for ((pos) = rcu_list_entry(rcu_dereference_check((head)->next, cond), __typeof__(*(pos)), member); \
         &(pos)->member != (head);                                             \
         (pos) = rcu_list_entry(rcu_dereference_check((pos)->member.next, cond), \
                                __typeof__(*(pos)), member))

/* ---- hash list: singly headed, doubly linked ---- */

struct rcu_hlist_node {
    struct rcu_hlist_node *next, **pprev;
};

struct rcu_hlist_head {
    struct rcu_hlist_node *first;
};

#define RCU_HLIST_HEAD_INIT {NULL}

static inline void rcu_hlist_init(struct rcu_hlist_head *head)
{
    __atomic_store_n(&head->first, NULL, __ATOMIC_RELAXED);
}

static inline int rcu_hlist_empty(const struct rcu_hlist_head *head)
{
    return __atomic_load_n(&head->first, __ATOMIC_RELAXED) == NULL;
}

static inline void rcu_hlist_add_head(struct rcu_hlist_node *node, struct rcu_hlist_head *head)
{
    struct rcu_hlist_node *first = head->first;
    node->next = first;
    node->pprev = &head->first;
    rcu_assign_pointer(head->first, node);
    if (first)
        first->pprev = &node->next;
}

/* Insert node right after prev. */
static inline void rcu_hlist_add_behind(struct rcu_hlist_node *node, struct rcu_hlist_node *prev)
{
    node->next = prev->next;
    node->pprev = &prev->next;
    rcu_assign_pointer(prev->next, node);
    if (node->next)
        node->next->pprev = &node->next;
}

static inline void rcu_hlist_del(struct rcu_hlist_node *node)
{
    struct rcu_hlist_node *next = node->next;
    rtdd_rcu_unlink_store_(*node->pprev, next);
    if (next)
        next->pprev = node->pprev;
    node->pprev = (struct rcu_hlist_node **)RCU_LIST_POISON;
}

static inline void rcu_hlist_replace(struct rcu_hlist_node *old, struct rcu_hlist_node *replacement)
{
    replacement->next = old->next;
    replacement->pprev = old->pprev;
    rcu_assign_pointer(*replacement->pprev, replacement);
    if (replacement->next)
        replacement->next->pprev = &replacement->next;
    old->pprev = (struct rcu_hlist_node **)RCU_LIST_POISON;
}

#define rcu_hlist_entry(ptr, type, member) rcu_container_of(ptr, type, member)

/* Iterate over the structures embedding the nodes; NULL-safe at the end. */
#define rcu_hlist_for_each_entry(pos, head, member)                            \
    for (struct rcu_hlist_node *rtdd_hn_ = rcu_dereference((head)->first);      \
         rtdd_hn_ && (((pos) = rcu_hlist_entry(rtdd_hn_, __typeof__(*(pos)), member)), 1); \
         rtdd_hn_ = rcu_dereference(rtdd_hn_->next))

/* The same, legal outside a read section where cond holds. */
#define rcu_hlist_for_each_entry_check(pos, head, member, cond)                \
    for (struct rcu_hlist_node *rtdd_hn_ = rcu_dereference_check((head)->first, cond); \
         rtdd_hn_ && (((pos) = rcu_hlist_entry(rtdd_hn_, __typeof__(*(pos)), member)), 1); \
         rtdd_hn_ = rcu_dereference_check(rtdd_hn_->next, cond))

#ifdef __cplusplus
}
#endif
#endif
