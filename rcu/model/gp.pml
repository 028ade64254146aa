/* Promela model of the librtdd_rcu grace period (rcu/grace_period.c).
 *
 * Memory model: sequential consistency.  That is what the implementation's
 * barriers buy: readers order their slot store before their loads with a
 * compiler barrier plus the updater's membarrier(2) (or real fences in the
 * fallback); the updater fences around the flip.
 *
 * Readers: load the global phase, then (possibly much later) publish it
 * with nesting 1 in ONE store, read the current object, check it is not
 * reclaimed, and leave.  Between any two steps a reader may be preempted.
 *
 * Updater: replaces the object UPDATES times; after each replacement it
 * runs a grace period and then reclaims the old object.
 *   two-phase (default):   wait(old phase) ; flip ; wait(pre-flip phase)
 *   -DSINGLE_FLIP variant: flip ; wait(pre-flip phase)
 * The single-flip variant must fail: a reader that loaded the phase before
 * one grace period and published it after looks current to the next one.
 *
 * Property: no reader ever uses a reclaimed object (assertion).
 */
#ifndef READERS
#define READERS 2
#endif
#ifndef UPDATES
#define UPDATES 3
#endif
#ifndef READS
#define READS 2
#endif

bit phase = 0;                /* global phase bit of rtdd_rcu_gp_ctr */
bit reading[READERS];          /* reader slot: nesting != 0 */
bit snap[READERS];            /* reader slot: phase snapshot */
byte current = 0;             /* index of the published object */
bit reclaimed[UPDATES + 1];

/* Wait until reader i does not hold phase p in an active section. */
inline wait_reader(i, p) {
    (reading[i] == 0 || snap[i] != p)
}

inline wait_for_readers(p) {
    i = 0;
    do
    :: i < READERS -> wait_reader(i, p); i++
    :: else -> break
    od
}

proctype reader(byte id) {
    byte n = 0;
    bit seen_phase;
    byte obj;
    do
    :: n < READS ->
        seen_phase = phase;                       /* load rtdd_rcu_gp_ctr */
        atomic { snap[id] = seen_phase; reading[id] = 1 } /* the one slot store */
        obj = current;                            /* rcu_dereference */
        assert(!reclaimed[obj]);
        assert(!reclaimed[obj]);                  /* still valid later in the section */
        reading[id] = 0;                           /* rcu_read_unlock */
        n++
    :: else -> break
    od
}

proctype updater() {
    byte u = 0;
    byte old;
    byte i;
    bit p;
    bit q;
    do
    :: u < UPDATES ->
        old = current;
        current = u + 1;                          /* rcu_assign_pointer */
        p = phase;
#ifndef SINGLE_FLIP
        q = 1 - p;
        wait_for_readers(q);                      /* phase 1: readers of the old phase */
#endif
        phase = 1 - p;                            /* flip */
        wait_for_readers(p);                      /* phase 2: readers of the pre-flip phase */
        reclaimed[old] = 1;                       /* free */
        u++
    :: else -> break
    od
}

init {
    byte r = 0;
    atomic {
        do
        :: r < READERS -> run reader(r); r++
        :: else -> break
        od;
        run updater()
    }
}
