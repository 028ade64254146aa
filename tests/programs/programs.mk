# Whole-program cases: each tests/programs/*.c|*.cpp names what it must
# produce; check-case.sh runs it under `rtdd run` and checks.
PROG_C_SRCS := $(wildcard tests/programs/*.c)
PROG_CXX_SRCS := $(wildcard tests/programs/*.cpp)
PROG_DIR := $(BUILD)/tests/programs
PROG_BINS := $(patsubst tests/programs/%.c,$(PROG_DIR)/%,$(PROG_C_SRCS)) \
             $(patsubst tests/programs/%.cpp,$(PROG_DIR)/%,$(PROG_CXX_SRCS))
PROG_CFLAGS := -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -pthread -fno-omit-frame-pointer -ldl

$(PROG_DIR)/libearly.so: tests/programs/lib/early.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $<

$(PROG_DIR)/early_constructor: tests/programs/early_constructor.c $(PROG_DIR)/libearly.so
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -o $@ $< -L$(PROG_DIR) -learly -Wl,-rpath,'$$ORIGIN'

$(PROG_DIR)/libheld.so: tests/programs/lib/held.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $<

$(PROG_DIR)/dlclose_held_lock: $(PROG_DIR)/libheld.so

# Cases that run another case's program another way (#include it).
$(PROG_DIR)/abba_sequential_lockdep: tests/programs/abba_sequential.c
$(PROG_DIR)/cxx_suppressed_by_name: tests/programs/cxx_lock_order.cpp
# rseq_own_area_glibc_off.c is rseq_own_area.c run another way.
$(PROG_DIR)/rseq_own_area_glibc_off: tests/programs/rseq_own_area.c
# GLib cases (tests only: the runtime never needs GLib).
$(PROG_DIR)/glib_%: tests/programs/glib_%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) $(GLIB_CFLAGS) -o $@ $< $(GLIB_LIBS)
# liburcu's QSBR flavour (the RCU cases build against urcu-memb).
$(PROG_DIR)/urcu_qsbr_%: tests/programs/urcu_qsbr_%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -o $@ $< -lurcu-qsbr
$(PROG_DIR)/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -o $@ $<

# A C++ program with no libstdc++: --as-needed drops it (rtdd demangles alone).
$(PROG_DIR)/cxx_as_needed: tests/programs/cxx_as_needed.cpp
	@mkdir -p $(dir $@)
	@echo "  CXX $@"; $(CXX) $(PROG_CFLAGS) -std=c++17 -Wl,--as-needed -o $@ $<

$(PROG_DIR)/%: tests/programs/%.cpp
	@mkdir -p $(dir $@)
	@echo "  CXX $@"; $(CXX) $(PROG_CFLAGS) -std=c++17 -o $@ $<

CHECK_TARGETS += programs-check
.PHONY: programs-check
programs-check: $(PROG_BINS) $(PROG_DIR)/libearly.so $(PROG_DIR)/libheld.so $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd
	@for b in $(PROG_BINS); do \
	  n=$$(basename $$b); src=$$(ls tests/programs/$$n.c tests/programs/$$n.cpp 2>/dev/null | head -1); \
	  $(RECORD) program/$$n tests/programs/check-case.sh $(BUILD)/bin/rtdd $$b $$src; \
	done

# RCU cases: each source is built against librtdd_rcu.so (NAME-rtdd), against
# librtdd_rcu.a linked in with its names exported (NAME-static: the runtime
# sees it through the debug hooks alone) and against liburcu-memb (NAME-urcu),
# and must give the same reports.
RCU_PROG_SRCS := $(wildcard tests/programs/rcu/*.c)
RCU_PROG_BINS := $(foreach s,$(RCU_PROG_SRCS),$(PROG_DIR)/rcu_$(basename $(notdir $(s)))-rtdd \
                   $(PROG_DIR)/rcu_$(basename $(notdir $(s)))-static \
                   $(PROG_DIR)/rcu_$(basename $(notdir $(s)))-urcu)
# read_side_no_rseq*.c and read_side_no_kernel_rseq.c are read_side_direct.c run other ways.
$(foreach v,rtdd static urcu,$(PROG_DIR)/rcu_read_side_no_rseq-$(v) $(PROG_DIR)/rcu_read_side_no_rseq_registered-$(v) \
    $(PROG_DIR)/rcu_read_side_no_kernel_rseq-$(v)): \
    tests/programs/rcu/read_side_direct.c
$(PROG_DIR)/rcu_%-rtdd: tests/programs/rcu/%.c $(wildcard tests/programs/rcu/*.h) $(BUILD)/lib/librtdd_rcu.so
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -Iinclude -DRCU_RTDD -o $@ $< -L$(BUILD)/lib -lrtdd_rcu \
	    -Wl,-rpath,$(abspath $(BUILD)/lib)
$(PROG_DIR)/rcu_%-static: tests/programs/rcu/%.c $(wildcard tests/programs/rcu/*.h) $(BUILD)/lib/librtdd_rcu.a
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -Iinclude -DRCU_RTDD -DRCU_STATIC -rdynamic -o $@ $< \
	    $(BUILD)/lib/librtdd_rcu.a
$(PROG_DIR)/rcu_%-urcu: tests/programs/rcu/%.c $(wildcard tests/programs/rcu/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(PROG_CFLAGS) -DRCU_URCU -o $@ $< -lurcu-memb

CHECK_TARGETS += rcu-programs-check
.PHONY: rcu-programs-check
rcu-programs-check: $(RCU_PROG_BINS) $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd
	@for b in $(RCU_PROG_BINS); do \
	  n=$$(basename $$b); src=tests/programs/rcu/$$(echo $$n | sed 's/^rcu_//; s/-rtdd$$//; s/-static$$//; s/-urcu$$//').c; \
	  $(RECORD) program/$$n tests/programs/check-case.sh $(BUILD)/bin/rtdd $$b $$src; \
	done
