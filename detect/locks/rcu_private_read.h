/* In librtdd.so the private librtdd_rcu's out-of-line read side carries
 * other names (interpose/rcu_private_read.syms): the public ones are the
 * program's, interposed in interpose/rcu_hooks.c. Included before
 * <rtdd/rcu.h>, this makes the inline read side call the private ones.
 * The unit tests link the plain library and leave RT_PRIVATE_RCU unset. */
#ifndef RTDD_RCU_PRIVATE_READ_H
#define RTDD_RCU_PRIVATE_READ_H
#ifdef RT_PRIVATE_RCU
void rtdd_rcu_read_lock_slow(void) __asm__("rti_rcu_read_lock_slow");
void rtdd_rcu_read_unlock_slow(unsigned int depth_before) __asm__("rti_rcu_read_unlock_slow");
void rtdd_rcu_debug_dereference(const void *value, const void *slot) __asm__("rti_rcu_debug_dereference");
#endif
#endif
