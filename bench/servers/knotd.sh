#!/bin/bash
# knotd serving a generated zone on 127.0.0.1@PORT from a fresh directory.
# Usage: knotd.sh PORT DIR   (a row of bench/servers/run.sh)
set -eu
port=$1; dir=$2
mkdir -p "$dir"
{
    echo '$ORIGIN example.com.'
    echo '$TTL 3600'
    echo '@ SOA ns.example.com. admin.example.com. 1 3600 900 604800 300'
    echo '@ NS ns'
    echo 'ns A 192.0.2.1'
    for i in $(seq 0 999); do echo "host$i A 10.$((i / 256)).$((i % 256)).1"; done
} >"$dir/example.com.zone"
cat >"$dir/knot.conf" <<CONF
server:
    rundir: "$dir"
    listen: 127.0.0.1@$port
    udp-workers: 2
    tcp-workers: 1
    background-workers: 1
database:
    storage: "$dir"
log:
  - target: stderr
    any: warning
zone:
  - domain: example.com
    storage: "$dir"
    file: example.com.zone
CONF
exec knotd -c "$dir/knot.conf"
