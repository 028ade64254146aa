#!/bin/bash
# `rtdd dump` of a program of 1,000 threads, each holding a lock: the dump
# lists every one of them (written in pieces when too long for one write),
# and `rtdd analyze` reads the pieces back as one well-formed report.
# Usage: dump_long.sh RTDD; run from the top of the tree.
set -u
rtdd=$1
n=1000
work=$(mktemp -d /tmp/rtdd-dump-long.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail=0
cc -g -pthread -o "$work/many_holders" tests/cli/many_holders.c || exit 1
for format in text json; do
    log="$work/dump-$format.log"
    mkfifo "$work/in-$format"
    RTDD_OPTIONS="log_path=$log:report_format=$format" "$rtdd" run -- "$work/many_holders" $n \
        <"$work/in-$format" >"$work/out-$format" 2>&1 &
    pid=$!
    exec 3>"$work/in-$format" # the program ends when this closes
    # Until every thread holds its lock (no time limit: a slow machine is slow).
    until grep -q ready "$work/out-$format"; do
        kill -0 $pid 2>/dev/null || { echo "$format: the program ended early"; cat "$work/out-$format"; exit 1; }
        sleep 0.1
    done
    "$rtdd" dump $pid >"$work/answer" 2>&1 || { echo "$format: rtdd dump failed"; cat "$work/answer"; fail=1; }
    exec 3>&-
    wait $pid
    st=$?
    pid=
    [ $st = 0 ] || { echo "$format: the program exited $st"; fail=1; }
    # n holders, the main thread and the watchdog's own line aside.
    grep -q "lock dump of $((n + 1)) threads written" "$work/answer" || { echo "$format: answer"; cat "$work/answer"; fail=1; }
    holds=$(grep -o '1 lock held by many_holders/' "$log" | wc -l)
    [ "$holds" = $n ] || { echo "$format: the dump lists $holds holders, expected $n"; fail=1; }
    grep -q "$((n + 1)) threads. Stacks are where each wait began" "$log" || { echo "$format: no closing line"; fail=1; }
    pieces=$(grep -c 'continued' "$log")
    [ "$pieces" -ge 2 ] || { echo "$format: $pieces continuation pieces, expected several"; fail=1; }
    if [ $format = text ]; then
        # Every piece is whole lines of one report, which is well formed.
        [ "$(grep -c '^------------\[ cut here \]------------$' "$log")" = 1 ] && [ "$(grep -c '^---\[ end report \]---$' "$log")" = 1 ] \
            && [ "$(grep -c '^SUMMARY: rtdd: lock-dump ' "$log")" = 1 ] \
            || { echo "text: not one well-formed report"; fail=1; }
        [ "$(grep -c '^\[report [0-9]*\.[0-9]* continues\]$' "$log")" = "$pieces" ] || { echo "text: unpaired piece markers"; fail=1; }
    else
        python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]' "$log" \
            || { echo "json: a piece is not a JSON object"; fail=1; }
    fi
    # The analyser: one lock-dump report, whole, not a corrupt one.
    "$rtdd" analyze --format=json --no-symbolize "$log" >"$work/analysis.json" 2>"$work/analysis.err"
    python3 - "$work/analysis.json" <<'PY' || { echo "$format: analyze"; head -c 2000 "$work/analysis.json"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert d["problems"] == [], d["problems"]
assert len(f) == 1 and f[0]["kind"] == "lock-dump" and f[0]["count"] == 1, f
PY
done
exit $fail
