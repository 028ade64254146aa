# make check-fresh: the README's set-up on a fresh Debian 12 root, as a
# newcomer runs it (tests/fresh/check-fresh.sh). Compares the number of tests
# `make check` runs there with $(RESULTS) of this machine's last `make check`
# (run first when there is none). Not part of `make check`: .ci/run calls it.
.PHONY: check-fresh
check-fresh:
	@./deps.sh "make check-fresh" cmd:mmdebstrap:mmdebstrap cmd:unshare:util-linux cmd:git:git
	@[ -s $(RESULTS) ] || $(MAKE) --no-print-directory check
	@tests/fresh/check-fresh.sh . $(RESULTS)
