# The quick loop while developing (docs/TESTING.md, "make check"):
#
#   make check   builds the tests, then runs every Swift test suite that runs in-process, one
#                test at a time (about 4 minutes on two cores after a build): the suites tagged
#                .spawnsProcesses (the real utensild or utensilctl, PostgreSQL, journald, a
#                network namespace) are skipped, as scripts/list-suites --skip names them.
#
# One at a time, not Swift Testing's parallel default: in parallel the codec suites take both
# cores and the heartbeat tests' timers then miss their 30-second deadlines, for no time saved.

.PHONY: check

check:
	$(SWIFT) build --build-tests
	@scripts/list-suites --check
	$(SWIFT) test --skip-build --no-parallel --skip "$$(scripts/list-suites --skip)"
