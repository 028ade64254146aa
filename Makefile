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

# Debian packages the build and tests need: pkg-config module or command -> package.
DEP_PKGCONFIG := libunwind:libunwind-dev libdw:libdw-dev check:check liburcu:liburcu-dev json-c:libjson-c-dev zlib:zlib1g-dev
DEP_COMMANDS  := valgrind:valgrind clang:clang spin:spin dot:graphviz gnuplot:gnuplot-nox
# Modules of Debian's own python3 (a python3 earlier in PATH, or a `jsonschema`
# command from it, says nothing about /usr/bin/python3's).
DEP_PYMODULES := jsonschema:python3-jsonschema

.PHONY: all check demo bench verify install uninstall clean deps check-prepare
all: deps

deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for d in $(DEP_PKGCONFIG); do \
	  mod=$${d%%:*}; pkg=$${d##*:}; \
	  pkg-config --exists $$mod 2>/dev/null || missing="$$missing $$pkg"; \
	done; \
	for d in $(DEP_COMMANDS); do \
	  cmd=$${d%%:*}; pkg=$${d##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	for d in $(DEP_PYMODULES); do \
	  mod=$${d%%:*}; pkg=$${d##*:}; \
	  /usr/bin/python3 -c "import $$mod" >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "rtdd: installing missing packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >$(or $(TMPDIR),/tmp)/rtdd-deps.log 2>&1 \
	      || { echo "rtdd: apt-get failed, see $(or $(TMPDIR),/tmp)/rtdd-deps.log"; exit 1; }; \
	  else \
	    echo "rtdd: missing build dependencies. Install them with:"; \
	    echo "    sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

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
include examples/examples.mk
include tests/real/real.mk
include bench/bench.mk
include install.mk
include tests/guide/guide.mk
include tests/stress/stress.mk

check: deps
	@$(MAKE) --no-print-directory check-prepare
	@$(MAKE) --no-print-directory -k $(CHECK_TARGETS) || echo "FAIL make: a check target did not build or run" >>$(RESULTS)
	@tests/summary.sh $(RESULTS)

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_TARGETS)

clean:
	rm -rf $(BUILD)
