#!/bin/sh
# Docs coverage check. Fails (exit 1), naming each gap, unless
#  - every kind in detect/report/kinds.def has docs/kinds/KIND.md, and that page
#    quotes the kind's exact headline;
#  - every kind appears in the kinds table of docs/report-format.md as
#    "| KIND | SEVERITY | `HEADLINE` |" with the severity and headline of kinds.def;
#  - every option key in detect/core/options.def appears as `key` in docs/options.md;
#  - no docs/kinds/*.md page describes a kind that kinds.def no longer has;
#  - the README names every package of the Makefile's DEPS list (the deps step).
# kinds.def and options.def are X-macro tables:
#   RT_KIND(ENUM, "name", SEVERITY, "headline", "title")
#   RT_OPT(key, TYPE, "default", min, max, "values", "meaning")
# Usage: tests/docs/check-docs.sh [REPO_ROOT]   (default: two levels above this script)
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
kinds_def=$root/detect/report/kinds.def
options_def=$root/detect/core/options.def
format_md=$root/docs/report-format.md
options_md=$root/docs/options.md
kinds_dir=$root/docs/kinds
fail=0
missing() { echo "check-docs: $*"; fail=1; }

for f in "$kinds_def" "$options_def" "$format_md" "$options_md"; do
    [ -r "$f" ] || { echo "check-docs: cannot read $f"; exit 1; }
done

# One line per kind: name<TAB>severity<TAB>headline. A line that starts with
# RT_KIND( but does not parse is itself an error (the check would be blind to it).
kinds=$(sed -n 's/^[[:space:]]*RT_KIND([[:space:]]*[A-Z0-9_]*[[:space:]]*,[[:space:]]*"\([^"]*\)"[[:space:]]*,[[:space:]]*\([A-Z]*\)[[:space:]]*,[[:space:]]*"\([^"]*\)"[[:space:]]*,.*/\1	\2	\3/p' "$kinds_def")
nk_lines=$(grep -c '^[[:space:]]*RT_KIND(' "$kinds_def")
nk_parsed=$(printf '%s\n' "$kinds" | grep -c .)
[ "$nk_lines" = "$nk_parsed" ] || missing "detect/report/kinds.def: parsed $nk_parsed of $nk_lines RT_KIND lines; fix the table or this script"
[ "$nk_parsed" -gt 0 ] || missing "detect/report/kinds.def: no RT_KIND entries found"

tab=$(printf '\t')
printf '%s\n' "$kinds" | while IFS="$tab" read -r name sev headline; do
    [ -n "$name" ] || continue
    page=$kinds_dir/$name.md
    if [ ! -f "$page" ]; then
        echo "check-docs: docs/kinds/$name.md is missing (kind $name)"
    elif ! grep -qF -- "$headline" "$page"; then
        echo "check-docs: docs/kinds/$name.md does not quote the headline: $headline"
    fi
    # The table row: cells split on '|', trimmed; headline in backquotes.
    row=$(awk -F'|' -v k="$name" '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        /^[ \t]*\|/ && trim($2) == k { print trim($3) "\t" trim($4); exit }' "$format_md")
    if [ -z "$row" ]; then
        echo "check-docs: docs/report-format.md: no table row for kind $name"
    else
        rsev=${row%%"$tab"*}; rhead=${row#*"$tab"}
        [ "$rsev" = "$sev" ] || echo "check-docs: docs/report-format.md: kind $name has severity '$rsev', kinds.def says '$sev'"
        [ "$rhead" = "\`$headline\`" ] || echo "check-docs: docs/report-format.md: kind $name has headline $rhead, kinds.def says \`$headline\`"
    fi
done >"${TMPDIR:-/tmp}/check-docs.$$"
if [ -s "${TMPDIR:-/tmp}/check-docs.$$" ]; then cat "${TMPDIR:-/tmp}/check-docs.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/check-docs.$$"

# Pages for kinds that no longer exist.
for page in "$kinds_dir"/*.md; do
    [ -f "$page" ] || continue
    base=$(basename "$page" .md)
    case $base in README|index) continue ;; esac
    printf '%s\n' "$kinds" | cut -f1 | grep -qxF -- "$base" ||
        missing "docs/kinds/$base.md describes no kind of detect/report/kinds.def"
done

# Options.
keys=$(sed -n 's/^[[:space:]]*RT_OPT([[:space:]]*\([a-z0-9_]*\)[[:space:]]*,.*/\1/p' "$options_def")
no_lines=$(grep -c '^[[:space:]]*RT_OPT(' "$options_def")
no_parsed=$(printf '%s\n' "$keys" | grep -c .)
[ "$no_lines" = "$no_parsed" ] || missing "detect/core/options.def: parsed $no_parsed of $no_lines RT_OPT lines; fix the table or this script"
[ "$no_parsed" -gt 0 ] || missing "detect/core/options.def: no RT_OPT entries found"
for key in $keys; do
    grep -qF -- "\`$key\`" "$options_md" || missing "docs/options.md does not describe option \`$key\`"
done

# The packages the deps step installs: DEPS := spec spec \ (continued lines).
pkgs=$(sed -n '/^DEPS[[:space:]]*:=/,/[^\\]$/p' "$root/Makefile" | tr ' \\' '\n\n' | sed -n 's/^[a-z]*:[^:]*:\(.*\)$/\1/p' | sort -u)
[ -n "$pkgs" ] || missing "Makefile: no DEPS list found"
for pkg in $pkgs; do
    grep -qF -- "\`$pkg\`" "$root/README.md" || missing "README.md does not name the package \`$pkg\` of the Makefile's DEPS"
done

if [ "$fail" = 0 ]; then
    echo "check-docs: ok ($nk_parsed kinds, $no_parsed options, $(printf '%s\n' "$pkgs" | grep -c .) packages)"
fi
exit "$fail"
