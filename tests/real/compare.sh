#!/bin/sh
# Runs one real-program workload natively and under rtdd and compares them.
# Usage: compare.sh RTDD DIR NAME COMMAND
#   COMMAND is a shell command run with `sh -c` in DIR, once natively and
#   once as `RTDD run --log-path=... -- sh -c COMMAND`; it must recreate its
#   own outputs. Passes when stdout, stderr and exit status are identical,
#   every process of the rtdd run wrote its exit summary (so the runtime was
#   really preloaded) and no report (no SUMMARY: line) was written.
# Wall-clock times go to stdout (the test log) and to DIR/../times.txt.
rtdd=$1; dir=$2; name=$3; cmd=$4
out=$dir/.cmp; rm -rf "$out"; mkdir -p "$out"
now() { date +%s.%N; }
cd "$dir" || exit 1
t0=$(now)
sh -c "$cmd" >"$out/native.out" 2>"$out/native.err"; nst=$?
t1=$(now)
"$rtdd" run --log-path="$out/rtdd.%p.log" -- sh -c "$cmd" >"$out/rtdd.out" 2>"$out/rtdd.err"; rst=$?
t2=$(now)
tn=$(awk "BEGIN { print $t1 - $t0 }"); tr=$(awk "BEGIN { print $t2 - $t1 }")
printf '%s: native %.2fs, rtdd %.2fs\n' "$name" "$tn" "$tr"
printf '%-14s %7.2f %7.2f\n' "$name" "$tn" "$tr" >>"$dir/../times.txt"
fail=0
if [ "$nst" -ne "$rst" ]; then echo "exit status differs: native $nst, rtdd $rst"; fail=1; fi
if [ "$nst" -ne "${EXPECT_STATUS:-0}" ]; then
    echo "native exit status $nst, expected ${EXPECT_STATUS:-0}; native stderr:"; head -20 "$out/native.err"; fail=1
fi
if ! cmp -s "$out/native.out" "$out/rtdd.out"; then echo "stdout differs:"; diff "$out/native.out" "$out/rtdd.out" | head -20; fail=1; fi
if ! cmp -s "$out/native.err" "$out/rtdd.err"; then echo "stderr differs:"; diff "$out/native.err" "$out/rtdd.err" | head -20; fail=1; fi
if [ ! -s "$out/native.out" ]; then echo "no output: the workload checks nothing"; fail=1; fi
logs=$(ls "$out"/rtdd.*.log 2>/dev/null)
if [ -z "$logs" ]; then echo "no rtdd log: the runtime was not preloaded"; fail=1
else
  if ! grep -q '^rtdd: summary: pid [0-9]*: 0 reports' $logs; then echo "no clean rtdd exit summary in the logs"; fail=1; fi
  nproc=$(grep -c '^rtdd: summary:' $logs | awk -F: '{s += $NF} END {print s}')
  echo "processes under rtdd: $nproc"
  if grep -q 'SUMMARY:' $logs || grep '^rtdd: summary:' $logs | grep -vq ': 0 reports, 0 suppressed'; then
    echo "rtdd reported:"; grep -h -e 'SUMMARY:' -e '^rtdd: summary:' $logs | sort | uniq -c | head -20
    echo "first report:"; awk '/cut here/{n++} n==1' $logs | head -60
    fail=1
  fi
fi
[ $fail -eq 0 ] && echo "same stdout, stderr and exit status ($nst); no reports"
exit $fail
