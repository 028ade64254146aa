# The rtdd command. It links the engine's option table (one definition of
# the options) and, for `rtdd torture`, librtdd_rcu.
TOOL_SRCS := tools/rtdd.c tools/run.c tools/confirm.c tools/confirm_cli.c tools/dump.c tools/symbolizer.c $(RTDD_TOOL_SRCS)
TOOL_ENGINE_SRCS += detect/core/options.c detect/core/rt_fmt.c detect/core/procstate.c
# `rtdd __symbolizer`, the runtime's helper process, runs the runtime's symbolizer.
TOOL_ENGINE_SRCS += detect/report/symbolize_dwarf.c
TOOL_OBJS := $(patsubst %.c,$(BUILD)/tools/%.o,$(sort $(TOOL_SRCS) $(TOOL_ENGINE_SRCS)))

$(BUILD)/tools/%.o: %.c $(wildcard tools/*.h detect/*/*.h detect/*/*.def include/rtdd/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -Itools -DRTDD_LIBDIR=\"$(PREFIX)/lib/rtdd\" -c $< -o $@

$(BUILD)/bin/rtdd: $(TOOL_OBJS) $(RCU_LIB_A)
	@mkdir -p $(dir $@)
	@echo "  LD $@"; $(CC) -o $@ $(TOOL_OBJS) $(RCU_LIB_A) $(TOOL_LDLIBS) -lpthread

all: $(BUILD)/bin/rtdd
