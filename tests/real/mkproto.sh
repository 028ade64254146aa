#!/bin/sh
# Writes an mkfs.xfs prototype file that populates a file system with
# 24 directories of 80 files each, whose contents come from SRC1 and SRC2.
# Usage: mkproto.sh SRC1 SRC2 > proto
printf '/dev/null\n0 0\nd--755 0 0\n'
d=0
while [ $d -lt 24 ]; do
  printf 'dir%02d d--755 0 0\n' $d
  f=0
  while [ $f -lt 80 ]; do
    if [ $(((d + f) % 3)) -eq 0 ]; then src=$1; else src=$2; fi
    printf 'f%03d ---644 %d %d %s\n' $f $((1000 + f)) $((1000 + d)) "$src"
    f=$((f + 1))
  done
  printf 'link l--777 0 0 f000\n$\n'
  d=$((d + 1))
done
printf '$\n'
