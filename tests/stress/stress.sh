#!/bin/bash
# One case of the reliability suite (make check-stress, issue 8 item 4).
# Usage: stress.sh CASE RTDD STRESS_BIN_DIR RUNTIME
# Prints what it checked and "duration: N s"; exit status 0 when it holds.
# Each case is bounded: every program run has its own timeout, and
# stress.mk runs the whole case under `timeout` too.
set -u
case_name=$1; rtdd=$2; bins=$3; runtime=$4
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check_reports.py"
work=$(mktemp -d /tmp/rtdd-stress.XXXXXX)
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
fail=0
start=$(date +%s.%N)
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
unset RTDD_OPTIONS LD_PRELOAD RTDD_RUNTIME
export RTDD_RUNTIME=$runtime

# run TIMEOUT OUT ERR PROGRAM... -> sets $st (124 = hang)
run() {
    local t=$1 out=$2 err=$3; shift 3
    timeout -k 5 "$t" "$@" >"$out" 2>"$err"
    st=$?
    if [ $st = 124 ] || [ $st = 137 ]; then bad "HANG: $* did not finish in $t s"; fi
    if [ $st -gt 128 ] && [ $st != 137 ]; then bad "CRASH: $* died of signal $((st - 128))"; fi
}
expect_status() { # WANT WHAT
    [ "$st" = "$1" ] || { bad "$2: exit status $st, expected $1"; sed 's/^/    /' "$work/err" 2>/dev/null | head -15; }
}
# The logs hold only well-formed reports of the INFO kind lock-held-at-fork, if any.
no_errors() { # WHAT FILE...
    local what=$1; shift
    local out
    out=$($check --kind lock-held-at-fork --outside '.' "$@" 2>&1) || { bad "$what: $out"; return; }
    echo "    $what: $out"
}

case $case_name in
fork-storm)
    # 4 threads fork 60 times each (children fork again) while 4 threads lock.
    for i in 1 2; do
        mkdir -p "$work/$i"
        run 30 "$work/out" "$work/err" "$rtdd" run --log-path="$work/$i/log.%p" -- "$bins/fork_storm"
        expect_status 0 "fork_storm run $i"
        grep -q '480 forks, 0 failed' "$work/out" || bad "fork_storm run $i: $(cat "$work/out")"
        no_errors "run $i: $(ls "$work/$i" | wc -l) logs" "$work/$i"/log.*
    done
    ;;
exec-chain)
    # The program re-executes itself 12 times with threads running, and on
    # every level spawns with posix_spawn (vfork), system() and fork+exec.
    run 60 "$work/out" "$work/err" sh -c 'echo $$ >"$1/pid"; exec "$2" run --log-path="$1/log.%p" -- "$3" 12' \
        sh "$work" "$rtdd" "$bins/exec_chain"
    expect_status 0 "exec_chain"
    grep -q 'bottom reached' "$work/out" || bad "exec_chain did not reach the bottom: $(cat "$work/out" "$work/err")"
    pid=$(cat "$work/pid")
    grep -q "^rtdd: summary: pid $pid: 0 reports" "$work/log.$pid" 2>/dev/null \
        || bad "the last exec'ed image (pid $pid) did not run with the runtime (no summary in log.$pid)"
    no_errors "$(ls "$work"/log.* | wc -l) logs (one per process)" "$work"/log.*
    ;;
signal-storm)
    # 2 threads send SIGUSR1/2 at 4 locking threads for 4 s; handlers lock.
    for opts in "" "--lock-classes=site" ; do
        run 30 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" $opts -- "$bins/signal_storm" 4
        expect_status 0 "signal_storm $opts"
        echo "    $opts: $(cat "$work/out")"
        no_errors "signal_storm $opts" "$work/log"
        rm -f "$work/log"
    done
    ;;
ten-k-threads)
    run 60 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" -- "$bins/ten_k_threads" 10000
    expect_status 0 "ten_k_threads"
    grep -q '10000 created, 10000 joined, 10000 ran' "$work/out" || bad "ten_k_threads: $(cat "$work/out")"
    grep -q '^rtdd: summary: pid [0-9]*: 0 reports' "$work/log" || bad "no clean exit summary"
    no_errors "10000 threads" "$work/log"
    ;;
dlopen-storm)
    # 5 threads x 2000 dlopen/call/dlclose of libraries with ctor/dtor, locks, TLS.
    run 60 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" -- "$bins/dlopen_storm" 2000
    expect_status 0 "dlopen_storm"
    grep -q '10000 dlopen/dlclose rounds, 0 threads failed' "$work/out" || bad "dlopen_storm: $(cat "$work/out")"
    no_errors "dlopen_storm" "$work/log"
    ;;
exit-race)
    # exit(3), _exit(4), _exit(0), return 5 while threads lock, hold locks
    # and wait for held locks; with and without a report first.
    runs=0
    for mode in exit _exit _exit0 return; do
        for report in 0 1; do
            for delay in 0 1000 20000; do
                case $mode/$report in
                exit/0) want=3 ;; _exit/0) want=4 ;; _exit0/0) want=0 ;; return/0) want=5 ;;
                _exit/1) want=4 ;;      # only _exit(0) is replaced (docs/options.md)
                *) want=66 ;;
                esac
                rm -f "$work/log"
                run 15 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" -- "$bins/exit_race" $mode $report $delay
                runs=$((runs + 1))
                expect_status $want "exit_race $mode report=$report delay=${delay}us"
                touch "$work/log"
                out=$($check --outside '.' "$work/log") || bad "exit_race $mode $report $delay: $out"
                n=$(grep -c '^SUMMARY: rtdd: ' "$work/log")
                [ "$n" = "$report" ] || { bad "exit_race $mode report=$report delay=$delay: $n reports"; grep '^SUMMARY' "$work/log"; }
                if [ "$report" = 1 ] || [ "$mode" = exit ] || [ "$mode" = return ]; then
                    grep -q "^rtdd: summary: pid [0-9]*: $report report" "$work/log" \
                        || bad "exit_race $mode report=$report delay=$delay: no exit summary"
                fi
            done
        done
    done
    ok "$runs runs, exit statuses as documented"
    ;;
duplicate-exit)
    # The same bad unlock in four threads at once, then exit(2) in one of
    # them: the report begun by the first is never lost (200 runs).
    runs=0
    for i in $(seq 200); do
        rm -f "$work/log"
        run 15 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" -- "$bins/duplicate_exit"
        runs=$((runs + 1))
        expect_status 66 "duplicate_exit run $i"
        touch "$work/log"
        n=$(grep -c '^SUMMARY: rtdd: bad-unlock ' "$work/log")
        [ "$n" = 1 ] || { bad "duplicate_exit run $i: $n bad-unlock reports"; head -5 "$work/log"; break; }
        grep -q '^rtdd: summary: pid [0-9]*: 1 report (bad-unlock: 1)' "$work/log" \
            || { bad "duplicate_exit run $i: exit summary"; grep '^rtdd: summary' "$work/log"; break; }
        out=$($check --outside '.' "$work/log") || { bad "duplicate_exit run $i: $out"; break; }
    done
    ok "$runs runs: one report each, exit status 66"
    ;;
exit-report-race)
    # Threads hit bugs while the process exits (exit_report_race.c): the
    # same bug in every thread with exit() in one, distinct bugs with the
    # same exit, and reports claimed one after another while main exits.
    # 4 loops at once, 160 runs: the summary counts exactly the reports in
    # the log, and the status is the exitcode exactly when it counts one.
    loop() { # ID MODE RUNS
        local id=$1 mode=$2 n=$3 i st nrep nsum delay bad=0
        for i in $(seq "$n"); do
            delay=$(( (i % 4) * 5000 ))
            rm -f "$work/log.$id"
            timeout -k 5 20 "$rtdd" run --log-path="$work/log.$id" -- "$bins/exit_report_race" "$mode" $delay \
                >/dev/null 2>"$work/err.$id"
            st=$?
            touch "$work/log.$id"
            nrep=$(grep -c '^SUMMARY: rtdd: ' "$work/log.$id")
            nsum=$(sed -n 's/^rtdd: summary: pid [0-9]*: \([0-9]*\) report.*/\1/p' "$work/log.$id")
            want=0; [ "${nsum:-0}" -gt 0 ] && want=66
            if [ "$st" != "$want" ] || [ "$nsum" != "$nrep" ] || { [ "$mode" != busy ] && [ "$nrep" -lt 1 ]; } \
                || { [ "$mode" = dup ] && [ "$nrep" != 1 ]; }; then
                echo "FAIL: $mode run $i (delay ${delay}us): status $st, $nrep reports in the log, summary: $(grep '^rtdd: summary' "$work/log.$id")"
                bad=1
            fi
            out=$($check --outside '.' "$work/log.$id") || { echo "FAIL: $mode run $i: $out"; bad=1; }
        done
        echo "    $mode x $n: $([ $bad = 0 ] && echo ok || echo failed)"
        return $bad
    }
    pids=()
    loop 1 dup 40 >"$work/res.1" & pids+=($!)
    loop 2 distinct 40 >"$work/res.2" & pids+=($!)
    loop 3 busy 40 >"$work/res.3" & pids+=($!)
    loop 4 busy 40 >"$work/res.4" & pids+=($!)
    for p in "${pids[@]}"; do wait "$p" || fail=1; done
    cat "$work"/res.*
    [ $fail = 0 ] && ok "160 runs in 4 parallel loops: summary and exit status agree with the log"
    ;;
kill-after-reports)
    # 20 reports, then SIGKILL: all 20 are in the log, complete (text and json).
    # rtdd run executes the program in its own process, so $! is the
    # reporter itself (under timeout(1) the kill would reach only timeout and
    # leave the reporter paused for ever).
    for fmt in text json; do
        log=$work/log.$fmt
        mkfifo "$work/fifo.$fmt"
        "$rtdd" run --log-path="$log" --report-format=$fmt -- "$bins/reporter" 20 pause \
            >"$work/fifo.$fmt" 2>"$work/err" &
        pid=$!
        line=$(timeout 15 head -1 "$work/fifo.$fmt")
        [ "$line" = "reported 20" ] || bad "$fmt: the reporter said '$line'"
        kill -KILL $pid 2>/dev/null
        wait $pid; st=$?
        [ $st = 137 ] || bad "$fmt: reporter exit status $st, expected 137 (SIGKILL)"
        j=""; [ $fmt = json ] && j=--json
        out=$($check $j --sites 20 --kind active-lock-freed "$log") || bad "$fmt: $out"
        echo "    $fmt after SIGKILL: $out"
    done
    # SIGKILL in the middle of 8 threads reporting: whatever is in the log is whole.
    for i in $(seq 1 10); do
        log=$work/mid.$i
        "$rtdd" run --log-path="$log" -- "$bins/report_storm" >/dev/null 2>&1 &
        pid=$!
        delay=$(printf "0.%02d" $((i * 3)))
        sleep "$delay"
        kill -KILL $pid 2>/dev/null
        wait $pid
        touch "$log"
        out=$($check --kind active-lock-freed "$log") || bad "kill during reports, run $i: $out"
        echo "    killed after $delay s: $out"
    done
    ;;
report-storm)
    # 16 rounds of 8 threads reporting at once: to a file, to a pipe (stderr),
    # as JSON, and 4 processes appending to one file.
    run 30 "$work/out" "$work/err" "$rtdd" run --log-path="$work/file.log" -- "$bins/report_storm"
    expect_status 66 "report_storm to a file"
    out=$($check --sites 128 --kind active-lock-freed "$work/file.log") || bad "file: $out"; echo "    file: $out"
    timeout -k 5 30 "$rtdd" run -- "$bins/report_storm" 2>&1 | cat >"$work/pipe.log"
    out=$($check --sites 128 --kind active-lock-freed --outside '^report_storm: done$' "$work/pipe.log") || bad "pipe: $out"
    echo "    stderr through a pipe: $out"
    run 30 "$work/out" "$work/err" "$rtdd" run --log-path="$work/json.log" --report-format=json -- "$bins/report_storm"
    expect_status 66 "report_storm json"
    out=$($check --json --sites 128 --kind active-lock-freed "$work/json.log") || bad "json: $out"; echo "    json: $out"
    for i in 1 2 3 4; do
        timeout -k 5 30 "$rtdd" run --log-path="$work/shared.log" -- "$bins/report_storm" >/dev/null 2>&1 &
    done
    wait
    out=$($check --sites 128 --copies 4 --kind active-lock-freed "$work/shared.log") || bad "4 processes: $out"
    echo "    4 processes, one file: $out"
    ;;
log-full-disk)
    # /dev/full: every write fails with ENOSPC.
    run 20 "$work/out" "$work/err" "$rtdd" run --log-path=/dev/full -- "$bins/reporter" 5 run
    expect_status 66 "log_path=/dev/full"
    grep -q 'alive after 10 reports' "$work/out" || bad "/dev/full: the program did not keep running"
    grep -q '^rtdd: .*No space left on device' "$work/err" || bad "/dev/full: no clear error on stderr"
    out=$($check --sites 10 --kind active-lock-freed "$work/err") || bad "/dev/full: $out"; echo "    /dev/full, stderr: $out"
    # A tmpfs that fills up in the middle of the reports.
    if [ "$(id -u)" = 0 ] && mkdir -p "$work/tiny" && mount -t tmpfs -o size=64k,mode=0755 tmpfs "$work/tiny" 2>/dev/null; then
        mounts+=("$work/tiny")
        dd if=/dev/zero of="$work/tiny/fill" bs=1k count=58 2>/dev/null
        run 20 "$work/out" "$work/err" "$rtdd" run --log-path="$work/tiny/r.log" -- "$bins/reporter" 20 run
        expect_status 66 "log_path on a full tmpfs"
        grep -q 'alive after 40 reports' "$work/out" || bad "full tmpfs: the program did not keep running"
        grep -q '^rtdd: .*No space left on device' "$work/err" || bad "full tmpfs: no clear error on stderr"
        # Every report is complete in the file or on stderr; at most one is cut in the file.
        cp "$work/tiny/r.log" "$work/r.log"
        out=$($check --allow-cut-tail --sites 40 --kind active-lock-freed "$work/r.log" "$work/err") || bad "full tmpfs: $out"
        echo "    full tmpfs, file + stderr: $out ($(grep -c 'end report' "$work/r.log") in the file)"
    else
        echo "    (not root or mount refused: the tmpfs half of this case was not run)"
    fi
    ;;
log-unwritable)
    paths=("$work/no/such/dir/r.log" "$work")
    if [ "$(id -u)" = 0 ] && mkdir -p "$work/ro" && mount -t tmpfs -o size=64k,ro tmpfs "$work/ro" 2>/dev/null; then
        mounts+=("$work/ro"); paths+=("$work/ro/r.log")
    else
        echo "    (not root: the read-only file system path was not tried)"
    fi
    for p in "${paths[@]}"; do
        run 20 "$work/out" "$work/err" "$rtdd" run --log-path="$p" -- "$bins/reporter" 3 run
        expect_status 66 "log_path=$p"
        grep -q 'alive after 6 reports' "$work/out" || bad "log_path=$p: the program did not keep running"
        grep -q "^rtdd: cannot open log_path '$p'" "$work/err" || { bad "log_path=$p: no clear error"; head -3 "$work/err"; }
        out=$($check --sites 6 --kind active-lock-freed "$work/err") || bad "log_path=$p: $out"
        echo "    $p: $(grep -A1 '^rtdd: cannot' "$work/err" | tr '\n' ' '); stderr: $out"
    done
    ;;
rcu-torture)
    # librtdd_rcu's torture linked with librtdd_rcu.so, under rtdd: its read
    # side is bound to the runtime (docs/rcu.md), with signal-handler and
    # short-lived readers, synchronize_rcu, call_rcu, rcu_barrier and a
    # callback flood. The torture's own checks and rtdd's must both hold.
    run 60 "$work/out" "$work/err" "$rtdd" run --log-path="$work/log" -- "$bins/rcu_torture_dyn" \
        --duration=4 --readers=3 --writers=2
    expect_status 0 "rcu torture"
    grep -q '^rtdd torture: SUCCESS' "$work/out" || bad "rcu torture: $(tail -5 "$work/out")"
    grep -q '^rtdd: summary: pid [0-9]*: 0 reports' "$work/log" 2>/dev/null \
        || bad "rcu torture under rtdd: $(head -5 "$work/log" 2>/dev/null)"
    grep -q 'RCU read sections' "$work/log" 2>/dev/null || bad "rcu torture: the runtime saw no read section"
    ok "$(grep -h '^reads' "$work/out")"
    ;;
secure-getenv)
    # A setuid-root program run by an unprivileged user with the runtime
    # loaded must ignore RTDD_OPTIONS (secure_getenv): its log_path and
    # exitcode. LD_PRELOAD is ignored for such a program, so the runtime is
    # linked in (DT_NEEDED, absolute RUNPATH, which the loader still honours).
    if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
        echo "SKIP: needs root, setpriv and the user nobody"; exit 1
    fi
    chmod 755 "$work"; mkdir -p "$work/lib" "$work/open"; chmod 1777 "$work/open"
    cp "$runtime" "$work/lib/librtdd.so"
    cc -D_GNU_SOURCE -g -O1 -pthread -o "$work/reporter" "$here/reporter.c" \
        -L"$work/lib" -Wl,--no-as-needed -l:librtdd.so -Wl,-rpath,"$work/lib" 2>"$work/err" \
        || { bad "cannot link a program against librtdd.so"; cat "$work/err"; exit 1; }
    cp "$work/reporter" "$work/reporter-suid"; chmod 4755 "$work/reporter-suid"
    as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    # Control: without the setuid bit the options are honoured.
    run 20 "$work/out" "$work/err" "${as_nobody[@]}" env -u RTDD_RUNTIME RTDD_OPTIONS="log_path=$work/open/plain.log:exitcode=7" \
        "$work/reporter" 2 run
    expect_status 7 "non-setuid copy as nobody (RTDD_OPTIONS honoured)"
    grep -q 'SUMMARY: rtdd: active-lock-freed' "$work/open/plain.log" 2>/dev/null || bad "control run: no report in its log_path"
    # The setuid copy: runtime active (reports), options ignored.
    run 20 "$work/out" "$work/err" "${as_nobody[@]}" env -u RTDD_RUNTIME RTDD_OPTIONS="log_path=$work/open/suid.log:exitcode=7" \
        LD_PRELOAD="$work/lib/librtdd.so" "$work/reporter-suid" 2 run
    expect_status 66 "setuid copy as nobody (RTDD_OPTIONS ignored: default exitcode)"
    [ ! -e "$work/open/suid.log" ] || bad "the setuid program honoured RTDD_OPTIONS' log_path (created $work/open/suid.log)"
    grep -q 'SUMMARY: rtdd: active-lock-freed' "$work/err" || bad "the setuid program issued no report on stderr (runtime not active?)"
    grep -q 'alive after 4 reports' "$work/out" || bad "the setuid program did not run to the end"
    ok "RTDD_OPTIONS honoured by the plain copy, ignored by the setuid-root copy (log on stderr, exit 66)"
    ;;
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "duration: %.1f s\n", b - a }'
exit $fail
