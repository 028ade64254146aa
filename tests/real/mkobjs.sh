#!/bin/sh
# Compiles N generated C files (with debug info) into objects in DIR, for the
# linker cases. Usage: mkobjs.sh DIR N CC
set -e
dir=$1; n=$2; cc=$3
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
i=1
while [ $i -le "$n" ]; do
  { echo '#include <stdio.h>'
    j=1
    while [ $j -le 80 ]; do
      echo "int f${i}_$j(int x) { static char b[64]; snprintf(b, sizeof b, \"%d-$i-$j\", x); return b[0] + x * $j; }"
      j=$((j + 1))
    done
    # identical bodies across files: something for --icf to fold
    echo "int g$i(int x) { return x * 7 + 3; }"
  } >f$i.c
  i=$((i + 1))
done
printf '#include <stdio.h>\nint f1_1(int);\nint g2(int);\nint main(void) { printf("%%d\\n", f1_1(3) + g2(1)); return 0; }\n' >main.c
# two compilers at a time
set -- *.c
while [ $# -gt 0 ]; do
  "$cc" -c -g -O0 -ffunction-sections -fdata-sections "$1" &
  [ $# -gt 1 ] && "$cc" -c -g -O0 -ffunction-sections -fdata-sections "$2"
  wait $! || exit 1
  shift; [ $# -gt 0 ] && shift
done
ls *.o | wc -l >/dev/null
