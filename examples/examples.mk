# Example programs, one per kind of bug; `make demo` runs the seed's one.
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLE_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRCS))

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) -g -O1 -Wall -Wextra -Werror -pthread -fno-omit-frame-pointer -o $@ $<

all: $(EXAMPLE_BINS)

# The program exits with the runtime's exitcode (66) because it has a bug;
# the demo succeeds when the report was issued.
.PHONY: demo
demo: $(BUILD)/lib/librtdd.so $(BUILD)/bin/rtdd $(BUILD)/examples/xfrm_gc
	@echo "== rtdd run -- $(BUILD)/examples/xfrm_gc"
	@$(BUILD)/bin/rtdd run -- $(BUILD)/examples/xfrm_gc; status=$$?; \
	  if [ $$status -eq 66 ]; then echo "== exit status 66: rtdd reported the bug (see docs/kinds/active-lock-freed.md)"; \
	  else echo "== unexpected exit status $$status"; exit 1; fi
