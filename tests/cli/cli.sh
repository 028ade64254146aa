#!/bin/bash
# The rtdd command line: help, version, option handling, refusals.
# Usage: cli.sh RTDD BUILD_DIR
set -u
rtdd=$1; build=$2
work=$(mktemp -d /tmp/rtdd-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # check NAME EXPECTED_STATUS PATTERN -- COMMAND...
    local name=$1 want=$2 pattern=$3; shift 4
    "$@" >"$work/out" 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then echo "$name: exit $got, expected $want"; sed 's/^/    /' "$work/out" | head -10; fail=1; return; fi
    if [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$work/out"; then
        echo "$name: output lacks /$pattern/"; sed 's/^/    /' "$work/out" | head -10; fail=1
    fi
}

check help 0 'usage: rtdd COMMAND' -- "$rtdd" --help
check version 0 '^rtdd [0-9]+\.[0-9]+\.[0-9]+$' -- "$rtdd" --version
check no-command 2 'usage: rtdd' -- "$rtdd"
check unknown-command 2 "unknown command 'frobnicate'" -- "$rtdd" frobnicate
check run-help 0 '--log-path' -- "$rtdd" run --help
# Every option of the table is listed by rtdd run --help.
"$rtdd" run --help >"$work/help"
for key in $(sed -n 's/^RT_OPT(\([a-z_]*\),.*/\1/p' detect/core/options.def); do
    grep -q -- "--${key//_/-} " "$work/help" || { echo "run --help lacks --${key//_/-}"; fail=1; }
done
check run-no-program 2 'usage: rtdd run' -- "$rtdd" run
check run-unknown-option 2 "unknown option 'halt_on_eror'.*valid options: log_path" -- "$rtdd" run --halt-on-eror=1 -- /bin/true
check run-bad-value 2 "bad value 'x' for option 'exitcode'" -- "$rtdd" run --exitcode=x -- /bin/true
check run-option-without-value 2 'needs a value' -- "$rtdd" run --symbolize -- /bin/true
check run-missing-program 2 "cannot find program 'no-such-program-xyz'" -- "$rtdd" run -- no-such-program-xyz
check run-dash-option 2 "unknown option '-x'" -- "$rtdd" run -x true
check run-directory 2 "is a directory, not a program" -- "$rtdd" run -- /tmp
check run-empty-log-path 2 "option 'log_path' is empty" -- env RTDD_OPTIONS=log_path= "$rtdd" run -- true
check run-log-path-escape 2 "unknown escape '%q'" -- "$rtdd" run --log-path="$work/x%q.log" -- true
# Bytes from the environment or a file are shown escaped, never sent raw to the terminal.
check run-binary-option 2 "unknown option 'bad[\\]x1b[[]31m'" -- env RTDD_OPTIONS=$'bad\x1b[31m=1' "$rtdd" run -- true
printf 'kind\a:x\n' >"$work/binary.supp"
check run-binary-suppression 2 "unknown report kind 'kind[\\]x07'" -- "$rtdd" run --suppressions="$work/binary.supp" -- true
: >"$work/empty.json"
printf 'no reports\n' >"$work/plain.log"
check analyze-empty-baseline 2 "baseline '.*empty.json' is empty" -- "$rtdd" analyze --baseline="$work/empty.json" "$work/plain.log"
check run-true 0 '' -- "$rtdd" run -- true
check run-exit-status-kept 3 '' -- "$rtdd" run -- sh -c 'exit 3'

# A program that closes fd 2 and opens its own file there, or dup2s over the
# log's descriptor, or closes every descriptor: reports still go where they
# went, never into the program's data or stdout.
if cc -pthread -o "$work/fd_takeover" tests/cli/fd_takeover.c 2>"$work/cc.err"; then
    "$rtdd" run -- "$work/fd_takeover" reopen "$work/data.txt" >"$work/out" 2>"$work/err"
    st=$?
    [ $st = 66 ] || { echo "fd reopen: exit $st, expected 66"; fail=1; }
    [ "$(cat "$work/data.txt")" = "$(printf 'data line 1\ndata line 2')" ] \
        || { echo "fd reopen: the program's file got more than its data:"; head -5 "$work/data.txt"; fail=1; }
    grep -q '^SUMMARY: rtdd: bad-unlock' "$work/err" && grep -q '^rtdd: summary: .*1 report' "$work/err" \
        || { echo "fd reopen: the report and summary are not on the original stderr"; fail=1; }
    for how in fill range; do
        rm -f "$work/fd.log"
        "$rtdd" run --log-path="$work/fd.log" -- "$work/fd_takeover" $how >"$work/out" 2>"$work/err"
        st=$?
        [ $st = 66 ] || { echo "fd $how: exit $st, expected 66"; fail=1; }
        grep -q 'rtdd' "$work/out" && { echo "fd $how: the report went to the program's stdout"; fail=1; }
        grep -q '^SUMMARY: rtdd: bad-unlock' "$work/fd.log" 2>/dev/null \
            || { echo "fd $how: the log file lacks the report"; cat "$work/err" | head -5; fail=1; }
    done
else
    echo "cannot build fd_takeover"; cat "$work/cc.err"; fail=1
fi

# A daemon's stderr is /dev/null: the reports go to $TMPDIR/rtdd.PID.log,
# made by the first report. A forked child that _exits with nothing to say
# leaves no log file; a clean run without summaries leaves none at all.
cat >"$work/daemonish.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    if (argc > 1 && !strcmp(argv[1], "bug")) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        pthread_mutex_unlock(&m);
        return 0;
    }
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    waitpid(c, NULL, 0);
    return 0;
}
EOF
if cc -pthread -o "$work/daemonish" "$work/daemonish.c" 2>"$work/cc.err"; then
    mkdir -p "$work/tmp"
    TMPDIR="$work/tmp" "$rtdd" run -- "$work/daemonish" bug >"$work/out" 2>/dev/null
    st=$?
    [ $st = 66 ] || { echo "stderr /dev/null: exit $st, expected 66"; fail=1; }
    grep -qs '^SUMMARY: rtdd: bad-unlock' "$work"/tmp/rtdd.*.log \
        || { echo "stderr /dev/null: no report in \$TMPDIR/rtdd.PID.log"; ls "$work/tmp"; fail=1; }
    rm -rf "$work/logs"; mkdir -p "$work/logs"
    "$rtdd" run --log-path="$work/logs/r.%p.log" -- "$work/daemonish" >"$work/out" 2>"$work/err"
    n=$(ls "$work/logs" | wc -l)
    [ "$n" = 1 ] || { echo "log files: $n, expected 1 (the parent's summary; the _exit child says nothing)"; ls -l "$work/logs"; fail=1; }
    rm -rf "$work/logs"; mkdir -p "$work/logs"
    "$rtdd" run --log-path="$work/logs/r.%p.log" --print-summary=0 -- "$work/daemonish" >"$work/out" 2>"$work/err"
    n=$(ls "$work/logs" | wc -l)
    [ "$n" = 0 ] || { echo "log files: $n, expected none from a clean run without summaries"; ls -l "$work/logs"; fail=1; }
    check run-log-dir-missing 0 "cannot open log_path '$work/no-such-dir/x.log'" -- "$rtdd" run --log-path="$work/no-such-dir/x.log" -- true
else
    echo "cannot build daemonish"; cat "$work/cc.err"; fail=1
fi

# A child that execs without touching a lock another thread holds has
# nothing to say: no report, and no log file of its own (40 children); the
# program rtdd run started writes its clean exit summary, and only it.
forks="$build/tests/programs/clean_fork_exec_held"
if [ -x "$forks" ]; then
    rm -rf "$work/logs"; mkdir -p "$work/logs"
    sh -c 'echo $$ >"$1/root"; exec "$2" run --log-path="$1/logs/r.%p.log" -- "$3"' sh "$work" "$rtdd" "$forks" \
        >"$work/out" 2>"$work/err"
    st=$?; n=$(ls "$work/logs" | wc -l); root=$(cat "$work/root")
    [ $st = 0 ] && [ "$n" = 1 ] && grep -q "^rtdd: summary: pid $root: 0 reports" "$work/logs/r.$root.log" \
        || { echo "fork+exec with a held lock: exit $st, $n log files, expected 0 and the root's alone"; ls "$work/logs" | head -5; fail=1; }
else
    echo "fork+exec: $forks is not built"; fail=1
fi

# rtdd dump: a lock dump of a hung program, written to its log.
check dump-bad-pid 2 "'abc' is not a process id" -- "$rtdd" dump abc
check dump-not-rtdd 2 'does not run under rtdd' -- "$rtdd" dump $$
hang="$build/tests/programs/hang_pipe_holder"
if [ -x "$hang" ]; then
    RTDD_OPTIONS=log_path="$work/dump.log" "$rtdd" run -- "$hang" >/dev/null 2>&1 &
    hung=$!
    sleep 0.7
    "$rtdd" dump $hung >"$work/out" 2>&1
    st=$?
    wait $hung
    [ $st = 0 ] || { echo "dump: exit $st"; cat "$work/out"; fail=1; }
    # Its main thread made no lock call: listed from /proc with the two that did.
    grep -q 'lock dump of 4 threads written to .*dump.log' "$work/out" || { echo "dump: no answer"; cat "$work/out"; fail=1; }
    grep -q '^INFO: lock dump of process' "$work/dump.log" && grep -q 'waits for no lock: it is in read(2) on fd' "$work/dump.log" \
        && grep -q '1 lock held by' "$work/dump.log" \
        || { echo "dump: the log lacks the dump"; grep -v '^ \[<' "$work/dump.log" | head -20; fail=1; }
else
    echo "dump: $hang is not built"; fail=1
fi
# A thread waiting on a condition variable, and threads that never made a
# lock call (the main thread sleeps; so does another): all in the dump.
cat >"$work/dumpee.c" <<'EOF2'
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static void *waiter(void *a) { (void)a; pthread_mutex_lock(&m); pthread_cond_wait(&ready, &m); pthread_mutex_unlock(&m); return 0; }
static void *sleeper(void *a) { (void)a; sleep(4); return 0; }
int main(void)
{
    pthread_t w, s;
    pthread_create(&w, 0, waiter, 0);
    pthread_create(&s, 0, sleeper, 0);
    sleep(3);
    pthread_mutex_lock(&m);
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&m);
    pthread_join(w, 0);
    pthread_join(s, 0);
    return 0;
}
EOF2
if cc -g -pthread -o "$work/dumpee" "$work/dumpee.c" 2>"$work/cc.err"; then
    RTDD_OPTIONS=log_path="$work/dump2.log" "$rtdd" run -- "$work/dumpee" >/dev/null 2>&1 &
    pid=$!
    sleep 0.5
    "$rtdd" dump $pid >"$work/out" 2>&1
    wait $pid
    grep -q 'lock dump of 3 threads' "$work/out" || { echo "dump: not 3 threads"; cat "$work/out"; fail=1; }
    grep -q 'waits on condition variable .*ready' "$work/dump2.log" \
        && [ "$(grep -c 'made no lock call rtdd saw: it is ' "$work/dump2.log")" = 2 ] \
        || { echo "dump: the condition wait or the threads without lock calls are missing"; grep -v '^ \[<' "$work/dump2.log" | head -20; fail=1; }
else
    echo "cannot build dumpee"; cat "$work/cc.err"; fail=1
fi

# A static program cannot be preloaded: refused, not run unchecked.
printf 'int main(void){return 0;}\n' >"$work/s.c"
if cc -static -o "$work/static" "$work/s.c" 2>/dev/null; then
    check run-static 2 'statically linked' -- "$rtdd" run -- "$work/static"
else
    echo "cannot build a static test program (no static libc?)"; fail=1
fi
# Nor can a setuid one.
cp /bin/true "$work/suid" && chmod u+s "$work/suid"
check run-setuid 2 'setuid or setgid' -- "$rtdd" run -- "$work/suid"

# stdout and stderr on a pipe whose reader has gone (`prog 2>&1 | head -c0`):
# the runtime's writes (a report mid-run, the exit summary) fail quietly and
# the program ends with its own status, never killed by SIGPIPE (141); a
# report counts as ever (66). Its SIGPIPE handler never runs, and its own
# pending SIGPIPE stays pending. rtdd run's own messages do not die either.
if cc -o "$work/closed_pipe" tests/cli/closed_pipe.c 2>"$work/cc.err" &&
   cc -pthread -o "$work/sigpipe_host" tests/cli/sigpipe_host.c 2>"$work/cc.err"; then
    cp=("$work/closed_pipe")
    check sigpipe-clean 0 '' -- "${cp[@]}" "$rtdd" run -- "$work/sigpipe_host" clean
    check sigpipe-clean-stdout-log 0 '' -- "${cp[@]}" "$rtdd" run --log-path=stdout -- "$work/sigpipe_host" clean
    check sigpipe-report 66 '' -- "${cp[@]}" "$rtdd" run -- "$work/sigpipe_host" report
    check sigpipe-report-stdout-log 66 '' -- "${cp[@]}" "$rtdd" run --log-path=stdout -- "$work/sigpipe_host" report
    check sigpipe-report-halt 66 '' -- "${cp[@]}" "$rtdd" run --halt-on-error=1 -- "$work/sigpipe_host" report
    for mode in handler blocked; do
        rm -f "$work/verdict"
        check sigpipe-$mode 66 '' -- "${cp[@]}" "$rtdd" run -- "$work/sigpipe_host" $mode "$work/verdict"
        [ "$(cat "$work/verdict" 2>/dev/null)" = ok ] \
            || { echo "sigpipe-$mode: $(cat "$work/verdict" 2>/dev/null || echo 'no verdict')"; fail=1; }
    done
    check sigpipe-run-missing 2 '' -- "${cp[@]}" "$rtdd" run -- no-such-program-xyz
    check sigpipe-run-help 0 '' -- "${cp[@]}" "$rtdd" run --help
    check sigpipe-bad-options 2 '' -- "${cp[@]}" env LD_PRELOAD="$build/lib/librtdd.so" RTDD_OPTIONS=no_such_option=1 true
    # The RCU library's own warning beside the report (rcu_read_unlock() unbalanced).
    check sigpipe-rcu-warning 66 '' -- "${cp[@]}" "$rtdd" run -- "$build/tests/programs/rcu_unbalanced-rtdd"
    # The same program with its output read: the reports are there.
    check sigpipe-report-read 66 '^SUMMARY: rtdd: bad-unlock' -- "$rtdd" run -- "$work/sigpipe_host" report
else
    echo "cannot build the SIGPIPE cases"; cat "$work/cc.err"; fail=1
fi

# Options reach the runtime: log_path with %p, created 0600; exitcode.
prog="$build/tests/programs/alf_same_thread"
check run-options 9 '' -- "$rtdd" run --log-path="$work/log.%p" --exitcode=9 -- "$prog"
logs=("$work"/log.*)
if [ ! -f "${logs[0]}" ]; then echo "log_path with %p made no file"; fail=1
else
    [ "$(stat -c %a "${logs[0]}")" = 600 ] || { echo "log file mode $(stat -c %a "${logs[0]}"), expected 600"; fail=1; }
    grep -q 'SUMMARY: rtdd: active-lock-freed' "${logs[0]}" || { echo "log lacks the report"; fail=1; }
fi
# RTDD_OPTIONS and command-line options combine; the command line wins.
RTDD_OPTIONS="exitcode=5" "$rtdd" run --exitcode=7 -- "$prog" >/dev/null 2>&1
[ $? = 7 ] || { echo "command-line exitcode did not override RTDD_OPTIONS"; fail=1; }
# A symbolic link as log file is refused (O_NOFOLLOW); reports go to stderr.
ln -s "$work/elsewhere" "$work/link.log"
"$rtdd" run --log-path="$work/link.log" -- "$prog" >"$work/out" 2>&1
grep -q "cannot open log_path" "$work/out" && grep -q 'SUMMARY: rtdd: active-lock-freed' "$work/out" \
    || { echo "symlinked log_path was not refused with the report on stderr"; fail=1; }
[ ! -e "$work/elsewhere" ] || { echo "the log followed a symbolic link"; fail=1; }
# The runtime is found relative to the rtdd binary, wherever the binary is.
mkdir -p "$work/tree/bin" "$work/tree/lib"
cp "$rtdd" "$work/tree/bin/rtdd" && cp "$build/lib/librtdd.so" "$work/tree/lib/"
check run-relocated 0 '' -- "$work/tree/bin/rtdd" run -- true
exit $fail
