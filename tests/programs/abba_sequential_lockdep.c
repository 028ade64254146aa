/* abba_sequential under lockdep's rule: every cycle of code paths is a
 * WARNING, whichever threads made its edges. */
// options: lock_order_rule=lockdep
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: cycle: beta_lock -> alpha_lock -> beta_lock
// log: *** DEADLOCK ***
// log: SUMMARY: rtdd: lock-order-inversion abba_sequential.c:22 in main
#include "abba_sequential.c"
