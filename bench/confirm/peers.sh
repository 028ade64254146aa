#!/bin/bash
# How many of the peers' lock-order rows (tests/peers/verdicts.tsv, verdict
# lock-order-inversion or latent-lock-order) `rtdd run --confirm` confirms
# (docs/confirm.md). The rows are built by tests/peers/run.sh (which also
# checks each against its verdict, as make check-peers does), then each is
# run once with --confirm (3 reruns per cycle) in its own directory.
# Usage: bench/confirm/peers.sh RTDD PEERS_SRC PEERS_WORK [CSV]
#   PEERS_SRC: the fetched sources (make check-peers: build/peers/src)
#   PEERS_WORK: where run.sh builds (build/peers)
# Prints one row per peer row: cycles confirmed / not confirmed / not tried
# (reports without a site for every edge), the plain run's and the reruns' time.
set -u
rtdd=$(realpath "$1"); src=$2; work=$(realpath -m "$3"); csv=${4:-/dev/null}
table=tests/peers/verdicts.tsv
rows=$(grep -v '^#' "$table" | awk -F'\t' '$7 ~ /lock-order-inversion|latent-lock-order/ && $8 !~ /^skip/')
globs=(); while IFS=$'\t' read -r suite test _; do globs+=("$suite/$test"); done <<<"$rows"
tests/peers/run.sh "$rtdd" "$src" "$table" "$work" "$work/confirm-check.txt" "${globs[@]}" >/dev/null
echo "row,cycles,confirmed,not_confirmed,not_tried,first_run_s,reruns_s" >"$csv"
printf '%-44s %6s %9s %13s %9s %7s %9s\n' row cycles confirmed not-confirmed not-tried run-s reruns-s
tc=0; tn=0; tu=0; tr=0
while IFS=$'\t' read -r suite test rel args _; do
    s=${rel%.*}; bin=$work/bin/$suite/${s//\//_}
    name=$suite/$test
    argv=(); [ "$args" = - ] || read -r -a argv <<<"$args"
    dir=$work/confirm/$suite/${test//\//_}; rm -rf "$dir"; mkdir -p "$dir"
    if [ ! -x "$bin" ]; then printf '%-44s not built\n' "$name"; continue; fi
    start=$(date +%s.%N)
    ( cd "$dir" && timeout -k 5 600 "$rtdd" run --confirm --log-path="$dir/rtdd.%p.log" -- "$bin" "${argv[@]}" \
        </dev/null >/dev/null 2>"$dir/err" )
    end=$(date +%s.%N)
    c=$(grep -c ': confirmed, rerun' "$dir/err"); n=$(grep -c ': not confirmed in' "$dir/err")
    u=$(sed -n 's/^rtdd: confirm: \([0-9]*\) lock-order reports\? without.*/\1/p' "$dir/err"); u=${u:-0}
    r=$(sed -n 's/.*(reruns: \([0-9.]*\) s)$/\1/p' "$dir/err" | paste -sd+ - | bc); r=${r:-0}
    run=$(echo "$end - $start - $r" | bc)
    printf '%-44s %6s %9s %13s %9s %7.2f %9.2f\n' "$name" $((c + n)) "$c" "$n" "$u" "$run" "$r"
    echo "$name,$((c + n)),$c,$n,$u,$run,$r" >>"$csv"
    tc=$((tc + c)); tn=$((tn + n)); tu=$((tu + u)); tr=$(echo "$tr + $r" | bc)
done <<<"$rows"
echo "total: $tc cycles confirmed, $tn not confirmed, $tu reports not tried, reruns ${tr} s"
grep -v '^PASS\|^SKIP' "$work/confirm-check.txt" | sed 's/^/check: /'
