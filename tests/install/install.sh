#!/bin/bash
# make install / uninstall, end to end (issue 8, item 1):
#  1. a staged install (DESTDIR, PREFIX=/usr/local): every file, mode, symlink,
#     soname, the prefix compiled into rtdd and written into rtdd-rcu.pc;
#  2. a real install into a temporary PREFIX: the installed rtdd runs a buggy
#     program with the installed runtime (from a directory outside the build
#     tree), also when the rtdd binary is copied elsewhere (compiled-in path);
#     a program using rcu.h builds with the installed pkg-config file (shared
#     and static) and runs, also under the installed rtdd;
#  3. each man page renders with `man -l` without a warning and lists every
#     option / kind of the .def files;
#  4. uninstall leaves no file or symbolic link behind.
# Usage: install.sh BUILD_DIR      (run from the top of the source tree)
set -u
build=$1
src=$(pwd); absbuild=$(cd "$build" && pwd)
work=$(mktemp -d /tmp/rtdd-install.XXXXXX)
trap 'rm -rf "$work" "$absbuild/install/prefix$(echo "$work/prefix" | tr / _)"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
# Before install.mk is included by the top Makefile, use it as an extra makefile.
if grep -q '^ *-\?include  *install.mk' Makefile; then mk=(make --no-print-directory)
else mk=(make --no-print-directory -f Makefile -f install.mk); fi
version=$(sed -n 's/^VERSION *:= *//p' Makefile)

# ---- 1. staged install ----------------------------------------------------
dest=$work/dest; p=/usr/local; d=$dest$p
"${mk[@]}" install BUILD="$build" DESTDIR="$dest" PREFIX=$p >"$work/install.log" 2>&1 \
    || { bad "make install DESTDIR failed"; tail -20 "$work/install.log"; exit 1; }
expect_file() { # PATH MODE
    if [ ! -f "$1" ] || [ -L "$1" ]; then bad "missing $1"; return; fi
    [ "$(stat -c %a "$1")" = "$2" ] || bad "$1 has mode $(stat -c %a "$1"), expected $2"
}
expect_file "$d/bin/rtdd" 755
expect_file "$d/lib/rtdd/librtdd.so" 755
expect_file "$d/lib/librtdd_rcu.so.$version" 755
expect_file "$d/lib/librtdd_rcu.a" 644
expect_file "$d/lib/pkgconfig/rtdd-rcu.pc" 644
for h in rcu.h rculist.h rcu_debug.h annotate.h; do
    expect_file "$d/include/rtdd/$h" 644
    cmp -s "include/rtdd/$h" "$d/include/rtdd/$h" || bad "installed $h differs from include/rtdd/$h"
done
for m in man1/rtdd.1 man1/rtdd-run.1 man1/rtdd-analyze.1 man3/rtdd_rcu.3 man7/rtdd-options.7; do
    expect_file "$d/share/man/$m" 644
done
for k in $(sed -n 's/^RT_KIND([A-Z_]*, *"\([a-z-]*\)".*/\1/p' detect/report/kinds.def); do
    expect_file "$d/share/doc/rtdd/kinds/$k.md" 644
done
[ "$(readlink "$d/lib/librtdd_rcu.so.0")" = "librtdd_rcu.so.$version" ] || bad "librtdd_rcu.so.0 is not a link to librtdd_rcu.so.$version"
[ "$(readlink "$d/lib/librtdd_rcu.so")" = "librtdd_rcu.so.0" ] || bad "librtdd_rcu.so is not a link to librtdd_rcu.so.0"
readelf -d "$d/lib/librtdd_rcu.so.$version" | grep -q 'SONAME.*\[librtdd_rcu\.so\.0\]' || bad "librtdd_rcu soname is not librtdd_rcu.so.0"
grep -qx "prefix=$p" "$d/lib/pkgconfig/rtdd-rcu.pc" || bad "rtdd-rcu.pc does not say prefix=$p"
grep -qx "Version: $version" "$d/lib/pkgconfig/rtdd-rcu.pc" || bad "rtdd-rcu.pc has the wrong version"
grep -qaF "$p/lib/rtdd" "$d/bin/rtdd" || bad "the staged rtdd does not have $p/lib/rtdd compiled in"
"$d/bin/rtdd" --version | grep -qx "rtdd $version" || bad "installed rtdd --version"
# With the sysroot, the staged .pc gives the staged paths.
flags=$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$d/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs rtdd-rcu)
flags=$(echo $flags)
[ "$flags" = "-I$d/include -L$d/lib -lrtdd_rcu" ] || bad "staged pkg-config flags: '$flags'"
# Every installed file is in the list above (nothing unexpected).
n=$(cd "$dest" && find . -type f -o -type l | wc -l)
nexp=$((1 + 6 + 4 + 5 + $(ls docs/kinds/*.md | wc -l)))
ndoc=$(ls "$d/share/doc/rtdd"/*.md 2>/dev/null | wc -l)
[ "$n" -eq $((nexp + ndoc)) ] || { bad "install put $n files, expected $((nexp + ndoc))"; (cd "$dest" && find . -type f -o -type l | sort); }
ok "staged install: $n files"

# ---- 3. man pages ---------------------------------------------------------
for m in "$d"/share/man/man*/*; do
    MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$m" >"$work/man.out" 2>"$work/man.err"
    st=$?
    [ $st = 0 ] || bad "man -l $(basename "$m") exit $st"
    [ -s "$work/man.err" ] && { bad "man -l $(basename "$m") warns:"; cat "$work/man.err"; }
    grep -q '^NAME' "$work/man.out" || bad "$(basename "$m") renders no NAME section"
    grep -q '@[A-Z-]*@' "$m" && bad "$(basename "$m") still has a @PLACEHOLDER@"
done
MANWIDTH=80 man -l "$d/share/man/man7/rtdd-options.7" 2>/dev/null >"$work/opt.txt"
MANWIDTH=80 man -l "$d/share/man/man1/rtdd-run.1" 2>/dev/null >"$work/run.txt"
MANWIDTH=80 man -l "$d/share/man/man1/rtdd.1" 2>/dev/null >"$work/rtdd.txt"
for key in $(sed -n 's/^RT_OPT(\([a-z_]*\),.*/\1/p' detect/core/options.def); do
    grep -q "^       $key=value" "$work/opt.txt" || bad "rtdd-options(7) lacks $key"
    grep -q -- "^       --${key//_/-}=value" "$work/run.txt" || bad "rtdd-run(1) lacks --${key//_/-}"
done
for k in $(sed -n 's/^RT_KIND([A-Z_]*, *"\([a-z-]*\)".*/\1/p' detect/report/kinds.def); do
    grep -q "^       $k (" "$work/rtdd.txt" || bad "rtdd(1) lacks the kind $k"
done
MANPATH="$d/share/man" MANWIDTH=80 man rtdd-run 2>/dev/null | grep -q 'rtdd-run - run a program' \
    || bad "man rtdd-run does not find the installed page through MANPATH"
ok "man pages"

"${mk[@]}" uninstall BUILD="$build" DESTDIR="$dest" PREFIX=$p >"$work/uninstall.log" 2>&1 || bad "make uninstall DESTDIR failed"
left=$(cd "$dest" && find . -type f -o -type l)
[ -z "$left" ] || bad "uninstall left: $left"
for dir in lib/rtdd include/rtdd share/doc/rtdd; do [ ! -e "$d/$dir" ] || bad "uninstall left the directory $dir"; done
ok "staged uninstall"

# ---- 2. a real install into a temporary prefix ------------------------------
pre=$work/prefix
"${mk[@]}" install BUILD="$build" PREFIX="$pre" >"$work/install2.log" 2>&1 \
    || { bad "make install PREFIX=$pre failed"; tail -20 "$work/install2.log"; exit 1; }
# Nothing from the build tree may be used: run from elsewhere, with a copy of
# the test program, without RTDD_RUNTIME.
mkdir -p "$work/run"
cp "$absbuild/tests/programs/alf_same_thread" "$work/run/"
cd "$work/run" || exit 1
unset RTDD_RUNTIME RTDD_OPTIONS LD_PRELOAD
out=$("$pre/bin/rtdd" run -- sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$pre/lib/rtdd/librtdd.so" ] || bad "installed rtdd preloads '$out', expected $pre/lib/rtdd/librtdd.so"
"$pre/bin/rtdd" run -- ./alf_same_thread >"$work/alf.out" 2>&1; st=$?
[ $st = 66 ] || bad "installed rtdd run alf_same_thread: exit $st, expected 66"
grep -q 'SUMMARY: rtdd: active-lock-freed' "$work/alf.out" || { bad "no active-lock-freed report"; head "$work/alf.out"; }
grep -q "path $pre/lib/rtdd/librtdd.so" "$work/alf.out" || grep -q 'rtdd: summary: pid' "$work/alf.out" || bad "no runtime output"
ok "installed rtdd run: exit $st, report issued"
# A copy of rtdd with no runtime next to it falls back on the compiled-in $PREFIX/lib/rtdd.
mkdir -p "$work/elsewhere" && cp "$pre/bin/rtdd" "$work/elsewhere/rtdd"
out=$("$work/elsewhere/rtdd" run -- sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$pre/lib/rtdd/librtdd.so" ] || bad "a copied rtdd preloads '$out', expected the compiled-in $pre/lib/rtdd/librtdd.so"
# The analyser finds the installed kind pages for SARIF rule help.
"$pre/bin/rtdd" run --log-path="$work/run/alf.%p.log" -- ./alf_same_thread >/dev/null 2>&1
"$pre/bin/rtdd" analyze --format=sarif --output="$work/out.sarif" "$work"/run/alf.*.log >/dev/null 2>&1; st=$?
[ $st = 1 ] || bad "installed rtdd analyze: exit $st, expected 1"
grep -q 'Active lock freed\|active lock freed' "$work/out.sarif" 2>/dev/null || bad "SARIF lacks the finding"

# librtdd_rcu through pkg-config.
cat >"$work/rcuprog.c" <<'C'
#include <rtdd/rcu.h>
#include <rtdd/rculist.h>
#include <rtdd/annotate.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
struct cfg { int v; struct rcu_head rcu; };
static struct cfg *cur;
static void free_cfg(struct rcu_head *h) { free((char *)h - offsetof(struct cfg, rcu)); }
static void *reader(void *arg)
{
    long sum = 0;
    for (int i = 0; i < 100000; i++) {
        rcu_read_lock();
        struct cfg *c = rcu_dereference(cur);
        sum += c ? c->v : 0;
        rcu_read_unlock();
    }
    return (void *)sum;
}
int main(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    RTDD_LOCK_NAME(&m, "update_lock");
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    for (int i = 0; i < 1000; i++) {
        struct cfg *n = malloc(sizeof *n), *old;
        n->v = i;
        pthread_mutex_lock(&m);
        old = cur;
        rcu_assign_pointer(cur, n);
        pthread_mutex_unlock(&m);
        if (old)
            call_rcu(&old->rcu, free_cfg);
    }
    pthread_join(t, NULL);
    synchronize_rcu();
    rcu_barrier();
    free(cur);
    puts("rcu ok");
    return 0;
}
C
export PKG_CONFIG_PATH="$pre/lib/pkgconfig"
pkg-config --exists rtdd-rcu || bad "pkg-config does not find rtdd-rcu"
[ "$(pkg-config --modversion rtdd-rcu)" = "$version" ] || bad "pkg-config --modversion rtdd-rcu"
# shellcheck disable=SC2046
if cc -Wall -Werror -pthread -o "$work/rcuprog" "$work/rcuprog.c" $(pkg-config --cflags --libs rtdd-rcu) 2>"$work/cc.err"; then
    readelf -d "$work/rcuprog" | grep -q 'NEEDED.*\[librtdd_rcu\.so\.0\]' || bad "the program does not need librtdd_rcu.so.0"
    LD_LIBRARY_PATH="$pre/lib" "$work/rcuprog" | grep -q 'rcu ok' || bad "the RCU program did not run"
    LD_LIBRARY_PATH="$pre/lib" "$pre/bin/rtdd" run -- "$work/rcuprog" >"$work/rcurun.out" 2>&1; st=$?
    [ $st = 0 ] && grep -q 'rcu ok' "$work/rcurun.out" && ! grep -q 'cut here' "$work/rcurun.out" \
        || { bad "the RCU program under the installed rtdd: exit $st"; head -30 "$work/rcurun.out"; }
    ok "RCU program built with pkg-config (shared) runs, also under rtdd"
else
    bad "cannot compile an RCU program with pkg-config --cflags --libs rtdd-rcu"; cat "$work/cc.err"
fi
# Static library: --static adds Libs.private; the .so must not be needed.
# shellcheck disable=SC2046
if cc -Wall -Werror -pthread -o "$work/rcuprog-static" "$work/rcuprog.c" $(pkg-config --cflags rtdd-rcu) \
      "$pre/lib/librtdd_rcu.a" $(pkg-config --static --libs-only-other --libs-only-l rtdd-rcu | sed 's/-lrtdd_rcu//') 2>"$work/cc.err"; then
    readelf -d "$work/rcuprog-static" | grep -q 'librtdd_rcu' && bad "the static build still needs librtdd_rcu.so"
    "$work/rcuprog-static" | grep -q 'rcu ok' || bad "the statically linked RCU program did not run"
    ok "RCU program linked with librtdd_rcu.a"
else
    bad "cannot link with librtdd_rcu.a"; cat "$work/cc.err"
fi
cd "$src" || exit 1
"${mk[@]}" uninstall BUILD="$build" PREFIX="$pre" >"$work/uninstall2.log" 2>&1 || bad "make uninstall PREFIX=$pre failed"
left=$(cd "$pre" && find . -type f -o -type l)
[ -z "$left" ] || bad "uninstall left: $left"
ok "uninstall from $pre"
exit $fail
