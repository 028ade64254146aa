/* deref_no_update.c under rcu_deref_rule=lockdep, the kernel's PROVE_RCU
 * rule: a dereference outside any read-side critical section by a thread
 * that holds no lock is reported at once, though no update follows. */
// expect: rcu-unprotected-dereference
// options: rcu_deref_rule=lockdep
// log: WARNING: suspicious RCU usage
// log: calls rcu_dereference() outside any read-side critical section
// log: rcu_deref_rule=lockdep: a dereference outside any read-side critical section by a thread that holds no lock is reported at once
// log: read_verbose+
#include "deref_no_update.c"
