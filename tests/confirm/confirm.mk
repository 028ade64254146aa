# rtdd run --confirm / rtdd confirm: whole programs rerun steered into their
# lock-order cycles (docs/confirm.md). Each case runs once here; a new case
# is run 5+ times by hand before it goes in (deterministic by construction:
# the halves are apart in time, joined, gated or ordered by a condition).
CONFIRM_DIR := $(BUILD)/tests/confirm
CONFIRM_C := $(filter-out tests/confirm/glib_%.c,$(wildcard tests/confirm/*.c))
CONFIRM_BINS := $(patsubst tests/confirm/%.c,$(CONFIRM_DIR)/%,$(CONFIRM_C)) \
                $(patsubst tests/confirm/%.cpp,$(CONFIRM_DIR)/%,$(wildcard tests/confirm/*.cpp)) \
                $(patsubst tests/confirm/%.c,$(CONFIRM_DIR)/%,$(wildcard tests/confirm/glib_*.c))
$(CONFIRM_DIR)/glib_%: tests/confirm/glib_%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) $(GLIB_CFLAGS) -o $@ $< $(GLIB_LIBS)
$(CONFIRM_DIR)/rcu_%: tests/confirm/rcu_%.c $(BUILD)/lib/librtdd_rcu.so
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -Iinclude -o $@ $< -L$(BUILD)/lib -lrtdd_rcu -Wl,-rpath,$(abspath $(BUILD)/lib)
$(CONFIRM_DIR)/%: tests/confirm/%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -o $@ $<
$(CONFIRM_DIR)/%: tests/confirm/%.cpp
	@mkdir -p $(dir $@)
	@echo "  CXX $@"; $(CXX) $(PROG_CFLAGS) -std=c++17 -o $@ $<

CHECK_TARGETS += confirm-check
.PHONY: confirm-check
confirm-check: $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so $(CONFIRM_BINS)
	@$(RECORD) confirm/reruns tests/confirm/confirm.sh $(BUILD)/bin/rtdd $(CONFIRM_DIR)
