# Logs written by the real runtime: text, JSON lines and unsymbolized
# reports of one bug are one finding; gzip and standard input are read;
# frames are symbolized offline from module+offset via the build-id.
. tests/analyze/lib.sh

LIB=$(dirname "$RTDD")/../lib/librtdd.so
[ -f "$LIB" ] || { echo "FAIL: $LIB not built"; exit 1; }
$CC -g -O1 -pthread -fno-omit-frame-pointer -o "$WORK/xfrm_gc" examples/xfrm_gc.c || exit 1
$CC -g -O1 -pthread -fno-omit-frame-pointer -o "$WORK/eight" tests/programs/alf_eight_threads.c || exit 1

"$RTDD" run --log-path="$WORK/text.log" -- "$WORK/xfrm_gc" >/dev/null 2>&1
"$RTDD" run --log-path="$WORK/json.log" --report-format=json -- "$WORK/xfrm_gc" >/dev/null 2>&1
"$RTDD" run --log-path="$WORK/raw.log" --symbolize=0 -- "$WORK/xfrm_gc" >/dev/null 2>&1
for f in text json raw; do grep -q 'active-lock-freed' "$WORK/$f.log" || fail "the runtime wrote no report to $f.log"; done
grep -q '?? (' "$WORK/raw.log" || fail "raw.log has symbolized frames"

run_analyze 1 --format=json "$WORK/text.log" "$WORK/json.log" "$WORK/raw.log"
json "$WORK/out" 'len(d["findings"]) == 1 and d["findings"][0]["count"] == 3 and len(d["findings"][0]["logs"]) == 3'
json "$WORK/out" 'd["findings"][0]["title"] == "active lock freed in policy_gc_task"'
json "$WORK/out" 'd["findings"][0]["location"].endswith("xfrm_gc.c:39")'
json "$WORK/out" 'd["problems"] == []'

# gzip and standard input.
gzip -c "$WORK/text.log" >"$WORK/text.log.gz"
cat "$WORK/raw.log" | "$RTDD" analyze --format=json - "$WORK/text.log.gz" >"$WORK/out" 2>"$WORK/err"
[ $? = 1 ] || fail "stdin + gzip: exit status"
json "$WORK/out" 'd["findings"][0]["count"] == 2 and d["logs"] == ["<stdin>", "'"$WORK/text.log.gz"'"]'
# A gzip file cut short is read as far as it goes and named as unreadable.
head -c 200 "$WORK/text.log.gz" >"$WORK/cut.log.gz"
run_analyze 2 "$WORK/cut.log.gz"
has "$WORK/err" "error reading '$WORK/cut.log.gz'"

# Offline symbolization: the unstripped binary is gone; its debug info is
# found by build-id under --debug-dir (a .build-id tree), and only there.
bid=$(sed -n 's/^module: xfrm_gc build-id \([0-9a-f]*\) .*/\1/p' "$WORK/raw.log" | head -1)
[ -n "$bid" ] || fail "no build-id for xfrm_gc in raw.log"
mkdir -p "$WORK/dbg/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$WORK/xfrm_gc" "$WORK/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
mv "$WORK/xfrm_gc" "$WORK/xfrm_gc.moved"
run_analyze 1 --format=json "$WORK/raw.log"
json "$WORK/out" 'd["findings"][0]["title"].startswith("active lock freed in xfrm_gc+0x")'
run_analyze 1 --format=json --debug-dir="$WORK/dbg" "$WORK/raw.log"
json "$WORK/out" 'd["findings"][0]["title"] == "active lock freed in policy_gc_task"'
json "$WORK/out" '[(f.get("function"), f.get("inlined", False)) for f in d["findings"][0]["stacks"][0]["frames"][:2]] == [("policy_gc_task", True), ("worker_thread", False)]'
json "$WORK/out" 'd["findings"][0]["stacks"][0]["frames"][0]["file"].endswith("examples/xfrm_gc.c")'
# A stripped binary at the module path with a separate debug file also works.
strip --strip-all -o "$WORK/xfrm_gc" "$WORK/xfrm_gc.moved"
run_analyze 1 --format=json --debug-dir="$WORK/dbg" "$WORK/raw.log"
json "$WORK/out" 'd["findings"][0]["title"] == "active lock freed in policy_gc_task"'
# --no-symbolize keeps frames as logged.
run_analyze 1 --format=json --no-symbolize --debug-dir="$WORK/dbg" "$WORK/raw.log"
json "$WORK/out" 'd["findings"][0]["title"].startswith("active lock freed in xfrm_gc+0x")'

# One cache per module: 300 copies of the report open each module once.
for i in $(seq 300); do cat "$WORK/raw.log"; done >"$WORK/raw300.log"
"$RTDD" analyze --stats --debug-dir="$WORK/dbg" "$WORK/raw300.log" >"$WORK/out" 2>"$WORK/err"
has "$WORK/err" "reports=300 findings=1 "
has "$WORK/err" "modules_opened=2 modules_missing=0"
frames=$(sed -n 's/.* frames_resolved=\([0-9]*\) .*/\1/p' "$WORK/err")
[ "${frames:-0}" -ge 3000 ] || fail "only ${frames:-0} frames resolved in 300 reports"

# Eight threads freeing from eight functions: eight findings; a second run counts each twice.
"$RTDD" run --log-path="$WORK/eight1.log" -- "$WORK/eight" >/dev/null 2>&1
"$RTDD" run --log-path="$WORK/eight2.log" --report-format=json -- "$WORK/eight" >/dev/null 2>&1
run_analyze 1 --format=json "$WORK/eight1.log" "$WORK/eight2.log"
json "$WORK/out" 'sorted(f["title"] for f in d["findings"]) == ["active lock freed in free_%d" % i for i in range(8)]'
json "$WORK/out" 'all(f["count"] == 2 for f in d["findings"])'
finish
