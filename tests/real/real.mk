# make check-real: real multi-threaded programs from Debian packages, run
# natively and under rtdd (tests/real/run.sh, tests/real/README.md).
# Results go to $(BUILD)/real-results.txt; the last line is "N passed, N failed".
# REAL_CASES=... runs only the named cases (e.g. REAL_CASES="xz git-repack").
REAL_RESULTS := $(BUILD)/real-results.txt
REAL_WORK    := $(BUILD)/real
REAL_CASES   ?=
# command (or pkg-config module, for libraries) -> Debian package
REAL_DEP_COMMANDS := xz:xz-utils zstd:zstd pigz:pigz pbzip2:pbzip2 lbzip2:lbzip2 plzip:plzip \
                     7zz:7zip sqlite3:sqlite3 git:git mkfs.xfs:xfsprogs xfs_repair:xfsprogs \
                     xfs_db:xfsprogs python3:python3 perl:perl ld.lld:lld ld.gold:binutils \
                     realpath:coreutils truncate:coreutils
REAL_DEP_PKGCONFIG := sqlite3:libsqlite3-dev liburcu:liburcu-dev liburcu-cds:liburcu-dev

.PHONY: check-real real-deps
real-deps:
	@missing=""; PATH="$$PATH:/usr/sbin:/sbin"; \
	for d in $(REAL_DEP_COMMANDS); do \
	  cmd=$${d%%:*}; pkg=$${d##*:}; \
	  if [ $$cmd = python3 ]; then test -x /usr/bin/python3 || missing="$$missing $$pkg"; \
	  else command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; fi; \
	done; \
	for d in $(REAL_DEP_PKGCONFIG); do \
	  mod=$${d%%:*}; pkg=$${d##*:}; \
	  pkg-config --exists $$mod 2>/dev/null || missing="$$missing $$pkg"; \
	done; \
	missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	if [ -n "$${missing% }" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "rtdd: installing packages for check-real: $$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >$(or $(TMPDIR),/tmp)/rtdd-real-deps.log 2>&1 \
	      || { echo "rtdd: apt-get failed, see $(or $(TMPDIR),/tmp)/rtdd-real-deps.log"; exit 1; }; \
	  else \
	    echo "rtdd: check-real needs packages that are missing. Install them with:"; \
	    echo "    sudo apt-get install $$missing"; exit 1; \
	  fi; \
	fi

check-real: deps real-deps $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so
	@mkdir -p $(BUILD); rm -f $(REAL_RESULTS); touch $(REAL_RESULTS)
	@CC="$(CC)" tests/real/run.sh $(BUILD)/bin/rtdd $(REAL_RESULTS) $(REAL_WORK) $(REAL_CASES) \
	  || echo "FAIL real/run.sh" >>$(REAL_RESULTS)
	@tests/summary.sh $(REAL_RESULTS)
