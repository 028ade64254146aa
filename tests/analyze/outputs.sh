# SARIF validated against the SARIF 2.1.0 schema (tests/analyze/sarif-schema-2.1.0.json,
# python3-jsonschema), JUnit XML well-formed, the HTML page self-contained
# with SVG cycle graphs, --dot a graph Graphviz accepts.
. tests/analyze/lib.sh
LOGS="$FIX/rtdd_loi_a.log $FIX/rtdd_loi_b.log $FIX/rtdd_deadlock.log $FIX/kernel_lockdep_circular.log $FIX/seed_xfrm_policy.txt"
head -n 9 "$FIX/rtdd_loi_a.log" >"$WORK/cut.log"
printf 'lock-order-inversion:device_release*\n' >"$WORK/supp"

# Debian's python3-jsonschema (a python3 earlier in PATH may lack it).
SCHEMA_PY=/usr/bin/python3
[ -x "$SCHEMA_PY" ] || SCHEMA_PY=python3
"$SCHEMA_PY" -c 'import jsonschema' 2>/dev/null || { fail "python3-jsonschema is not installed"; finish; }

run_analyze 1 --format=sarif --output="$WORK/out.sarif" --suppressions="$WORK/supp" --docs-dir=docs/kinds $LOGS "$WORK/cut.log"
"$SCHEMA_PY" - "$WORK/out.sarif" tests/analyze/sarif-schema-2.1.0.json "$(grep -c '^RT_KIND(' detect/report/kinds.def)" <<'PY' || fail "SARIF output does not validate"
import json, sys, copy, jsonschema
doc = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(v.iter_errors(doc))
for e in errors[:10]:
    print("schema:", e.message, "at", "/".join(map(str, e.absolute_path)))
# The validator must see real mistakes too, or the check proves nothing.
bad = copy.deepcopy(doc); del bad["runs"][0]["results"][0]["message"]
bad2 = copy.deepcopy(doc); bad2["runs"][0]["results"][0]["level"] = "fatal"
bad3 = copy.deepcopy(doc); bad3["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
caught = all(list(v.iter_errors(b)) for b in (bad, bad2, bad3))
if not caught:
    print("the schema check accepted broken SARIF")
# What GitHub code scanning needs.
run = doc["runs"][0]
rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
ok = not errors and caught and doc["version"] == "2.1.0" and len(rules) == int(sys.argv[3])
for r in run["tool"]["driver"]["rules"]:
    ok &= bool(r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"])
for res in run["results"]:
    ok &= res["ruleId"] in rules and bool(res["message"]["text"])
    ok &= "rtddSignature/v1" in res["partialFingerprints"]
    ok &= bool(res.get("codeFlows")) and bool(res.get("stacks"))
loc = [r for r in run["results"] if r["ruleId"] == "deadlock"][0]["locations"][0]["physicalLocation"]
ok &= loc["artifactLocation"]["uri"] == "tests/bank.c" and loc["region"]["startLine"] == 44
ok &= any(r.get("suppressions") for r in run["results"])
ok &= any("cut off" in n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"])
sys.exit(0 if ok else 1)
PY

run_analyze 1 --format=junit --output="$WORK/out.xml" $LOGS
python3 - "$WORK/out.xml" <<'PY' || fail "JUnit output is not what CI expects"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
cases = suite.findall("testcase")
ok = root.tag == "testsuites" and len(cases) == 4 and suite.get("tests") == "4"
ok &= sum(1 for c in cases if c.find("failure") is not None) == int(suite.get("failures")) == 4
ok &= any(c.get("name") == "active lock freed in xfrm_policy_gc_task" for c in cases)
sys.exit(0 if ok else 1)
PY

run_analyze 1 --format=html --output="$WORK/out.html" --dot="$WORK/cycles.dot" $LOGS
python3 - "$WORK/out.html" <<'PY' || fail "HTML page"
import sys, html.parser
text = open(sys.argv[1]).read()
class P(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.tags = []; s.external = []
    def handle_starttag(s, tag, attrs):
        s.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"): s.external.append(v)
p = P(); p.feed(text)
ok = p.tags.count("section") == 4 and p.tags.count("svg") == 3 and not p.external and "script" not in p.tags
ok &= "possible deadlock in lookup_and_refresh" in text and "acct_lock" in text
sys.exit(0 if ok else 1)
PY
dot -Tsvg "$WORK/cycles.dot" >"$WORK/cycles.svg" || fail "dot rejects the --dot output"
has "$WORK/cycles.dot" '"stats_lock" -> "cfg_mutex"'
has "$WORK/cycles.dot" '"cfg_lock" -> "&dev->mutex"'
# Source lines are shown where the source is found: from a directory holding it.
mkdir -p "$WORK/src/tests" && seq 1 100 | sed 's/^/int line_/; s/$/;/' >"$WORK/src/tests/bank.c"
(cd "$WORK/src" && "$RTDD" analyze --format=html "$OLDPWD/$FIX/rtdd_deadlock.log" >"$WORK/src.html")
has "$WORK/src.html" 'class="hl">   44  int line_44;'
finish
