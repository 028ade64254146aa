# make check-stress: the reliability suite (issue 8 item 4). Not part of
# `make check` (it takes a few minutes); results go to $(STRESS_RESULTS) as
# PASS/FAIL lines, closed by tests/summary.sh's "N passed, N failed".
STRESS_DIR     := $(BUILD)/tests/stress
STRESS_PROGS   := fork_storm exec_chain signal_storm ten_k_threads dlopen_storm report_storm reporter exit_race \
                  duplicate_exit exit_report_race
STRESS_BINS    := $(addprefix $(STRESS_DIR)/,$(STRESS_PROGS)) $(STRESS_DIR)/libstress_dl.so $(STRESS_DIR)/libstress_dl2.so \
                  $(STRESS_DIR)/rcu_torture_dyn
STRESS_RESULTS := $(BUILD)/stress-results.txt
STRESS_CASES   := fork-storm exec-chain signal-storm ten-k-threads dlopen-storm exit-race duplicate-exit exit-report-race \
                  kill-after-reports \
                  report-storm log-full-disk log-unwritable secure-getenv rcu-torture
STRESS_TIMEOUT ?= 120
STRESS_CFLAGS  := -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -pthread -fno-omit-frame-pointer

$(STRESS_DIR)/%: tests/stress/%.c tests/stress/freers.h
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(STRESS_CFLAGS) -o $@ $< -ldl
# librtdd_rcu's torture, linked with the shared library so that rtdd checks it.
$(STRESS_DIR)/rcu_torture_dyn: rcu/tests/torture_main.c tools/torture.c tools/torture.h $(BUILD)/lib/librtdd_rcu.so
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -Itools -o $@ rcu/tests/torture_main.c tools/torture.c \
	    -L$(BUILD)/lib -lrtdd_rcu -Wl,-rpath,$(abspath $(BUILD)/lib) -lpthread
$(STRESS_DIR)/libstress_dl.so $(STRESS_DIR)/libstress_dl2.so: tests/stress/lib/stress_dl.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(STRESS_CFLAGS) -fPIC -shared -o $@ $<

.PHONY: check-stress stress-programs
stress-programs: $(STRESS_BINS)
check-stress: $(STRESS_BINS) $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd
	@mkdir -p $(BUILD)/logs; rm -f $(STRESS_RESULTS); touch $(STRESS_RESULTS)
	@for c in $(STRESS_CASES); do \
	  tests/record.sh $(STRESS_RESULTS) stress/$$c timeout -k 10 $(STRESS_TIMEOUT) \
	    tests/stress/stress.sh $$c $(BUILD)/bin/rtdd $(STRESS_DIR) $(abspath $(BUILD)/lib/librtdd.so); \
	done
	@echo "durations:"; for c in $(STRESS_CASES); do \
	  printf '  %-20s %s\n' $$c "$$(sed -n 's/^duration: //p' $(BUILD)/logs/stress_$$c.log)"; done
	@tests/summary.sh $(STRESS_RESULTS)
