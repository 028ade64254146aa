#!/bin/bash
# Runs each micro workload natively and under `rtdd run`, alternating
# (A B A B ...), and prints medians and the ratio rtdd/native.
# Usage: run.sh RTDD MICRO_BIN OUT_CSV [ROUNDS] [ITERATIONS]
set -eu
rtdd=$1; micro=$2; csv=$3; rounds=${4:-7}; iters=${5:-20000000}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mkdir -p "$(dirname "$csv")"
echo "workload,native_ns,rtdd_ns,ratio,rounds,iterations" >"$csv"
printf '%-18s %12s %12s %8s\n' workload "native ns" "rtdd ns" ratio
for w in mutex_pair malloc_free_64; do
    native=(); under=()
    for _ in $(seq "$rounds"); do
        native+=("$("$micro" "$w" "$iters")")
        under+=("$(RTDD_OPTIONS=print_summary=0 "$rtdd" run -- "$micro" "$w" "$iters")")
    done
    n=$(printf '%s\n' "${native[@]}" | median); r=$(printf '%s\n' "${under[@]}" | median)
    ratio=$(awk -v a="$r" -v b="$n" 'BEGIN { printf "%.2f", a / b }')
    printf '%-18s %12.2f %12.2f %7sx\n' "$w" "$n" "$r" "$ratio"
    echo "$w,$n,$r,$ratio,$rounds,$iters" >>"$csv"
done
