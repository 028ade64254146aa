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
        if grep -qi 'lock' <<<"$out"; then
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
      apt_retry apt-get -q source --download-only "$p" | grep -v '^Reading\|^NOTICE\|^Please use\|^git clone\|^$' || true
  done )

# Extract the test directories from the upstream tarballs (Debian's patches
# do not touch these tests).
ver() { apt-cache showsrc "$1" | awk '/^Version:/ { v = $2 } END { sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v); print v }'; }
rm -rf "$src.tmp"; mkdir -p "$src.tmp"
vg=$cache/valgrind_$(ver valgrind).orig.tar.bz2
ll=$cache/llvm-toolchain-14_$(ver llvm-toolchain-14).orig.tar.xz
ls "$vg" "$ll" >/dev/null
tar -xjf "$vg" -C "$src.tmp" --wildcards '*/helgrind/tests/*' '*/drd/tests/*' '*/include/valgrind.h*' '*/helgrind/helgrind.h' '*/drd/drd.h'
tar -xJf "$ll" -C "$src.tmp" --wildcards '*/compiler-rt/test/tsan/*'
rm -rf "$src"; mv "$src.tmp" "$src"
echo "peers: sources in $src"; ls "$src"
