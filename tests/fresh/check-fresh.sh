#!/bin/bash
# make check-fresh: the README's set-up, run as a newcomer would on a fresh
# Debian 12 (issue 26). A minimal bookworm root (make, gcc, git) made with
# mmdebstrap, cached as a tarball under /var/tmp, is unpacked afresh; the
# committed tree is cloned into it and, chrooted in a mount and pid namespace
# of its own with /proc, /dev, /sys and /tmp mounted:
#   1. a non-root user runs `make demo` and `make -j2 check`: each must stop
#      cleanly with the one `apt-get install` line (no compiler error);
#   2. root runs `make demo`, then `make -j2 check`, then `make install`:
#      each must pass the first time, and `make check` must run as many tests
#      as it ran on this (provisioned) machine.
# Usage: tests/fresh/check-fresh.sh REPO EXPECTED_RESULTS_FILE
# Environment: RTDD_FRESH_TARBALL (default /var/tmp/rtdd-fresh-bookworm.tar),
# RTDD_FRESH_WORK (default /var/tmp/rtdd-fresh-work), RTDD_FRESH_KEEP=1 keeps
# the root after a passing run (it is always kept after a failing one).
set -uo pipefail
repo=$(cd "${1:?usage: check-fresh.sh REPO EXPECTED_RESULTS}" && pwd)
expected_results=${2:?usage: check-fresh.sh REPO EXPECTED_RESULTS}
tarball=${RTDD_FRESH_TARBALL:-/var/tmp/rtdd-fresh-bookworm.tar}
work=${RTDD_FRESH_WORK:-/var/tmp/rtdd-fresh-work}
root=$work/root
logs=$work/logs
failed=0

die() { echo "check-fresh: $*" >&2; exit 1; }
now() { date +%s; }

[ "$(id -u)" = 0 ] || die "needs root (it builds a Debian root and chroots into it)"
for c in mmdebstrap unshare chroot git tar findmnt; do
    command -v "$c" >/dev/null 2>&1 || die "'$c' not found (make check-fresh installs mmdebstrap; the rest are in util-linux, coreutils, git)"
done
[ -s "$expected_results" ] || die "no results of a provisioned 'make check' in $expected_results to compare with"
expected=$(grep -c -E '^(PASS|FAIL) ' "$expected_results")
[ "$expected" -gt 0 ] || die "$expected_results holds no test results"

# A mount left under the work directory (a namespace that did not end) must
# never be followed by rm -rf.
if [ -e "$work" ]; then
    if findmnt -rn -o TARGET | grep -q "^$work/"; then
        die "$work still has mounts under it; unmount them first"
    fi
    rm -rf "$work" || die "cannot remove the previous run's $work"
fi
mkdir -p "$root" "$logs"

# The cached minimal root: the machine's own Debian sources and apt settings,
# so the root reaches the same package registry as the machine.
t0=$(now)
if ! tar -tf "$tarball" ./etc/debian_version >/dev/null 2>&1; then
    echo "check-fresh: building the minimal Debian 12 root $tarball (mmdebstrap)"
    mirror=http://deb.debian.org/debian
    [ -f /etc/apt/sources.list.d/debian.sources ] && mirror=/etc/apt/sources.list.d/debian.sources
    aptopts=()
    for f in /etc/apt/apt.conf.d/*; do
        # Only settings that decide whether the registry is reachable and trusted.
        grep -qE '^(Acquire::(Check-Valid-Until|Check-Date|https?::Proxy|http::Proxy))' "$f" 2>/dev/null &&
            aptopts+=(--aptopt="$f")
    done
    rm -f "$tarball.tmp"
    if ! mmdebstrap --format=tar --variant=apt --include=make,gcc,git,ca-certificates "${aptopts[@]}" \
            bookworm "$tarball.tmp" "$mirror" >"$logs/mmdebstrap.log" 2>&1 ||
       ! mv -f "$tarball.tmp" "$tarball"; then
        tail -20 "$logs/mmdebstrap.log"; rm -f "$tarball.tmp"
        die "mmdebstrap failed (log: $logs/mmdebstrap.log)"
    fi
fi
tar -xf "$tarball" -C "$root" || die "cannot unpack $tarball"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
echo "check-fresh: root ready in $(( $(now) - t0 )) s"

# The committed tree, as a newcomer clones it; the non-root user's own copy.
git clone -q --no-local "$repo" "$root/root/rtdd" || die "cannot clone $repo"
git clone -q --no-local "$repo" "$root/home/newcomer/rtdd" || die "cannot clone $repo"
chown -R 1000:1000 "$root/home/newcomer"

# Runs a command in the root: its own mount and pid namespaces, /proc, /dev,
# /sys and a fresh /tmp. $1 = user spec (0:0 or 1000:1000), $2 = directory.
in_root() {
    local user=$1 dir=$2; shift 2
    unshare --mount --pid --fork --propagation private /bin/sh -c '
        r=$1; u=$2; d=$3; shift 3
        mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
        mount --rbind /sys "$r/sys" && mount -t tmpfs -o mode=1777 tmpfs "$r/tmp" || exit 97
        home=/root; [ "$u" = 0:0 ] || home=/home/newcomer
        exec chroot --userspec="$u" "$r" /usr/bin/env -i HOME="$home" \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
            /bin/sh -c "cd \"$d\" && exec \"\$@\"" sh "$@"' sh "$root" "$user" "$dir" "$@"
}

# step NAME USER DIR COMMAND...: runs it, logs it, times it.
step() {
    local name=$1 user=$2 dir=$3; shift 3
    local s; s=$(now)
    in_root "$user" "$dir" "$@" >"$logs/$name.log" 2>&1
    local rc=$?
    echo "$rc" >"$logs/$name.rc"
    echo "check-fresh: $name: exit $rc after $(( $(now) - s )) s"
    return 0
}
fail() {
    local name=$1; shift
    echo "FAIL check-fresh/$name: $*"
    echo "---- last lines of $logs/$name.log ----"; tail -25 "$logs/$name.log" | sed 's/^/    /'
    failed=1
}
rc() { cat "$logs/$1.rc"; }

# 1. Non-root, no packages: one apt-get line and a clean stop, for each command.
for s in "demo:make demo" "j2check:make -j2 check"; do
    name=nonroot-${s%%:*}
    step "$name" 1000:1000 /home/newcomer/rtdd ${s#*:}
    if [ "$(rc "$name")" = 0 ]; then fail "$name" "succeeded without the build dependencies"
    elif ! grep -q '^    sudo apt-get install ' "$logs/$name.log"; then fail "$name" "no 'sudo apt-get install' line"
    elif [ "$(grep -c 'apt-get install' "$logs/$name.log")" != 1 ]; then fail "$name" "the apt-get line is printed more than once"
    elif grep -qE 'error:|undefined reference|\.h: No such file' "$logs/$name.log"; then fail "$name" "compiler errors instead of a clean stop"
    else echo "PASS check-fresh/$name: $(grep -c . "$logs/$name.log") lines, the last:"
         tail -3 "$logs/$name.log" | sed 's/^/    /'; fi
done

# 2. Root: the README's commands, in a newcomer's order.
t_setup=$(now)
step root-demo 0:0 /root/rtdd make demo
t_demo=$(( $(now) - t_setup ))
if [ "$(rc root-demo)" != 0 ]; then fail root-demo "make demo failed"
elif ! grep -q 'exit status 66: rtdd reported the bug' "$logs/root-demo.log"; then fail root-demo "no report from the demo"
else echo "PASS check-fresh/root-demo"; fi

t_check=$(now)
step root-j2check 0:0 /root/rtdd make -j2 check
t_check=$(( $(now) - t_check ))
results=$root/root/rtdd/build/test-results.txt
ran=$(grep -c -E '^(PASS|FAIL) ' "$results" 2>/dev/null)
ran=${ran:-0}
if [ "$(rc root-j2check)" != 0 ]; then fail root-j2check "make -j2 check failed ($ran tests ran)"
elif [ "$ran" != "$expected" ]; then
    fail root-j2check "ran $ran tests, the provisioned machine ran $expected"
    diff <(sed -n 's/^\(PASS\|FAIL\) //p' "$expected_results" | sort) \
         <(sed -n 's/^\(PASS\|FAIL\) //p' "$results" | sort) | grep '^[<>]' | head -20 | sed 's/^/    /'
else echo "PASS check-fresh/root-j2check ($ran tests, as on this machine)"; fi

step root-install 0:0 /root/rtdd make install PREFIX=/usr/local
if [ "$(rc root-install)" != 0 ]; then fail root-install "make install failed"
elif ! in_root 0:0 / sh -c 'rtdd --version && man -w rtdd-options' >"$logs/root-installed.log" 2>&1; then
    fail root-installed "the installed rtdd or its man page is missing"
else echo "PASS check-fresh/root-install"; fi

echo "check-fresh: a fresh machine's set-up (make demo, deps included) took $t_demo s;" \
     "make -j2 check after it took $t_check s"
if [ "$failed" != 0 ]; then
    echo "check-fresh: FAILED; the root and logs are kept in $work"
    exit 1
fi
[ "${RTDD_FRESH_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "check-fresh: passed"
