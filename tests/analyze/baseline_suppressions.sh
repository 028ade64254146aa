# CI gating: a baseline (a previous JSON output) and suppressions (the
# runtime's file format) make known findings pass; new ones still fail.
. tests/analyze/lib.sh

run_analyze 1 --format=json --output="$WORK/base.json" "$FIX/rtdd_deadlock.log" "$FIX/seed_xfrm_policy.txt"
json "$WORK/base.json" 'len(d["findings"]) == 2'
[ -s "$WORK/out" ] && fail "--output also wrote to stdout"

# Everything known: exit 0, and said so.
run_analyze 0 --baseline="$WORK/base.json" "$FIX/rtdd_deadlock.log" "$FIX/seed_xfrm_policy.txt"
has "$WORK/out" "2 findings in 2 logs (0 new, 2 in baseline)"
has "$WORK/out" "(baseline)"
# One more: exit 1, the new one marked new.
run_analyze 1 --format=json --baseline="$WORK/base.json" "$FIX/rtdd_deadlock.log" "$FIX/rtdd_loi_a.log"
json "$WORK/out" 'sorted((f["kind"], f["status"]) for f in d["findings"]) == [("deadlock", "baseline"), ("lock-order-inversion", "new")]'
json "$WORK/out" 'd["summary"]["new"] == 1 and d["summary"]["baseline"] == 1'

# Suppressions: by function, by file glob, by '*' kind; comments allowed.
cat >"$WORK/supp" <<'SUPP'
# known: fixed in the next release
lock-order-inversion:lookup_and*
*:tests/bank.c
SUPP
run_analyze 0 --suppressions="$WORK/supp" "$FIX/rtdd_loi_a.log" "$FIX/rtdd_deadlock.log"
has "$WORK/out" "0 findings in 2 logs (0 new, 0 in baseline), 2 reports suppressed"
run_analyze 0 --format=json --suppressions="$WORK/supp" "$FIX/rtdd_loi_a.log" "$FIX/rtdd_deadlock.log"
json "$WORK/out" 'all(f["status"] == "suppressed" for f in d["findings"]) and d["summary"]["suppressed_reports"] == 2'
# A suppression of another kind does not apply.
printf 'deadlock:lookup_and*\n' >"$WORK/supp2"
run_analyze 1 --suppressions="$WORK/supp2" "$FIX/rtdd_loi_a.log"
# INFO findings are listed but never fail the run.
sed -e 's/^BUG: deadlock detected.*/INFO: rcu detected stall: grace period blocked 12000 ms by readers/' \
    -e 's/SUMMARY: rtdd: deadlock/SUMMARY: rtdd: rcu-stall/' -e '/^cycle:/d' "$FIX/rtdd_deadlock.log" >"$WORK/stall.log"
run_analyze 0 --format=json "$WORK/stall.log"
json "$WORK/out" 'd["findings"][0]["kind"] == "rcu-stall" and d["findings"][0]["status"] == "new"'
finish
