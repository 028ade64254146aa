#!/bin/bash
# One Apache case of make check-real (tests/real/README.md): Debian's apache2
# started as root in the foreground on loopback, with its own ServerRoot and
# configuration written here (Debian's modules, not /etc/apache2): the MPM
# named, `Mutex pthread` (the accept mutex is a process-shared pthread mutex;
# two Listen ports make the children take it), mod_cgi or mod_cgid with a
# shell CGI, mod_status, an access log; children run as www-data. Then: load
# (ab with keep-alive and concurrency, curl in parallel, CGI GET and POST),
# an idle period, a graceful restart (apache2 -k graceful), more load, a
# second one (SIGUSR1), more load, a graceful stop (apache2 -k
# graceful-stop). It prints only what must be the same natively and under
# rtdd: body checksums, request counts, status counts, the exit status of
# apache2. The server's own logs stay in srv.native/ and srv.rtdd/.
# Usage: apache.sh MPM CGI IDLE_SECONDS
#   MPM is worker or prefork; CGI is cgi (mod_cgi: the child that serves the
#   request forks the script) or cgid (mod_cgid: a daemon forked by the parent
#   at start forks them). The idle period is spent only when REAL_RUN is rtdd
#   (compare.sh sets it): natively it would show nothing.
set -u
mpm=$1; cgi=$2; idle=$3
[ "${REAL_RUN:-native}" = rtdd ] || idle=0
export PATH=$PATH:/usr/sbin:/sbin
mods=/usr/lib/apache2/modules
srv=$PWD/srv.${REAL_RUN:-native}
got=$srv/got
rm -rf "$srv"; mkdir -p "$srv/conf" "$srv/htdocs" "$srv/cgi-bin" "$srv/logs" "$srv/run" "$got"
pid=""

# Two ports next to each other that no socket uses, below the range the
# kernel picks clients' ports from (where any connection may take one).
pick_ports() {
    local lo p
    lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    for _ in $(seq 50); do
        p=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % (lo - 10002)))
        if [ -z "$(ss -Htan "( sport = :$p or sport = :$((p + 1)) )")" ]; then port=$p; return 0; fi
    done
    return 1
}

case $mpm in
worker) mpmconf="LoadModule mpm_worker_module $mods/mod_mpm_worker.so
StartServers 3
ServerLimit 6
ThreadLimit 8
ThreadsPerChild 4
MinSpareThreads 4
MaxSpareThreads 12
MaxRequestWorkers 24
MaxConnectionsPerChild 300" ;;
prefork) mpmconf="LoadModule mpm_prefork_module $mods/mod_mpm_prefork.so
StartServers 4
MinSpareServers 3
MaxSpareServers 6
ServerLimit 16
MaxRequestWorkers 16
MaxConnectionsPerChild 60" ;;
*) echo "apache.sh: MPM is worker or prefork"; exit 2 ;;
esac
case $cgi in
cgi) cgiconf="LoadModule cgi_module $mods/mod_cgi.so" ;;
cgid) cgiconf="LoadModule cgid_module $mods/mod_cgid.so
ScriptSock \"$srv/run/cgid.sock\"" ;;
*) echo "apache.sh: CGI is cgi or cgid"; exit 2 ;;
esac

write_conf() {
cat >"$srv/conf/httpd.conf" <<EOF
ServerRoot "$srv"
ServerName localhost
Listen 127.0.0.1:$port
Listen 127.0.0.1:$((port + 1))
PidFile "$srv/run/httpd.pid"
DefaultRuntimeDir "$srv/run"
User www-data
Group www-data
$mpmconf
Mutex pthread default
Timeout 20
KeepAlive On
MaxKeepAliveRequests 50
KeepAliveTimeout 1
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule authz_host_module $mods/mod_authz_host.so
LoadModule alias_module $mods/mod_alias.so
LoadModule mime_module $mods/mod_mime.so
LoadModule status_module $mods/mod_status.so
$cgiconf
TypesConfig /etc/mime.types
ErrorLog "$srv/logs/error.log"
LogLevel notice
LogFormat "%>s %m %U" short
CustomLog "$srv/logs/access.log" short
DocumentRoot "$srv/htdocs"
<Directory />
    Require all denied
</Directory>
<Directory "$srv/htdocs">
    Require all granted
</Directory>
ScriptAlias /cgi-bin/ "$srv/cgi-bin/"
<Directory "$srv/cgi-bin">
    Require all granted
</Directory>
ExtendedStatus On
<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
EOF
}
seq 1 12000 >"$srv/htdocs/f.txt"
cat >"$srv/cgi-bin/t.cgi" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\r\n\r\n'
echo "method=$REQUEST_METHOD query=$QUERY_STRING"
if [ "$REQUEST_METHOD" = POST ]; then
    echo "body=$(head -c "$CONTENT_LENGTH" | md5sum)"
fi
EOF
chmod 755 "$srv/cgi-bin/t.cgi"
chmod -R a+rX "$srv"

# On a failure: stop the server we started (TERM, then KILL it and its children).
stop_hard() {
    [ -n "$pid" ] || return
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do alive || break; sleep 0.1; done
    kids=$(ps -o pid= --ppid "$pid" 2>/dev/null)
    # shellcheck disable=SC2086
    kill -KILL "$pid" $kids 2>/dev/null; wait "$pid" 2>/dev/null; pid=""
}
trap stop_hard EXIT
die() { echo "$*"; echo "error log:"; tail -n 20 "$srv/logs/stdout.log" "$srv/logs/error.log"; exit 1; }

status() { curl -s --max-time 5 "$base/server-status?auto"; }
# Is the server running (not ended, not a zombie)?
alive() { local st; st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }
# Waits until the server answers and its MPM is in generation $1 (each
# graceful restart starts a new one).
wait_generation() {
    for _ in $(seq 300); do
        alive || return 1
        status 2>/dev/null | grep -q "^ParentServerMPMGeneration: $1\$" && return 0
        sleep 0.1
    done
    return 1
}

copts=(--no-progress-meter --fail --max-time 20) # errors shown, no progress
# ab prints timings; keep the counts (its whole output goes to ab.log). With
# keep-alive, "Failed requests" is left out: a child that the server stops
# (an idle one, a restart) closes its kept-alive connection, ab counts the
# request it was about to send there as failed (as a Length failure) and
# sends it again; how often depends on timing. The access log's counts
# below show that each request was served once.
ab_counts() {
    local keep=$1; shift
    ab -q -s 20 "$@" >"$srv/logs/ab.out" 2>&1; echo "ab exit status: $?"
    cat "$srv/logs/ab.out" >>"$srv/logs/ab.log"
    if [ "$keep" = k ]; then
        grep -E '^(Complete requests|Non-2xx responses|Document Length|Write errors):' "$srv/logs/ab.out"
    else
        grep -E '^(Complete requests|Failed requests|Non-2xx responses|Document Length|Write errors):' "$srv/logs/ab.out"
    fi
}
load() {
    local tag=$1 n=$2
    echo "== load $tag"
    ab_counts k -n $((n * 3)) -c 8 -k "$base/f.txt"
    ab_counts - -n "$n" -c 6 "$base/cgi-bin/t.cgi?ab"
    curl "${copts[@]}" -Z --parallel-max 8 "$base/f.txt?[1-$n]" -o "$got/f_#1" || echo "curl failed: $?"
    curl "${copts[@]}" -Z --parallel-max 8 "http://127.0.0.1:$((port + 1))/cgi-bin/t.cgi?$tag=[1-$n]" -o "$got/c_#1" ||
        echo "curl failed: $?"
    for i in $(seq "$n"); do cat "$got/f_$i"; done | md5sum
    for i in $(seq "$n"); do cat "$got/c_$i"; done | md5sum
    for i in $(seq 10); do
        seq "$i" 3000 | curl "${copts[@]}" --data-binary @- "$base/cgi-bin/t.cgi?post=$i" || echo "curl failed: $?"
    done | md5sum
    rm -f "$got"/*
}

# In a session of its own: prefork signals its whole process group when it
# stops, which would end this script too. setsid execs apache2 (this
# background job leads no group), so $! is the server's pid.
# Another program may take a port between the look and the bind: then
# again with other ports.
for try in 1 2 3; do
    pick_ports || die "no free port"
    base=http://127.0.0.1:$port
    write_conf
    setsid apache2 -d "$srv" -f "$srv/conf/httpd.conf" -DFOREGROUND >"$srv/logs/stdout.log" 2>&1 &
    pid=$!
    wait_generation 0 && break
    if ! grep -q 'Address already in use' "$srv/logs/stdout.log" || [ $try = 3 ]; then die "apache2 did not start"; fi
    wait "$pid"; pid=""
done
[ "$(cat "$srv/run/httpd.pid")" = "$pid" ] || die "apache2 is not pid $pid"
echo "apache2 $mpm with mod_$cgi: up"
# Under rtdd the server and its children have the runtime mapped (clean
# descendants write no exit summary, so their logs cannot show it).
if [ "${REAL_RUN:-native}" = rtdd ]; then
    for p in $pid $(ps -o pid= --ppid "$pid"); do
        grep -q librtdd /proc/$p/maps 2>/dev/null || die "apache2 process $p runs without the rtdd runtime"
    done
fi
load one 150
# Idle: every child waits for a connection (one holds the accept mutex in
# poll, its siblings wait for the mutex), the parent does its maintenance.
sleep "$idle"
curl "${copts[@]}" "$base/f.txt" | md5sum
apache2 -d "$srv" -f "$srv/conf/httpd.conf" -k graceful || die "apache2 -k graceful failed"
wait_generation 1 || die "no new generation after the graceful restart"
echo "graceful restart: generation 1"
load two 60
kill -USR1 "$pid" # the same, as a signal
wait_generation 2 || die "no new generation after SIGUSR1"
echo "graceful restart: generation 2"
load three 30
apache2 -d "$srv" -f "$srv/conf/httpd.conf" -k graceful-stop || die "apache2 -k graceful-stop failed"
for _ in $(seq 300); do alive || break; sleep 0.1; done
alive && die "apache2 did not stop in 30 s"
wait "$pid"; echo "apache2 exit status: $?"; pid=""
# What the server logged: requests by status, method and path (left out, as
# their number depends on timing: server-status polls, and the parent's
# "OPTIONS *" to itself, which wakes a child it stops), and the error log's
# levels above notice.
grep -v -e ' /server-status$' -e ' OPTIONS \*$' "$srv/logs/access.log" | sort | uniq -c
grep -o '\] \[[a-z_0-9]*:\(warn\|error\|crit\|alert\|emerg\)\]' "$srv/logs/error.log" | sort | uniq -c
