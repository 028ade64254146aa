#!/bin/sh
# make check-real: real multi-threaded programs from Debian packages, each run
# natively and under rtdd on inputs generated here; a case passes when the
# output, the exit status are the same and rtdd reported nothing
# (tests/real/compare.sh). See tests/real/README.md for the list and the
# findings.
# Usage: tests/real/run.sh RTDD RESULTS WORKDIR [CASE...]
#   CC and CFLAGS come from the environment (make passes them).
set -u
rtdd=$(realpath "$1"); results=$(realpath "$2"); work=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
record=$here/../record.sh
CC=${CC:-cc}
RCFLAGS="-O2 -g -Wall -Wextra -Werror -pthread -fno-omit-frame-pointer"

rm -rf "$work"; mkdir -p "$work/data" "$work/bin"
work=$(realpath "$work"); data=$work/data; bin=$work/bin
: >"$work/times.txt"

# A fixed environment: same locale, time zone and configuration each run.
export PATH="$PATH:/usr/sbin:/sbin" LC_ALL=C TZ=UTC HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME"
PY=/usr/bin/python3   # Debian's python3, not whatever is first in PATH

# liburcu's own examples (liburcu-dev), built without _LGPL_SOURCE so that
# their pointer operations are the library's exported functions: every list,
# hash table, queue and stack of liburcu-cds, and each RCU flavour.
urcu_examples=/usr/share/doc/liburcu-dev/examples
build_urcu_examples() {
    mkdir -p "$bin/urcu-ex" || return 1
    for src in "$urcu_examples"/*/*.c; do
        lib=-lurcu
        case $src in
        */urcu-flavors/qsbr.c) lib=-lurcu-qsbr ;; */urcu-flavors/mb.c) lib=-lurcu-mb ;;
        */urcu-flavors/bp.c) lib=-lurcu-bp ;; */urcu-flavors/signal.c) lib=-lurcu-signal ;;
        */urcu-flavors/membarrier.c) lib=-lurcu-memb ;;
        esac
        $CC -O1 -g -pthread -o "$bin/urcu-ex/$(basename "$src" .c)" "$src" $lib -lurcu-cds -lurcu-common || return 1
    done
}

# ---- inputs and helper programs (built and generated natively) ----
setup() {
    $CC $RCFLAGS -o "$bin/gen" "$here/gen.c" &&
    $CC $RCFLAGS -o "$bin/sqlite_threads" "$here/sqlite_threads.c" -lsqlite3 &&
    $CC $RCFLAGS -o "$bin/urcu_table" "$here/urcu_table.c" -lurcu-cds -lurcu &&
    build_urcu_examples &&
    "$bin/gen" 6000000 1 >"$data/in6.dat" &&
    "$bin/gen" 3000000 2 >"$data/in3.dat" &&
    "$bin/gen" 20000 7 >"$data/s1" && "$bin/gen" 70000 8 >"$data/s2" &&
    "$here/mkproto.sh" "$data/s1" "$data/s2" >"$data/proto" &&
    "$here/mkrepo.sh" "$data/repo.git" "$bin/gen" &&
    rm -rf "$data/packed.git" && cp -r "$data/repo.git" "$data/packed.git" &&
    git -C "$data/packed.git" repack -adfq --threads=1 --window=20 &&
    cp "$data"/packed.git/objects/pack/*.pack "$data/pk.pack" &&
    "$here/mkobjs.sh" "$data/objs" 40 "$CC" &&
    truncate -s 512M "$data/xfs.img" &&
    mkfs.xfs -q -f -m uuid=8a3f4f5e-1111-4222-8333-944455556666 -d agcount=4 -p "$data/proto" "$data/xfs.img"
}

# ---- the cases: NAME and a shell command run in $work/NAME ----
# Every command recreates its outputs, prints what it produced (checksums),
# and must behave identically natively and under rtdd. Output that worker
# threads print in scheduling order (xfs_repair's per-AG lines) is sorted, and
# so are the words of liburcu's examples (its hash tables print in an order
# that changes from run to run). The Apache cases idle 45 s under rtdd (not
# natively), longer than hang_timeout_ms, with hang_severity=warning as the
# user guide recommends for CI (tests/real/apache.sh).
cases() {
cat <<EOF2
xz	xz -T2 -1 --block-size=256KiB -c $data/in6.dat >o.xz && xz -T2 -d -c o.xz | md5sum && xz -l o.xz | tail -n +2 && md5sum o.xz
zstd	zstd -q -f -T2 -3 -B262144 $data/in6.dat -o o.zst && zstd -q -T2 -d -c o.zst | md5sum && md5sum o.zst
pigz	pigz -p 2 -b 128 -c $data/in6.dat >o.gz && pigz -p 2 -d -c o.gz | md5sum && pigz -l o.gz | tail -n +2 && md5sum o.gz
pbzip2	pbzip2 -p2 -b3 -c $data/in3.dat >o.bz2 && pbzip2 -p2 -d -c o.bz2 | md5sum && md5sum o.bz2
lbzip2	lbzip2 -n 2 -c $data/in3.dat >o.bz2 && lbzip2 -n 2 -d -c o.bz2 | md5sum && md5sum o.bz2
plzip	plzip -n 2 -1 -B 256KiB -c $data/in6.dat >o.lz && plzip -n 2 -d -c o.lz | md5sum && plzip -n 2 -t o.lz && md5sum o.lz
7zip	rm -f o.7z && 7zz a -bd -bso0 -mmt2 -mx1 -m0=lzma2:d=256k o.7z $data/in6.dat && 7zz t -bd -mmt2 o.7z | grep -e '^Size' -e '^Compressed' -e '^Everything' && rm -rf x && 7zz x -bd -bso0 -mmt2 -ox o.7z && md5sum x/in6.dat o.7z
sort	sort --parallel=2 $data/in6.dat | md5sum && sort --parallel=2 -n -r -k1,1 $data/in6.dat | md5sum
sqlite3	rm -f db.sq && sqlite3 db.sq <$here/sqlite.sql
sqlite-threads	$bin/sqlite_threads t.db
python3	$PY -I $here/threads.py
git-index-pack	rm -f pk.pack pk.idx && cp $data/pk.pack . && git index-pack --threads=2 pk.pack && md5sum pk.idx && git verify-pack -s pk.idx
git-repack	rm -rf r.git && cp -r $data/repo.git r.git && git -C r.git repack -adfq --threads=2 --window=20 && git -C r.git fsck --full --no-progress --strict && git -C r.git rev-list --objects --all | md5sum && git -C r.git count-objects -v | grep -v size && git -C r.git log --format='%H %s' | md5sum
xfsprogs	cp --sparse=always $data/xfs.img x.img && xfs_repair -n -P -f x.img >r1.txt 2>&1 && xfs_repair -P -f x.img >r2.txt 2>&1 && sort r1.txt && sort r2.txt && xfs_db -r -c 'sb 0' -c 'p icount ifree fdblocks' -c 'ls /dir03' x.img | md5sum && rm -f x.img
urcu-table	$bin/urcu_table
urcu-examples	for e in $bin/urcu-ex/*; do echo "\$(basename \$e)"; \$e | tr " " "\\n" | sort | md5sum; done
lld	rm -f a.out && $CC -fuse-ld=lld -Wl,--threads=2 -Wl,--gdb-index -Wl,--build-id=sha1 -Wl,--gc-sections -Wl,--icf=all -o a.out $data/objs/*.o && ./a.out && md5sum a.out
gold	rm -f a.out && $CC -fuse-ld=gold -Wl,--threads -Wl,--thread-count=2 -Wl,--gdb-index -Wl,--build-id=sha1 -Wl,--gc-sections -Wl,--icf=all -o a.out $data/objs/*.o && ./a.out && md5sum a.out
perl	perl $here/threads.pl
gstreamer	gst-launch-1.0 -q videotestsrc num-buffers=300 ! video/x-raw,width=320,height=240 ! queue ! videoconvert ! video/x-raw,format=I420 ! queue ! filesink location=v.yuv && md5sum v.yuv && gst-launch-1.0 -q audiotestsrc num-buffers=300 ! queue ! audioconvert ! audio/x-raw,format=S16LE ! queue ! filesink location=a.pcm && md5sum a.pcm && rm -f v.yuv a.pcm
gio	gio list -l -a standard::size /usr/share/doc/git /usr/share/doc/xz-utils | sort | md5sum && gio info -a standard::size $data/in6.dat | grep size && gio copy $data/in6.dat c.dat && md5sum c.dat && rm -f c.dat
idle-stdin	(sleep 3; cat $data/in6.dat) | RTDD_OPTIONS="\$RTDD_OPTIONS:hang_timeout_ms=1000" pigz -p 2 -b 128 -c | pigz -d -c | md5sum && (sleep 3; cat $data/in6.dat) | RTDD_OPTIONS="\$RTDD_OPTIONS:hang_timeout_ms=1000" xz -T2 -1 --block-size=256KiB -c | md5sum
apache-worker	RTDD_OPTIONS="\$RTDD_OPTIONS:hang_severity=warning" $here/apache.sh worker cgi 45
apache-prefork	RTDD_OPTIONS="\$RTDD_OPTIONS:hang_severity=warning" $here/apache.sh prefork cgi 45
apache-worker-cgid	RTDD_OPTIONS="\$RTDD_OPTIONS:hang_severity=warning" $here/apache.sh worker cgid 0
EOF2
}

if ! setup >"$work/setup.log" 2>&1; then
    echo "FAIL real/setup" >>"$results"; echo "FAIL real/setup (log: $work/setup.log)"; tail -20 "$work/setup.log"
    exit 1
fi

cases | while IFS='	' read -r name cmd; do
    if [ $# -gt 0 ]; then
        sel=0; for c in "$@"; do [ "$c" = "$name" ] && sel=1; done
        [ $sel -eq 1 ] || continue
    fi
    mkdir -p "$work/$name"
    case $name in python3) status=3 ;; perl) status=5 ;; *) status=0 ;; esac
    EXPECT_STATUS=$status "$record" "$results" "real/$name" "$here/compare.sh" "$rtdd" "$work/$name" "$name" "$cmd"
done
echo "wall-clock seconds (native, rtdd): $work/times.txt"
