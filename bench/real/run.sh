#!/bin/bash
# Real multi-threaded programs from Debian packages on generated inputs, under
# native, rtdd, ThreadSanitizer (where the program is ours to rebuild),
# Helgrind and DRD, in one run: ROUNDS rounds of (native, rtdd, tsan,
# helgrind, drd), ratios pair by pair (tool / native of the same round),
# medians and range. Time is the wall time of the whole process (start-up
# included) and its CPU time (user + system, wait4's rusage), normalized per
# unit of work (MiB of input, or 1,000 rows for SQLite); max RSS from wait4.
# Helgrind/DRD get a smaller input (valgrind start-up is then part of their
# per-unit cost, which flatters them slightly) and run in the first 3 rounds. ThreadSanitizer runs only
# where the program is built here (the SQLite library rows: the program
# rebuilt with -fsanitize=thread, Debian's libsqlite3 as it is, so TSan
# intercepts the library's mutexes and allocations but not its memory
# accesses). Each row's own time is printed.
# Usage: run.sh BINDIR OUT_CSV      (env: RTDD, QUICK=1, ROUNDS=N, ONLY="prefix ...": those rows only)
set -u
bindir=$1; csv=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../micro/common.sh"
rtdd=${RTDD:-build/bin/rtdd}
measure=$bindir/measure; gen=$bindir/gen
logs=$bindir/logs; data=$bindir/data; mkdir -p "$logs" "$data"
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then
    rounds=${ROUNDS:-3}; vg_rounds=1; big=4; small=1; rows_big=50000; rows_small=5000; lib_big=100000; lib_small=4000
else
    rounds=${ROUNDS:-5}; vg_rounds=3; big=16; small=1; rows_big=200000; rows_small=10000; lib_big=400000; lib_small=4000
fi
tools="native rtdd tsan helgrind drd"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for mb in $big $small; do
    [ -s "$data/input-$mb.txt" ] || "$gen" "$mb" >"$data/input-$mb.txt"
done
"$here/sqlite.sh" "$rows_big" >"$data/sqlite-$rows_big.sql"
"$here/sqlite.sh" "$rows_small" >"$data/sqlite-$rows_small.sql"

# name | command (INPUT = input file, ROWS = rows) | TSan build's command ("": none) | valgrind tools | package
# "sqlite lib" (bench/real/sqlite_threads.c): 4 threads, each its own
# in-memory database, ROWS inserts in all, an index, a lookup per row; the
# memstatus=0 line is a diagnostic (SQLite's global memory mutex off).
programs="xz -T2|xz -T2 -1 --block-size=256KiB -c INPUT||helgrind drd|xz-utils
zstd -T2|zstd -T2 -3 -B512KiB -c INPUT||helgrind drd|zstd
pigz -p2|pigz -p 2 -6 -c INPUT||helgrind drd|pigz
sqlite3 threads=2|sqlite3 :memory:||helgrind drd|sqlite3
sqlite lib 4 threads|$bindir/sqlite_threads 4 ROWS|$bindir/sqlite_threads-tsan 4 ROWS|helgrind|libsqlite3-dev
sqlite lib memstatus=0|$bindir/sqlite_threads 4 ROWS memstatus=0|||libsqlite3-dev"

# run_tool TOOL NAME COMMAND OUTBASE: one run; OUTBASE.v wall seconds per
# unit, OUTBASE.c CPU seconds per unit, OUTBASE.m "wall maxrss status user sys"
run_tool() {
    local tool=$1 name=$2 command=$3 out=$4 input="" units stdin=/dev/null pre=() size=big rows
    case $tool in helgrind | drd) size=small ;; esac
    case $name in
    "sqlite3 "*)
        rows=$([ $size = big ] && echo $rows_big || echo $rows_small)
        stdin=$data/sqlite-$rows.sql; units=$((rows / 1000)) ;;
    "sqlite lib"*) # TSan: a quarter of the rows (its cost per row is steady; 4.5 s a run at 400k)
        rows=$([ $size = big ] && echo $lib_big || echo $lib_small)
        [ "$tool" = tsan ] && rows=$((lib_big / 4))
        command=${command//ROWS/$rows}; units=$((rows / 1000)) ;;
    *)
        mb=$([ $size = big ] && echo $big || echo $small)
        input=$data/input-$mb.txt; units=$mb ;;
    esac
    case $tool in
    rtdd) pre=(env RTDD_OPTIONS=print_summary=0 "$rtdd" run --) ;;
    helgrind | drd) pre=(valgrind --tool="$tool" -q) ;;
    esac
    # shellcheck disable=SC2086
    if timeout 600 "$measure" "$out.m" -- "${pre[@]}" ${command//INPUT/$input} <"$stdin" >/dev/null \
        2>>"$logs/real-${name// /_}-$tool.log"; then
        awk -v u="$units" '{ printf "%.6g\n", $1 / u }' "$out.m" >"$out.v"
        awk -v u="$units" '{ printf "%.6g\n", ($4 + $5) / u }' "$out.m" >"$out.c"
    else
        echo nan >"$out.v"; echo nan >"$out.c"; echo "nan nan $?" >"$out.m"
        echo "  warning: $name under $tool failed (log: $logs/real-${name// /_}-$tool.log)" >&2
    fi
    echo "$units" >"$out.u"
}

mkdir -p "$(dirname "$csv")"
echo "program,tool,command,units,unit,rounds,seconds_per_unit,ratio,ratio_min,ratio_max,maxrss_kb,cpu_seconds_per_unit,cpu_ratio,cpu_ratio_min,cpu_ratio_max" >"$csv"
echo "real programs: $rounds rounds, tools interleaved (QUICK=$quick); $(nproc) CPUs"
printf '%-22s %-9s %6s %11s %9s %-13s %11s %9s %-13s %10s\n' program tool units "wall s/u" "wall×" "(range)" "CPU s/u" "CPU×" "(range)" "maxrss KB"
printf '%s\n' "$programs" | while IFS='|' read -r name command tsan_command vg_tools pkg; do
    if [ -n "${ONLY:-}" ]; then
        keep=""; for o in $ONLY; do case $name in "$o"*) keep=1 ;; esac; done
        [ -n "$keep" ] || continue
    fi
    command -v "${command%% *}" >/dev/null || { echo "  skipped $name: install Debian package $pkg"; continue; }
    row_start=$SECONDS
    unit=MiB; case $name in sqlite*) unit="k rows" ;; esac
    for r in $(seq "$rounds"); do
        for tool in $tools; do
            cmd=$command
            case $tool in
            tsan) [ -n "$tsan_command" ] || continue; cmd=$tsan_command ;;
            helgrind | drd) case " $vg_tools " in *" $tool "*) ;; *) continue ;; esac
                [ "$r" -gt "$vg_rounds" ] && continue ;;
            esac
            run_tool "$tool" "$name" "$cmd" "$tmp/x.$tool.$r"
        done
    done
    for tool in $tools; do
        [ -f "$tmp/x.$tool.1.u" ] || continue
        for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r.v")" "$(val "$tmp/x.native.$r.v")"; done >"$tmp/ratios"
        for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r.c")" "$(val "$tmp/x.native.$r.c")"; done >"$tmp/cratios"
        v=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.v"; done | median)
        c=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.c"; done | median)
        rss=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.m" 2; done | median)
        cnt=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r.v"; done | grep -vic nan)
        rt=$(median <"$tmp/ratios"); read -r lo hi < <(minmax <"$tmp/ratios")
        crt=$(median <"$tmp/cratios"); read -r clo chi < <(minmax <"$tmp/cratios")
        units=$(cat "$tmp/x.$tool.1.u")
        printf '%-22s %-9s %6s %11s %8sx %-13s %11s %8sx %-13s %10s\n' "$name" "$tool" "$units" "$v" "$rt" "($lo–$hi)" \
            "$c" "$crt" "($clo–$chi)" "$rss"
        shown=${command//$bindir/build/bench}
        case $name in "sqlite3 "*) shown="sqlite3 :memory: < bench/real/sqlite.sh ROWS" ;; esac
        [ "$tool" = tsan ] && shown=${tsan_command//$bindir/build/bench}
        echo "$name,$tool,$shown,$units,$unit,$cnt,$v,$rt,$lo,$hi,$rss,$c,$crt,$clo,$chi" >>"$csv"
    done
    rm -f "$tmp"/x.*
    echo "  ($name: $((SECONDS - row_start)) s)"
done
echo "ratios: median over rounds of (tool time per unit) / (native's of the same round), (min–max)"
echo "real programs: $SECONDS s in all; CSV: $csv"
