# make check-peers: the lock tests of Valgrind (helgrind/tests, drd/tests) and
# of LLVM 14's compiler-rt (test/tsan), from Debian's source packages, built
# natively and run natively and under rtdd against tests/peers/verdicts.tsv
# (tests/peers/README.md). Results: $(BUILD)/peers-results.txt, PASS/FAIL
# lines counted by tests/summary.sh, plus XFAIL/XPASS (pending rows) and SKIP.
# PEERS_CACHE keeps the downloaded source packages; apt-get source checks them
# against the signed index on every run, so the cache may outlive make clean.
# PEERS_TESTS="tsan/Linux/mutex_robust.cpp drd/*" runs only those rows.
PEERS_RESULTS := $(BUILD)/peers-results.txt
PEERS_WORK    := $(BUILD)/peers
PEERS_CACHE   ?= $(HOME)/.cache/rtdd-peers
PEERS_TESTS   ?=
PEERS_DEPS    := cmd:gcc:gcc cmd:g++:g++ cmd:clang:clang cmd:apt-get:apt cmd:xz:xz-utils cmd:bzip2:bzip2 cmd:timeout:coreutils

.PHONY: check-peers peers-deps
peers-deps:
	@./deps.sh "make check-peers" $(PEERS_DEPS)

check-peers: peers-deps $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so
	@mkdir -p $(BUILD); rm -f $(PEERS_RESULTS); touch $(PEERS_RESULTS)
	@tests/peers/fetch.sh $(PEERS_CACHE) $(PEERS_WORK)/src || echo "FAIL peers/fetch: the source packages could not be fetched" >>$(PEERS_RESULTS)
	@[ ! -d $(PEERS_WORK)/src ] || tests/peers/run.sh $(BUILD)/bin/rtdd $(PEERS_WORK)/src tests/peers/verdicts.tsv \
	  $(PEERS_WORK) $(PEERS_RESULTS) $(PEERS_TESTS) || echo "FAIL peers/run.sh" >>$(PEERS_RESULTS)
	@for s in XFAIL XPASS SKIP; do printf '%s %s, ' "$$(grep -c "^$$s " $(PEERS_RESULTS))" $$s; done; echo "(details: $(PEERS_RESULTS))"
	@tests/summary.sh $(PEERS_RESULTS)
