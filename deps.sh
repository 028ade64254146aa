#!/bin/sh
# The deps step of every make entry point (make deps, check-real's and
# bench's own lists): finds the Debian packages that are missing, installs
# them with apt-get when run as root, and otherwise prints the one
# `apt-get install` line to run and fails.
# Usage: deps.sh WHAT SPEC...   WHAT names the step in messages; a SPEC is
#   cmd:COMMAND:PACKAGE   a command on PATH (or in /usr/sbin, /sbin)
#   pc:MODULE:PACKAGE     a pkg-config module
#   py:MODULE:PACKAGE     a module of Debian's /usr/bin/python3 (a python3
#                         earlier in PATH says nothing about that one's)
#   file:PATH:PACKAGE     a file (a plugin no command or module names)
what=$1; shift
PATH=$PATH:/usr/sbin:/sbin
have_pkgconfig=0; command -v pkg-config >/dev/null 2>&1 && have_pkgconfig=1
missing=""
add() { case " $missing " in *" $1 "*) ;; *) missing="${missing:+$missing }$1" ;; esac; }
for spec in "$@"; do
    kind=${spec%%:*}; rest=${spec#*:}; name=${rest%%:*}; pkg=${rest#*:}
    case $kind in
    cmd) command -v "$name" >/dev/null 2>&1 || add "$pkg" ;;
    pc)  if [ $have_pkgconfig = 1 ]; then pkg-config --exists "$name" 2>/dev/null || add "$pkg"
         else add pkg-config; add "$pkg"; fi ;;
    py)  /usr/bin/python3 -c "import $name" >/dev/null 2>&1 || add "$pkg" ;;
    file) [ -e "$name" ] || add "$pkg" ;;
    *)   echo "deps.sh: bad spec '$spec' (cmd:, pc:, py: or file:)" >&2; exit 2 ;;
    esac
done
[ -z "$missing" ] && exit 0
log=${TMPDIR:-/tmp}/rtdd-deps.log
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "rtdd: installing the packages $what needs: $missing"
    # Another apt-get (a second make, unattended-upgrades) may hold the dpkg
    # or lists lock: wait for it, and try again a few times.
    wait_lock="-o DPkg::Lock::Timeout=300"
    for try in 1 2 3; do
        # shellcheck disable=SC2086
        if (apt-get $wait_lock update -qq && DEBIAN_FRONTEND=noninteractive apt-get $wait_lock install -y -qq $missing) >"$log" 2>&1; then
            exit 0
        fi
        grep -qi 'lock' "$log" || break
        echo "rtdd: apt-get found its lock held (try $try of 3); waiting"; sleep 20
    done
    tail -5 "$log"; echo "rtdd: apt-get failed, see $log"; exit 1
fi
echo "rtdd: $what needs packages that are missing. Install them with:"
echo "    sudo apt-get install $missing"
exit 1
