# rtdd — top-level build. Components add their rules through the *.mk fragments
# included below; this file holds the shared flags, the deps step and the
# umbrella targets of CONTRACT.md.
BUILD      ?= build
CC         ?= gcc
PREFIX     ?= /usr/local
DESTDIR    ?=
SANITIZE   ?= 0
QUICK      ?= 0
VERSION    := 0.1.0

WARN       := -Wall -Wextra -Werror
CFLAGS_BASE := -std=gnu11 -O2 -g $(WARN) -fPIC -D_GNU_SOURCE -Iinclude -Idetect \
               -DRTDD_VERSION=\"$(VERSION)\"
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(SANITIZE),1)
UNIT_CFLAGS := $(CFLAGS_BASE) $(SAN_FLAGS)
UNIT_LDFLAGS := $(SAN_FLAGS)
else
UNIT_CFLAGS := $(CFLAGS_BASE)
UNIT_LDFLAGS :=
endif

RESULTS    := $(BUILD)/test-results.txt
RECORD     := tests/record.sh $(RESULTS)

# Debian packages the build and tests need (deps.sh specs: cmd:COMMAND:PACKAGE,
# pc:PKG-CONFIG-MODULE:PACKAGE, py:PYTHON3-MODULE:PACKAGE). Every tool a test
# calls is here: what a developer's machine happens to have, a fresh one lacks.
DEPS := cmd:pkg-config:pkg-config pc:libunwind:libunwind-dev pc:libdw:libdw-dev pc:check:check \
        pc:liburcu:liburcu-dev pc:json-c:libjson-c-dev pc:zlib:zlib1g-dev pc:glib-2.0:libglib2.0-dev \
        cmd:g++:g++ cmd:valgrind:valgrind cmd:clang:clang cmd:spin:spin cmd:dot:graphviz \
        cmd:gnuplot:gnuplot-nox cmd:man:man-db py:jsonschema:python3-jsonschema

.PHONY: all check demo bench verify install uninstall clean deps check-prepare FORCE
all:

deps:
	@./deps.sh "rtdd's build and tests" $(DEPS)

# Flags that come from installed packages are computed after the deps step,
# never when make reads the Makefile: $(CONFIG_MK) is an included makefile, so
# make runs its rule (deps.sh, then pkg-config) before it builds anything,
# -j or not, and reads the Makefile again when the file changed. Sub-makes
# (RTDD_DEPS_DONE in their environment) take the file as it is.
CONFIG_MK := $(BUILD)/config.mk
NO_CONFIG_GOALS := clean deps check-fresh
ifneq ($(filter-out $(NO_CONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(CONFIG_MK)
ifneq ($(MAKE_RESTARTS)$(RTDD_DEPS_DONE),)
ifeq ($(RTDD_DEPS_MISSING),1)
$(error rtdd: stopped: install the missing packages named above)
endif
endif
endif
# When packages are missing, the file says so, and make, reading it again,
# stops right after deps.sh's one apt-get line (a stale one from an earlier
# run stops nothing: the deps step runs again first).
$(CONFIG_MK): $(if $(RTDD_DEPS_DONE),,FORCE) Makefile deps.sh
	@mkdir -p $(dir $@); ./deps.sh "rtdd's build and tests" $(DEPS) || \
	 { echo 'RTDD_DEPS_MISSING := 1' >$@; exit 0; }; set -e; \
	 { echo "# Written by the Makefile after the deps step; flags of the installed packages."; \
	   echo "RT_LIBS := $$(pkg-config --libs libunwind libdw) -ldl -lpthread"; \
	   echo "CHECK_CFLAGS := $$(pkg-config --cflags check)"; \
	   echo "CHECK_LIBS := $$(pkg-config --libs check)"; \
	   echo "GLIB_CFLAGS := $$(pkg-config --cflags glib-2.0)"; \
	   echo "GLIB_LIBS := $$(pkg-config --libs glib-2.0)"; } >$@.tmp; \
	 if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
export RTDD_DEPS_DONE := 1
FORCE:

check-prepare:
	@mkdir -p $(BUILD)/logs; rm -f $(RESULTS); touch $(RESULTS)

# Fragments append to these: CHECK_TARGETS each record PASS/FAIL lines through
# $(RECORD); BENCH_TARGETS print their own tables.
CHECK_TARGETS :=
BENCH_TARGETS :=
RTDD_TOOL_SRCS :=
include detect/detect.mk
include rcu/rcu.mk
-include tools/analyze.mk
include tools/tools.mk
include tests/programs/programs.mk
include tests/cli/cli.mk
include tests/confirm/confirm.mk
include examples/examples.mk
include tests/real/real.mk
include tests/peers/peers.mk
include bench/bench.mk
include install.mk
include tests/guide/guide.mk
include tests/stress/stress.mk
include tests/fresh/fresh.mk

check:
	@$(MAKE) --no-print-directory check-prepare
	@$(MAKE) --no-print-directory -k $(CHECK_TARGETS) || echo "FAIL make: a check target did not build or run" >>$(RESULTS)
	@tests/summary.sh $(RESULTS)

# The bench scripts print each row's time, this the total: the budget is 15 minutes.
bench: bench-deps
	@start=$$(date +%s); $(MAKE) --no-print-directory $(BENCH_TARGETS); rc=$$?; \
	 echo "make bench: $$(($$(date +%s) - start)) s in all"; exit $$rc

clean:
	rm -rf $(BUILD)
