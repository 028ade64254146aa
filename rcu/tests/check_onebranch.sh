#!/bin/sh
# Checks the compiled read-side probes (rcu/tests/onebranch_probe.c):
#  - rcu_read_lock and rcu_read_unlock each test the global rtdd_rcu_read_slow
#    exactly once and branch out of line on it at most once, and read no
#    other global except the phase word (lock only);
#  - rcu_dereference tests the global rtdd_rcu_debug_ops_active exactly once;
#  - no atomic read-modify-write or fence anywhere on these paths;
#  - no call except to the out-of-line slow paths.
# Usage: check_onebranch.sh FILE.s
asm=$1
fail=0
body() { awk -v f="$1:" '$0==f{on=1} on{print} on&&/\.cfi_endproc/{exit}' "$asm"; }
count() { printf '%s\n' "$1" | grep -c -- "$2"; }
check() { # function, pattern, wanted count, label
    n=$(count "$(body "$1")" "$2")
    echo "$1: $4: $n (want $3)"
    [ "$n" -eq "$3" ] || fail=1
}
for f in probe_lock probe_unlock probe_deref; do
    b=$(body "$f")
    [ -n "$b" ] || { echo "$f not found in $asm"; exit 1; }
    if printf '%s\n' "$b" | grep -Eq '(^|\s)lock\s|mfence|xchg|cmpxchg'; then
        echo "$f: atomic RMW or fence on the read side"; fail=1
    fi
    other=$(printf '%s\n' "$b" | grep -E '^\s+call\s' | grep -vE 'rtdd_rcu_(read_(lock|unlock)_slow|register_lazy|debug_dereference)' | wc -l)
    echo "$f: calls other than the slow paths: $other (want 0)"
    [ "$other" -eq 0 ] || fail=1
done
check probe_lock 'rtdd_rcu_read_slow' 1 "tests of rtdd_rcu_read_slow"
check probe_lock 'rtdd_rcu_read_lock_slow' 1 "out-of-line branches"
check probe_lock 'rtdd_rcu_debug_ops_active' 0 "tests of the hook table"
check probe_unlock 'rtdd_rcu_read_slow' 1 "tests of rtdd_rcu_read_slow"
check probe_unlock 'rtdd_rcu_read_unlock_slow' 1 "out-of-line branches"
check probe_unlock 'rtdd_rcu_gp_ctr' 0 "reads of the phase word"
check probe_deref 'rtdd_rcu_debug_ops_active' 1 "tests of the hook table"
check probe_deref 'rtdd_rcu_read_slow' 0 "tests of rtdd_rcu_read_slow"
exit $fail
