# Benchmarks (not tests; never part of `make check`): `make bench` measures
# rtdd against native, ThreadSanitizer, Helgrind and DRD in one run, writes
# bench/results/{machine,micro,real}.csv and regenerates docs/performance.md
# (+ docs/performance.svg) from all the CSVs, rcu.csv included (bench-rcu
# runs first: rcu/rcu.mk is included before this file). QUICK=1: short run.
# Needs (Debian): valgrind, clang, gnuplot-nox (in DEPS), and the real rows'
# programs below (bench-deps installs them first).
BENCH_DIR  := $(BUILD)/bench
MICRO_BIN  := $(BENCH_DIR)/micro
MICRO_TSAN := $(BENCH_DIR)/micro-tsan
GMUTEX_BIN := $(BENCH_DIR)/gmutex
MEASURE    := $(BENCH_DIR)/measure
REAL_GEN   := $(BENCH_DIR)/gen
BENCH_CC   := $(CC) -O2 -g -Wall -Wextra -Werror

$(MICRO_BIN): bench/micro/micro.c bench/micro/hold.h
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) -pthread -o $@ $<

# The same source rebuilt with ThreadSanitizer.
$(MICRO_TSAN): bench/micro/micro.c bench/micro/hold.h
	@mkdir -p $(dir $@)
	@echo "  CLANG $@"; clang -O2 -g -Wall -Wextra -Werror -fsanitize=thread -pthread -o $@ $<

# GLib's GMutex (libglib2.0-dev: the tests' deps step installs it).
$(GMUTEX_BIN): bench/micro/gmutex.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) $(GLIB_CFLAGS) -pthread -o $@ $< $(GLIB_LIBS)

$(MEASURE): bench/micro/measure.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) -o $@ $<

$(REAL_GEN): bench/real/gen.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) -o $@ $<

# SQLite as a library, 4 threads (Debian's libsqlite3, from libsqlite3-dev:
# bench-deps installs it); the TSan build instruments the program only, the
# library is Debian's as it is (its mutexes and allocations are intercepted).
SQLITE_THREADS      := $(BENCH_DIR)/sqlite_threads
SQLITE_THREADS_TSAN := $(BENCH_DIR)/sqlite_threads-tsan
$(SQLITE_THREADS): bench/real/sqlite_threads.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) $$(pkg-config --cflags sqlite3) -pthread -o $@ $< $$(pkg-config --libs sqlite3)
$(SQLITE_THREADS_TSAN): bench/real/sqlite_threads.c
	@mkdir -p $(dir $@)
	@echo "  CLANG $@"; clang -O2 -g -Wall -Wextra -Werror -fsanitize=thread $$(pkg-config --cflags sqlite3) -pthread \
	    -o $@ $< $$(pkg-config --libs sqlite3)

BENCH_DEPS := cmd:xz:xz-utils cmd:zstd:zstd cmd:pigz:pigz cmd:sqlite3:sqlite3 cmd:taskset:util-linux \
              cmd:memcached:memcached cmd:memcslap:libmemcached-tools cmd:redis-server:redis-server \
              cmd:redis-benchmark:redis-tools cmd:knotd:knot cmd:kdig:knot-dnsutils cmd:dnsperf:dnsperf \
              pc:sqlite3:libsqlite3-dev
.PHONY: bench-deps
bench-deps:
	@./deps.sh "make bench" $(BENCH_DEPS)

BENCH_TARGETS += bench-micro bench-real bench-servers bench-report
.PHONY: bench-micro bench-real bench-servers bench-report bench-tools

bench-tools: $(MICRO_BIN) $(MICRO_TSAN) $(GMUTEX_BIN) $(MEASURE) $(REAL_GEN) $(SQLITE_THREADS) $(SQLITE_THREADS_TSAN) \
             $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd \
             $(BENCH_DIR)/rcubench-rtdd-dyn

bench-micro: bench-tools
	@. bench/micro/common.sh && machine_info bench/results/machine.csv $(QUICK)
	@echo "== micro-benchmarks: native vs rtdd vs ThreadSanitizer vs Helgrind vs DRD"
	@RTDD=$(BUILD)/bin/rtdd QUICK=$(QUICK) bench/micro/run.sh $(BENCH_DIR) bench/results/micro.csv

bench-real: bench-tools
	@echo "== real programs: native vs rtdd vs ThreadSanitizer (SQLite library rows) vs Helgrind vs DRD"
	@RTDD=$(BUILD)/bin/rtdd QUICK=$(QUICK) bench/real/run.sh $(BENCH_DIR) bench/results/real.csv

bench-servers: $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd
	@echo "== real servers: native vs rtdd (wall, server CPU, peak RSS)"
	@RTDD=$(BUILD)/bin/rtdd QUICK=$(QUICK) bench/servers/run.sh bench/results/servers.csv

bench-report:
	@bench/report.sh bench/results docs/performance.md docs/performance.svg

# What record mode's inline recording costs by itself, with no runtime
# behind it (docs/design.md, "Known limitations"); not part of `make bench`.
RECORD_AB := $(BENCH_DIR)/record_ab
$(RECORD_AB): bench/rcu/record_ab.c $(wildcard include/rtdd/*.h) $(BUILD)/lib/librtdd_rcu.so
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(BENCH_CC) -Iinclude -o $@ $< -L$(BUILD)/lib -lrtdd_rcu -Wl,-rpath,$(abspath $(BUILD)/lib)

.PHONY: bench-rcu-record
bench-rcu-record: $(RECORD_AB)
	@for i in 1 2 3; do taskset -c 0 $(RECORD_AB) || exit 1; done
