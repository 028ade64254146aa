# The engine (detect/) and the preload runtime (interpose/) -> librtdd.so.
DETECT_SRCS := $(wildcard detect/*.c)
INTERPOSE_SRCS := $(wildcard interpose/*.c)
RT_LIBS := $(shell pkg-config --libs libunwind libdw 2>/dev/null) -ldl -lpthread

# The runtime: hidden visibility (only the interposed names are exported),
# initial-exec TLS, no builtin allocator folding, bound at load time.
RT_CFLAGS := $(CFLAGS_BASE) -fvisibility=hidden -ftls-model=initial-exec -fno-builtin \
             -fno-semantic-interposition -flto=auto
RT_LDFLAGS := -shared -flto=auto -O2 -Wl,-z,now,-z,relro -Wl,--no-undefined

DETECT_OBJS := $(patsubst %.c,$(BUILD)/rt/%.o,$(DETECT_SRCS))
INTERPOSE_OBJS := $(patsubst %.c,$(BUILD)/rt/%.o,$(INTERPOSE_SRCS))

$(BUILD)/rt/%.o: %.c $(wildcard detect/*.h detect/*.def interpose/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(RT_CFLAGS) -c $< -o $@

$(BUILD)/lib/librtdd.so: $(DETECT_OBJS) $(INTERPOSE_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(RT_LDFLAGS) -o $@.tmp $^ $(RT_LIBS) && mv -f $@.tmp $@

# The engine alone, for unit tests (optionally sanitized) and the CLI.
$(BUILD)/unit-san$(SANITIZE)/detect/%.o: detect/%.c $(wildcard detect/*.h detect/*.def)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(UNIT_CFLAGS) -c $< -o $@
DETECT_UNIT_OBJS := $(patsubst %.c,$(BUILD)/unit-san$(SANITIZE)/%.o,$(DETECT_SRCS))

all: $(BUILD)/lib/librtdd.so

# Unit tests of the engine: one binary, a suite per detect/ module.
DETECT_TEST_SRCS := $(wildcard tests/unit/detect_*.c)
DETECT_TEST_BIN := $(BUILD)/unit-san$(SANITIZE)/test_detect
$(DETECT_TEST_BIN): $(DETECT_TEST_SRCS) $(DETECT_UNIT_OBJS) tests/unit/check_main.h tests/unit/detect_suites.h
	@echo "  LD $@"; $(CC) $(UNIT_CFLAGS) -Itests/unit -o $@ $(DETECT_TEST_SRCS) $(DETECT_UNIT_OBJS) \
	    $(UNIT_LDFLAGS) $(shell pkg-config --libs check) $(RT_LIBS)

CHECK_TARGETS += detect-check
.PHONY: detect-check
detect-check: $(DETECT_TEST_BIN)
	@RTDD_RESULTS=$(RESULTS) CK_VERBOSITY=silent $(DETECT_TEST_BIN) >$(BUILD)/logs/unit-detect.log 2>&1 \
	  && echo "  unit: detect passed" || { echo "  unit: detect FAILED"; tail -30 $(BUILD)/logs/unit-detect.log; \
	  grep -q '^FAIL detect' $(RESULTS) || echo "FAIL detect-unit-binary" >>$(RESULTS); }
