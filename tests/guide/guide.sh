#!/bin/bash
# Runs the steps of docs/user-guide.md (issue 8: "every step in the guide is
# exercised by a test"). The blocks marked <!-- guide-test: NAME --> are taken
# from the guide as they are and run; the output is checked against what the
# guide says. The Install section is exercised by tests/install/install.sh
# (make install/uninstall, the installed rtdd, pkg-config, man pages).
# Usage: guide.sh BUILD_DIR        (from the top of the source tree)
set -u
src=$(pwd); build=$(cd "$1" && pwd)
guide=$src/docs/user-guide.md
work=$(mktemp -d /tmp/rtdd-guide.XXXXXX)
trap 'rm -rf "$work" "$build/install/prefix$(echo "$work/prefix" | tr / _)"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
# block NAME: the fenced block after the marker, with its indentation removed.
block() {
    awk -v name="$1" '
        $0 ~ "<!-- guide-test: " name " -->" { armed = 1; next }
        armed && !inside && /^ *```/ { inside = 1; match($0, /^ */); indent = RLENGTH; next }
        inside && /^ *```/ { exit }
        inside { print substr($0, indent + 1) }' "$guide"
}
for b in first-run suppressions-file suppressions-run ci-shell github-actions rcu-example rcu-build \
         annotate-example annotate-run static; do
    [ -n "$(block $b)" ] || bad "the guide has no block '$b'"
done

# The guide's commands say `rtdd` and build/...: a PATH with rtdd, a work
# directory with the build tree and the headers in it.
mkdir -p "$work/bin"; ln -s "$build/bin/rtdd" "$work/bin/rtdd"
export PATH="$work/bin:$PATH"
unset RTDD_OPTIONS LD_PRELOAD RTDD_RUNTIME
cd "$work" || exit 1
ln -s "$build" build; ln -s "$src/include" include

# ---- Options: every key of the table is in the guide ----------------------
for key in $(sed -n 's/^RT_OPT(\([a-z_]*\),.*/\1/p' "$src/detect/core/options.def"); do
    grep -q "^| \`$key\` |" "$guide" || bad "the guide's option table lacks $key"
done
rtdd run --help >help.txt
for key in $(sed -n 's/^RT_OPT(\([a-z_]*\),.*/\1/p' "$src/detect/core/options.def"); do
    grep -q -- "--${key//_/-} " help.txt || bad "rtdd run --help lacks --${key//_/-}"
done
ok "options: the guide's table and rtdd run --help list every key"

# ---- First run -------------------------------------------------------------
block first-run >first-run.sh
sh first-run.sh >first.out 2>&1
grep -q '^exit status: 66$' first.out || bad "first run: $(grep 'exit status' first.out), the guide says 66"
grep -q '^BUG: gc_worker/[0-9]*, active lock \[0x[0-9a-f]*(0x[0-9a-f]*-0x[0-9a-f]*)\] freed!$' first.out || bad "first run: no headline"
grep -q '^SUMMARY: rtdd: active-lock-freed xfrm_gc.c:39 in policy_gc_task$' first.out || bad "first run: SUMMARY differs"
grep -q '^xfrm_gc: policy freed by the gc worker while its lock was held$' first.out || bad "first run: program output lost"
# The guide's sample report is this report: same section titles, same frames
# of the program (function and file:line), same SUMMARY.
norm() { sed -E 's/0x[0-9a-f]+/0xH/g; s/[0-9]{3,}/N/g; s/\[<[0-9a-f]+>\]/[<A>]/'; }
sed -n '/^## Reading a report/,/^Read it from the top/p' "$guide" | sed -n '/^```$/,/^```$/p' | grep -v '^```$' >sample.txt
sed -n '/cut here/,/rtdd: summary/p' first.out >real.txt
grep -E ':$|^SUMMARY|^rtdd: summary|^BUG' real.txt | norm >real.titles
grep -E ':$|^SUMMARY|^rtdd: summary|^BUG' sample.txt | norm >sample.titles
cmp -s real.titles sample.titles || { bad "the guide's sample report differs from the real one:"; diff sample.titles real.titles; }
grep ' xfrm_gc+0x' real.txt | sed -E 's/^ \[<[0-9a-f]+>\] //; s/\+0x[0-9a-f]+\/0x[0-9a-f]+ \([0-9]+\)//; s/ xfrm_gc\+0x[0-9a-f]+//' >real.frames
while IFS= read -r f; do
    fn=${f%% *}; loc=${f##* }
    case $loc in *:*) ;; *) loc="" ;; esac
    grep -q "\] $fn[ +].*$loc\$" sample.txt || bad "the guide's sample lacks the frame $fn${loc:+ at $loc}"
done <real.frames
ok "first run: exit 66, the report the guide walks through ($(wc -l <real.frames) program frames checked)"

# ---- Suppressions ------------------------------------------------------------
block suppressions-file >rtdd.supp
block suppressions-run >supp-run.sh
sh supp-run.sh >supp.out 2>&1
grep -q '^exit status: 0$' supp.out || bad "suppressed run: $(grep 'exit status' supp.out), the guide says 0"
grep -q '^rtdd: summary: pid [0-9]*: 0 reports, 1 suppressed$' supp.out || bad "suppressed run: no '0 reports, 1 suppressed' summary"
grep -q 'cut here' supp.out && bad "suppressed run: the report was printed"
ok "suppressions: the demo's report silenced, '1 suppressed' in the summary"
printf 'active-lock-freed policy_gc_task\n' >bad.supp
rtdd run --suppressions=bad.supp -- build/examples/xfrm_gc >bad.out 2>&1; st=$?
[ $st = 2 ] || bad "bad suppressions line: exit $st, the guide says 2"
want=$(grep "^rtdd: RTDD_OPTIONS: bad.supp:1:" "$guide")
grep -qxF "$want" bad.out || { bad "bad suppressions line: message differs from the guide's"; cat bad.out; }
ok "suppressions: a bad line is refused with FILE:LINE (exit 2)"

# ---- CI, plain shell -----------------------------------------------------------
mkdir -p ci tests/bin
block ci-shell >ci/rtdd-ci.sh
if ! rtdd analyze --help >/dev/null 2>&1; then
    bad "rtdd analyze is not available (the CI recipe's gate cannot run): $(rtdd analyze --help 2>&1 | head -2)"
else
    for p in clean_locking clean_condvar alf_same_thread; do cp "$build/tests/programs/$p" tests/bin/; done
    rm -f rtdd.supp
    sh ci/rtdd-ci.sh >ci.out 2>&1; st=$?
    [ $st = 1 ] || { bad "CI recipe with a buggy test: exit $st, expected 1"; cat ci.out; }
    grep -q '^rtdd gate: 1$' ci.out || bad "CI recipe: the gate did not report 1"
    grep -q '^1 finding in 3 logs (1 new, 0 in baseline), 0 reports suppressed$' ci.out || { bad "CI recipe: the summary differs from the guide's"; cat ci.out; }
    grep -q 'active-lock-freed  active lock freed in destroy_session  (new)' ci.out || bad "CI recipe: the finding is not listed"
    [ "$(ls logs/rtdd.*.log | wc -l)" = 3 ] || bad "CI recipe: $(ls logs | wc -l) logs, expected one per test process (3)"
    grep -q '<testsuite' rtdd-junit.xml 2>/dev/null || bad "CI recipe: no JUnit file"
    ok "CI recipe: 3 tests, 3 logs collected, the gate fails on the finding"
    echo "active-lock-freed:destroy_session" >rtdd.supp
    sh ci/rtdd-ci.sh >ci2.out 2>&1; st=$?
    [ $st = 0 ] && grep -q '^rtdd gate: 0$' ci2.out || { bad "CI recipe with the suppression: exit $st, expected 0"; cat ci2.out; }
    ok "CI recipe: with the report suppressed, the gate passes"
    rm -f rtdd.supp tests/bin/alf_same_thread
    sh ci/rtdd-ci.sh >ci3.out 2>&1; st=$?
    [ $st = 0 ] || { bad "CI recipe on clean tests: exit $st"; cat ci3.out; }
    ok "CI recipe: clean tests pass"
    # The workflow: valid YAML, runs the recipe, its SARIF step works.
    cp "$build/tests/programs/alf_same_thread" tests/bin/ && sh ci/rtdd-ci.sh >/dev/null 2>&1
    block github-actions >workflow.yml
    python3 - workflow.yml <<'PY' || bad "the GitHub Actions workflow is not what the guide says"
import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
steps = w["jobs"]["rtdd"]["steps"]
runs = "\n".join(s.get("run", "") for s in steps)
assert "sh ci/rtdd-ci.sh" in runs, "does not run the recipe"
assert "make -C /tmp/rtdd install" in runs, "does not install rtdd"
assert any(s.get("uses", "").startswith("actions/upload-artifact") and "logs/" in s["with"]["path"] for s in steps), "no log upload"
print("workflow: %d steps" % len(steps))
PY
    cmd=$(block github-actions | sed -n 's/^ *run: \(rtdd analyze --format=sarif.*\)$/\1/p')
    [ -n "$cmd" ] && sh -c "$cmd" && python3 -c 'import json,sys; d=json.load(open("rtdd.sarif")); assert d["version"]=="2.1.0" and d["runs"][0]["results"]' \
        || bad "the workflow's SARIF step ('$cmd') does not give a SARIF file with the finding"
    ok "GitHub Actions workflow: parses, runs the recipe, SARIF step works"
fi

# ---- librtdd_rcu -----------------------------------------------------------------
block rcu-example >rcu_example.c
# The pkg-config line of the guide needs an installed rtdd: install into a prefix.
mk=(make --no-print-directory -C "$src")
grep -q '^ *-\?include  *install.mk' "$src/Makefile" || mk+=(-f Makefile -f install.mk)
if "${mk[@]}" install BUILD="$build" PREFIX="$work/prefix" >install.log 2>&1; then
    PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" LD_LIBRARY_PATH="$work/prefix/lib" sh -e -x -c "$(block rcu-build)" >rcu.out 2>&1; st=$?
    [ $st = 0 ] || { bad "RCU build/run steps: exit $st"; cat rcu.out; }
    grep -q '^final value 999$' rcu.out || bad "the RCU example did not print its result"
    grep -q 'cut here' rcu.out && bad "the RCU example got reports under rtdd"
    ok "RCU example: builds with pkg-config and from the build tree, runs clean under rtdd"
    "${mk[@]}" uninstall BUILD="$build" PREFIX="$work/prefix" >/dev/null 2>&1
else
    bad "make install PREFIX=... failed"; tail install.log
fi

# ---- Annotations -----------------------------------------------------------------
block annotate-example >annotate_example.c
out=$(sh -e -c "$(block annotate-run)" 2>&1)
[ "$out" = "cycle: stats_lock -> config_lock -> stats_lock" ] || bad "annotations: got '$out'"
ok "annotations: named locks in the cycle"

# ---- Limits: a static program is refused ----------------------------------------
printf 'int main(void){return 0;}\n' >static.c
if cc -static -o static-program static.c 2>/dev/null; then
    block static | grep -v '^#' >static.sh
    sh static.sh >static.out 2>&1; st=$?
    [ $st = 2 ] || bad "static program: exit $st, the guide says 2"
    grep -q "rtdd run: './static-program' is statically linked: LD_PRELOAD cannot instrument it, so rtdd would check nothing. Link it dynamically." static.out \
        || { bad "static program: message differs from the guide's"; cat static.out; }
    ok "limits: a static program is refused with the guide's message"
else
    bad "cannot build a static program (libc6-dev static libraries missing?)"
fi
exit $fail
