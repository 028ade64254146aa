# docs/user-guide.md: every step of the guide is run (tests/guide/guide.sh).
CHECK_TARGETS += guide-check
.PHONY: guide-check
guide-check: $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so $(BUILD)/lib/librtdd_rcu.so $(BUILD)/examples/xfrm_gc \
             $(PROG_DIR)/clean_locking $(PROG_DIR)/clean_condvar $(PROG_DIR)/alf_same_thread
	@$(RECORD) guide/user-guide tests/guide/guide.sh $(BUILD)
