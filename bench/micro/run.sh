#!/bin/bash
# Micro-benchmarks under every tool, in one run: for each workload, ROUNDS
# rounds of (native, rtdd, tsan, helgrind, drd), each tool once per round
# (A B C D E A B C D E ...), so load drift hits all tools alike. Every run
# prints ns per operation (measured inside the program around the timed
# loop, so process start-up is excluded) and its max RSS (wait4 rusage).
# Ratios are computed pair by pair (tool / native of the same round) and the
# median of the per-round ratios is reported. Helgrind and DRD run 1/1000
# of the iterations, in the first 3 rounds only (their per-round ratios,
# in the hundreds, differ by a few %), and TSan 1/10 (normalized per operation). Each row also
# shows the added ns per operation (tool − native of the same round, median
# and range) and, for the contended rows whose program prints a second line
# "hold MEDIAN P90 SAMPLES" (micro.c, hold.h), the lock's hold time and its
# ratio to native's of the same round. Each row's own time is printed.
# Usage: run.sh BINDIR OUT_CSV      (env: RTDD, QUICK=1, ROUNDS=N, ONLY="name ...": those rows only)
set -u
bindir=$1; csv=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rtdd=${RTDD:-build/bin/rtdd}
micro=$bindir/micro; micro_tsan=$bindir/micro-tsan; measure=$bindir/measure; gmutex=$bindir/gmutex
rcubench=${RCUBENCH:-$bindir/rcubench-rtdd-dyn} # linked with librtdd_rcu.so: checked under rtdd
logs=$bindir/logs; mkdir -p "$logs"
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then rounds=${ROUNDS:-3}; vg_rounds=1; scale=10; rcu_s=0.2; else rounds=${ROUNDS:-5}; vg_rounds=3; scale=1; rcu_s=0.5; fi
tools="native rtdd tsan helgrind drd urcu-memb"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# name | micro workload | iterations (native, rtdd) | tsan divisor | valgrind divisor (0: not run)
workloads="mutex_pair|mutex_pair|20000000|10|1000
mutex_contended|mutex_contended|4000000|10|1000
nested3|nested3|4000000|10|1000
many_locks_300|many_locks|2000000|10|1000
lock_churn|lock_churn|200000|10|1000
create_destroy|create_destroy|400000|1|0
random_rwlocks|random_rwlocks|1600000|1|0
rwlock_read|rwlock_read|20000000|10|1000
spin_pair|spin_pair|20000000|10|1000
malloc_free_64|malloc_free_64|20000000|10|1000
free_heavy_1000|free_heavy_1000|5000000|10|1000
graph_10k|graph|10000|1|1
graph_30k|graph|30000|1|0
graph_100k|graph|100000|1|0
million_mutexes|million|1000000|1|0
fork_200|fork_children|200|10|0
fork_busy|fork_busy|100|1|0
exec_true|exec_true|500|0|0
cond_pingpong|cond_pingpong|50000|10|100
sem_pair|sem_pair|20000000|10|1000
barrier_round|barrier_round|200000|10|1000
gmutex_pair|gmutex_pair|20000000|0|0
rcu_read1|rcu|0|0|0
rcu_plain|rcuplain|5000000|0|0"

# Every tool of a round runs on the same CPU (the round's: rounds take the
# CPUs in turn): on a VM whose vCPUs are not equally fast at the moment
# (a busy host sibling), a native run on one and a checked run on the other
# would measure the vCPUs. Single-threaded workloads are pinned whole; the
# RCU reader is pinned by rcubench itself (RCUBENCH_READER_CPU), its
# updater kept off that CPU; the two-thread lock workloads run unpinned.
# barrier_round is pinned whole, its two threads on the round's CPU: run
# unpinned, a round costs 1.5 us when the scheduler puts both threads on
# one CPU and 13-18 us when it splits them, natively as under rtdd, and
# the ratio measured where each run landed (13.7x in one QUICK run).
ncpu=$(nproc)
pin_cmd() { # pin_cmd WORKLOAD CPU: the prefix that pins WORKLOAD's run
    case $1 in
    mutex_contended | nested3 | many_locks | lock_churn | create_destroy | random_rwlocks | fork_children | fork_busy | cond_pingpong | rcu | rcuplain) ;;
    *) [ "$ncpu" -gt 1 ] && printf 'taskset -c %s\n' "$2" ;;
    esac
}

# run_tool TOOL WORKLOAD ITERATIONS OUTBASE CPU: one run; OUTBASE.v gets ns/op
# (or nan), OUTBASE.m "wall maxrss status".
run_tool() {
    local tool=$1 w=$2 n=$3 out=$4 cpu=$5 cmd
    case $w:$tool in
    rcu:native) cmd=("$rcubench" read 1 "$rcu_s") ;;
    rcu:rtdd) cmd=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run -- "$rcubench" read 1 "$rcu_s") ;;
    rcu:urcu-memb) cmd=("$bindir/rcubench-urcu-memb" read 1 "$rcu_s") ;; # the peer, in the same rounds
    rcuplain:native) cmd=("$rcubench" plain "$n") ;;
    rcuplain:rtdd) cmd=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run -- "$rcubench" plain "$n") ;;
    gmutex_pair:native) cmd=("$gmutex" "$w" "$n") ;;
    gmutex_pair:rtdd) cmd=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run -- "$gmutex" "$w" "$n") ;;
    *:native) cmd=("$micro" "$w" "$n") ;;
    *:rtdd) cmd=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run -- "$micro" "$w" "$n") ;;
    # TSan's deadlock detector aborts (CHECK in DeadlockDetectorTLS::addLock,
    # then hangs) with more than 64 locks held: switch it off for that one.
    free_heavy_1000:tsan) cmd=(env TSAN_OPTIONS=detect_deadlocks=0 "$micro_tsan" "$w" "$n") ;;
    *:tsan) cmd=("$micro_tsan" "$w" "$n") ;;
    *:helgrind | *:drd) cmd=(valgrind --tool="$tool" -q "$micro" "$w" "$n") ;;
    esac
    local pin
    read -r -a pin < <(pin_cmd "$w" "$cpu")
    if RCUBENCH_READER_CPU=$cpu timeout 300 "$measure" "$out.m" -- "${pin[@]}" "${cmd[@]}" >"$out.o" \
        2>>"$logs/micro-$w-$tool.log"; then
        case $w in rcu | rcuplain) awk 'NR == 1 { print $2 }' "$out.o" >"$out.v" ;; *) head -1 "$out.o" >"$out.v" ;; esac
        awk '$1 == "hold" { print $2 }' "$out.o" >"$out.h"
        [ -s "$out.h" ] || rm -f "$out.h"
    else
        echo nan >"$out.v"; echo "nan nan $?" >"$out.m"
        echo "  warning: $w under $tool failed (log: $logs/micro-$w-$tool.log)" >&2
    fi
}

mkdir -p "$(dirname "$csv")"
echo "workload,tool,iterations,rounds,ns_per_op,ratio,ratio_min,ratio_max,maxrss_kb,added_ns,added_ns_min,added_ns_max,hold_ns,hold_ratio,hold_ratio_min,hold_ratio_max" >"$csv"
echo "micro: $rounds rounds per workload, tools interleaved (QUICK=$quick); $(nproc) CPUs"
printf '%-16s %-9s %10s %12s %10s %10s %10s %9s %7s\n' workload tool iterations "ns/op" ratio "+ns/op" "maxrss KB" "hold ns" "hold×"
# diff A B: A-B with 4 significant digits, nan when either is missing.
diff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan") print "nan"; else printf "%.4g\n", a - b }'; }
printf '%s\n' "$workloads" | while IFS='|' read -r name w iters tdiv vdiv; do
    case " ${ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
    row_start=$SECONDS
    iters=$((iters / scale))
    case $w in graph | million) iters=$((iters * scale)) ;; esac # the sizes are the point: never scaled
    for r in $(seq "$rounds"); do
        for tool in $tools; do
            n=$iters
            case $tool in
            tsan) [ "$tdiv" = 0 ] && continue; n=$((iters / tdiv)) ;;
            helgrind | drd) [ "$vdiv" = 0 ] || [ "$r" -gt "$vg_rounds" ] && continue; n=$((iters / vdiv)) ;;
            urcu-memb) [ "$w" = rcu ] || continue ;; # liburcu's read side: the RCU rows' peer
            esac
            [ "$n" -lt 10 ] && n=10 # micro's least (QUICK's fork_200 under TSan)
            [ "$w" = rcu ] && n=0 # runs rcu_s seconds
            run_tool "$tool" "$w" "$n" "$tmp/$name.$tool.$r" $(((r - 1) % ncpu))
            echo "$n" >"$tmp/$name.$tool.n"
        done
    done
    for tool in $tools; do
        [ -f "$tmp/$name.$tool.n" ] || continue
        n=$(cat "$tmp/$name.$tool.n")
        for r in $(seq "$rounds"); do
            ratio "$(val "$tmp/$name.$tool.$r.v")" "$(val "$tmp/$name.native.$r.v")"
        done >"$tmp/ratios"
        v=$(for r in $(seq "$rounds"); do val "$tmp/$name.$tool.$r.v"; done | median)
        rss=$(for r in $(seq "$rounds"); do val "$tmp/$name.$tool.$r.m" 2; done | median)
        cnt=$(for r in $(seq "$rounds"); do val "$tmp/$name.$tool.$r.v"; done | grep -vic nan)
        rt=$(median <"$tmp/ratios"); read -r lo hi < <(minmax <"$tmp/ratios")
        for r in $(seq "$rounds"); do
            diff "$(val "$tmp/$name.$tool.$r.v")" "$(val "$tmp/$name.native.$r.v")"
        done >"$tmp/added"
        add=$(median <"$tmp/added"); read -r alo ahi < <(minmax <"$tmp/added")
        hold=nan hr=nan hlo=nan hhi=nan
        if [ -f "$tmp/$name.native.1.h" ]; then
            hold=$(for r in $(seq "$rounds"); do val "$tmp/$name.$tool.$r.h"; done | median)
            for r in $(seq "$rounds"); do
                ratio "$(val "$tmp/$name.$tool.$r.h")" "$(val "$tmp/$name.native.$r.h")"
            done >"$tmp/hratios"
            hr=$(median <"$tmp/hratios"); read -r hlo hhi < <(minmax <"$tmp/hratios")
        fi
        printf '%-16s %-9s %10s %12s %9sx %10s %10s %9s %7s\n' "$name" "$tool" "$n" "$v" "$rt" "$add" "$rss" \
            "${hold/nan/-}" "$([ "$hr" = nan ] && echo - || echo "${hr}x")"
        echo "$name,$tool,$n,$cnt,$v,$rt,$lo,$hi,$rss,$add,$alo,$ahi,$hold,$hr,$hlo,$hhi" >>"$csv"
    done
    echo "  ($name: $((SECONDS - row_start)) s)"
done
echo "ratio: median over rounds of (tool ns/op) / (native ns/op of the same round); +ns/op: tool − native of the same round, median"
echo "micro: $SECONDS s in all; CSV: $csv"
