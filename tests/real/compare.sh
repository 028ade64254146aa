#!/bin/sh
# Runs one real-program workload natively and under rtdd and compares them.
# Usage: compare.sh RTDD DIR NAME COMMAND
#   COMMAND is a shell command run with `sh -c` in DIR, once natively and
#   once as `RTDD run --log-path=... -- sh -c COMMAND`; it must recreate its
#   own outputs; REAL_RUN is native or rtdd in its environment (a case may
#   skip what only matters under rtdd, such as an idle period). Passes when
#   stdout, stderr and exit status are identical, the process rtdd run
#   started wrote its clean exit summary (so the runtime was really
#   preloaded; its clean descendants write none) and no report (no SUMMARY:
#   line) was written. On reports it prints how many, in
#   how many of the log files, by kind and by headline, and the first one.
# Wall-clock times go to stdout (the test log) and to DIR/../times.txt.
rtdd=$1; dir=$2; name=$3; cmd=$4
out=$dir/.cmp; rm -rf "$out"; mkdir -p "$out"
now() { date +%s.%N; }
cd "$dir" || exit 1
t0=$(now)
REAL_RUN=native sh -c "$cmd" >"$out/native.out" 2>"$out/native.err"; nst=$?
t1=$(now)
# A server that drops privileges (Apache's children run as www-data) opens
# its logs after it did: the directory is writable by all, as /tmp is.
chmod 1777 "$out"
REAL_RUN=rtdd "$rtdd" run --log-path="$out/rtdd.%p.log" -- sh -c "$cmd" >"$out/rtdd.out" 2>"$out/rtdd.err"; rst=$?
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
  nlogs=$(echo "$logs" | wc -l); nbare=$(grep -L '^rtdd: summary:' $logs | wc -l)
  echo "exit summaries: $nproc; log files: $nlogs ($nbare without an exit summary: exec'd or killed)"
  if grep -q 'SUMMARY:' $logs || grep '^rtdd: summary:' $logs | grep -vq ': 0 reports, 0 suppressed'; then
    nrep=$(cat $logs | grep -c 'SUMMARY: rtdd:'); nwith=$(grep -l 'SUMMARY: rtdd:' $logs | wc -l)
    echo "rtdd reported: $nrep reports in $nwith of $nlogs log files; by kind:"
    cat $logs | sed -n 's/.*SUMMARY: rtdd: \([^ ]*\).*/\1/p' | sort | uniq -c | sort -rn
    echo "by headline (numbers as N):"
    cat $logs | awk '/cut here/ { getline; print }' | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -20
    echo "exit summaries with reports:"; grep -h '^rtdd: summary:' $logs | grep -v ': 0 reports, 0 suppressed' |
        sed 's/pid [0-9]*/pid N/' | sort | uniq -c | sort -rn | head -10
    echo "first report:"; cat $logs | awk '/cut here/ { n++ } n == 1 { print } n == 1 && /end report/ { exit }' | head -60
    fail=1
  fi
fi
[ $fail -eq 0 ] && echo "same stdout, stderr and exit status ($nst); no reports"
exit $fail
