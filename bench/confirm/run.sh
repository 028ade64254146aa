#!/bin/bash
# The cost of `rtdd run --confirm` (docs/confirm.md): every lock-order case
# of tests/programs (expect lock-order-inversion or latent-lock-order) run
# once with --confirm, with the case's own options, environment and
# arguments. Prints one row per case: the verdicts, the plain run's time
# and the reruns' time (rtdd's own "reruns: S s" figures).
# Usage: bench/confirm/run.sh RTDD PROG_DIR [CSV]
set -u
rtdd=$1; progs=$2; csv=${3:-/dev/null}
work=$(mktemp -d /tmp/rtdd-confirm-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "case,cycles,confirmed,not_confirmed,first_run_s,reruns_s" >"$csv"
printf '%-34s %6s %9s %13s %9s %9s\n' case cycles confirmed not-confirmed run-s reruns-s
total_c=0; total_n=0; total_r=0
for src in $(grep -l 'expect: .*\(lock-order-inversion\|latent-lock-order\)' tests/programs/*.c tests/programs/*.cpp); do
    name=$(basename "${src%.*}")
    for bin in "$progs/$name"; do
        [ -x "$bin" ] || continue
        s=$src
        opts=$(sed -n 's|^// options: ||p' "$s" | paste -sd: -)
        args=$(sed -n 's|^// args: ||p' "$s")
        env_args=()
        while IFS= read -r e; do [ -n "$e" ] && env_args+=("$e"); done < <(sed -n 's|^// env: ||p' "$s")
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        env "${env_args[@]}" RTDD_OPTIONS="log_path=$work/log${opts:+:$opts}" \
            timeout 300 "$rtdd" run --confirm -- "$bin" $args >/dev/null 2>"$work/err"
        end=$(date +%s.%N)
        c=$(grep -c ': confirmed, rerun' "$work/err"); n=$(grep -c ': not confirmed in' "$work/err")
        r=$(sed -n 's/.*(reruns: \([0-9.]*\) s)$/\1/p' "$work/err" | paste -sd+ - | bc)
        r=${r:-0}
        run=$(echo "$end - $start - $r" | bc)
        printf '%-34s %6s %9s %13s %9.2f %9.2f\n' "$(basename "$bin")" $((c + n)) "$c" "$n" "$run" "$r"
        echo "$(basename "$bin"),$((c + n)),$c,$n,$run,$r" >>"$csv"
        total_c=$((total_c + c)); total_n=$((total_n + n)); total_r=$(echo "$total_r + $r" | bc)
        rm -f "$work/log"
    done
done
echo "total: $total_c cycles confirmed, $total_n not confirmed, reruns ${total_r} s"
