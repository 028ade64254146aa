#!/bin/bash
# Real servers from Debian packages under their own load generators, native
# and under rtdd, interleaved round by round: memcached (4 worker threads)
# under memcslap set then get, redis-server with I/O threads under
# redis-benchmark set+get, knotd (2 UDP workers) serving a generated zone
# under dnsperf. Measured per run: the load's wall time, the
# server's CPU time (user + system, from /proc at the end of the load) and
# its peak RSS (VmHWM); ratios pair by pair (rtdd / native of the same
# round), medians. Servers marked "split" run on CPUs apart from their load
# generator's (the first half and the second half of them), as a server and
# its remote clients would: a client that competes with the server for a
# CPU makes both measures swing by more than the differences looked for.
# redis stays "shared": its I/O threads busy-poll, so confined to half the
# CPUs they starve its main thread. "memcached -t 4 unpinned" is memcached
# as users run it: server and load generator left to the scheduler (shared),
# the same load; its user time is reported apart from its CPU time (user +
# system), since the runtime's work is user time and the system time of a
# server on loopback is mostly the kernel's network path.
# Sizes (issue 38, for make bench's 15 minutes): memcslap 12,000 and redis-benchmark
# 40,000 requests per run (20,000 and 100,000 before; on a loaded machine redis's
# busy-polling I/O threads stretched a run from 5 s to 24 s).
# Usage: run.sh OUT_CSV   (env: RTDD, QUICK=1, ROUNDS=N, ONLY="name": that row only)
set -u
csv=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../micro/common.sh"
rtdd=${RTDD:-build/bin/rtdd}
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then rounds=${ROUNDS:-2}; mc_n=5000; rd_n=20000; kn_n=50; else rounds=${ROUNDS:-5}; mc_n=12000; rd_n=40000; kn_n=300; fi
tmp=$(mktemp -d); logs=$tmp
trap 'rm -rf "$tmp"; [ -n "${srv_pid:-}" ] && kill "$srv_pid" 2>/dev/null' EXIT
hz=$(getconf CLK_TCK)
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
    server_cpus=0-$((ncpu / 2 - 1)); load_cpus=$((ncpu / 2))-$((ncpu - 1))
    pin_server=(taskset -c "$server_cpus"); pin_load="taskset -c $load_cpus"
else
    pin_server=(); pin_load=""
fi
queries=$tmp/dns-queries # 1,000 names of knotd.sh's zone; dnsperf sends them kn_n times
for i in $(seq 0 999); do echo "host$i.example.com A"; done >"$queries"

# name | CPUs (split or shared) | server command (PORT) | load command (PORT) | readiness probe (PORT) | commands needed | packages
servers="memcached -t 4|split|memcached -u root -l 127.0.0.1 -p PORT -t 4 -U 0 -m 256|memcslap --servers=127.0.0.1:PORT --concurrency=8 --execute-number=$mc_n --test=set && memcslap --servers=127.0.0.1:PORT --concurrency=8 --execute-number=$mc_n --test=get|memcslap --servers=127.0.0.1:PORT --concurrency=1 --execute-number=1 --test=set|memcached memcslap|memcached libmemcached-tools
redis io-threads=2|shared|redis-server --port PORT --bind 127.0.0.1 --save '' --appendonly no --io-threads 2 --io-threads-do-reads yes|redis-benchmark -p PORT -n $rd_n -c 20 -t set,get -q|redis-cli -p PORT ping|redis-server redis-benchmark redis-cli|redis-server redis-tools
memcached -t 4 unpinned|shared|memcached -u root -l 127.0.0.1 -p PORT -t 4 -U 0 -m 256|memcslap --servers=127.0.0.1:PORT --concurrency=8 --execute-number=$mc_n --test=set && memcslap --servers=127.0.0.1:PORT --concurrency=8 --execute-number=$mc_n --test=get|memcslap --servers=127.0.0.1:PORT --concurrency=1 --execute-number=1 --test=set|memcached memcslap|memcached libmemcached-tools
knotd udp-workers=2|split|$here/knotd.sh PORT $tmp/knot-PORT|dnsperf -s 127.0.0.1 -p PORT -d $queries -n $kn_n -c 4|test -n \"\$(kdig @127.0.0.1 -p PORT example.com SOA +short +timeout=1 +retry=0)\"|knotd kdig dnsperf|knot knot-dnsutils dnsperf"

# run_one TOOL NAME CPUS SERVER LOAD PROBE OUT: "wall cpu maxrss user" into OUT, or nan nan nan nan.
run_one() {
    local tool=$1 name=$2 cpus=$3 server=$4 load=$5 probe=$6 out=$7 port pre=() pin_s=() pin_l=""
    [ "$cpus" = split ] && pin_s=("${pin_server[@]}") && pin_l=$pin_load
    port=$((20000 + RANDOM % 20000))
    [ "$tool" = rtdd ] && pre=(env RTDD_OPTIONS="print_summary=0:log_path=$logs/rtdd.%p.log" "$rtdd" run --)
    # The subshell becomes the server (exec; rtdd run execs it too): $! is its pid.
    (eval "exec ${pin_s[*]} ${pre[*]@Q} ${server//PORT/$port}") >"$logs/server.log" 2>&1 &
    srv_pid=$!
    local pid=$srv_pid up=0
    for _ in $(seq 100); do
        if bash -c "${probe//PORT/$port}" >/dev/null 2>&1; then up=1; break; fi
        sleep 0.05
    done
    if [ $up = 0 ] || [ ! -d /proc/$pid ]; then
        echo "nan nan nan nan" >"$out"; echo "  warning: $name under $tool did not start (log: $logs/server.log)" >&2
        kill $pid 2>/dev/null; wait $pid 2>/dev/null; srv_pid=; return
    fi
    local t0 t1 cpu0 cpu1 usr0 usr1 rss
    read -r usr0 cpu0 < <(awk '{ print $14, $14 + $15 }' /proc/$pid/stat)
    t0=$(date +%s.%N)
    if ! $pin_l bash -c "${load//PORT/$port}" >"$logs/load.log" 2>&1; then
        echo "nan nan nan nan" >"$out"; echo "  warning: the load on $name under $tool failed" >&2
    else
        t1=$(date +%s.%N)
        read -r usr1 cpu1 < <(awk '{ print $14, $14 + $15 }' /proc/$pid/stat)
        rss=$(awk '/^VmHWM/ { print $2 }' /proc/$pid/status)
        awk -v a="$t0" -v b="$t1" -v c0="$cpu0" -v c1="$cpu1" -v hz="$hz" -v r="$rss" -v u0="$usr0" -v u1="$usr1" \
            'BEGIN { printf "%.4f %.4f %s %.4f\n", b - a, (c1 - c0) / hz, r, (u1 - u0) / hz }' >"$out"
    fi
    kill $pid 2>/dev/null; wait $pid 2>/dev/null; srv_pid=
}

mkdir -p "$(dirname "$csv")"
echo "server,tool,rounds,wall_s,cpu_s,maxrss_kb,wall_ratio,cpu_ratio,rss_ratio,rss_extra_kb,user_s,user_ratio,cpu_ratio_min,cpu_ratio_max,user_ratio_min,user_ratio_max" >"$csv"
echo "real servers: $rounds rounds, native and rtdd interleaved (QUICK=$quick); split servers on CPUs ${server_cpus:-any}, their load on ${load_cpus:-any}"
printf '%-24s %-7s %9s %9s %9s %11s %8s %8s %-13s %8s %-13s %8s\n' server tool "wall s" "cpu s" "user s" "maxrss KB" wall× cpu× "(range)" user× "(range)" rss×
printf '%s\n' "$servers" | while IFS='|' read -r name cpus server load probe cmds pkgs; do
    [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ] && continue
    row_start=$SECONDS
    missing=""
    for c in $cmds; do command -v "$c" >/dev/null || missing=1; done
    if [ -n "$missing" ]; then echo "  skipped $name: install Debian packages $pkgs"; continue; fi
    for r in $(seq "$rounds"); do
        for tool in native rtdd; do run_one "$tool" "$name" "$cpus" "$server" "$load" "$probe" "$tmp/x.$tool.$r"; done
    done
    for tool in native rtdd; do
        wall=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r" 1; done | median)
        cpu=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r" 2; done | median)
        rss=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r" 3; done | median)
        rw=$(for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r" 1)" "$(val "$tmp/x.native.$r" 1)"; done | median)
        rc=$(for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r" 2)" "$(val "$tmp/x.native.$r" 2)"; done | median)
        rr=$(for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r" 3)" "$(val "$tmp/x.native.$r" 3)"; done | median)
        extra=$(for r in $(seq "$rounds"); do awk -v a="$(val "$tmp/x.$tool.$r" 3)" -v b="$(val "$tmp/x.native.$r" 3)" \
            'BEGIN { if (a == "nan" || b == "nan") print "nan"; else print a - b }'; done | median)
        usr=$(for r in $(seq "$rounds"); do val "$tmp/x.$tool.$r" 4; done | median)
        for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r" 2)" "$(val "$tmp/x.native.$r" 2)"; done >"$tmp/cr"
        for r in $(seq "$rounds"); do ratio "$(val "$tmp/x.$tool.$r" 4)" "$(val "$tmp/x.native.$r" 4)"; done >"$tmp/ur"
        ru=$(median <"$tmp/ur"); read -r clo chi < <(minmax <"$tmp/cr"); read -r ulo uhi < <(minmax <"$tmp/ur")
        echo "$name,$tool,$rounds,$wall,$cpu,$rss,$rw,$rc,$rr,$extra,$usr,$ru,$clo,$chi,$ulo,$uhi" >>"$csv"
        printf '%-24s %-7s %9s %9s %9s %11s %8s %8s %-13s %8s %-13s %8s\n' "$name" "$tool" "$wall" "$cpu" "$usr" "$rss" "$rw" "$rc" \
            "($clo–$chi)" "$ru" "($ulo–$uhi)" "$rr"
    done
    echo "  ($name: $((SECONDS - row_start)) s)"
done
echo "ratios: median over rounds of rtdd / native of the same round, (min–max)"
echo "real servers: $SECONDS s in all; CSV: $csv"
