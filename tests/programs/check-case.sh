#!/bin/bash
# Runs one whole-program case under `rtdd run` and checks what its source
# says it must produce. Directives, one per comment line in the source:
#   // expect: KIND [KIND...]   report kinds, each occurrence listed (or "none")
#   // options: key=value:...   RTDD_OPTIONS for the run (besides log_path)
#   // env: NAME=VALUE          extra environment
#   // exit: N                  expected exit status (default: 66 if any
#                               BUG/WARNING kind is expected, else 0)
#   // log: TEXT                TEXT must appear in the log
#   // no-log: TEXT             TEXT must not appear in the log
#   // no-output: TEXT          TEXT must not appear on stdout
#   // stderr: TEXT             TEXT must appear on stderr
#   // args: ARGS               arguments for the program
#   // suppress: KIND:PATTERN   a suppressions line (all of them go to one file)
# Every report in the log must be well formed: begin marker, headline,
# exactly one SUMMARY line, end marker, and no lines of other reports mixed in.
set -u
rtdd=$1; bin=$2; src=$3
name=$(basename "$bin")
work=$(mktemp -d /tmp/rtdd-case.XXXXXX)
trap 'rm -rf "$work"' EXIT
directive() { sed -n "s|^// $1: ||p" "$src"; }

expect=$(directive expect | tr ' ' '\n' | grep -v '^$' | grep -v '^none$' | sort)
options=$(directive options | paste -sd: -)
args=$(directive args)
want_exit=$(directive exit | head -1)
if [ -z "$want_exit" ]; then
    # INFO kinds (kinds.def) leave the exit status alone.
    info_kinds=$(sed -n 's/^RT_KIND([A-Z0-9_]*, *"\([^"]*\)", *INFO,.*/\1/p' "$(dirname "$0")/../../detect/report/kinds.def")
    want_exit=0
    for k in $expect; do printf '%s\n' $info_kinds | grep -qx -- "$k" || want_exit=66; done
fi

log="$work/log"
if [ -n "$(directive suppress)" ]; then
    directive suppress >"$work/supp"
    options="${options:+$options:}suppressions=$work/supp"
fi
env_args=()
while IFS= read -r e; do [ -n "$e" ] && env_args+=("$e"); done < <(directive env)
# shellcheck disable=SC2086
env "${env_args[@]}" RTDD_OPTIONS="log_path=$log${options:+:$options}" \
    timeout 120 "$rtdd" run -- "$bin" $args >"$work/stdout" 2>"$work/stderr"
status=$?
touch "$log"
fail=0
complain() { echo "$name: $*"; fail=1; }

[ "$status" = "$want_exit" ] || complain "exit status $status, expected $want_exit"

if grep -q '^{"rtdd":1' "$log"; then
    got=$(grep '^{"rtdd":1' "$log" | sed 's/^{"rtdd":1,"kind":"\([^"]*\)".*/\1/' | sort)
else
    got=$(sed -n 's/^SUMMARY: rtdd: \([^ ]*\) .*/\1/p' "$log" | sort)
fi
[ "$got" = "$expect" ] || complain "report kinds [$(echo $got)], expected [$(echo $expect)]"

# Well-formedness of every text report.
awk -v name="$name" '
    /^------------\[ cut here \]------------$/ { if (inside) { print name ": report begins inside another"; bad=1 } inside=1; lines=0; summaries=0; next }
    /^---\[ end report \]---$/ { if (!inside) { print name ": end marker outside a report"; bad=1 } if (summaries != 1) { print name ": report has " summaries " SUMMARY lines"; bad=1 } inside=0; next }
    inside { lines++; if (lines == 1 && $0 !~ /^(BUG|WARNING|INFO): /) { print name ": bad headline: " $0; bad=1 } if ($0 ~ /^SUMMARY: rtdd: /) summaries++ }
    END { if (inside) { print name ": unterminated report"; bad=1 } exit bad }' "$log" || fail=1

while IFS= read -r text; do
    [ -z "$text" ] && continue
    grep -qF -- "$text" "$log" || complain "log lacks '$text'"
done < <(directive log)
while IFS= read -r text; do
    [ -z "$text" ] && continue
    ! grep -qF -- "$text" "$log" || complain "log has '$text'"
done < <(directive no-log)
while IFS= read -r text; do
    [ -z "$text" ] && continue
    grep -qF -- "$text" "$work/stderr" || complain "stderr lacks '$text'"
done < <(directive stderr)
while IFS= read -r text; do
    [ -z "$text" ] && continue
    ! grep -qF -- "$text" "$work/stdout" || complain "stdout has '$text'"
done < <(directive no-output)

if [ $fail -ne 0 ]; then
    echo "--- log:"; head -80 "$log"; echo "--- stdout:"; head -20 "$work/stdout"
    echo "--- stderr:"; head -20 "$work/stderr"
fi
exit $fail
