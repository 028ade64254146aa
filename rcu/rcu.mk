# librtdd_rcu build rules (owned by the RCU core work).
# Included by the top-level Makefile, which provides BUILD, CC, CFLAGS_BASE,
# UNIT_CFLAGS/UNIT_LDFLAGS, QUICK, RESULTS and RECORD.

RCU_SRCS := $(wildcard rcu/*.c)
RCU_HDRS := $(wildcard rcu/*.h) include/rtdd/rcu.h include/rtdd/rcu_debug.h include/rtdd/rculist.h
RCU_OBJS := $(patsubst rcu/%.c,$(BUILD)/rcu/obj/%.o,$(RCU_SRCS))
RCU_LIB_SO := $(BUILD)/lib/librtdd_rcu.so
RCU_LIB_A := $(BUILD)/lib/librtdd_rcu.a
RCU_LDLIBS := -lpthread

# Unit tests link the library built with the unit flags (sanitizers when
# SANITIZE=1), kept apart so switching SANITIZE never mixes objects.
RCU_UNIT_DIR := $(BUILD)/rcu/unit-san$(SANITIZE)
RCU_UNIT_OBJS := $(patsubst rcu/%.c,$(RCU_UNIT_DIR)/lib/%.o,$(RCU_SRCS))
RCU_TEST_SRCS := $(wildcard tests/unit/test_rcu*.c)
RCU_TEST_BINS := $(patsubst tests/unit/%.c,$(RCU_UNIT_DIR)/%,$(RCU_TEST_SRCS))
RCU_TORTURE := $(BUILD)/rcu/rtdd-torture
RCU_TORTURE_SECONDS ?= 4

RTDD_TOOL_SRCS += tools/torture.c
CHECK_TARGETS += rcu-check
BENCH_TARGETS += bench-rcu

.PHONY: rcu rcu-check verify bench-rcu rcu-unit

all: rcu
rcu: $(RCU_LIB_SO) $(RCU_LIB_A) $(RCU_TORTURE)

$(BUILD)/rcu/obj/%.o: rcu/%.c $(RCU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -c $< -o $@

$(RCU_LIB_SO): $(RCU_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,librtdd_rcu.so -Wl,-z,defs -o $@ $^ $(RCU_LDLIBS)

$(RCU_LIB_A): $(RCU_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(RCU_TORTURE): rcu/tests/torture_main.c tools/torture.c tools/torture.h $(RCU_LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -Itools -o $@ rcu/tests/torture_main.c tools/torture.c $(RCU_LIB_A) $(RCU_LDLIBS)

# ---- unit tests ----
$(RCU_UNIT_DIR)/lib/%.o: rcu/%.c $(RCU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -c $< -o $@

$(RCU_UNIT_DIR)/librtdd_rcu.a: $(RCU_UNIT_OBJS)
	rm -f $@
	ar rcs $@ $^

$(RCU_UNIT_DIR)/test_rcu%: tests/unit/test_rcu%.c tests/unit/check_main.h $(RCU_HDRS) $(RCU_UNIT_DIR)/librtdd_rcu.a $(RCU_LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -Itests/unit -DRTDD_RCU_SO='"$(abspath $(RCU_LIB_SO))"' -o $@ $< \
	    $(RCU_UNIT_DIR)/librtdd_rcu.a $(UNIT_LDFLAGS) $(CHECK_CFLAGS) $(CHECK_LIBS) \
	    $(RCU_LDLIBS) -ldl

# The read side's "one predictable branch on one global" is checked on the
# compiler's output: a probe with lock+unlock may test rtdd_rcu_read_slow
# once per primitive and no other writable global besides the phase word.
$(BUILD)/rcu/onebranch.s: rcu/tests/onebranch_probe.c $(RCU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -fno-pic -S -o $@ $<

rcu-unit: $(RCU_TEST_BINS)

rcu-check: $(RCU_TEST_BINS) $(RCU_TORTURE) $(RCU_LIB_SO) $(BUILD)/rcu/onebranch.s
	@mkdir -p $(BUILD)/logs
	@for t in $(RCU_TEST_BINS); do \
	  RTDD_RESULTS=$(RESULTS) CK_DEFAULT_TIMEOUT=60 $$t >$(BUILD)/logs/rcu-$$(basename $$t).log 2>&1 \
	    && echo "ran $$(basename $$t): ok" \
	    || { echo "ran $$(basename $$t): FAILED (log: $(BUILD)/logs/rcu-$$(basename $$t).log)"; \
	         grep -E '^[^:]+:[0-9]+:[EF]:' $(BUILD)/logs/rcu-$$(basename $$t).log | head -20; }; \
	done
	@$(RECORD) rcu-read-side-one-branch rcu/tests/check_onebranch.sh $(BUILD)/rcu/onebranch.s
	@$(RECORD) rcu-torture $(RCU_TORTURE) --duration=$(RCU_TORTURE_SECONDS) --readers=3 --writers=2
	@RTDD_RCU_NO_MEMBARRIER=1 $(RECORD) rcu-torture-fence-fallback $(RCU_TORTURE) --duration=2 --readers=2 --writers=1
	@$(RECORD) rcu-torture-bad-option sh -c '$(RCU_TORTURE) --readers=x >/dev/null 2>&1; test $$? -eq 2'

# ---- spin model of the grace-period algorithm ----
RCU_MODEL_DIR := $(BUILD)/rcu/model
verify:
	@mkdir -p $(RCU_MODEL_DIR)
	@rcu/model/verify.sh rcu/model/gp.pml $(RCU_MODEL_DIR)

# ---- benchmarks against liburcu ----
RCU_BENCH_FLAVORS := rtdd urcu-memb urcu-mb urcu-bp urcu-qsbr
RCU_BENCH_BINS := $(foreach f,$(RCU_BENCH_FLAVORS),$(BUILD)/bench/rcubench-$(f))

$(BUILD)/bench/rcubench-rtdd: bench/rcu/rcubench.c bench/rcu/flavor.h $(RCU_LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -DFLAVOR_RTDD -o $@ $< $(RCU_LIB_A) $(RCU_LDLIBS)

# The same program linked with librtdd_rcu.so: a program the runtime can
# check (the static one keeps the hook setter private, so rtdd cannot).
$(BUILD)/bench/rcubench-rtdd-dyn: bench/rcu/rcubench.c bench/rcu/flavor.h $(RCU_LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -DFLAVOR_RTDD -o $@ $< -L$(dir $(RCU_LIB_SO)) -lrtdd_rcu \
	    -Wl,-rpath,$(abspath $(dir $(RCU_LIB_SO))) $(RCU_LDLIBS)

$(BUILD)/bench/rcubench-urcu-%: bench/rcu/rcubench.c bench/rcu/flavor.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -DFLAVOR_URCU_$$(echo $* | tr a-z A-Z) -o $@ $< \
	    $$(pkg-config --libs liburcu-$*) $(RCU_LDLIBS)

bench-rcu: $(RCU_BENCH_BINS)
	@QUICK=$(QUICK) bench/rcu/run.sh $(BUILD)/bench bench/results/rcu.csv
