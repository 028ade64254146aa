#!/bin/sh
# Runs the RCU benchmarks for every flavour, interleaved (A B C ... A B C ...)
# so drift in machine load hits all flavours alike, takes the median of RUNS
# runs, prints a table with ratios against urcu-memb and writes a CSV.
# Usage: run.sh BINDIR CSV        (QUICK=1: short runs; RUNS=N overrides 5)
set -u
bindir=$1
csv=$2
flavors="rtdd urcu-memb urcu-mb urcu-bp urcu-qsbr"
runs=${RUNS:-5}
if [ "${QUICK:-0}" = 1 ]; then
    read_s=0.3; sync_s=0.3; cb_count=300000; flood_s=2
else
    # 0.5 s phases and a 4 s flood (1 s and 10 s before issue 38: by its phase lengths,
    # 5 runs x 5 flavours x 14.4 s, this run was 6 of make bench's 18 minutes)
    read_s=0.5; sync_s=0.5; cb_count=2000000; flood_s=4
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# metric name | arguments | unit | better ("lower" or "higher")
metrics="read1|read 1 $read_s|ns/pair|lower
read2|read 2 $read_s|ns/pair|lower
read4|read 4 $read_s|ns/pair|lower
sync|sync $sync_s|us|lower
callrcu|callrcu $cb_count|Mops/s|higher
flood_rss|flood $flood_s|MB|lower"

echo "rcu bench: $runs interleaved runs per flavour, medians (QUICK=${QUICK:-0}); $(nproc) CPUs"
start=$(date +%s)
for run in $(seq 1 "$runs"); do
    printf '%s\n' "$metrics" | while IFS='|' read -r name args unit better; do
        for f in $flavors; do
            # shellcheck disable=SC2086
            out=$("$bindir/rcubench-$f" $args 2>/dev/null) || out="error"
            value=$(printf '%s\n' "$out" | awk 'NR==1{print $2}')
            printf '%s\n' "${value:-nan}" >>"$tmp/$name.$f"
        done
    done
    printf '  run %d/%d done (%d s so far)\n' "$run" "$runs" $(($(date +%s) - start))
done

median() { sort -g "$1" | awk '{v[NR]=$1} END{ if (NR%2) print v[(NR+1)/2]; else printf "%.4g\n", (v[NR/2]+v[NR/2+1])/2 }'; }

mkdir -p "$(dirname "$csv")"
echo "metric,unit,better,flavor,median,ratio_vs_urcu_memb,runs" >"$csv"
printf '\n%-10s %-8s' metric unit
for f in $flavors; do printf ' %14s' "$f"; done
printf '\n'
printf '%s\n' "$metrics" | while IFS='|' read -r name args unit better; do
    base=$(median "$tmp/$name.urcu-memb")
    printf '%-10s %-8s' "$name" "$unit"
    for f in $flavors; do
        m=$(median "$tmp/$name.$f")
        ratio=$(awk -v a="$m" -v b="$base" 'BEGIN{ if (b+0 == 0) print "nan"; else printf "%.2f", a/b }')
        printf ' %8s (%4sx)' "$m" "$ratio"
        echo "$name,$unit,$better,$f,$m,$ratio,$runs" >>"$csv"
    done
    printf '\n'
done
echo
echo "ratios are against urcu-memb; read/sync/flood_rss: lower is better, callrcu: higher is better"
echo "read1/read2/read4: lock+dereference+unlock pair with 1/2/4 reader threads while an updater loops synchronize_rcu()"
echo "sync: synchronize_rcu() latency with one busy reader; callrcu: call_rcu(free) + final rcu_barrier() from one thread"
echo "flood_rss: peak RSS after ${flood_s} s of call_rcu() from 4 threads (rtdd: default hard limit 100000 callbacks)"
echo "CSV: $csv"
