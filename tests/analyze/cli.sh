# The command line: help, usage errors (exit 2, naming the problem),
# unreadable input (exit 2), exit 0 and 1.
. tests/analyze/lib.sh

run_analyze 0 --help
has "$WORK/out" "usage: rtdd analyze"
has "$WORK/out" "--format=FORMAT"

run_analyze 2
has "$WORK/err" "no log given"
run_analyze 2 --frobnicate "$FIX/rtdd_deadlock.log"
has "$WORK/err" "unknown option '--frobnicate'"
run_analyze 2 --format=xml "$FIX/rtdd_deadlock.log"
has "$WORK/err" "unknown format 'xml' (valid: text, json, sarif, junit, html)"
run_analyze 2 "$FIX/rtdd_deadlock.log" --baseline
has "$WORK/err" "option '--baseline' needs a value"
run_analyze 2 --output= "$FIX/rtdd_deadlock.log"
has "$WORK/err" "--output needs a file name"

# Unreadable input: a message naming the file, the other logs still analysed, exit 2.
run_analyze 2 "$WORK/no-such.log" "$FIX/rtdd_deadlock.log"
has "$WORK/err" "cannot open '$WORK/no-such.log'"
has "$WORK/out" "deadlock in audit"
has "$WORK/out" "unreadable: cannot open '$WORK/no-such.log'"
run_analyze 2 --format=sarif "$WORK/no-such.log" "$FIX/rtdd_deadlock.log"
json "$WORK/out" 'd["runs"][0]["invocations"][0]["executionSuccessful"] is False'
json "$WORK/out" 'd["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"] == "error"'
run_analyze 2 --format=json "$WORK/no-such.log" "$FIX/rtdd_deadlock.log"
json "$WORK/out" 'len(d["read_errors"]) == 1 and len(d["findings"]) == 1' 
run_analyze 2 "$FIX"
has "$WORK/err" "is a directory"

# Bad suppressions or baseline files are usage errors too.
printf 'no-such-kind:foo\n' >"$WORK/bad.supp"
run_analyze 2 --suppressions="$WORK/bad.supp" "$FIX/rtdd_deadlock.log"
has "$WORK/err" "unknown report kind 'no-such-kind'"
run_analyze 2 --suppressions="$WORK/none.supp" "$FIX/rtdd_deadlock.log"
has "$WORK/err" "cannot read suppressions file"
echo '[1,2]' >"$WORK/bad.json"
run_analyze 2 --baseline="$WORK/bad.json" "$FIX/rtdd_deadlock.log"
has "$WORK/err" "not an rtdd analyze JSON output"
run_analyze 2 --output=/nonexistent/dir/out.txt "$FIX/rtdd_deadlock.log"
has "$WORK/err" "cannot write '/nonexistent/dir/out.txt'"

# A log with no reports: exit 0. With one: exit 1. Both forms of option values work.
printf 'hello\nworld\n' >"$WORK/clean.log"
run_analyze 0 "$WORK/clean.log"
has "$WORK/out" "0 findings in 1 log"
run_analyze 1 --format json "$FIX/rtdd_deadlock.log"
json "$WORK/out" 'd["summary"]["findings"] == 1'
finish
