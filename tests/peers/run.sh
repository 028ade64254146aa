#!/bin/bash
# make check-peers, after fetch.sh: builds the peers' test programs named in
# the verdict table natively (gcc/g++ -pthread, no sanitizer), runs each
# natively and under `rtdd run`, and checks both against the table.
# Usage: tests/peers/run.sh RTDD SRC TABLE WORK RESULTS [NAME-GLOB...]
# Writes one line per table row to RESULTS: PASS, FAIL, XFAIL (a pending row
# that still fails), XPASS (a pending row that now passes) or SKIP.
set -u
rtdd=$1; src=$2; table=$3; work=$4; results=$5; shift 5
only=("$@")
here=$(cd "$(dirname "$0")" && pwd)
rtdd=$(realpath "$rtdd"); work=$(realpath -m "$work"); results=$(realpath -m "$results")
vg=$(ls -d "$src"/valgrind-*/ | head -1); vg=${vg%/}
ts=$(ls -d "$src"/llvm-toolchain-*/compiler-rt/test/tsan | head -1)
native_timeout=${PEERS_TIMEOUT:-10}
mkdir -p "$work/bin" "$work/runs" "$(dirname "$results")/logs"; rm -f "$work/observed.tsv"

# Our stand-ins for the headers the peers' build systems provide.
cp "$here/compat/config.h" "$vg/config.h"
cp "$here/compat/test.h" "$ts/test.h"
mkdir -p "$work/lib"
[ "$work/lib/libpeer_annotations.so" -nt "$here/compat/annotations.c" ] ||
    gcc -shared -fPIC -O1 -o "$work/lib/libpeer_annotations.so" "$here/compat/annotations.c"

info_kinds=$(sed -n 's/^RT_KIND([A-Z0-9_]*, *"\([^"]*\)", *INFO,.*/\1/p' "$here/../../detect/report/kinds.def")
is_info() { printf '%s\n' $info_kinds | grep -qx -- "$1"; }

# The rows: suite, test, source, args, class, exit, verdict, state (comments and blank lines dropped).
rows() { grep -v '^#' "$table" | grep -v '^[[:space:]]*$'; }
selected() {
    [ ${#only[@]} -eq 0 ] && return 0
    local g; for g in "${only[@]}"; do [[ "$1/$2" == $g ]] && return 0; done; return 1
}
root_of() { case $1 in tsan) echo "$ts";; *) echo "$vg";; esac; }
bin_of() { local s=${2%.*}; echo "$work/bin/$1/${s//\//_}"; }

# Build every source of a row that runs, two compilers at a time.
build_one() {
    local suite=$1 rel=$2 root out log
    root=$(root_of "$suite"); out=$(bin_of "$suite" "$rel"); log=$out.build.log
    mkdir -p "$(dirname "$out")"
    [ "$out" -nt "$root/$rel" ] && [ "$out" -nt "$here/compat/test.h" ] && [ "$out" -nt "$work/lib/libpeer_annotations.so" ] && [ "$out" -nt "$here/compat/config.h" ] && return 0
    # Valgrind's tests build with gcc and its configure's platform macros;
    # compiler-rt's with clang (they use its __c11_atomic builtins).
    local cc=(gcc -std=gnu11) inc=(-I"$vg" -I"$vg/include" -I"$vg/$suite/tests" -DVGO_linux=1 -DVGA_amd64=1 -DVGP_amd64_linux=1)
    case $rel in *.cpp) cc=(g++ -std=gnu++17);; esac
    if [ "$suite" = tsan ]; then
        inc=(-I"$root"); cc=(clang); case $rel in *.cpp) cc=(clang++ -std=gnu++17);; esac
    fi
    local ann=(); [ "$suite" = tsan ] && ann=(-L"$work/lib" -lpeer_annotations -Wl,-rpath,"$work/lib")
    "${cc[@]}" -O1 -g -pthread -w "${inc[@]}" -o "$out" "$root/$rel" "${ann[@]}" -lrt -ldl -lm >"$log" 2>&1 ||
        { echo "build failed: $suite/$rel" >>"$log"; rm -f "$out"; }
}
export -f build_one root_of bin_of; export ts vg work here
rows | awk -F'\t' '$8 !~ /^skip/ { print $1 "\t" $3 }' | sort -u |
    xargs -P 2 -d '\n' -n 1 bash -c 'IFS=$'"'\t'"' read -r s r <<<"$0"; build_one "$s" "$r"'

# One run under rtdd: "EXIT KINDS" (KINDS sorted, unique, comma-separated, or "-"),
# headlines of the reports in $dir/headlines.
rtdd_run() {
    local dir=$1 bin=$2 limit=$3; shift 3
    rm -rf "$dir"; mkdir -p "$dir"
    ( cd "$dir" && timeout -k 5 "$limit" "$rtdd" run --log-path="$dir/rtdd.%p.log" -- "$bin" "$@" \
        </dev/null >"$dir/out" 2>"$dir/err" ) 2>/dev/null
    local st=$? kinds
    kinds=$(cat "$dir"/rtdd.*.log 2>/dev/null | sed -n 's/^SUMMARY: rtdd: \([^ ]*\) .*/\1/p' | sort -u | paste -sd, -)
    cat "$dir"/rtdd.*.log 2>/dev/null | awk '/cut here/ { getline; print }' | sort | uniq -c >"$dir/headlines"
    echo "$st ${kinds:--}"
}

record() {  # record STATUS NAME DETAIL
    echo "$1 $2${3:+ ($3)}" >>"$results"
    case $1 in PASS|SKIP) ;; *) echo "$1 $2${3:+ ($3)}";; esac
}

run_rows() {
while IFS=$'\t' read -r suite test rel args class want_exit verdict state; do
    selected "$suite" "$test" || continue
    name=peers/$suite/$test
    case $state in skip*) record SKIP "$name" "${state#skip=}"; continue;; esac
    bin=$(bin_of "$suite" "$rel")
    if [ ! -x "$bin" ]; then record FAIL "$name" "did not build: $bin.build.log"; continue; fi
    argv=(); [ "$args" = - ] || read -r -a argv <<<"$args"
    dir=$work/runs/$suite/${test//\//_}; mkdir -p "$dir"
    # Native: twice (once for a program that hangs, exit 124 from timeout).
    t0=$(date +%s.%N)
    # A native exit column may list what a racy program gives: "0|124" (a
    # real deadlock that happens in some runs); the first is the usual one.
    alts=${want_exit//|/ }; want_exit=${alts%% *}
    nat=""; n=2; [ "$want_exit" = 124 ] && n=1
    for i in $(seq 1 $n); do
        ( cd "$dir" && timeout -k 5 "$native_timeout" "$bin" "${argv[@]}" </dev/null >"$dir/native.out" 2>"$dir/native.err" ) 2>/dev/null
        nat="$nat $?"
    done
    nat=${nat# }
    limit=$((native_timeout + 20)); [ "$want_exit" = 124 ] && limit=$native_timeout
    read -r rst rkinds < <(rtdd_run "$dir/rtdd" "$bin" "$limit" "${argv[@]}")
    # What the table asks for under rtdd: kinds and exit status.
    # KIND? in a verdict: a kind the program may or may not give (a real
    # deadlock that happens only in some interleavings).
    if [ "$verdict" = clean ]; then want=""; else want=${verdict#finds }; want=${want//,/ }; fi
    wkinds=$(printf '%s\n' $want | grep -v '?$' | sort -u | paste -sd, -); wkinds=${wkinds:--}
    maybe=$(printf '%s\n' $want | sed -n 's/?$//p')
    # The kinds rtdd gave, less the optional ones: must be exactly the required ones.
    drop=(-e -); for k in $maybe; do drop+=(-e "$k"); done
    gkinds=$(printf '%s\n' ${rkinds//,/ } | grep -vxF "${drop[@]}" | sort -u | paste -sd, -); gkinds=${gkinds:--}
    wst=$want_exit
    for k in ${wkinds//,/ }; do [ "$k" = - ] || is_info "$k" || wst=66; done
    # A program that hangs (124) or that a signal kills natively may end the
    # same way after rtdd's report, or be ended by rtdd (a proven deadlock).
    also=""; for a in $alts; do { [ "$a" = 124 ] || [ "$a" -gt 128 ]; } && also="$also $a"; done; also=${also# }
    why=""
    for e in $nat; do
        case " $alts " in *" $e "*) ;; *) why="native exit $nat, table says ${alts// /|}" ;; esac
    done
    nat_ok=${why:+no}
    # Native runs that disagree with each other, outside what the table
    # lists, judge nothing about rtdd: said, not counted as rtdd's failure.
    set -- $nat
    if [ -n "$why" ] && [ $# -gt 1 ] && [ "$1" != "$2" ]; then
        record SKIP "$name" "nondeterministic natively in this run (exits $nat, table says ${alts// /|})"
        continue
    fi
    [ "$gkinds" = "$wkinds" ] || why="${why:+$why; }rtdd reported [$rkinds], table says [${verdict#finds }]"
    case " $wst $also " in *" $rst "*) ;; *) why="${why:+$why; }rtdd exit $rst, expected $wst${also:+ or ${also// / or }}" ;; esac
    seen="rtdd exit $rst, kinds [$rkinds]"
    heads=$(sed 's/^ *//' "$dir/rtdd/headlines" | paste -sd'|' -)
    if [ -z "$why" ]; then
        case $state in pending*) record XPASS "$name" "${state#pending=}: now passes: $seen";; *) record PASS "$name";; esac
    elif [ -z "$nat_ok" ] && [[ $state == pending* ]]; then
        record XFAIL "$name" "${state#pending=}: $why; ${heads}"
    else
        record FAIL "$name" "$why; ${heads}"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n' "$suite" "$test" "$nat" "$rst" "$rkinds" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$heads" >>"$work/observed.tsv"
done
}
# Two rows at a time (the machine's two cores); each row's runs stay in order.
rows | awk 'NR % 2 == 1' | run_rows &
rows | awk 'NR % 2 == 0' | run_rows
wait
exit 0
