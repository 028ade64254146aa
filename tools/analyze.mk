# rtdd analyze: the post-mortem log analyser (docs/analyze.md).
# Included by the top-level Makefile before tools/tools.mk, so the += below
# reach TOOL_SRCS/TOOL_ENGINE_SRCS there; TOOL_LDLIBS goes on the link line.
ANALYZE_SRCS := $(wildcard tools/analyze/*.c)
ANALYZE_ENGINE_SRCS := detect/report/kinds.c detect/report/suppress.c detect/core/rt_alloc.c detect/core/quietwrite.c detect/core/rt_fmt.c detect/report/demangle.c
ANALYZE_LIBS := -ljson-c -ldw -lelf -lz
RTDD_TOOL_SRCS += $(ANALYZE_SRCS)
TOOL_ENGINE_SRCS += detect/report/kinds.c detect/report/suppress.c detect/core/rt_alloc.c detect/core/quietwrite.c detect/report/demangle.c
TOOL_LDLIBS += $(ANALYZE_LIBS)

# The objects tools.mk builds from these sources also depend on our headers.
$(patsubst %.c,$(BUILD)/tools/%.o,$(ANALYZE_SRCS)): $(wildcard tools/analyze/*.h)

# Unit tests: the analyser's files and the engine files it uses, built with
# UNIT_CFLAGS (sanitizers with SANITIZE=1) in a directory per SANITIZE value.
ANALYZE_UNIT_DIR := $(BUILD)/unit-analyze-san$(SANITIZE)
ANALYZE_UNIT_OBJS := $(patsubst %.c,$(ANALYZE_UNIT_DIR)/%.o,$(filter-out tools/analyze/analyze.c,$(ANALYZE_SRCS)) \
                     $(ANALYZE_ENGINE_SRCS))
$(ANALYZE_UNIT_DIR)/%.o: %.c $(wildcard tools/analyze/*.h detect/*/*.h detect/*/*.def include/rtdd/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(UNIT_CFLAGS) -Itools/analyze -c $< -o $@
ANALYZE_TEST_SRCS := $(wildcard tests/unit/test_analyze*.c)
ANALYZE_TEST_BIN := $(ANALYZE_UNIT_DIR)/test_analyze
$(ANALYZE_TEST_BIN): $(ANALYZE_TEST_SRCS) $(ANALYZE_UNIT_OBJS) tests/unit/check_main.h tests/analyze/unit_helpers.h
	@echo "  LD $@"; $(CC) $(UNIT_CFLAGS) -Itests/unit -Itools/analyze -o $@ $(ANALYZE_TEST_SRCS) $(ANALYZE_UNIT_OBJS) \
	    $(UNIT_LDFLAGS) $(CHECK_LIBS) $(ANALYZE_LIBS) -lpthread

# The parser's fuzz target (libFuzzer, from Debian's clang). The engine
# files it needs use GCC's atomics on _Atomic types, which clang refuses,
# so they are compiled with $(CC) and linked in uninstrumented.
FUZZ_CC ?= clang
ANALYZE_FUZZ_SRCS := tests/analyze/fuzz_parser.c $(filter-out tools/analyze/analyze.c tools/analyze/output_%.c \
                     tools/analyze/dot_render.c tools/analyze/kinddoc.c,$(ANALYZE_SRCS))
ANALYZE_FUZZ_ENGINE_OBJS := $(patsubst detect/%.c,$(BUILD)/fuzz/engine/%.o,$(ANALYZE_ENGINE_SRCS))
$(BUILD)/fuzz/engine/%.o: detect/%.c $(wildcard detect/*/*.h detect/*/*.def include/rtdd/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -c $< -o $@
ANALYZE_FUZZ_BIN := $(BUILD)/fuzz/fuzz_parser
$(ANALYZE_FUZZ_BIN): $(ANALYZE_FUZZ_SRCS) $(ANALYZE_FUZZ_ENGINE_OBJS) $(wildcard tools/analyze/*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZ $@"; $(FUZZ_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Idetect -Itools/analyze \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $(ANALYZE_FUZZ_SRCS) \
	    $(ANALYZE_FUZZ_ENGINE_OBJS) $(ANALYZE_LIBS) -lpthread
ANALYZE_FUZZ_CORPUS := $(BUILD)/fuzz/corpus
FUZZ_SECONDS ?= 300

.PHONY: analyze-check analyze-unit analyze-e2e analyze-fuzz-short fuzz bench-analyze
CHECK_TARGETS += analyze-check
analyze-check: analyze-unit analyze-e2e analyze-fuzz-short

analyze-unit: $(ANALYZE_TEST_BIN)
	@RTDD_RESULTS=$(RESULTS) CK_VERBOSITY=silent $(ANALYZE_TEST_BIN) >$(BUILD)/logs/unit-analyze.log 2>&1 \
	  && echo "  unit: analyze passed" || { echo "  unit: analyze FAILED"; tail -30 $(BUILD)/logs/unit-analyze.log; \
	  grep -q '^FAIL analyze' $(RESULTS) || echo "FAIL analyze-unit-binary" >>$(RESULTS); }

# End-to-end: each tests/analyze/*.sh runs the real rtdd binary.
# ANALYZE_RTDD may name another rtdd binary to test.
ANALYZE_E2E := $(filter-out tests/analyze/lib.sh,$(wildcard tests/analyze/*.sh))
ANALYZE_RTDD ?= $(abspath $(BUILD)/bin/rtdd)
analyze-e2e: $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so
	@if ! $(ANALYZE_RTDD) analyze --help >/dev/null 2>&1; then \
	  echo "FAIL analyze/e2e: '$(ANALYZE_RTDD) analyze' does not run (tools/rtdd.c must dispatch to rtdd_analyze_main)" \
	    | tee -a $(RESULTS); exit 0; fi; \
	for t in $(ANALYZE_E2E); do \
	  $(RECORD) analyze/$$(basename $$t .sh) env RTDD=$(ANALYZE_RTDD) BUILD=$(BUILD) CC=$(CC) bash $$t; \
	done

# A short fuzz run from the committed seeds (the corpus it grows stays in build/).
analyze-fuzz-short: $(ANALYZE_FUZZ_BIN)
	@mkdir -p $(ANALYZE_FUZZ_CORPUS)
	@$(RECORD) analyze/fuzz-short $(ANALYZE_FUZZ_BIN) -max_total_time=20 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(BUILD)/fuzz/ \
	    -max_len=65536 -dict=tests/analyze/fuzz/report.dict $(ANALYZE_FUZZ_CORPUS) tests/analyze/fuzz/seeds

fuzz: $(ANALYZE_FUZZ_BIN)
	@mkdir -p $(ANALYZE_FUZZ_CORPUS)
	$(ANALYZE_FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
	    -artifact_prefix=$(BUILD)/fuzz/ \
	    -dict=tests/analyze/fuzz/report.dict $(ANALYZE_FUZZ_CORPUS) tests/analyze/fuzz/seeds

# Parse + de-dup throughput and peak memory on generated logs (1 GB; QUICK=1: 100 MB).
BENCH_TARGETS += bench-analyze
ANALYZE_BENCH_GEN := $(BUILD)/bench/analyze_gen
$(ANALYZE_BENCH_GEN): bench/analyze/gen_log.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -o $@ $<
bench-analyze: $(BUILD)/bin/rtdd $(ANALYZE_BENCH_GEN)
	@RTDD=$(ANALYZE_RTDD) GEN=$(ANALYZE_BENCH_GEN) QUICK=$(QUICK) bash bench/analyze/run.sh bench/results/analyze.csv
