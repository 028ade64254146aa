#!/bin/sh
# Creates a deterministic git repository in $1 (bare) with a few hundred
# commits of related files, via git fast-import. Usage: mkrepo.sh DIR GEN
set -e
dir=$1; gen=$2
rm -rf "$dir"; git init -q --bare "$dir"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in 0 1 2 3 4 5 6 7; do "$gen" 40000 $((f + 100)) >"$tmp/base$f"; done
{
  c=1
  while [ $c -le 400 ]; do
    f=$((c % 8))
    { cat "$tmp/base$f"; i=0; while [ $i -lt $((c / 8)) ]; do echo "revision $c line $i lock order $((c * i % 97))"; i=$((i + 1)); done; } >"$tmp/blob"
    printf 'commit refs/heads/main\nmark :%d\ncommitter rtdd <rtdd@example.org> %d +0000\ndata 12\ncommit %04d\n' \
      "$c" $((1700000000 + c * 60)) "$c"
    [ $c -gt 1 ] && printf 'from :%d\n' $((c - 1))
    printf 'M 100644 inline dir%d/file%d.txt\ndata %d\n' $((f % 3)) "$f" "$(wc -c <"$tmp/blob")"
    cat "$tmp/blob"; echo
    c=$((c + 1))
  done
} | git -C "$dir" fast-import --quiet
git -C "$dir" symbolic-ref HEAD refs/heads/main
