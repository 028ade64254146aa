#!/bin/bash
# Generates docs/performance.md and its SVG chart from the CSVs of the last
# `make bench` run (bench/results/*.csv), so the page always shows measured
# numbers. Usage: report.sh RESULTS_DIR OUT_MD OUT_SVG
set -u
res=$1; md=$2; svg=$3
micro=$res/micro.csv; real=$res/real.csv; rcu=$res/rcu.csv; machine=$res/machine.csv; servers=$res/servers.csv
for f in "$micro" "$machine"; do [ -s "$f" ] || { echo "report: $f missing; run make bench first" >&2; exit 1; }; done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
m() { awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$machine"; }
# get CSV WORKLOAD TOOL COLUMN: one cell (nan when absent)
get() { awk -F, -v w="$2" -v t="$3" -v c="$4" '$1 == w && $2 == t { print $c; f = 1; exit } END { if (!f) print "nan" }' "$1"; }
fmt() { awk -v x="$1" 'BEGIN { if (x == "nan" || x == "") print "n/a"; else if (x + 0 >= 100) printf "%.0f\n", x; else if (x + 0 >= 10) printf "%.1f\n", x; else printf "%.2f\n", x }'; }
quick=$(m quick)

# ---- chart: slowdown vs native per workload and tool (log scale) ----
{
    for w in $(awk -F, 'NR > 1 && $2 == "native" { print $1 }' "$micro"); do
        printf '%s' "$w"
        for t in rtdd tsan helgrind drd; do v=$(get "$micro" "$w" "$t" 6); printf ' %s' "${v/nan/NaN}"; done
        echo
    done
    if [ -s "$real" ]; then
        awk -F, 'NR > 1 && $2 == "native" && $1 !~ /memstatus=0/ { print $1 }' "$real" | while read -r p; do
            case $p in "sqlite lib"*) printf 'sqlite-lib' ;; *) printf '%s' "$(echo "$p" | awk '{ print $1 }')" ;; esac
            for t in rtdd tsan helgrind drd; do v=$(get "$real" "$p" "$t" 8); printf ' %s' "${v/nan/NaN}"; done
            echo
        done
    fi
} | sed 's/^mutex_contended/mutex_contend/; s/^malloc_free_64/malloc_free64/; s/^free_heavy_1000/free_1000held/' >"$tmp/chart.dat"
if command -v gnuplot >/dev/null; then
    gnuplot <<GP 2>"$tmp/gnuplot.err" || { echo "report: gnuplot failed:" >&2; cat "$tmp/gnuplot.err" >&2; }
set terminal svg size 1300,520 dynamic noenhanced font "sans,11" background rgb "white"
set output "$svg"
set title "Slowdown against native (log scale; lower is better) — $(m date)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 10
set yrange [0.5:100000]
set ylabel "time / native time"
set grid ytics
set xtics scale 0 font "sans,9"
set xrange [-0.6:*]
set key top left horizontal
set datafile missing "NaN"
plot "$tmp/chart.dat" using 2:xtic(1) title "rtdd" lc rgb "#2a9d3a", \
     "" using 3 title "ThreadSanitizer" lc rgb "#e9a23b", \
     "" using 4 title "Helgrind" lc rgb "#c0392b", \
     "" using 5 title "DRD" lc rgb "#7d3c98", \
     1 notitle lc rgb "black" dt 2
GP
else
    echo "report: gnuplot not found (Debian package gnuplot-nox); no chart" >&2
fi

# ---- targets ----
# check NAME VALUE OP TARGET UNIT: a table row "target | measured | verdict"
check() { # check NAME VALUE OP TARGET [UNIT (default x)]
    awk -v n="$1" -v v="$2" -v op="$3" -v t="$4" -v u="${5-x}" 'BEGIN {
        if (v == "nan" || v == "") { printf "| %s | n/a | not measured |\n", n; exit }
        if (op == "<=") ok = (v + 0 <= t + 0); else ok = (v + 0 >= t + 0)
        if (ok) verdict = "**met**"
        else if (op == "<=") verdict = sprintf("**missed** by %.2fx (%.0f%% over)", v / t, (v / t - 1) * 100)
        else verdict = sprintf("**missed** by %.2fx (%.1f%% short)", t / v, (1 - v / t) * 100)
        printf "| %s | %s%s | %s |\n", n, (v >= 100 ? sprintf("%.0f", v) : sprintf("%.2f", v)), u, verdict
    }'
}
ns() { get "$micro" "$1" "$2" 5; }
div() { ratio "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "nan"; else printf "%.4g\n", a / b }'; }
{
    echo "| target | measured | verdict |"
    echo "|---|---|---|"
    check "rtdd ≤ 1.5x native: uncontended mutex pair" "$(get "$micro" mutex_pair rtdd 6)" "<=" 1.5
    check "rtdd ≤ 1.3x native: malloc+free 64 B" "$(get "$micro" malloc_free_64 rtdd 6)" "<=" 1.3
    check "rtdd ≤ 1.5x native: rwlock read pair" "$(get "$micro" rwlock_read rtdd 6)" "<=" 1.5
    check "rtdd ≤ 1.5x native: spinlock pair" "$(get "$micro" spin_pair rtdd 6)" "<=" 1.5
    check "rtdd ≤ 1.5x native: nested 3-lock, consistent order, 2 threads" "$(get "$micro" nested3 rtdd 6)" "<=" 1.5
    check "rtdd ≤ 3x native: librtdd_rcu read section, checked (rcu_read1)" "$(get "$micro" rcu_read1 rtdd 6)" "<=" 3
    check "rtdd ≤ 1.3x native: RCU-free paths of a program using RCU (rcu_plain)" "$(get "$micro" rcu_plain rtdd 6)" "<=" 1.3
    check "rtdd ≤ +5 ns per lock: nested 3-lock (nested3, added ns per op / 3)" \
        "$(awk -v a="$(get "$micro" nested3 rtdd 10)" 'BEGIN { if (a == "nan" || a == "") print "nan"; else printf "%.4g\n", a / 3 }')" "<=" 5 " ns"
    check "rtdd ≤ +5 ns: rwlock read pair (rwlock_read)" "$(get "$micro" rwlock_read rtdd 10)" "<=" 5 " ns"
    check "rtdd ≤ +2 ns: uncontended mutex pair (mutex_pair)" "$(get "$micro" mutex_pair rtdd 10)" "<=" 2 " ns"
    check "rtdd ≤ 1.3x native: GMutex pair (gmutex_pair)" "$(get "$micro" gmutex_pair rtdd 6)" "<=" 1.3
    for w in mutex_contended nested3 many_locks_300; do
        check "hold time under rtdd ≤ 1.1x native's: $w (sampled in the program)" "$(get "$micro" "$w" rtdd 14)" "<=" 1.1
    done
    if [ -s "$real" ]; then
        awk -F, 'NR > 1 && $2 == "native" { print $1 }' "$real" | while read -r p; do
            case $p in
            *memstatus=0*) ;; # a diagnostic line, no target
            "sqlite lib"*) check "rtdd ≤ 1.05x native CPU: $p" "$(get "$real" "$p" rtdd 13)" "<=" 1.05 ;;
            *) check "rtdd ≤ 1.1x native: $p" "$(get "$real" "$p" rtdd 8)" "<=" 1.1 ;;
            esac
        done
    fi
    if [ -s "$servers" ]; then
        awk -F, 'NR > 1 && $2 == "native" { print $1 }' "$servers" | while read -r p; do
            check "rtdd ≤ 1.1x native wall: $p" "$(get "$servers" "$p" rtdd 7)" "<=" 1.1
            case $p in
            *unpinned*)
                check "rtdd ≤ 1.03x native server CPU: $p" "$(get "$servers" "$p" rtdd 8)" "<=" 1.03
                check "rtdd ≤ 1.1x native server user time: $p" "$(get "$servers" "$p" rtdd 12)" "<=" 1.1 ;;
            *) check "rtdd ≤ 1.1x native server CPU: $p" "$(get "$servers" "$p" rtdd 8)" "<=" 1.1 ;;
            esac
            check "rtdd peak RSS ≤ 1.1x native + 5 MB (measured / bound): $p" \
                "$(awk -v r="$(get "$servers" "$p" rtdd 6)" -v n="$(get "$servers" "$p" native 6)" \
                   'BEGIN { if (r == "nan" || n == "nan") print "nan"; else printf "%.4g\n", r / (1.1 * n + 5120) }')" "<=" 1
        done
    fi
    check "rtdd faster than ThreadSanitizer: many_locks_300 (300 mutexes nested 3 at a time)" \
        "$(div "$(ns many_locks_300 tsan)" "$(ns many_locks_300 rtdd)")" ">=" 1
    check "rtdd faster than ThreadSanitizer: lock_churn (10 mutexes made, nested, destroyed per step)" \
        "$(div "$(ns lock_churn tsan)" "$(ns lock_churn rtdd)")" ">=" 1
    check "rtdd ≤ ThreadSanitizer's time: create_destroy (the shape of its deadlock stress Test14)" \
        "$(div "$(ns create_destroy tsan)" "$(ns create_destroy rtdd)")" ">=" 1
    check "rtdd ≤ ThreadSanitizer's time: random_rwlocks (the shape of its real_deadlock_detector_stress_test)" \
        "$(div "$(ns random_rwlocks tsan)" "$(ns random_rwlocks rtdd)")" ">=" 1
    check "rtdd ≤ 2x native: a million mutexes, each initialized and locked once" \
        "$(get "$micro" million_mutexes rtdd 6)" "<=" 2
    check "rtdd ≤ 1.5x native: 200 forks of a threaded program whose lock is held at half of them (fork_200)" \
        "$(get "$micro" fork_200 rtdd 6)" "<=" 1.5
    check "rtdd ≤ 1.5x native wall: 100 forks while 4 threads lock and allocate without pause (fork_busy)" \
        "$(get "$micro" fork_busy rtdd 6)" "<=" 1.5
    check "start-up ≤ 0.3 ms of CPU per exec'd process over native: /bin/true (exec_true, rtdd − native)" \
        "$(awk -v r="$(ns exec_true rtdd)" -v n="$(ns exec_true native)" \
           'BEGIN { if (r == "nan" || n == "nan" || r == "" || n == "") print "nan"; else printf "%.4g\n", (r - n) / 1e6 }')" "<=" 0.3 " ms"
    check "rtdd ≤ 1.3x native: malloc+free while 1,000 mutexes are held (free_heavy_1000)" \
        "$(get "$micro" free_heavy_1000 rtdd 6)" "<=" 1.3
    for n in 1 2; do
        check "librtdd_rcu read pair ≤ 1.0x urcu-memb, $n reader(s), unpinned (read$n)" \
            "$(awk -F, -v m="read$n" '$1 == m && $4 == "rtdd" { print $6 }' "$rcu")" "<=" 1
    done
    check "a new lock and edge ≤ ThreadSanitizer's cost: graph_100k (TSan / rtdd)" \
        "$(div "$(ns graph_100k tsan)" "$(ns graph_100k rtdd)")" ">=" 1
    check "fixed memory per process ≤ 5 MB: mutex_pair's peak RSS, rtdd − native (MB)" \
        "$(awk -v r="$(get "$micro" mutex_pair rtdd 9)" -v n="$(get "$micro" mutex_pair native 9)" \
           'BEGIN { if (r == "nan" || n == "nan" || r == "" || n == "") print "nan"; else printf "%.4g\n", (r - n) / 1024 }')" "<=" 5 " MB"
    for w in mutex_pair mutex_contended nested3 rwlock_read spin_pair; do
        check "rtdd ≥ 10x faster than ThreadSanitizer: $w" "$(div "$(ns "$w" tsan)" "$(ns "$w" rtdd)")" ">=" 10
        check "rtdd ≥ 500x faster than Helgrind: $w" "$(div "$(ns "$w" helgrind)" "$(ns "$w" rtdd)")" ">=" 500
    done
    check "graph build linear: rtdd time per lock at 100k / at 10k ≤ 1.5" "$(div "$(ns graph_100k rtdd)" "$(ns graph_10k rtdd)")" "<=" 1.5
} >"$tmp/targets.md"

# ---- the page ----
{
cat <<HDR
# Performance

<!-- Generated by bench/report.sh from bench/results/*.csv by \`make bench\`; do not edit by hand. -->

rtdd against native execution and the tools users would pick instead — ThreadSanitizer
(the program rebuilt with \`clang -fsanitize=thread\`), Helgrind and DRD (valgrind) — measured
in one run of \`make bench$([ "$quick" = 1 ] && echo " QUICK=1")\`.

| machine | |
|---|---|
| date | $(m date) |
| CPU | $(m cpu), $(m nproc) CPUs (nproc) |
| kernel | $(m kernel) |
| load average at start | $(m load_at_start) |
| compilers / tools | gcc $(m gcc); $(m clang); $(m valgrind) |
| run | \`make bench$([ "$quick" = 1 ] && echo " QUICK=1")\` (QUICK=$quick) |
HDR
[ "$quick" = 1 ] && printf '\n**This page comes from a short `make bench QUICK=1` run (fewer rounds and iterations; Helgrind/DRD once); run `make bench` for the real figures.**\n'
cat <<'TXT'

## How it is measured

- Every workload runs in **rounds**; in each round every tool runs once, one after the other
  (native, rtdd, tsan, helgrind, drd, native, rtdd, ...), so load drift hits all tools alike.
  The **ratio** is computed pair by pair — a tool's time divided by the native time *of the same
  round* — and the median over the rounds is shown (`make bench`: 5 rounds; Helgrind and DRD
  in the first 3 of them: their ratios, in the hundreds, differ by a few % from round to round).
- All tools of a micro-benchmark round run on the same CPU (rounds take the CPUs in turn):
  single-threaded workloads under `taskset`, the RCU reader pinned by `rcubench`
  (`RCUBENCH_READER_CPU`); the two-thread lock workloads are not pinned. On a VM whose vCPUs
  differ in speed at the moment, a pair split across them would measure the vCPUs.
- Micro-benchmarks (`bench/micro/micro.c`) time their loop inside the program (process start-up
  excluded) and print ns per operation. ThreadSanitizer runs 1/10 and Helgrind/DRD 1/1000 (`cond_pingpong`: 1/100) of the
  iterations; everything is normalized per operation.
- Real programs are timed as whole processes (start-up included) and normalized per unit of work.
  Helgrind/DRD process a smaller input (1 MiB; 10k rows, QUICK: 5k; the SQLite library program 4k
  rows, and ThreadSanitizer a quarter of its 400k).
- **Max RSS** is the kernel's `ru_maxrss` of the measured process (wait4, `bench/micro/measure.c`),
  median over the rounds; for valgrind it includes valgrind itself.
- Commands: native `build/bench/micro WORKLOAD N`; rtdd `build/bin/rtdd run -- build/bench/micro
  WORKLOAD N` (`RTDD_OPTIONS=print_summary=0`); TSan `build/bench/micro-tsan WORKLOAD N/10`
  (same source, `clang -O2 -fsanitize=thread`); Helgrind/DRD `valgrind --tool=helgrind|drd -q
  build/bench/micro WORKLOAD N/1000`. Scripts: `bench/micro/run.sh`, `bench/real/run.sh`,
  `bench/rcu/run.sh`; this page: `bench/report.sh`.

## Targets

TXT
cat "$tmp/targets.md"
cat <<'TXT'

"x faster than" compares ns per operation of the peer with rtdd's, both measured in the same run.

![slowdown per tool and workload](performance.svg)

## Micro-benchmarks

ns per operation (median), slowdown against native (median of per-round ratios, with the range
over the rounds), and max RSS.

TXT
echo "| workload | tool | ops per run | ns/op | slowdown | range | added ns/op (range) | max RSS (KiB) |"
echo "|---|---|---:|---:|---:|---|---:|---:|"
awk -F, 'function g(x) { return (x >= 100 || x <= -100) ? sprintf("%.0f", x) : (x >= 10 || x <= -10) ? sprintf("%.1f", x) : sprintf("%.2f", x) }
NR > 1 {
    n = ($1 == "rcu_read1") ? "(timed 0.2–0.5 s)" : $3
    s = ($6 == "nan") ? "n/a" : g($6) "x"
    r = ($7 == "nan" || $2 == "native") ? "" : g($7) "–" g($8)
    a = ($2 == "native" || $10 == "" || $10 == "nan") ? "" : sprintf("%s%s (%s – %s)", ($10 >= 0 ? "+" : ""), g($10), g($11), g($12))
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, n, $5, s, r, a, $9 }' "$micro"
if awk -F, 'NR > 1 && $13 != "" && $13 != "nan" { f = 1 } END { exit !f }' "$micro"; then
cat <<'TXT'

### Hold time on the contended rows

The time a thread holds the row's (outer) lock, measured inside `micro.c` (`bench/micro/hold.h`):
every 64th critical section of each thread is timed with the TSC from the return of the lock
call to the unlock call (two `rdtsc` reads, converted to ns against `CLOCK_MONOTONIC` over the
run; the two reads themselves are part of every sample, which is most of `mutex_contended`'s);
the median over all samples of a run, then the median over the rounds, and the per-round ratio to native's. In
`mutex_contended` that is the program's own increment; in `nested3` and `many_locks_300` it
includes the inner locks' lock and unlock calls, so their wrappers' work is in it. The work a
wrapper does between the real acquisition and its own return, or between its call and the real
release, is not (the program cannot see it); it shows in the contended rows' ns/op.

TXT
echo "| workload | tool | hold ns (median) | × native (range) |"
echo "|---|---|---:|---:|"
awk -F, 'NR > 1 && $13 != "" && $13 != "nan" { printf "| %s | %s | %.1f | %.2fx (%.2f–%.2f) |\n", $1, $2, $13, $14, $15, $16 }' "$micro"
fi
cat <<'TXT'

Workloads: `mutex_pair` uncontended pthread_mutex lock+unlock; `mutex_contended` one mutex, 2
threads (ns per lock+unlock over both threads); `nested3` 2 threads each take A, B, C in the same
order (one op = 3 locks); `rwlock_read` uncontended read lock+unlock; `spin_pair` pthread spinlock
lock+unlock; `malloc_free_64` malloc(64)+free with a lock alive in the process; `free_heavy_1000`
malloc+free of 16–1008 bytes while 1,000 heap mutexes are held; `graph_N` lock-order graph build:
lock *i* then *i+1* for *i* < N, ns per lock (each adds a new lock and a new edge, so flat ns/lock
means linear growth); `rcu_read1` librtdd_rcu read section (lock + dereference + unlock, one
reader while an updater runs: `rcubench-rtdd-dyn read 1`, linked with librtdd_rcu.so so that rtdd
checks it) natively and under `rtdd run`; `rcu_plain` malloc(64)+free+mutex pair in a program that
uses RCU elsewhere (`rcubench-rtdd-dyn plain`): what RCU checking costs a program's RCU-free paths;
`fork_200` a thread keeps taking a mutex while the main thread forks 200 children one after the
other, each trying the mutex, computing a few milliseconds and calling `_exit` (ns per fork, wait
included; under rtdd each child whose fork found the lock held writes a `lock-held-at-fork` report
at that first use);
`fork_busy` four threads take their own mutex and one of four shared ones inside it and
allocate without pause while the main thread forks 100 children that take a mutex of their own,
allocate and `_exit` (ns of wall per fork and wait; nothing to report);
`exec_true` 500 `posix_spawn`s of `/bin/true`, one after the other: the children's CPU time per
exec (under rtdd each child starts with the runtime preloaded: what every exec'd process of a
shell, a build or a CGI server pays; rtdd − native is the start-up's cost; TSan and valgrind do
not apply: they cannot be preloaded into `/bin/true`);
`cond_pingpong` 2 threads hand a turn back and forth through one mutex and two condition
variables (one op = a round trip: 2 signals and 2 waits; under rtdd each signal and wait is
recorded for the condition-variable checks, docs/kinds/cond-lock-order.md); `gmutex_pair`
uncontended GLib `g_mutex_lock`+`g_mutex_unlock` (`build/bench/gmutex`, linked with GLib; under
rtdd through its GLib wrappers, interpose/glib.c).

Notes:
- ThreadSanitizer's deadlock detector (clang 14) fails with 1,000 locks held (a CHECK in
  `DeadlockDetectorTLS::addLock`, after which the process hangs); `free_heavy_1000` runs TSan with
  `detect_deadlocks=0`, so there TSan checks less than rtdd.
- Helgrind and DRD run `graph` only at 10k: at 100k locks one Helgrind run did not finish in
  200 s (its per-lock cost grows with N) and DRD took 150 s, mostly outside the timed loop.

TXT
if [ -s "$real" ]; then
cat <<'TXT'

## Real programs

Debian packages on generated inputs (`bench/real/gen.c`: deterministic text-like data;
`bench/real/sqlite.sh`: table build and two indexes with the threaded sorter), and Debian's
libsqlite3 used as a library by a 4-thread program of ours (`bench/real/sqlite_threads.c`:
each thread its own in-memory database, 100k inserts in transactions of 1,000, an index, a
lookup per row; 400k rows in all). Wall and CPU (user + system, wait4's rusage) seconds per
unit (MiB of input, or 1,000 table rows) of the whole process, start-up included; slowdown
against native (median of per-round ratios, with the range), max RSS. ThreadSanitizer is
measured on the SQLite library rows only, where the program is ours to rebuild
(`clang -fsanitize=thread`; Debian's libsqlite3 itself is not instrumented: TSan intercepts
its mutexes and allocations but does not see its memory accesses); the other programs would
need rebuilding from source. `sqlite lib memstatus=0` is a diagnostic line: the same program
with `sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0)`, so SQLite no longer takes its one global
memory mutex (nested in each connection's mutex, contended by the four threads) on every
allocation.

TXT
echo "| program | tool | command | units | wall s/unit | wall | range | CPU s/unit | CPU | range | max RSS (KiB) |"
echo "|---|---|---|---:|---:|---:|---|---:|---:|---|---:|"
awk -F, 'function g(x) { return (x >= 100) ? sprintf("%.0f", x) : (x >= 10) ? sprintf("%.1f", x) : sprintf("%.2f", x) }
NR > 1 {
    s = ($8 == "nan") ? "n/a" : g($8) "x"
    r = ($9 == "nan" || $2 == "native") ? "" : g($9) "–" g($10)
    cs = ($13 == "" || $13 == "nan") ? "n/a" : g($13) "x"
    cr = ($14 == "" || $14 == "nan" || $2 == "native") ? "" : g($14) "–" g($15)
    cv = ($12 == "" || $12 == "nan") ? "n/a" : sprintf("%.4g", $12)
    printf "| %s | %s | `%s` | %s %s | %.4g | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $7, s, r, cv, cs, cr, $11 }' "$real"
fi
if [ -s "$servers" ]; then
cat <<'TXT'

## Real servers

From `bench/servers/run.sh` (same `make bench` run): Debian's memcached (4 worker threads)
under `memcslap` set then get, redis-server with two I/O threads under
`redis-benchmark` set+get, and knotd (two UDP workers, a generated zone of 1,000 names)
under `dnsperf`, started natively and under `rtdd run` in turn, round by round.
Wall time of the load, the server's CPU time (user + system) during it, the server's peak
RSS; ratios are medians over rounds of rtdd against native of the same round. memcached
and knotd run on the first half of the CPUs and their load generator on the other half,
as a server and its remote clients would (sharing CPUs, the client's scheduling swung
memcached's per-round ratios between 1.00x and 1.30x); redis shares all CPUs with its load,
because its I/O threads busy-poll and starve its main thread when confined.
`memcached -t 4 unpinned` is the same memcached and load with server and load generator left
to the scheduler, as users run it; its per-round ratios swing more (the range is shown). The
server's user time (from `/proc/PID/stat`, clock ticks of 10 ms) is shown apart from its CPU
time (user + system): the runtime's work is user time, while most of a loopback server's
system time is the kernel's network path.

TXT
echo "| server | tool | rounds | load wall (s) | server CPU (s) | user (s) | peak RSS (KiB) | wall | CPU (range) | user (range) | RSS (extra KiB) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -F, 'function g(x) { return (x == "nan" || x == "") ? "n/a" : sprintf("%.2fx", x) }
function rg(a, b) { return (a == "" || a == "nan") ? "" : sprintf(" (%.2f–%.2f)", a, b) }
NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s%s | %s (%s) |\n", $1, $2, $3, $4, $5, ($11 == "" ? "n/a" : $11), $6, g($7), g($8), ($2 == "native" ? "" : rg($13, $14)), g($12), ($2 == "native" ? "" : rg($15, $16)), g($9), $10 }' "$servers"
fi
if [ -s "$rcu" ]; then
cat <<'TXT'

## RCU: librtdd_rcu against liburcu

From `bench/rcu/run.sh` (same `make bench` run; medians of 5 interleaved runs, ratios against
urcu-memb). read1/read2/read4: lock+dereference+unlock with 1/2/4 readers (read4: more threads than CPUs here) while an updater loops
synchronize_rcu(); sync: synchronize_rcu() latency with a busy reader; callrcu: call_rcu(free)
throughput; flood_rss: peak RSS after a call_rcu() flood from 4 threads.

TXT
flavors=$(awk -F, 'NR > 1 { print $4 }' "$rcu" | awk '!s[$0]++' | tr '\n' ' ')
printf '| metric | unit | better |'; for f in $flavors; do printf ' %s |' "$f"; done; echo
printf '|---|---|---|'; for f in $flavors; do printf -- '---:|'; done; echo
awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' "$rcu" | awk '!s[$0]++' | while IFS=, read -r met unit better; do
    printf '| %s | %s | %s |' "$met" "$unit" "$better"
    for f in $flavors; do
        awk -F, -v a="$met" -v f="$f" '$1 == a && $4 == f { printf " %s (%sx) |", $5, $6 }' "$rcu"
    done
    echo
done
r1n=$(get "$micro" rcu_read1 native 5); r1r=$(get "$micro" rcu_read1 rtdd 5); r1u=$(get "$micro" rcu_read1 urcu-memb 5)
[ "$r1n" != nan ] && printf '\nlibrtdd_rcu read pair (lock + one rcu_dereference + unlock) under the rtdd runtime (preloaded, in the micro run above): %s ns natively, %s ns with `rtdd run` (%sx), liburcu'"'"'s urcu-memb %s ns in the same rounds (%sx).\n' "$r1n" "$r1r" "$(fmt "$(get "$micro" rcu_read1 rtdd 6)")" "$r1u" "$(fmt "$(get "$micro" rcu_read1 urcu-memb 6)")"
fi
echo
echo "## Closing note"
echo
notes=$(dirname "$0")/notes.md
if [ -s "$notes" ]; then cat "$notes"; else echo "(no notes)"; fi
} >"$md"
echo "report: wrote $md and $svg"
