#!/bin/sh
# Runs one test command and records "PASS name" or "FAIL name" in the results file.
# Usage: tests/record.sh RESULTS NAME COMMAND [ARGS...]
results=$1; name=$2; shift 2
log=$(dirname "$results")/logs/$(echo "$name" | tr '/ ' '__').log
mkdir -p "$(dirname "$log")"
if "$@" >"$log" 2>&1; then
    echo "PASS $name" >>"$results"; echo "PASS $name"
else
    echo "FAIL $name" >>"$results"; echo "FAIL $name (log: $log)"; sed 's/^/    /' "$log" | tail -40
fi
