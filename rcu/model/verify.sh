#!/bin/sh
# Runs spin on the grace-period model: the two-phase algorithm must verify
# with no errors, and the single-flip variant must produce an assertion
# violation (proof that the model can see the stale-phase race).
# Usage: verify.sh MODEL.pml WORKDIR
set -u
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work"
cd "$work" || exit 1
command -v spin >/dev/null || { echo "verify: spin not installed (apt-get install spin)"; exit 1; }

run() { # name, spin -D flags
    name=$1; shift
    rm -rf "$name"; mkdir "$name"; cd "$name" || exit 1
    spin "$@" -a "$model" >spin.log 2>&1 || { cat spin.log; cd ..; return 2; }
    gcc -O2 -DSAFETY -DNOREDUCE=0 -o pan pan.c >cc.log 2>&1 || { cat cc.log; cd ..; return 2; }
    ./pan -m100000 -E >pan.log 2>&1
    errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | head -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | head -1)
    echo "$name: errors=${errors:-?} states=${states:-?}"
    cd ..
    [ -n "$errors" ] || return 2
    [ "$errors" -eq 0 ]
}

status=0
if run two-phase; then
    echo "PASS two-phase grace period: no reader ever sees a reclaimed object"
else
    echo "FAIL two-phase grace period (see $work/two-phase/pan.log)"; status=1
fi
run single-flip -DSINGLE_FLIP
rc=$?
if [ $rc -eq 1 ]; then
    echo "PASS single-flip variant fails as it must (stale-phase race found)"
    grep -m1 'assertion violated' single-flip/pan.log
    (cd single-flip && spin -t -p -DSINGLE_FLIP "$model" 2>/dev/null | grep -E 'proc|assert' | tail -n 25 >trail.txt)
    echo "  counterexample: $work/single-flip/trail.txt"
else
    echo "FAIL single-flip variant was not caught: the model cannot see the race"; status=1
fi
exit $status
