# Shared helpers of the bench scripts (sourced).
# median: of the numbers on stdin ("nan" lines are ignored; none left: nan).
median() {
    grep -v -i nan | sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# minmax: "MIN MAX" of the numbers on stdin.
minmax() {
    grep -v -i nan | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR == 0) print "nan nan"; else print lo, hi }'
}
# ratio A B: A/B with 4 significant digits, nan when either is missing.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "nan"; else printf "%.4g\n", a / b }'
}
# machine_info FILE QUICK: the machine and date of this run, as key,value lines.
machine_info() {
    {
        echo "key,value"
        echo "date,$(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "nproc,$(nproc)"
        echo "cpu,$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/,/ /g')"
        echo "kernel,$(uname -sr)"
        echo "load_at_start,$(cut -d' ' -f1-3 /proc/loadavg)"
        echo "quick,$2"
        echo "gcc,$(gcc -dumpfullversion 2>/dev/null)"
        echo "clang,$(clang --version 2>/dev/null | head -1 | sed 's/,/ /g')"
        echo "valgrind,$(valgrind --version 2>/dev/null)"
    } >"$1"
}
# val FILE [FIELD]: field FIELD (default 1) of FILE's first line; nan when FILE is missing.
val() {
    if [ -f "$1" ]; then awk -v f="${2:-1}" 'NR == 1 { print $f }' "$1"; else echo nan; fi
}
