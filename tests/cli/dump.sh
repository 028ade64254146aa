#!/bin/bash
# rtdd dump: every request gets its own answer (several at once, and for a
# program with a /tmp of its own), and a dump that cannot be made says why
# (stopped, exited, no watchdog, not yours, not a process id).
# Usage: dump.sh RTDD
set -u
rtdd=$1
work=$(mktemp -d /tmp/rtdd-dump-test.XXXXXX)
fail=0
runners=()
cleanup() { for p in "${runners[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
# Built beside rtdd, not in /tmp: a private /tmp hides that.
target=$(dirname "$rtdd")/../tests/cli/dump_target
mkdir -p "$(dirname "$target")"
cc -g -O1 -pthread -o "$target" "$(dirname "$0")/dump_target.c" || { echo "cannot build dump_target"; exit 1; }
complain() { echo "$*"; fail=1; }
show() { sed 's/^/    /' "$1" | head -${2:-20}; }

# start NAME MODE [COMMAND...]: the target under `rtdd run` (or COMMAND,
# which runs it), its stdin a fifo held open here until finish NAME. Sets
# prog, the program's pid, once it said "ready".
declare -A fds runner_of
asked=()
start() {
    local name=$1 mode=$2 fd; shift 2
    mkfifo "$work/$name.in"
    if [ $# -eq 0 ]; then set -- "$rtdd" run --log-path="$work/$name.log" -- "$target" "$mode"; fi
    "$@" <"$work/$name.in" >"$work/$name.out" 2>"$work/$name.err" &
    runner_of[$name]=$!; runners+=($!)
    exec {fd}>"$work/$name.in"
    fds[$name]=$fd
    prog=""
    for _ in $(seq 400); do
        grep -q ready "$work/$name.out" 2>/dev/null && break
        sleep 0.05
    done
    # `rtdd run` (and unshare, sh) exec the program: it keeps their pid.
    grep -q ready "$work/$name.out" 2>/dev/null && prog=${runner_of[$name]}
    asked+=("$prog")
    [ -n "$prog" ] || { complain "$name: the target did not start"; show "$work/$name.err"; }
}
finish() {
    local fd=${fds[$1]}
    exec {fd}>&-
    { wait "${runner_of[$1]}"; } 2>/dev/null
}

# A pid is digits that fit a pid_t: 4294967297 is not pid 1.
for bad in 4294967297 0 -1 12x ''; do
    "$rtdd" dump "$bad" >"$work/out" 2>&1; st=$?
    [ $st = 2 ] && grep -q "'$bad' is not a process id" "$work/out" ||
        { complain "dump '$bad': exit $st, expected 2 and 'is not a process id'"; show "$work/out"; }
done

# A process that has exited (a zombie nobody reaps: sleep does not) cannot be asked.
sh -c 'true & exec sleep 30' &
reaper=$!; runners+=($reaper); zombie=""
for _ in $(seq 400); do
    read -r zombie _ <"/proc/$reaper/task/$reaper/children" 2>/dev/null
    [ -n "$zombie" ] && grep -q '^State:.Z' "/proc/$zombie/status" 2>/dev/null && break
    sleep 0.05
done
"$rtdd" dump "$zombie" >"$work/out" 2>&1; st=$?
[ $st = 2 ] && grep -q "process $zombie has exited" "$work/out" || { complain "zombie: exit $st"; show "$work/out"; }
kill "$reaper"; { wait "$reaper"; } 2>/dev/null

# Four dumps at once: four answers (one request each), and the log has the dump.
start w wait
if [ -n "$prog" ]; then
    askers=()
    for i in 1 2 3 4; do "$rtdd" dump "$prog" >"$work/concurrent.$i" 2>&1 & askers+=($!); done
    for i in 1 2 3 4; do
        wait "${askers[$((i - 1))]}"; st=$?
        [ $st = 0 ] && grep -q "^pid $prog: lock dump of [0-9]* threads\? written to $work/w.log" "$work/concurrent.$i" ||
            { complain "concurrent dump $i: exit $st, no answer of its own"; show "$work/concurrent.$i"; }
    done
    grep -q '^INFO: lock dump of process' "$work/w.log" || complain "concurrent: the log has no dump"
    # A waiter's stack is the SUMMARY's.
    grep -q '^SUMMARY: rtdd: lock-dump dump_target.c:[0-9]* in waiter$' "$work/w.log" ||
        { complain "the dump's SUMMARY does not name the waiter"; grep SUMMARY "$work/w.log"; }

    # Stopped: said at once, with every thread's state; answered once continued.
    kill -STOP "$prog"
    "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
    [ $st = 1 ] && grep -q "process $prog is stopped (state T)" "$work/out" &&
        grep -q "(rtdd's watchdog): it is stopped" "$work/out" && ! grep -q 'watchdog thread is not running' "$work/out" ||
        { complain "stopped: exit $st, expected 1 and 'is stopped'"; show "$work/out"; }
    kill -CONT "$prog"
    "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
    [ $st = 0 ] && grep -q 'lock dump of' "$work/out" || { complain "continued: exit $st"; show "$work/out"; }

    # Another user's process: not theirs to ask (the check needs root to run as nobody).
    if [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 --clear-groups "$rtdd" --version >/dev/null 2>&1; then
        setpriv --reuid=65534 --regid=65534 --clear-groups "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
        [ $st = 2 ] && grep -q "process $prog is not yours (it runs as uid 0)" "$work/out" ||
            { complain "not yours: exit $st"; show "$work/out"; }
    else
        echo "note: not root (or setpriv cannot run rtdd as nobody): the not-yours case is not run"
    fi
    finish w
fi

# Nobody waits: the SUMMARY says so and names the program.
start idle idle
if [ -n "$prog" ]; then
    "$rtdd" dump "$prog" >"$work/out" 2>&1 || { complain "idle: no answer"; show "$work/out"; }
    finish idle
    grep -q '^SUMMARY: rtdd: lock-dump \[no thread waits\] in dump_target$' "$work/idle.log" ||
        { complain "idle: the SUMMARY does not say that no thread waits"; grep SUMMARY "$work/idle.log"; }
fi

# A program with a private /tmp (PrivateTmp=, unshare -m): asked in its own.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
    start ns idle unshare -m --propagation private sh -c \
        'mount -t tmpfs rtdd-private-tmp /tmp && exec "$0" run --log-path=stderr -- "$1" idle' "$rtdd" "$target"
    if [ -n "$prog" ]; then
        "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
        [ $st = 0 ] && grep -q "^pid $prog: lock dump of [0-9]* threads\? written to its stderr" "$work/out" ||
            { complain "private /tmp: exit $st, no answer"; show "$work/out"; }
        finish ns
        grep -q '^INFO: lock dump of process' "$work/ns.err" || { complain "private /tmp: no dump in its log"; show "$work/ns.err"; }
    fi
else
    echo "note: not root (or no unshare): the private /tmp case is not run"
fi

# No watchdog (no thread ever made): said after the wait, with what each
# thread does in the runtime's words (the system call decoded).
start none nothread
if [ -n "$prog" ]; then
    "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
    [ $st = 1 ] && grep -q 'its watchdog thread is not running' "$work/out" &&
        grep -q "dump_target/$prog: it is in read(2) on fd 0" "$work/out" ||
        { complain "no watchdog: exit $st"; show "$work/out"; }
    # It exits while the dump waits: said so.
    fd=${fds[none]}
    "$rtdd" dump "$prog" >"$work/out" 2>&1 {fd}>&- &
    asker=$!
    for _ in $(seq 400); do
        compgen -G "/proc/$prog/root/tmp/rtdd-dump.$prog/req.*" >/dev/null && break
        sleep 0.05
    done
    finish none
    wait $asker; st=$?
    [ $st = 1 ] && grep -q "process $prog exited before it answered" "$work/out" ||
        { complain "exited: exit $st"; show "$work/out"; }
fi
# A watchdog that cannot write the dump (its log, stderr, is a pipe nobody
# reads, and full): said after the wait, with what the watchdog is doing.
mkfifo "$work/stuck.err"
exec {hold}<>"$work/stuck.err"
start stuck stuck "$rtdd" run --log-path=stderr -- "$target" stuck
if [ -n "$prog" ]; then
    "$rtdd" dump "$prog" >"$work/out" 2>&1; st=$?
    [ $st = 1 ] && grep -q "its watchdog thread (rtdd-watchdog/[0-9]*) runs but is busy: it is in write(2) on fd 2" "$work/out" ||
        { complain "busy watchdog: exit $st"; show "$work/out"; }
    kill -9 "$prog"
    finish stuck
fi
exec {hold}>&-

# Nothing left behind in /tmp by the answered and the failed requests.
for p in "${asked[@]}"; do
    [ -e "/tmp/rtdd-dump.$p" ] && { complain "request directory /tmp/rtdd-dump.$p left behind"; ls -la "/tmp/rtdd-dump.$p"; }
done
exit $fail
