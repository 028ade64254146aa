# C++ names in the analyser, as in the runtime: rtdd's own demangler
# (detect/demangle.c), with no libstdc++ in either process. A program
# without libstdc++ (--as-needed) logged unsymbolized is symbolized offline
# into C++ names; a log whose frames, lock names and SUMMARY are mangled
# (another tool's, or an older runtime's) reads as C++ too.
. tests/analyze/lib.sh

CXX=${CXX:-g++}
$CXX -g -O1 -pthread -fno-omit-frame-pointer -std=c++17 -Wl,--as-needed -o "$WORK/cart" \
    tests/programs/cxx_as_needed.cpp -ldl || exit 1
if ldd "$WORK/cart" | grep -q libstdc++; then fail "the test program links libstdc++"; fi
if ldd "$RTDD" | grep -q libstdc++; then fail "rtdd links libstdc++"; fi

# Unsymbolized: module+offset, symbolized by the analyser.
"$RTDD" run --log-path="$WORK/raw.log" --symbolize=0 -- "$WORK/cart" >/dev/null 2>&1
grep -q '?? (32) cart+0x' "$WORK/raw.log" || fail "raw.log has symbolized frames"
run_analyze 1 --format=json "$WORK/raw.log"
json "$WORK/out" 'd["findings"][0]["stacks"][0]["frames"][0]["function"] == "shop::Cart::take_reversed(void*)"'
json "$WORK/out" '"_Z" not in json.dumps(d)'

# Mangled names throughout a text report.
"$RTDD" run --log-path="$WORK/text.log" -- "$WORK/cart" >/dev/null 2>&1
grep -q 'in shop::Cart::take_reversed(void\*)$' "$WORK/text.log" || fail "the runtime's SUMMARY is not demangled"
sed -e 's/shop::Cart::take_reversed(void\*)/_ZN4shop4Cart13take_reversedEPv/g' \
    -e 's/shop::Cart::take(void\*)/_ZN4shop4Cart4takeEPv/g' \
    -e 's/shop::items/_ZN4shopL5itemsE/g' -e 's/shop::totals/_ZN4shopL6totalsE/g' \
    "$WORK/text.log" >"$WORK/mangled.log"
grep -q '^SUMMARY: .* in _ZN4shop4Cart13take_reversedEPv$' "$WORK/mangled.log" || fail "the mangled log was not made"
run_analyze 1 --format=json --no-symbolize "$WORK/mangled.log"
json "$WORK/out" 'd["findings"][0]["stacks"][0]["frames"][0]["function"] == "shop::Cart::take_reversed(void*)"'
json "$WORK/out" '"shop::Cart::take" in d["findings"][0]["title"]'
run_analyze 1 --no-symbolize "$WORK/mangled.log"
has "$WORK/out" "cycle: shop::totals -> shop::items -> shop::totals"
hasnt "$WORK/out" "_ZN4shop"
# The same bug logged with and without mangled names is one finding.
run_analyze 1 --format=json --no-symbolize "$WORK/mangled.log" "$WORK/text.log"
json "$WORK/out" 'len(d["findings"]) == 1 and d["findings"][0]["count"] == 2'
exit $FAILED
