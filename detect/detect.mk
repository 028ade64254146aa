# The engine (detect/) and the preload runtime (interpose/) -> librtdd.so.
DETECT_SRCS := $(wildcard detect/*/*.c)
INTERPOSE_SRCS := $(wildcard interpose/*.c)
# RT_LIBS (libunwind, libdw) comes from $(BUILD)/config.mk, written after the deps step.
# librtdd.so does not link them: it opens them when a report or a capture
# first needs them (report/dwlib.h, report/unwind.c), not in every exec.
RT_SO_LIBS := -ldl -lpthread

# The runtime: hidden visibility (only the interposed names are exported),
# initial-exec TLS, no builtin allocator folding, bound at load time.
RT_CFLAGS := $(CFLAGS_BASE) -fvisibility=hidden -ftls-model=initial-exec -fno-builtin \
             -fno-semantic-interposition -flto=auto
RT_LDFLAGS := -shared -flto=auto -O2 -Wl,-z,now,-z,relro -Wl,--no-undefined

DETECT_OBJS := $(patsubst %.c,$(BUILD)/rt/%.o,$(DETECT_SRCS))
INTERPOSE_OBJS := $(patsubst %.c,$(BUILD)/rt/%.o,$(INTERPOSE_SRCS))

$(BUILD)/rt/%.o: %.c $(wildcard detect/*/*.h detect/*/*.def interpose/*.h include/rtdd/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(RT_CFLAGS) -c $< -o $@

# librtdd.so exports the read side's out-of-line entry points for the
# program's librtdd_rcu (interpose/rcu_hooks.c): the private copy has them
# renamed (rcu_private_read.syms), and its one user calls the renamed ones
# (detect/locks/rcu_private_read.h), so the runtime's own read sections never
# reach the program's.
$(BUILD)/rt/detect/locks/thread.o: RT_CFLAGS += -DRT_PRIVATE_RCU

# The runtime's private librtdd_rcu (its thread registry is an RCU list):
# built like the runtime (hidden symbols, initial-exec TLS: no
# __tls_get_addr), with the pthread functions librtdd.so interposes renamed
# to interpose/rcu_private.c's pass-throughs. A program's own librtdd_rcu
# stays its own: dlsym(RTLD_DEFAULT) cannot find this copy.
RT_RCU_OBJS := $(patsubst rcu/%.c,$(BUILD)/rt/rcu/%.o,$(wildcard rcu/*.c))
RT_RCU_LIB := $(BUILD)/rt/librtdd_rcu_private.a
$(BUILD)/rt/rcu/%.o: rcu/%.c $(wildcard rcu/*.h include/rtdd/*.h) interpose/rcu_private.syms interpose/rcu_private_read.syms
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -fvisibility=hidden -ftls-model=initial-exec -c $< -o $@.tmp && \
	    objcopy --redefine-syms=interpose/rcu_private.syms --redefine-syms=interpose/rcu_private_read.syms \
	        $@.tmp $@ && rm -f $@.tmp
$(RT_RCU_LIB): $(RT_RCU_OBJS)
	rm -f $@
	ar rcs $@ $^

# After linking, four checks: the private copy calls no function that
# librtdd.so exports (it would land in a wrapper); librtdd.so exports no
# librtdd_rcu name but the read side's entry points (the liburcu entry
# points *_sym are interposed ones too); the runtime's own RCU does not
# call those entry points; and the exports are interpose/exports.list.
$(BUILD)/lib/librtdd.so: $(DETECT_OBJS) $(INTERPOSE_OBJS) $(RT_RCU_LIB) interpose/exports.list
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(RT_LDFLAGS) -o $@.tmp $(DETECT_OBJS) $(INTERPOSE_OBJS) $(RT_RCU_LIB) \
	    -Wl,--exclude-libs,ALL $(RT_SO_LIBS)
	@nm -D --defined-only $@.tmp | awk '{print $$3}' | LC_ALL=C sort -u >$@.exports; \
	 bad=$$(nm -u $(RT_RCU_LIB) | awk 'NF==2{print $$2}' | sort -u | comm -12 - $@.exports); \
	 [ -z "$$bad" ] || { echo "librtdd.so: the private librtdd_rcu calls interposed $$bad"; exit 1; }; \
	 bad=$$(grep -E '^(rtdd_rcu_|rcu_|call_rcu|synchronize_rcu)' $@.exports | grep -v '_sym$$' | \
	        grep -vxF "$$(awk '{print $$1}' interpose/rcu_private_read.syms)"); \
	 [ -z "$$bad" ] || { echo "librtdd.so exports librtdd_rcu names: $$bad"; exit 1; }; \
	 bad=$$(nm -u $(DETECT_OBJS) $(RT_RCU_LIB) | awk 'NF==2{print $$2}' | \
	        grep -xF "$$(awk '{print $$1}' interpose/rcu_private_read.syms)"); \
	 [ -z "$$bad" ] || { echo "librtdd.so: the runtime's own RCU calls the program's read side: $$bad"; exit 1; }; \
	 bad=$$(grep -v '^#' interpose/exports.list | LC_ALL=C sort | diff - $@.exports | grep '^[<>]'); \
	 [ -z "$$bad" ] || { echo "librtdd.so exports differ from interpose/exports.list (< missing, > extra): $$bad"; exit 1; }; \
	 rm -f $@.exports; mv -f $@.tmp $@

# The engine alone, for unit tests (optionally sanitized) and the CLI.
$(BUILD)/unit-san$(SANITIZE)/detect/%.o: detect/%.c $(wildcard detect/*/*.h detect/*/*.def include/rtdd/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(UNIT_CFLAGS) -c $< -o $@
DETECT_UNIT_OBJS := $(patsubst %.c,$(BUILD)/unit-san$(SANITIZE)/%.o,$(DETECT_SRCS))

all: $(BUILD)/lib/librtdd.so

# Unit tests of the engine: one binary, a suite per detect/ module.
DETECT_TEST_SRCS := $(wildcard tests/unit/detect/*.c tests/unit/detect/*/*.c)
DETECT_TEST_BIN := $(BUILD)/unit-san$(SANITIZE)/test_detect
# The engine's thread registry runs on librtdd_rcu: the unit-flag build of it.
DETECT_TEST_RCU := $(BUILD)/rcu/unit-san$(SANITIZE)/librtdd_rcu.a
$(DETECT_TEST_BIN): $(DETECT_TEST_SRCS) $(DETECT_UNIT_OBJS) $(DETECT_TEST_RCU) tests/unit/check_main.h tests/unit/detect/suites.h
	@echo "  LD $@"; $(CC) $(UNIT_CFLAGS) -Itests/unit -o $@ $(DETECT_TEST_SRCS) $(DETECT_UNIT_OBJS) \
	    $(DETECT_TEST_RCU) $(UNIT_LDFLAGS) $(CHECK_LIBS) $(RT_LIBS)

CHECK_TARGETS += detect-check
.PHONY: detect-check
detect-check: $(DETECT_TEST_BIN)
	@RTDD_RESULTS=$(RESULTS) CK_VERBOSITY=silent $(DETECT_TEST_BIN) >$(BUILD)/logs/unit-detect.log 2>&1 \
	  && echo "  unit: detect passed" || { echo "  unit: detect FAILED"; tail -30 $(BUILD)/logs/unit-detect.log; \
	  grep -q '^FAIL detect' $(RESULTS) || echo "FAIL detect-unit-binary" >>$(RESULTS); }
