# The rtdd command line.
CHECK_TARGETS += cli-check
.PHONY: cli-check
cli-check: $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so $(PROG_DIR)/alf_same_thread $(PROG_DIR)/hang_pipe_holder \
           $(PROG_DIR)/rcu_unbalanced-rtdd \
           $(PROG_DIR)/clean_fork_exec_held
	@$(RECORD) cli/rtdd tests/cli/cli.sh $(BUILD)/bin/rtdd $(BUILD)

# rtdd dump: an answer for every request, the real cause for every failure.
CHECK_TARGETS += cli-dump-check
.PHONY: cli-dump-check
cli-dump-check: $(BUILD)/bin/rtdd $(BUILD)/lib/librtdd.so
	@$(RECORD) cli/dump tests/cli/dump.sh $(BUILD)/bin/rtdd

# Every kind and option is documented (docs/kinds/, report-format.md, options.md).
CHECK_TARGETS += docs-check
.PHONY: docs-check
docs-check:
	@$(RECORD) docs/coverage tests/docs/check-docs.sh
