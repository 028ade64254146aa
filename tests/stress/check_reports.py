#!/usr/bin/env python3
"""Checks rtdd output for complete, unmixed reports.

usage: check_reports.py [--json] [--sites N [--copies C]] [--kind KIND] [--allow-cut-tail]
                        [--outside REGEX]... FILE...

Every report in every FILE must be well formed: begin marker, a headline,
a context line, body lines of the report's grammar, exactly one SUMMARY line,
the end marker, and no line of another report inside it (a mixed write shows
up as a second marker, headline, context or SUMMARY line, or a line that fits
no rule). With --json every line that starts with '{' must be one complete
JSON report. Lines outside reports must be runtime messages ('rtdd: ...') or
match an --outside REGEX. --allow-cut-tail accepts one unfinished report at
the very end of a file (a write cut short by a full disk), which must then be
found complete elsewhere. With --sites N, the complete reports must come from
exactly the sites free_site_00 .. of freers.h, N of them, each exactly once
(C times with --copies C: C processes appending to one file).
Prints what it found; exit status 0 when everything holds."""
import json
import re
import sys

BEGIN = "------------[ cut here ]------------"
END = "---[ end report ]---"
HEADLINE = re.compile(r"^(BUG|WARNING|INFO): \S")
CONTEXT = re.compile(r"^CPU: -?\d+ PID: \d+ TID: \d+ Comm: .* Time: \d{4}-\d\d-\d\dT[\d:.]+Z$")
FRAME = re.compile(r"^ \[<[0-9a-f]{16}>\] (\S+\+0x[0-9a-f]+/0x[0-9a-f]+ \(\d+\)|\S+ \(inlined\)|\?\? \(\d+\)) \S+\+0x[0-9a-f]+( \S+:\d+)?$")
MODULE = re.compile(r"^module: \S+ build-id ([0-9a-f]+|-) base 0x[0-9a-f]+ path .+$")
SUMMARY = re.compile(r"^SUMMARY: rtdd: ([a-z-]+) (\S+) in (\S+)$")
SUMMARY_ANY = re.compile(r"SUMMARY: rtdd:|cut here|end report|^CPU: |^(BUG|WARNING|INFO): ")


def site_name(i):
    return "free_site_%x%d" % (i // 8, i % 8)


def main(argv):
    args = {"json": False, "copies": 1, "sites": None, "kind": None, "cut": False, "outside": []}
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            args["json"] = True
        elif a == "--allow-cut-tail":
            args["cut"] = True
        elif a in ("--sites", "--kind", "--outside", "--copies"):
            i += 1
            if a == "--sites":
                args["sites"] = int(argv[i])
            elif a == "--copies":
                args["copies"] = int(argv[i])
            elif a == "--kind":
                args["kind"] = argv[i]
            else:
                args["outside"].append(re.compile(argv[i]))
        else:
            files.append(a)
        i += 1
    errors = []
    functions = []
    kinds = {}
    cut = 0

    def done(kind, func):
        kinds[kind] = kinds.get(kind, 0) + 1
        functions.append(func)

    for path in files:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", "replace")
        lines = data.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        elif lines and args["cut"] and not (args["json"] and lines[-1].startswith("{")):
            lines.pop()  # a line cut short by a failed write: not judged
        inside = None
        for n, line in enumerate(lines, 1):
            where = "%s:%d" % (path, n)
            if args["json"] and line.startswith("{"):
                if inside is not None:
                    errors.append("%s: JSON line inside a text report" % where)
                try:
                    r = json.loads(line)
                except ValueError as e:
                    if n == len(lines) and args["cut"] and not data.endswith("\n"):
                        cut += 1
                        continue
                    errors.append("%s: not one JSON object (%s): %.120s" % (where, e, line))
                    continue
                if r.get("rtdd") != 1 or "kind" not in r or "sections" not in r:
                    errors.append("%s: JSON report lacks fields: %.120s" % (where, line))
                    continue
                done(r["kind"], r.get("function", "??"))
                continue
            if line == BEGIN:
                if inside is not None:
                    errors.append("%s: report begins inside the report of line %d" % (where, inside["start"]))
                inside = {"start": n, "lines": 0, "summary": None}
                continue
            if inside is None:
                if line == END:
                    errors.append("%s: end marker outside a report" % where)
                elif line.startswith("rtdd: ") or any(p.search(line) for p in args["outside"]):
                    pass
                else:
                    errors.append("%s: unexpected line outside reports: %.120s" % (where, line))
                continue
            inside["lines"] += 1
            k = inside["lines"]
            if line == END:
                if inside["summary"] is None:
                    errors.append("%s: report of line %d has no SUMMARY" % (where, inside["start"]))
                else:
                    done(*inside["summary"])
                inside = None
                continue
            if inside["summary"] is not None:
                errors.append("%s: line after SUMMARY: %.120s" % (where, line))
            elif k == 1:
                if not HEADLINE.match(line):
                    errors.append("%s: bad headline: %.120s" % (where, line))
            elif k == 2:
                if not CONTEXT.match(line):
                    errors.append("%s: bad context line: %.120s" % (where, line))
            elif line.startswith("SUMMARY:"):
                m = SUMMARY.match(line)
                if not m:
                    errors.append("%s: bad SUMMARY: %.120s" % (where, line))
                else:
                    inside["summary"] = (m.group(1), m.group(3))
            elif line.startswith(" [<"):
                if not FRAME.match(line):
                    errors.append("%s: bad frame line: %.160s" % (where, line))
            elif line.startswith("module: "):
                if not MODULE.match(line):
                    errors.append("%s: bad module line: %.160s" % (where, line))
            elif SUMMARY_ANY.search(line) or line.startswith("rtdd: ") or "\0" in line:
                errors.append("%s: line of another report or message inside a report: %.120s" % (where, line))
        if inside is not None:
            if args["cut"] and not data.endswith(END + "\n"):
                cut += 1
            else:
                errors.append("%s: report of line %d never ends" % (path, inside["start"]))
    if args["kind"]:
        for k in kinds:
            if k != args["kind"]:
                errors.append("unexpected report kind %s (%d)" % (k, kinds[k]))
    if args["sites"] is not None:
        want = [site_name(i) for i in range(args["sites"])]
        for s in want:
            c = functions.count(s)
            if c != args["copies"]:
                errors.append("site %s: %d complete reports, expected %d" % (s, c, args["copies"]))
        extra = sorted(set(functions) - set(want))
        if extra:
            errors.append("reports from unexpected functions: %s" % " ".join(extra[:10]))
    print("complete reports: %d (%s); cut at the end of a file: %d" %
          (len(functions), ", ".join("%s: %d" % kv for kv in sorted(kinds.items())), cut))
    for e in errors[:40]:
        print("ERROR:", e)
    if len(errors) > 40:
        print("... %d more errors" % (len(errors) - 40))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
