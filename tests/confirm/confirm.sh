#!/bin/bash
# rtdd run --confirm and rtdd confirm (docs/confirm.md): cycles that a
# steered rerun can close are confirmed, cycles no schedule can close are
# not, the program's output and exit status are its own, and rtdd analyze
# reads the verdicts back in every format.
# Usage: confirm.sh RTDD BIN_DIR
set -u
rtdd=$1; bins=$2
work=$(mktemp -d /tmp/rtdd-confirm-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
complain() { echo "$*"; fail=1; }

# run NAME STATUS [rtdd run options...]: runs bins/NAME under
# rtdd run --confirm ... with its log in $work/NAME.log.
run() {
    local name=$1 want=$2; shift 2
    "$rtdd" run "$@" --log-path="$work/$name.log" -- "$bins/$name" >"$work/$name.out" 2>"$work/$name.err"
    local got=$?
    [ "$got" = "$want" ] || { complain "$name: exit $got, expected $want"; sed 's/^/    /' "$work/$name.err" | head; }
}
has() { grep -qF -- "$2" "$work/$1.log" || complain "$1: log lacks '$2'"; }
hasnt() { ! grep -qF -- "$2" "$work/$1.log" || complain "$1: log has '$2'"; }
says() { grep -qF -- "$2" "$work/$1.err" || complain "$1: stderr lacks '$2'"; }
output() { [ "$(cat "$work/$1.out")" = "$2" ] || complain "$1: program printed '$(cat "$work/$1.out")', expected '$2'"; }

# Confirmed: the cycle deadlocks in a steered rerun. The original report
# gets the verdict and the rerun's wait-for graph; the exit status is
# exitcode (a confirmed cycle is a BUG); the program computed what it does.
for c in "two_lock_apart:lines 2:journal -> accounts -> journal" \
         "three_thread_ring:moved 3:ring+0x50 -> ring -> ring+0x28 -> ring+0x50" \
         "cxx_mutex_apart:entries 2:audit -> accounts -> audit" \
         "rwlock_apart:rows 0:index_lock -> table -> index_lock" \
         "spin_apart:n 2:right -> left -> right" \
         "c11_apart:n 2:right -> left -> right" \
         "glib_apart:n 2:state_lock -> queue_lock -> state_lock" \
         "glib_bit_apart:n 2:bit 1 of state -> bit 0 of state -> bit 1 of state" \
         "rcu_apart:config 2:cfg_lock -> [rcu_read_lock] -> cfg_lock"; do
    IFS=: read -r name out cycle <<<"$c"
    run "$name" 66 --confirm
    output "$name" "$out"
    says "$name" "cycle $cycle: confirmed"
    has "$name" "confirm: confirmed: BUG: rerun 1 of 3 deadlocked in this cycle"
    has "$name" "confirm:   wait-for: "
    grep -q "^confirm:   wait-for: cycle: " "$work/$name.log" || complain "$name: no wait-for cycle line"
    says "$name" ": confirmed, rerun 1 of 3 deadlocked in it"
    [ "$(grep -c '^confirm: ' "$work/$name.log")" -ge 3 ] || complain "$name: fewer than 3 confirm lines"
done
# The three-thread ring: the rerun's deadlock has all three threads.
[ "$(grep -c '^confirm:   wait-for: .* blocked .* waiting for' "$work/three_thread_ring.log")" = 3 ] ||
    complain "three_thread_ring: the wait-for graph does not list 3 blocked threads"

# A latent cycle (one worker ran both tasks in the plain run: INFO, exit 0)
# that a steered rerun deadlocks: confirmed, a BUG, exit status exitcode;
# rtdd analyze fails on it, as it would not on the latent INFO alone.
"$rtdd" run --log-path="$work/latent_plain.log" -- "$bins/latent_pool" >/dev/null 2>&1
[ $? = 0 ] || complain "latent_pool without --confirm: exit status not 0"
"$rtdd" analyze "$work/latent_plain.log" >/dev/null 2>&1
[ $? = 0 ] || complain "analyze: an unconfirmed latent cycle must not fail"
run latent_pool 66 --confirm
output latent_pool "done 2"
has latent_pool "INFO: latent circular locking dependency"
has latent_pool "confirm: confirmed: BUG: rerun 1 of 3 deadlocked in this cycle"
"$rtdd" analyze "$work/latent_pool.log" >/dev/null 2>&1
[ $? = 1 ] || complain "analyze: a confirmed latent cycle must fail"
"$rtdd" analyze --format=json "$work/latent_pool.log" | grep -q '"severity": *"BUG"' ||
    complain "analyze json: a confirmed latent cycle is not a BUG"

# Gated: rtdd reports no cycle, so nothing is rerun or said.
run gated 0 --confirm
output gated "n 2"
[ ! -s "$work/gated.log" ] || ! grep -q 'cut here' "$work/gated.log" || complain "gated: a report"
! grep -q 'confirm' "$work/gated.err" "$work/gated.log" || complain "gated: confirm output"

# Never confirmed: halves a join apart; the second half waits for a
# condition the paused first half never signals.
for name in joined_halves unclosable; do
    run "$name" 66 --confirm=2
    output "$name" "n $([ $name = joined_halves ] && echo 0 || echo 2)"
    has "$name" "confirm: not confirmed in 2 reruns (steered at its 2 acquisitions"
    hasnt "$name" "confirm: confirmed"
    says "$name" ": not confirmed in 2 reruns"
done

# cond-lock-order: a wait that holds the lock its waker needs. Confirmed
# when a steered rerun deadlocks there (the waiter on the semaphore, the
# poster on the lock); never when the halves are joined or the wait's
# timeout always ends it.
run sem_apart 66 --confirm
output sem_apart "stats 1"
says sem_apart "cycle stats_lock -> flushed -> stats_lock: confirmed, rerun 1 of 3 deadlocked in it"
has sem_apart "confirm: confirmed: BUG: rerun 1 of 3 deadlocked in this cycle (steered: the waiter, at its wait"
grep -q '^confirm:   wait-for: .* blocked .* waiting on semaphore .* flushed' "$work/sem_apart.log" ||
    complain "sem_apart: the wait-for graph lacks the semaphore's waiter"
grep -q '^confirm:   wait-for: .* blocked .* waiting for .* stats_lock' "$work/sem_apart.log" ||
    complain "sem_apart: the wait-for graph lacks the poster blocked on stats_lock"
"$rtdd" analyze --format=json "$work/sem_apart.log" >"$work/c.json" 2>&1
grep -q '"confirm": *"confirmed"' "$work/c.json" && grep -q '"severity": *"BUG"' "$work/c.json" ||
    complain "analyze json: a confirmed cond-lock-order is not a confirmed BUG"
for name in sem_joined cond_timed; do
    run "$name" 66 --confirm=2
    output "$name" "stats 1"
    has "$name" "confirm: not confirmed in 2 reruns (steered at its wait and at the signaller's call that takes the lock"
    hasnt "$name" "confirm: confirmed"
    says "$name" "cycle stats_lock -> flushed -> stats_lock: not confirmed in 2 reruns"
done

# A rerun past --confirm-timeout is stopped and counts as not confirmed.
run unclosable 66 --confirm=1 --confirm-timeout=1
has unclosable "confirm: not confirmed in 1 rerun (steered at its 2 acquisitions, pauses up to 1500 ms; no rerun deadlocked in it, some were stopped at the time limit)"

# rtdd confirm LOG -- PROGRAM: from an existing log (a CI job's).
RTDD_OPTIONS="log_path=$work/ci.log" "$rtdd" run -- "$bins/two_lock_apart" >/dev/null 2>&1
hasnt ci "confirm:"
"$rtdd" confirm "$work/ci.log" -- "$bins/two_lock_apart" >"$work/ci.out" 2>"$work/ci.err"
[ $? = 1 ] || complain "rtdd confirm: exit status $?, expected 1 (a cycle confirmed)"
has ci "confirm: confirmed: BUG: rerun 1 of 3 deadlocked in this cycle"
[ "$(grep -c '^SUMMARY: ' "$work/ci.log")" = 1 ] || complain "rtdd confirm: the log's report lost or gained a SUMMARY"
"$rtdd" confirm "$work/nonexistent.log" -- "$bins/two_lock_apart" >/dev/null 2>&1
[ $? = 2 ] || complain "rtdd confirm of a missing log: exit status not 2"
"$rtdd" confirm "$work/ci.log" >/dev/null 2>&1
[ $? = 2 ] || complain "rtdd confirm without a program: exit status not 2"

# Usage errors are rtdd's (2), not the program's.
"$rtdd" confirm --help | grep -q 'usage: rtdd confirm' || complain "rtdd confirm --help: no usage"
"$rtdd" run --confirm=0 -- "$bins/two_lock_apart" >/dev/null 2>&1
[ $? = 2 ] || complain "rtdd run --confirm=0: exit status not 2"
"$rtdd" run --help | grep -q -- '--confirm\[=N\]' || complain "rtdd run --help lacks --confirm"
# A plan the runtime cannot read stops the program before main, as a bad option does.
echo "not a plan" >"$work/bad.plan"
RTDD_OPTIONS="confirm_plan=$work/bad.plan" "$rtdd" run -- "$bins/two_lock_apart" >"$work/bad.out" 2>&1
[ $? = 2 ] || complain "a bad confirm_plan: exit status not 2"
grep -q "confirm_plan '.*bad.plan': line 1: not an rtdd confirm plan" "$work/bad.out" || complain "a bad confirm_plan: no message"

# JSON lines: the verdict is a "confirm" field.
run cxx_mutex_apart 66 --confirm --report-format=json
grep -q '"confirm":"confirmed: BUG: rerun 1 of 3' "$work/cxx_mutex_apart.log" || complain "json: no confirm field"

# rtdd analyze reads the verdicts: confirmed (a BUG, SARIF error), not
# confirmed (stays a WARNING), not tried.
a() { "$rtdd" analyze "$@" 2>&1; }
a --format=json "$work/two_lock_apart.log" >"$work/a.json"
grep -q '"severity": *"BUG"' "$work/a.json" || complain "analyze json: confirmed cycle is not a BUG"
grep -q '"confirm": *"confirmed"' "$work/a.json" || complain "analyze json: no confirm state"
a --format=json "$work/cxx_mutex_apart.log" | grep -q '"confirm": *"confirmed"' || complain "analyze json: JSON-lines log's state lost"
a --format=json "$work/joined_halves.log" >"$work/b.json"
grep -q '"confirm": *"not confirmed"' "$work/b.json" || complain "analyze json: no not-confirmed state"
grep -q '"severity": *"WARNING"' "$work/b.json" || complain "analyze json: not-confirmed cycle changed severity"
RTDD_OPTIONS="log_path=$work/plain.log" "$rtdd" run -- "$bins/two_lock_apart" >/dev/null 2>&1
a --format=json "$work/plain.log" | grep -q '"confirm": *"not tried"' || complain "analyze json: no not-tried state"
a --format=text "$work/two_lock_apart.log" | grep -q '^    confirmed: BUG: rerun 1 of 3' || complain "analyze text: no verdict"
a --format=text "$work/plain.log" | grep -q 'not tried' || complain "analyze text: no not-tried"
a --format=sarif "$work/two_lock_apart.log" >"$work/a.sarif"
grep -q '"level": *"error"' "$work/a.sarif" || complain "analyze sarif: confirmed cycle is not level error"
grep -q '"confirm": *"confirmed"' "$work/a.sarif" || complain "analyze sarif: no confirm property"
a --format=sarif "$work/joined_halves.log" | grep -q '"level": *"warning"' || complain "analyze sarif: not confirmed is not a warning"
a --format=html "$work/two_lock_apart.log" | grep -q '<td>confirmed</td>' || complain "analyze html: no confirmed cell"
"$rtdd" analyze "$work/joined_halves.log" >/dev/null 2>&1; [ $? = 1 ] || complain "analyze: not-confirmed WARNING must still fail"
exit $fail
