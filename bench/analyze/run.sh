#!/bin/bash
# Parse + de-dup throughput (no symbolization) and peak memory of
# `rtdd analyze` on generated logs: text reports at 1/10 and full size
# (1 GB; QUICK=1: 100 MB) to show memory does not follow input size, and
# JSON-line reports. Rewrites CSV_OUT each run. MB/s is by the clock;
# MB per CPU-second is what other load on the machine does not skew (the
# 1-minute load average at each measurement is recorded next to it).
# usage: RTDD=build/bin/rtdd GEN=build/bench/analyze_gen [QUICK=1] bench/analyze/run.sh CSV_OUT
set -eu
out=${1:?usage: run.sh CSV_OUT}
: "${RTDD:?}" "${GEN:?}"
full=1000
[ "${QUICK:-0}" = 1 ] && full=100
distinct=200
dir=$(mktemp -d "${TMPDIR:-/tmp}/rtdd-bench-analyze.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$(dirname "$out")"
echo "format,size_mb,distinct_bugs,bytes,reports,findings,seconds,mb_per_s,cpu_seconds,mb_per_cpu_s,peak_rss_kb,load_avg" >"$out"
printf '%-6s %8s %9s %9s %8s %8s %10s %12s\n' format size_mb reports findings seconds "MB/s" "MB/cpu-s" peak_rss_kB
for spec in "text $((full / 10))" "text $full" "json $((full / 10))"; do
    set -- $spec
    fmt=$1 mb=$2 log="$dir/bench.log"
    "$GEN" "$log" "$mb" "$distinct" "$fmt"
    # Warm the page cache so the disk is not what is measured.
    cat "$log" >/dev/null
    "$RTDD" analyze --no-symbolize --stats --format=json --output="$dir/out.json" "$log" 2>"$dir/stats" || [ $? = 1 ]
    line=$(grep 'stats:' "$dir/stats")
    get() { echo "$line" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$fmt,$mb,$distinct,$(get bytes),$(get reports),$(get findings),$(get seconds),$(get mb_per_s),$(get cpu_seconds),$(get mb_per_cpu_s),$(get peak_rss_kb),$load" >>"$out"
    printf '%-6s %8s %9s %9s %8s %8s %10s %12s\n' "$fmt" "$mb" "$(get reports)" "$(get findings)" "$(get seconds)" \
        "$(get mb_per_s)" "$(get mb_per_cpu_s)" "$(get peak_rss_kb)"
    rm -f "$log"
done
echo "written to $out ($SECONDS s)"
