#!/bin/bash
# Fetches Debian's source packages of Valgrind and LLVM 14 (apt-get source
# --download-only) into CACHE and extracts only the test directories the peers
# suite builds into SRC: valgrind's helgrind/tests and drd/tests (with the
# headers they include) and compiler-rt/test/tsan.
# Adds a deb-src entry for bookworm main when apt has none (as root), and runs
# apt-get update only when the source index lacks a package. apt's lock may be
# held by another apt-get: every apt call is retried.
# Usage: tests/peers/fetch.sh CACHE SRC
set -euo pipefail
cache=$1; src=$2
suite=bookworm
list=/etc/apt/sources.list.d/rtdd-peers-src.sources
pkgs=(valgrind llvm-toolchain-14)

# apt-get with retries on a held lock (another apt-get or dpkg is running).
apt_retry() {
    local i out
    for i in $(seq 1 60); do
        if out=$("$@" 2>&1); then printf '%s\n' "$out"; return 0; fi
        if grep -qi 'could not get lock\|unable to lock\|unable to acquire' <<<"$out"; then
            [ "$i" = 1 ] && echo "peers: apt is locked by another process; retrying for up to 10 min" >&2
            sleep 10; continue
        fi
        printf '%s\n' "$out" >&2; return 1
    done
    echo "peers: apt stayed locked for 10 min: $*" >&2; return 1
}

has_src_index() {
    apt-get indextargets --format '$(CREATED_BY) $(CODENAME) $(COMPONENT)' 2>/dev/null |
        grep -qx "Sources $suite main"
}

# The Debian mirror the machine uses: the first deb URI for the suite in
# sources.list or a deb822 .sources file.
mirror() {
    local f uri=
    uri=$(apt-get indextargets --format '$(CREATED_BY) $(CODENAME) $(REPO_URI)' 2>/dev/null |
          awk -v s="$suite" '$1 == "Packages" && $2 == s { print $3; exit }')
    [ -n "$uri" ] || uri=http://deb.debian.org/debian/
    echo "${uri%/}"
}

if ! has_src_index; then
    if [ ! -e "$list" ]; then
        [ "$(id -u)" = 0 ] || { echo "peers: no deb-src entry for $suite main; as root, make check-peers adds $list" >&2; exit 1; }
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        { echo "# Added by rtdd's make check-peers: Debian source packages (apt-get source)."
          echo "Types: deb-src"; echo "URIs: $(mirror)"; echo "Suites: $suite"; echo "Components: main"
          [ -r "$keyring" ] && echo "Signed-By: $keyring"; } >"$list.tmp"
        mv -f "$list.tmp" "$list"
        echo "peers: added $list ($(mirror) $suite main, deb-src)"
    fi
fi
# The source index is needed when apt cannot name the source versions.
for p in "${pkgs[@]}"; do
    if ! apt-cache showsrc "$p" 2>/dev/null | grep -q '^Package:'; then
        echo "peers: apt-get update (source index)"
        apt_retry apt-get -q update >/dev/null
        break
    fi
done

# Downloads: apt-get source checks files already in CACHE against the signed
# index's hashes and downloads only what is missing or wrong.
mkdir -p "$cache"
( cd "$cache" && for p in "${pkgs[@]}"; do
      apt_retry apt-get -q source --download-only "$p" | grep '^Get:\|^Fetched\|^Skipping\|^Need to get' || true
  done ) || exit 1

# The upstream tarball apt-get source chose (the cache may hold older ones).
orig() { apt-get source --print-uris -qq "$1" | grep -o "'[^']*\.orig\.tar\.[a-z0-9]*'" | tr -d "'" | sed 's|.*/||' | head -1; }
vg=$cache/$(orig valgrind); ll=$cache/$(orig llvm-toolchain-14)
[ -f "$vg" ] && [ -f "$ll" ] || { echo "peers: no upstream tarball in $cache ($vg, $ll)" >&2; exit 1; }
# Extract the test directories from the upstream tarballs (Debian's patches
# do not touch these tests).
rm -rf "$src.tmp"; mkdir -p "$src.tmp"
tar -xaf "$vg" -C "$src.tmp" --wildcards '*/helgrind/tests/*' '*/drd/tests/*' '*/include/valgrind.h*' '*/helgrind/helgrind.h' '*/drd/drd.h'
tar -xaf "$ll" -C "$src.tmp" --wildcards '*/compiler-rt/test/tsan/*'
rm -rf "$src"; mv "$src.tmp" "$src"
echo "peers: sources in $src"
