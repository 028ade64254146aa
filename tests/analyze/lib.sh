# Helpers for the analyser's end-to-end tests. Each test is a bash script
# run as `RTDD=build/bin/rtdd BUILD=build CC=gcc bash tests/analyze/NAME.sh`
# from the top of the tree; it exits non-zero and says why on failure.
set -u
: "${RTDD:?RTDD must name the rtdd binary}" "${BUILD:=build}" "${CC:=gcc}"
FIX=tests/analyze/fixtures
WORK=$(mktemp -d /tmp/rtdd-analyze-e2e.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
FAILED=0

fail() { echo "FAIL: $*"; FAILED=1; }

# run_analyze WANT_STATUS ARGS...: runs `rtdd analyze ARGS`, stdout to
# $WORK/out, stderr to $WORK/err, and checks the exit status.
run_analyze() {
    local want=$1; shift
    "$RTDD" analyze "$@" >"$WORK/out" 2>"$WORK/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        fail "rtdd analyze $* exited $got, expected $want"
        echo "--- stdout:"; head -30 "$WORK/out"; echo "--- stderr:"; head -10 "$WORK/err"
    fi
}

# has FILE TEXT: FILE contains TEXT (fixed string).
has() { grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; echo "--- $1:"; head -30 "$1"; }; }
hasnt() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2'"; }

# json FILE EXPR: evaluates a Python expression over the parsed JSON `d`; fails unless true.
json() {
    python3 - "$1" "$2" <<'PY' || fail "$1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    print("expression false:", sys.argv[2])
sys.exit(0 if ok else 1)
PY
}

finish() { [ "$FAILED" = 0 ] && echo "ok"; exit "$FAILED"; }
