# make install / make uninstall (CONTRACT.md: "make install PREFIX=... DESTDIR=...").
# Included by the top-level Makefile after tools/tools.mk and rcu/rcu.mk (it
# uses TOOL_OBJS, RCU_OBJS, RCU_LIB_A and TOOL_LDLIBS).
#
# Layout under $(DESTDIR)$(PREFIX):
#   bin/rtdd                      the command; `rtdd run` finds the runtime in ../lib/rtdd
#   lib/rtdd/librtdd.so           the preload runtime (not a link-time library)
#   lib/librtdd_rcu.so.$(VERSION) the RCU library, soname librtdd_rcu.so.$(RCU_SOMAJOR)
#   lib/librtdd_rcu.so.$(RCU_SOMAJOR) -> librtdd_rcu.so.$(VERSION)   (run time)
#   lib/librtdd_rcu.so -> librtdd_rcu.so.$(RCU_SOMAJOR)             (link time, -lrtdd_rcu)
#   lib/librtdd_rcu.a
#   lib/pkgconfig/rtdd-rcu.pc
#   include/rtdd/{rcu.h,rculist.h,rcu_debug.h,annotate.h}
#   share/man/man1/rtdd.1 rtdd-run.1 rtdd-analyze.1, man3/rtdd_rcu.3, man7/rtdd-options.7
#   share/doc/rtdd/*.md, share/doc/rtdd/kinds/*.md  (rtdd analyze reads kinds/ for SARIF help)
INSTALL     ?= install
BINDIR      := $(PREFIX)/bin
LIBDIR      := $(PREFIX)/lib
RTLIBDIR    := $(LIBDIR)/rtdd
INCLUDEDIR  := $(PREFIX)/include
PKGCONFIGDIR := $(LIBDIR)/pkgconfig
MANDIR      := $(PREFIX)/share/man
DOCDIR      := $(PREFIX)/share/doc/rtdd
RCU_SOMAJOR := 0

# Staged files, one directory per PREFIX (the prefix is compiled into rtdd and
# written into rtdd-rcu.pc), so installs to different prefixes never share one.
INST_STAGE   := $(BUILD)/install/prefix$(subst /,_,$(PREFIX))
INST_HEADERS := include/rtdd/rcu.h include/rtdd/rculist.h include/rtdd/rcu_debug.h include/rtdd/annotate.h
INST_MAN_SRCS := docs/man/rtdd.1 docs/man/rtdd-run.1 docs/man/rtdd-analyze.1 docs/man/rtdd_rcu.3 \
                 docs/man/rtdd-options.7
INST_MANS    := $(patsubst docs/man/%,$(INST_STAGE)/man/%,$(INST_MAN_SRCS))
INST_DOCS    := $(wildcard docs/user-guide.md docs/options.md docs/report-format.md docs/analyze.md \
                  docs/rcu.md docs/design.md)
INST_KINDS   := $(wildcard docs/kinds/*.md)
INST_RCU_SO  := $(INST_STAGE)/librtdd_rcu.so.$(VERSION)

# The installed rtdd has $(PREFIX)/lib/rtdd compiled in as its last resort
# (tools/run.c: RTDD_LIBDIR), whatever PREFIX the build tree was made with:
# run.c is compiled again for the install, in the prefix's stage directory.
INST_RUN_OBJ := $(INST_STAGE)/run.o
$(INST_RUN_OBJ): tools/run.c $(wildcard tools/*.h detect/*/*.h detect/*/*.def)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_BASE) -Itools -DRTDD_LIBDIR=\"$(RTLIBDIR)\" -c $< -o $@
$(INST_STAGE)/rtdd: $(INST_RUN_OBJ) $(filter-out $(BUILD)/tools/tools/run.o,$(TOOL_OBJS)) $(RCU_LIB_A)
	@echo "  LD $@"; $(CC) -o $@ $^ $(TOOL_LDLIBS) -lpthread

# The shared RCU library with a versioned soname (the build tree's has none).
$(INST_RCU_SO): $(RCU_OBJS)
	@mkdir -p $(dir $@)
	@echo "  LD $@"; $(CC) -shared -Wl,-soname,librtdd_rcu.so.$(RCU_SOMAJOR) -Wl,-z,defs -o $@ $^ $(RCU_LDLIBS)

$(INST_STAGE)/rtdd-rcu.pc: rtdd-rcu.pc.in
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$${prefix}/lib|' -e 's|@INCLUDEDIR@|$${prefix}/include|' \
	     -e 's|@VERSION@|$(VERSION)|' $< >$@

# Man pages: the option and kind lists are generated from the .def files.
$(INST_STAGE)/man/%: docs/man/% docs/man/gen.sh detect/core/options.def detect/report/kinds.def
	@mkdir -p $(dir $@)
	@docs/man/gen.sh $< $@ $(VERSION)

.PHONY: install-files man
man: $(INST_MANS)
install-files: $(INST_STAGE)/rtdd $(BUILD)/lib/librtdd.so $(INST_RCU_SO) $(RCU_LIB_A) $(INST_STAGE)/rtdd-rcu.pc \
               $(INST_MANS)

install: install-files
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(RTLIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(INCLUDEDIR)/rtdd $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(DOCDIR)/kinds
	$(INSTALL) -m 755 $(INST_STAGE)/rtdd $(DESTDIR)$(BINDIR)/rtdd
	$(INSTALL) -m 755 $(BUILD)/lib/librtdd.so $(DESTDIR)$(RTLIBDIR)/librtdd.so
	$(INSTALL) -m 755 $(INST_RCU_SO) $(DESTDIR)$(LIBDIR)/librtdd_rcu.so.$(VERSION)
	ln -sf librtdd_rcu.so.$(VERSION) $(DESTDIR)$(LIBDIR)/librtdd_rcu.so.$(RCU_SOMAJOR)
	ln -sf librtdd_rcu.so.$(RCU_SOMAJOR) $(DESTDIR)$(LIBDIR)/librtdd_rcu.so
	$(INSTALL) -m 644 $(RCU_LIB_A) $(DESTDIR)$(LIBDIR)/librtdd_rcu.a
	$(INSTALL) -m 644 $(INST_STAGE)/rtdd-rcu.pc $(DESTDIR)$(PKGCONFIGDIR)/rtdd-rcu.pc
	$(INSTALL) -m 644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/rtdd/
	$(INSTALL) -m 644 $(filter %.1,$(INST_MANS)) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(filter %.3,$(INST_MANS)) $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(filter %.7,$(INST_MANS)) $(DESTDIR)$(MANDIR)/man7/
	$(INSTALL) -m 644 $(INST_DOCS) $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 644 $(INST_KINDS) $(DESTDIR)$(DOCDIR)/kinds/
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

# Removes exactly the files install put, then the directories that are rtdd's
# own (lib/rtdd, include/rtdd, share/doc/rtdd) if they are empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rtdd $(DESTDIR)$(RTLIBDIR)/librtdd.so \
	    $(DESTDIR)$(LIBDIR)/librtdd_rcu.so.$(VERSION) $(DESTDIR)$(LIBDIR)/librtdd_rcu.so.$(RCU_SOMAJOR) \
	    $(DESTDIR)$(LIBDIR)/librtdd_rcu.so $(DESTDIR)$(LIBDIR)/librtdd_rcu.a $(DESTDIR)$(PKGCONFIGDIR)/rtdd-rcu.pc \
	    $(addprefix $(DESTDIR)$(INCLUDEDIR)/rtdd/,$(notdir $(INST_HEADERS))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(INST_MAN_SRCS)))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(filter %.3,$(INST_MAN_SRCS)))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(filter %.7,$(INST_MAN_SRCS)))) \
	    $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(INST_DOCS))) \
	    $(addprefix $(DESTDIR)$(DOCDIR)/kinds/,$(notdir $(INST_KINDS)))
	-rmdir $(DESTDIR)$(RTLIBDIR) $(DESTDIR)$(INCLUDEDIR)/rtdd $(DESTDIR)$(DOCDIR)/kinds $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

# make check: install into a temporary DESTDIR and a temporary PREFIX, use the
# installed tools, uninstall, check nothing is left (tests/install/install.sh).
CHECK_TARGETS += install-check
.PHONY: install-check
install-check: install-files $(BUILD)/tests/programs/alf_same_thread
	@$(RECORD) install/install-uninstall tests/install/install.sh $(BUILD)
