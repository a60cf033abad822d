# Benchmarks (docs/PERFORMANCE.md).
#
#   make bench        the full run (about 10 minutes on two cores): builds the release binaries
#                     as installed (make install-build's: the Swift runtime linked in, in
#                     .build-static/), builds the photo corpus once from Debian packages
#                     (bench/corpus/, git-ignored), prints the table and writes it as JSON to
#                     bench/results/; BENCH_SHARED=1 measures `swift build -c release`'s binaries
#                     instead (.build/release: the Swift runtime shared, as `make run` runs it)
#   make bench-smoke  a handful of photos through every phase with the debug binaries, checking
#                     only that each phase runs and yields numbers (make test runs it; ~1 minute)
#   make bench-memory the memory rows alone (idle RSS fresh and after work, by mapping; the PNG
#                     burst's peak) with the JPEG burst and single-drop latency beside them (~3 min);
#                     BENCH_SHARED=1 as for make bench
#   BENCH_SCALE=1m    the scale rows (start, memory, list/search/categories through the socket,
#                     check) over 1,000,000 utensils with their files instead of 100,000; the
#                     state folder is built once into bench/corpus/scale-1000000 (about 1.4 GB,
#                     7 to 13 minutes on two cores). make bench-scale runs the scale rows alone.
#   make bench-lookalike the look-alike fingerprints' precision and recall (bench/lookalike.py): copies
#                     of the photos make/photos.mk installs caught per transform, the distinct pictures'
#                     pairs within the threshold, ten series of whisks drawn on one bench, the
#                     false-pair rate of a synthetic 100,000-photo catalog (~8 minutes); utensil-bench of the debug build, or LOOKALIKE_BIN's.
#                     make bench runs it too, with the bench's binaries.
#   make bench-s3     object storage beside local folders (bench/s3.py, make/s3.mk): a SeaweedFS of its
#                     own from make s3-deps; raw PUT/GET/DELETE, the JPEG burst into local folders and
#                     into the bucket in turn, the gallery's thumbnails and originals from each (~2
#                     minutes). make bench runs it too, with the bench's binaries.
#   make bench-ab BASE=DIR this build's binaries (as make bench builds them) against another build's
#                     in DIR (an older commit's, built as installed in a worktree; bench/ab.py says how),
#                     alternating: the JPEG burst's photos a second and the daemon's CPU a photo, a
#                     control request's p50/p99 during the bursts, the engine's CPU a photo (~4 minutes)
#   make bench-postgres  PostgreSQL beside SQLite: the JPEG burst into each, the
#                     time from a drop on one host to its event on another sharing the catalog,
#                     and the scale rows over BENCH_SCALE utensils in PostgreSQL (start, list/search,
#                     the gallery's first page) (bench/postgres.py; a PostgreSQL 15 of its own;
#                     ~6 minutes, five rounds of the burst each; BENCH_SCALE=1m loads 1,000,000 rows, ~5 minutes more).
#                     make bench-postgres-scale runs the scale rows alone.
#
# Ratios matter, not absolute times: these machines are shared. Run it on a quiet machine.

BENCH_PACKAGES := python3 python3-pil python3-numpy libvips-tools dpkg libheif-examples webp wrk gdb
BENCH_RUN      := /usr/bin/python3 $(CURDIR)/bench/run.py
BENCH_SCALE    ?= 100k
BENCH_ROWS     := $(if $(filter 1m,$(BENCH_SCALE)),1000000,$(if $(filter 100k,$(BENCH_SCALE)),100000,$(error BENCH_SCALE is 100k or 1m, not $(BENCH_SCALE))))

.PHONY: bench bench-smoke bench-scale bench-memory bench-lookalike bench-ab bench-postgres bench-postgres-scale bench-deps

bench-deps:
	@scripts/ensure-packages $(BUILD_PACKAGES) $(BENCH_PACKAGES)

# What make bench, bench-scale and bench-memory measure: the daemon as installed (the binaries
# of make install-build and the Debian package, built into .build-static), or with
# BENCH_SHARED=1 those of `swift build -c release` (.build/release).
ifeq ($(BENCH_SHARED),1)
BENCH_BUILD  = $(SWIFT) build -c release
BENCH_BIN    = $(CURDIR)/.build/release
else
BENCH_BUILD  = $(STATIC_BUILD)
BENCH_BIN    = $(STATIC_BIN)
endif

bench: bench-deps
	$(BENCH_BUILD)
	$(BENCH_RUN) --bin $(BENCH_BIN) --corpus $(CURDIR)/bench/corpus --profile full --scale-rows $(BENCH_ROWS)
	$(MAKE) --no-print-directory bench-lookalike LOOKALIKE_BIN=$(BENCH_BIN) LOOKALIKE_BUILD=true
	$(MAKE) --no-print-directory bench-s3 S3_BENCH_BIN=$(BENCH_BIN) S3_BENCH_BUILD=true

# The look-alikes' table (docs/PERFORMANCE.md), also written to bench/results/latest-lookalike.json.
LOOKALIKE_BIN   ?= $(CURDIR)/.build/debug
LOOKALIKE_BUILD ?= $(SWIFT) build --product utensil-bench

bench-lookalike: bench-deps
	@scripts/ensure-packages $(PHOTO_PACKAGES)
	$(LOOKALIKE_BUILD)
	/usr/bin/python3 $(CURDIR)/bench/lookalike.py --bench $(LOOKALIKE_BIN)/utensil-bench \
		--json $(CURDIR)/bench/results/latest-lookalike.json

bench-scale: bench-deps
	$(BENCH_BUILD)
	$(BENCH_RUN) --bin $(BENCH_BIN) --corpus $(CURDIR)/bench/corpus --profile full --scale-rows $(BENCH_ROWS) --only scale

bench-memory: bench-deps
	$(BENCH_BUILD)
	$(BENCH_RUN) --bin $(BENCH_BIN) --corpus $(CURDIR)/bench/corpus --profile full --only memory

bench-ab: bench-deps
	$(if $(BASE),,$(error make bench-ab needs BASE=DIR, the folder of the base's utensild, utensilctl and utensil-bench))
	$(BENCH_BUILD)
	/usr/bin/python3 $(CURDIR)/bench/ab.py --a $(BASE) --b $(BENCH_BIN)

bench-postgres: bench-deps
	@scripts/ensure-packages $(POSTGRES_PACKAGES)
	$(SWIFT) build -c release
	/usr/bin/python3 $(CURDIR)/bench/postgres.py --bin $(CURDIR)/.build/release --corpus $(CURDIR)/bench/corpus --scale-rows $(BENCH_ROWS)

bench-postgres-scale: bench-deps
	@scripts/ensure-packages $(POSTGRES_PACKAGES)
	$(SWIFT) build -c release
	/usr/bin/python3 $(CURDIR)/bench/postgres.py --bin $(CURDIR)/.build/release --corpus $(CURDIR)/bench/corpus --scale-rows $(BENCH_ROWS) --only scale

bench-smoke: bench-deps
	$(SWIFT) build
	$(BENCH_RUN) --bin $(CURDIR)/.build/debug --corpus $(CURDIR)/bench/corpus-smoke --profile smoke

TEST_EXTRAS += bench-smoke
