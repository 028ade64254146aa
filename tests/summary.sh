#!/bin/sh
# Prints the closing "N passed, N failed" line for make check and fails if anything failed.
results=$1
[ -s "$results" ] || { echo "no test results in $results"; echo "0 passed, 1 failed"; exit 1; }
passed=$(grep -c '^PASS ' "$results"); failed=$(grep -c '^FAIL ' "$results")
if [ "$failed" -gt 0 ]; then echo "failed tests:"; grep '^FAIL ' "$results" | sed 's/^FAIL /  /'; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
