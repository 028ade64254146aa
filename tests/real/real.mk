# make check-real: real multi-threaded programs from Debian packages, run
# natively and under rtdd (tests/real/run.sh, tests/real/README.md).
# Results go to $(BUILD)/real-results.txt; the last line is "N passed, N failed".
# REAL_CASES=... runs only the named cases (e.g. REAL_CASES="xz git-repack").
REAL_RESULTS := $(BUILD)/real-results.txt
REAL_WORK    := $(BUILD)/real
REAL_CASES   ?=
# What the cases run (deps.sh specs: command or pkg-config module -> Debian package).
REAL_DEPS := cmd:xz:xz-utils cmd:zstd:zstd cmd:pigz:pigz cmd:pbzip2:pbzip2 cmd:lbzip2:lbzip2 cmd:plzip:plzip \
             cmd:7zz:7zip cmd:sqlite3:sqlite3 cmd:git:git cmd:mkfs.xfs:xfsprogs cmd:xfs_repair:xfsprogs \
             cmd:xfs_db:xfsprogs py:sys:python3 cmd:perl:perl cmd:ld.lld:lld cmd:ld.gold:binutils \
             cmd:realpath:coreutils cmd:truncate:coreutils \
             pc:sqlite3:libsqlite3-dev pc:liburcu:liburcu-dev pc:liburcu-cds:liburcu-dev \
             cmd:gst-launch-1.0:gstreamer1.0-tools cmd:gio:libglib2.0-bin \
             file:/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvideotestsrc.so:gstreamer1.0-plugins-base \
             cmd:apache2:apache2 cmd:ab:apache2-utils cmd:curl:curl

.PHONY: check-real real-deps
real-deps:
	@./deps.sh "make check-real" $(REAL_DEPS)

check-real: real-deps $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so
	@mkdir -p $(BUILD); rm -f $(REAL_RESULTS); touch $(REAL_RESULTS)
	@CC="$(CC)" tests/real/run.sh $(BUILD)/bin/rtdd $(REAL_RESULTS) $(REAL_WORK) $(REAL_CASES) \
	  || echo "FAIL real/run.sh" >>$(REAL_RESULTS)
	@tests/summary.sh $(REAL_RESULTS)
