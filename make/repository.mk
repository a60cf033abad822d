# The repository's own rules, in about a second; `make lint` and `make test` run them.
#
#   scripts/check-no-history-numbers  no tracked file names a development session, round or
#                                     issue by number (another project's tracker may be cited)
#   scripts/check-commit-subjects     every commit subject, from the commit that added the
#                                     check on, fits in 72 characters
#   scripts/check-performance-table   docs/PERFORMANCE.md's table is the one scripts/performance-table
#                                     renders from bench/published/, and no newer bench run is
#                                     left unpublished in bench/results/

.PHONY: repository-check

repository-check:
	scripts/check-no-history-numbers
	scripts/check-commit-subjects
	scripts/check-performance-table

lint: repository-check

TEST_EXTRAS += repository-check
