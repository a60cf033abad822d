# Benchmarks (issue 6; README "Performance").
#
#   make bench        the full run (about 10 minutes on two cores): builds the release binaries,
#                     builds the photo corpus once from Debian packages (bench/corpus/, git-ignored),
#                     prints the table and writes it as JSON to bench/results/
#   make bench-smoke  a handful of photos through every phase with the debug binaries, checking
#                     only that each phase runs and yields numbers (make test runs it; ~1 minute)
#
# Ratios matter, not absolute times: these machines are shared. Run it on a quiet machine.

BENCH_PACKAGES := python3 python3-pil libvips-tools dpkg libheif-examples webp
BENCH_RUN      := /usr/bin/python3 $(CURDIR)/bench/run.py

.PHONY: bench bench-smoke bench-deps

bench-deps:
	@scripts/ensure-packages $(BUILD_PACKAGES) $(BENCH_PACKAGES)

bench: bench-deps
	$(SWIFT) build -c release
	$(BENCH_RUN) --bin $(CURDIR)/.build/release --corpus $(CURDIR)/bench/corpus --profile full

bench-smoke: bench-deps
	$(SWIFT) build
	$(BENCH_RUN) --bin $(CURDIR)/.build/debug --corpus $(CURDIR)/bench/corpus-smoke --profile smoke

TEST_EXTRAS += bench-smoke
