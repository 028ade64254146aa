# Every report the runtime writes, of every kind its test programs show,
# parses into findings with no truncated or corrupt report, and the text
# and JSON logs of one program give the same findings.
. tests/analyze/lib.sh

n=0
# The RCU cases run in their liburcu build (the RCU kinds' reports).
for src in tests/programs/*.c tests/programs/rcu/*.c; do
    expect=$(sed -n 's|^// expect: ||p' "$src" | head -1)
    case "$expect" in ""|none) continue ;; esac
    grep -q '^// env:' "$src" && continue   # needs a special environment
    name=$(basename "$src" .c)
    opts=$(sed -n 's|^// options: ||p' "$src" | paste -sd: -)
    args=$(sed -n 's|^// args: ||p' "$src" | head -1)
    case $src in
    */rcu/*) name=rcu_$name; build=(-DRCU_URCU "$src" -lurcu-memb) ;;
    *) build=("$src") ;;
    esac
    $CC -g -O1 -pthread -fno-omit-frame-pointer -o "$WORK/$name" "${build[@]}" 2>/dev/null || continue
    printf '%s' "$opts" >"$WORK/$name.opts"
    printf '%s' "$args" >"$WORK/$name.args"
    for fmt in text json; do
        # shellcheck disable=SC2086
        RTDD_OPTIONS="log_path=$WORK/$name.$fmt.log:report_format=$fmt${opts:+:$opts}" \
            timeout 60 "$RTDD" run -- "$WORK/$name" $args >/dev/null 2>&1
    done
    n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n report-producing programs built"
if ! ls "$WORK"/*.text.log "$WORK"/*.json.log >/dev/null 2>&1; then
    fail "no logs written"
    finish
fi
run_analyze 1 --format=json "$WORK"/*.text.log "$WORK"/*.json.log
json "$WORK/out" 'd["problems"] == []'
json "$WORK/out" 'len(d["findings"]) >= 3'
json "$WORK/out" 'sum(f["count"] for f in d["findings"]) == d["summary"]["reports"]'

# Where the runtime wrote the same kinds in both runs (some programs race),
# the text and the JSON log of a program give the same findings.
compared=0
for t in "$WORK"/*.text.log; do
    j=${t%.text.log}.json.log
    kt=$(sed -n 's/^SUMMARY: rtdd: \([^ ]*\) .*/\1/p' "$t" | sort | paste -sd' ')
    kj=$(sed -n 's/^{"rtdd":1,"kind":"\([^"]*\)".*/\1/p' "$j" 2>/dev/null | sort | paste -sd' ')
    [ -n "$kt" ] && [ "$kt" = "$kj" ] || continue
    # A program whose two runs took other paths (a callback on another
    # thread's stack, under load) is run again, both formats, once.
    same=0
    for attempt in 1 2; do
        "$RTDD" analyze --format=json "$t" >"$WORK/t.json"
        "$RTDD" analyze --format=json "$j" >"$WORK/j.json"
        if python3 - "$WORK/t.json" "$WORK/j.json" <<'PY'; then same=1; break; fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((f["signature"], f["title"], f["count"]) for f in d["findings"])
if key(a) != key(b):
    print(key(a), key(b))
sys.exit(0 if key(a) == key(b) else 1)
PY
        [ "$attempt" = 2 ] && break
        name=$(basename "$t" .text.log)
        opts=$(cat "$WORK/$name.opts" 2>/dev/null)
        for fmt in text json; do
            rm -f "$WORK/$name.$fmt.log"
            # shellcheck disable=SC2086
            RTDD_OPTIONS="log_path=$WORK/$name.$fmt.log:report_format=$fmt${opts:+:$opts}" \
                timeout 60 "$RTDD" run -- "$WORK/$name" $(cat "$WORK/$name.args" 2>/dev/null) >/dev/null 2>&1
        done
    done
    [ "$same" = 1 ] || fail "$(basename "$t" .text.log): its text and JSON logs give other findings, twice"
    compared=$((compared + 1))
done
[ "$compared" -ge 3 ] || fail "only $compared programs gave the same kinds twice"
finish
