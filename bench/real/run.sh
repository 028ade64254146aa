#!/bin/bash
# Real multi-threaded programs from Debian packages on generated inputs, under
# native, rtdd, Helgrind and DRD, in one run: ROUNDS rounds of (native, rtdd,
# helgrind, drd), ratios pair by pair (tool / native of the same round),
# medians. Time is the wall time of the whole process (start-up included),
# normalized per unit of work (MiB of input, or 1,000 rows for sqlite3);
# max RSS from wait4. Helgrind/DRD get a smaller input (valgrind start-up is
# then part of their per-unit cost, which flatters them slightly).
# ThreadSanitizer is not measured here: it needs the programs rebuilt.
# Usage: run.sh BINDIR OUT_CSV      (env: RTDD, QUICK=1, ROUNDS=N)
set -u
bindir=$1; csv=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../micro/common.sh"
rtdd=${RTDD:-build/bin/rtdd}
measure=$bindir/measure; gen=$bindir/gen
logs=$bindir/logs; data=$bindir/data; mkdir -p "$logs" "$data"
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
    rounds=${ROUNDS:-3}; vg_rounds=1; big=4; small=1; rows_big=50000; rows_small=5000
else
    rounds=${ROUNDS:-5}; vg_rounds=$rounds; big=16; small=1; rows_big=200000; rows_small=10000
fi
tools="native rtdd helgrind drd"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for mb in $big $small; do
    [ -s "$data/input-$mb.txt" ] || "$gen" "$mb" >"$data/input-$mb.txt"
done
"$here/sqlite.sh" "$rows_big" >"$data/sqlite-$rows_big.sql"
"$here/sqlite.sh" "$rows_small" >"$data/sqlite-$rows_small.sql"

# name | command (INPUT = input file) | package
programs="xz -T2|xz -T2 -1 --block-size=256KiB -c INPUT|xz-utils
zstd -T2|zstd -T2 -3 -B512KiB -c INPUT|zstd
pigz -p2|pigz -p 2 -6 -c INPUT|pigz
sqlite3 threads=2|sqlite3 :memory:|sqlite3"

# run_tool TOOL NAME COMMAND OUTBASE: one run; OUTBASE.v seconds per unit, OUTBASE.m "wall maxrss status"
run_tool() {
    local tool=$1 name=$2 command=$3 out=$4 input="" units stdin=/dev/null pre=()
    case $tool in helgrind | drd) size=small ;; *) size=big ;; esac
    if [ "${name%% *}" = sqlite3 ]; then
        rows=$([ $size = big ] && echo $rows_big || echo $rows_small)
        stdin=$data/sqlite-$rows.sql; units=$((rows / 1000))
    else
        mb=$([ $size = big ] && echo $big || echo $small)
        input=$data/input-$mb.txt; units=$mb
    fi
    case $tool in
    rtdd) pre=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run --) ;;
    helgrind | drd) pre=(valgrind --tool="$tool" -q) ;;
    esac
    # shellcheck disable=SC2086
    if timeout 600 "$measure" "$out.m" -- "${pre[@]}" ${command//INPUT/$input} <"$stdin" >/dev/null \
        2>>"$logs/real-${name%% *}-$tool.log"; then
        awk -v u="$units" '{ printf "%.6g\n", $1 / u }' "$out.m" >"$out.v"
    else
        echo nan >"$out.v"; echo "nan nan $?" >"$out.m"
        echo "  warning: $name under $tool failed (log: $logs/real-${name%% *}-$tool.log)" >&2
    fi
    echo "$units" >"$out.u"
}

mkdir -p "$(dirname "$csv")"
echo "program,tool,command,units,unit,rounds,seconds_per_unit,ratio,ratio_min,ratio_max,maxrss_kb" >"$csv"
echo "real programs: $rounds rounds, tools interleaved (QUICK=$quick); $(nproc) CPUs"
printf '%-18s %-9s %8s %12s %10s %10s\n' program tool units "s/unit" ratio "maxrss KB"
printf '%s\n' "$programs" | while IFS='|' read -r name command pkg; do
    command -v "${command%% *}" >/dev/null || { echo "  skipped $name: install Debian package $pkg"; continue; }
    unit=MiB; [ "${name%% *}" = sqlite3 ] && unit="k rows"
    for r in $(seq "$rounds"); do
        for tool in $tools; do
            case $tool in helgrind | drd) [ "$r" -gt "$vg_rounds" ] && continue ;; esac
            run_tool "$tool" "$name" "$command" "$tmp/x.$tool.$r"
        done
    done
    for tool in $tools; do
        for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r.v")" "$(cat "$tmp/x.native.$r.v")"; done >"$tmp/ratios"
        v=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.v"; done | median)
        rss=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.m" 2; done | median)
        cnt=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.v"; done | grep -vic nan)
        rt=$(median <"$tmp/ratios"); read -r lo hi < <(minmax <"$tmp/ratios")
        units=$(cat "$tmp/x.$tool.1.u")
        printf '%-18s %-9s %8s %12s %9sx %10s\n' "$name" "$tool" "$units" "$v" "$rt" "$rss"
        shown=$command; [ "${name%% *}" = sqlite3 ] && shown="sqlite3 :memory: < bench/real/sqlite.sh ROWS"
        echo "$name,$tool,$shown,$units,$unit,$cnt,$v,$rt,$lo,$hi,$rss" >>"$csv"
    done
    rm -f "$tmp"/x.*
done
echo "ratio: median over rounds of (tool s/unit) / (native s/unit of the same round); CSV: $csv"
