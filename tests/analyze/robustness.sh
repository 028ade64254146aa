# Truncated, interleaved and corrupt reports are listed with their log and
# line, never dropped and never a crash; binary junk and very long lines
# are survived; memory follows the findings, not the input.
. tests/analyze/lib.sh

# status_ok STATUS: an exit by signal (>128) or a sanitizer's is a crash.
status_ok() { [ "$1" -le 2 ] || fail "rtdd analyze crashed (status $1) on $2"; }

# A log cut in the middle of a report.
head -n 9 "$FIX/rtdd_loi_a.log" >"$WORK/cut.log"
run_analyze 0 "$WORK/cut.log"
has "$WORK/out" "0 findings in 1 log"
has "$WORK/out" "truncated: $WORK/cut.log:2 (lock-order-inversion: report cut off after 3 frames (the log ends))"
run_analyze 0 --format=json "$WORK/cut.log"
json "$WORK/out" 'd["problems"][0]["line"] == 2 and d["problems"][0]["kind"] == "lock-order-inversion" and d["summary"]["corrupt_reports"] == 1'

# Two writers without atomic appends: one report inside another.
{ head -n 6 "$FIX/rtdd_loi_a.log"; cat "$FIX/rtdd_deadlock.log"; tail -n +7 "$FIX/rtdd_loi_a.log"; } >"$WORK/mixed.log"
run_analyze 1 --format=json "$WORK/mixed.log"
json "$WORK/out" '[f["kind"] for f in d["findings"]] == ["deadlock"]'
json "$WORK/out" 'd["problems"][0]["line"] == 2 and "a new report begins" in d["problems"][0]["reason"]'

# Junk inside a report, and a report with a damaged frame line.
sed '5s/.*/\x01\x02\x03garbage\xff\xfe/' "$FIX/rtdd_deadlock.log" >"$WORK/junk.log"
sed 's/^ \[<000055e0c2a01a5e>\] transfer.*/ [<000055e0c2a01a5e>] transfer+0x5e\/0x120 (80)/' "$FIX/rtdd_deadlock.log" >"$WORK/badframe.log"
run_analyze 0 "$WORK/junk.log" "$WORK/badframe.log"
has "$WORK/out" "corrupt: $WORK/junk.log:1 (deadlock: binary data at line 5)"
has "$WORK/out" "corrupt: $WORK/badframe.log:1 (deadlock: malformed frame at line 5)"

# Binary junk, a 5 MB line, and a report after them that must still be found.
{ head -c 1000000 /dev/urandom; echo; head -c 5000000 /dev/zero | tr '\0' 'A'; echo; cat "$FIX/rtdd_deadlock.log"; } >"$WORK/noise.log"
"$RTDD" analyze --stats --format=json "$WORK/noise.log" >"$WORK/out" 2>"$WORK/err"; st=$?
status_ok $st noise.log
json "$WORK/out" 'any(f["kind"] == "deadlock" for f in d["findings"])'
rss=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$WORK/err")
[ -n "$rss" ] && [ "$rss" -lt 65536 ] || fail "peak memory ${rss:-?} kB reading a 6 MB noisy log"

# Every prefix of a mixed log: no crash, and every report is either a finding or listed.
cat "$FIX"/*.log "$FIX/seed_xfrm_policy.txt" >"$WORK/all.log"
size=$(stat -c %s "$WORK/all.log")
for cut in $(seq 1 397 "$size"); do
    head -c "$cut" "$WORK/all.log" >"$WORK/prefix.log"
    "$RTDD" analyze --format=json "$WORK/prefix.log" >"$WORK/out" 2>"$WORK/err"; st=$?
    status_ok $st "the first $cut bytes"
    python3 - "$WORK/out" "$WORK/prefix.log" <<'PY' || fail "reports went missing in the first $cut bytes"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2], errors="replace").read()
begun = text.count("------------[ cut here ]------------")
counted = sum(f["count"] for f in d["findings"]) + sum(1 for p in d["problems"] if not p["counted"])
# Every begun rtdd report is a finding or a listed problem (kernel ones come on top).
sys.exit(0 if counted >= begun else 1)
PY
done

# Peak memory does not grow with the input: 5 MB and 50 MB of reports of the same 20 bugs.
$CC -O2 -o "$WORK/gen" bench/analyze/gen_log.c || exit 1
"$WORK/gen" "$WORK/small.log" 5 20 && "$WORK/gen" "$WORK/big.log" 50 20
"$RTDD" analyze --stats --no-symbolize "$WORK/small.log" >/dev/null 2>"$WORK/small.err"
"$RTDD" analyze --stats --no-symbolize "$WORK/big.log" >/dev/null 2>"$WORK/big.err"
small=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$WORK/small.err")
big=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$WORK/big.err")
[ -n "$small" ] && [ -n "$big" ] && [ "$big" -lt $((small + 4096)) ] ||
    fail "peak memory grew with the input: ${small:-?} kB for 5 MB, ${big:-?} kB for 50 MB"
finish
