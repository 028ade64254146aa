# Benchmarks (not tests): `make bench` prints ratios against the peers
# measured in the same run. QUICK=1 shortens every run.
MICRO_BIN := $(BUILD)/bench/micro
ifeq ($(QUICK),1)
MICRO_ARGS := 3 5000000
else
MICRO_ARGS := 9 20000000
endif

$(MICRO_BIN): bench/micro/micro.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) -O2 -g -Wall -Wextra -Werror -pthread -o $@ $<

BENCH_TARGETS += bench-micro
.PHONY: bench-micro
bench-micro: $(MICRO_BIN) $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd
	@echo "== micro-benchmarks: native vs rtdd (medians, alternating runs)"
	@bench/micro/run.sh $(BUILD)/bin/rtdd $(MICRO_BIN) bench/results/micro.csv $(MICRO_ARGS)
