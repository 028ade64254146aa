/* Debug hooks of librtdd_rcu, for the rtdd runtime (and tests).
 *
 * Cost when unused: the inline read side tests one global word
 * (rtdd_rcu_read_slow) and rcu_dereference()/rcu_assign_pointer() test one
 * global pointer (rtdd_rcu_debug_ops_active); both are predicted not-taken,
 * so the same binary serves production and runs under rtdd.
 *
 * Contract for hook implementations:
 *  - Every member may be NULL (event not wanted).
 *  - `caller` is the return address of the RCU entry point: an address inside
 *    the user's function at the call site (for the inline read side, the
 *    instruction after the out-of-line call in the inlined code).
 *  - Hooks run in the thread that caused the event; read_enter, read_exit,
 *    dereference and publish may run inside signal handlers, so they must be
 *    async-signal-safe if the program reads under signals.
 *  - Hooks must not call back into RCU (no rcu_read_lock, synchronize_rcu,
 *    call_rcu, rcu_barrier, rcu_reclaim_now, rcu_dereference,
 *    rcu_assign_pointer): that would recurse into the hook or deadlock.
 *  - Hooks installed while a thread is inside a read section see only the
 *    events after installation (e.g. a read_exit without its read_enter).
 *  - The ops table must stay valid until replaced (it is read without locks).
 */
#ifndef RTDD_RCU_DEBUG_H
#define RTDD_RCU_DEBUG_H

#include <rtdd/rcu.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rtdd_rcu_debug_ops {
    /* Reader entered a section; depth is the nesting depth after entering. */
    void (*read_enter)(const void *caller, unsigned int depth);
    /* Reader is leaving; depth is the nesting depth before leaving. */
    void (*read_exit)(const void *caller, unsigned int depth);
    /* rcu_read_unlock() without a matching lock (nothing is changed). */
    void (*read_unbalanced)(const void *caller);
    /* rcu_dereference() loaded `value` from the pointer at `slot`. */
    void (*dereference)(const void *value, const void *slot, const void *caller);
    /* rcu_assign_pointer() is about to store `value` into `slot`. */
    void (*publish)(const void *value, const void *slot, const void *caller);
    /* synchronize_rcu() entered; depth != 0 means it was called inside a read
     * section (a self-deadlock: report before the thread blocks). */
    void (*sync_begin)(const void *caller, unsigned int depth);
    void (*sync_end)(const void *caller);
    /* call_rcu() is about to queue head/func. A nonzero return means head is
     * already queued (a double call_rcu): it is not queued a second time. */
    int (*call_enqueue)(struct rcu_head *head, void (*func)(struct rcu_head *),
                        const void *caller);
    /* The worker is about to invoke / has invoked a callback.  After
     * callback_end the head may already be freed: use it as a key only. */
    void (*callback_begin)(struct rcu_head *head, void (*func)(struct rcu_head *));
    void (*callback_end)(struct rcu_head *head, void (*func)(struct rcu_head *));
    /* rcu_barrier() entered / returned; depth as for sync_begin. */
    void (*barrier_begin)(const void *caller, unsigned int depth);
    void (*barrier_end)(const void *caller);
    /* A thread exited (or unregistered) inside a read section at `depth`;
     * its section is ended by force so grace periods can proceed. */
    void (*exit_in_reader)(int tid, unsigned int depth);
    /* The calling thread's reader slot is about to be released (thread
     * exit or rcu_unregister_thread()), its word still as it was. */
    void (*slot_released)(void);
    /* rcu_dereference_check(p, c) outside a read section (protected_form 0)
     * or rcu_dereference_protected(p, c) (1) with c false. */
    void (*dereference_unprotected)(const void *value, const void *slot, const void *caller, int protected_form);
    /* lockdep_is_held(lock): does the calling thread hold the lock? */
    int (*lock_held)(const void *lock);
    /* rcu_xchg_pointer() (cmpxchg 0), or a successful rcu_cmpxchg_pointer()
     * (1), replaced old with value in slot. */
    void (*publish_atomic)(const void *old, const void *value, const void *slot, const void *caller, int cmpxchg);
};

/* Install (ops != NULL) or remove (NULL) the hooks; returns the previous ops.
 * This one takes a table of the first layout (read_enter .. slot_released):
 * members added since are never read from it, so a checker built before
 * them keeps working with this library. */
const struct rtdd_rcu_debug_ops *rtdd_rcu_set_debug_hooks(const struct rtdd_rcu_debug_ops *ops);
/* The same for a table of size bytes (sizeof(struct rtdd_rcu_debug_ops) of
 * the installer's header): members beyond it are taken as NULL. */
const struct rtdd_rcu_debug_ops *rtdd_rcu_set_debug_hooks_sized(const struct rtdd_rcu_debug_ops *ops, size_t size);

/* Record mode (rcu.h), for a hook owner that binds the read side's
 * out-of-line entry points itself and attaches records to reader slots:
 * on (with hooks installed) or off. Removing the hooks turns it off. */
void rtdd_rcu_set_read_record(int on);
/* The record layout this library's inline read side was built for
 * (RTDD_RCU_REC_LAYOUT): records are attached only to a library of the
 * owner's own layout. */
extern const unsigned int rtdd_rcu_record_layout;

#ifdef __cplusplus
}
#endif
#endif
