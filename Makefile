# utensild — build, run and test. `make run` and `make test` install the Debian packages they
# need when they are missing (as root, or through sudo).

SWIFT     ?= swift
PREFIX    ?= /usr/local
VAR       := $(CURDIR)/var
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# What `make test` runs beside the Swift tests, at low priority (builds that compute while the
# tests wait), and the suites it runs after them; each make/<topic>.mk appends its own.
TEST_BESIDE :=
TEST_EXTRAS :=
.DEFAULT_GOAL := all
include $(sort $(wildcard make/*.mk))

# Build and run time: the C libraries utensild links.
BUILD_PACKAGES := libturbojpeg0-dev libspng-dev libheif-dev libwebp-dev libsystemd-dev libsqlite3-dev pkg-config
# Tests also need: the sqlite3 CLI (lock tests), Pillow/numpy and vipsthumbnail (quality
# references), rsync/coreutils (real drops), real photographs from a wallpaper package,
# heif-enc, cwebp and img2webp (HEIC and WebP test files made from them), and a browser for
# the web gallery's test (make/web.mk), a Prometheus server (make/metrics.mk), a PostgreSQL
# server (make/postgres.mk); gdb, for the backtraces of a test run that hangs
# (scripts/run-swift-tests).
TEST_PACKAGES  := $(BUILD_PACKAGES) sqlite3 python3 python3-pil python3-numpy libvips-tools rsync gdb \
                  libheif-examples webp $(PHOTO_PACKAGES) $(WEB_PACKAGES) $(METRICS_PACKAGES) $(POSTGRES_PACKAGES)


.PHONY: all build release run test test-build test-swift test-beside unit-test deps test-deps clean

all: build

deps:
	@scripts/ensure-packages $(BUILD_PACKAGES)

test-deps:
	@scripts/ensure-packages $(TEST_PACKAGES)

build: deps
	$(SWIFT) build

# Every product (and utensil-bench); test support is a test target, so none of it is compiled.
release: deps
	$(SWIFT) build -c release

## Runs the daemon in the foreground on local folders under ./var/.
run: release
	@mkdir -p $(VAR)/inbox $(VAR)/state $(VAR)/run
	@echo "utensild: drop photos (<name>.jpg or <name>.png) into $(VAR)/inbox"
	@echo "utensild: rejected drops and their reasons appear in $(VAR)/rejected"
	@echo "utensild: ask it with  UTENSIL_SOCKET=$(VAR)/run/control.sock $(CURDIR)/.build/release/utensilctl status"
	@echo "utensild: the web gallery is at  http://127.0.0.1:8180/"
	$(CURDIR)/.build/release/utensild --config /dev/null \
		--inbox $(VAR)/inbox --rejected $(VAR)/rejected --state-dir $(VAR)/state \
		--control-socket $(VAR)/run/control.sock --web-listen 127.0.0.1:8180 \
		--web-users-file $(VAR)/web-users

## Builds and runs every test, and prints how long it took. After the debug build, the Swift
## tests run (test-swift) while TEST_BESIDE runs beside them at low priority (the release build
## of the Debian package and its lint); then the suites in
## TEST_EXTRAS run, TEST_JOBS at a time. Each target's output is printed when it ends, and
## the seconds each stage and target took at the very end.
TEST_JOBS    ?= 3
TEST_STARTED := $(shell date +%s)
TEST_TIMES   := $(CURDIR)/.build/test-times
test: test-deps
	@mkdir -p $(dir $(TEST_TIMES)) && rm -f $(TEST_TIMES)
	@$(MAKE) --no-print-directory timed-test-build
	@echo "make test: the Swift tests, and beside them: $(TEST_BESIDE)"
	@$(MAKE) --no-print-directory -j2 --output-sync=target timed-test-swift test-beside
	@echo "make test: then $(TEST_EXTRAS), $(TEST_JOBS) at a time"
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(addprefix timed-,$(TEST_EXTRAS))
	@echo "make test: seconds per step: $$(sort -k2,2nr $(TEST_TIMES) | awk '{printf "%s%s %s", sep, $$1, $$2; sep=", "}')"
	@echo "make test: everything passed in $$(( $$(date +%s) - $(TEST_STARTED) )) s"

test-build:
	$(SWIFT) build --build-tests

# Runs a target and appends "target seconds" to TEST_TIMES when it passes.
timed-%:
	@started=$$(date +%s) && $(MAKE) --no-print-directory $* \
		&& echo "$* $$(( $$(date +%s) - started ))" >> $(TEST_TIMES)

# The suites of RELEASE_SUITES run in `make test` only against the release binaries
# (release-suites, make/system.mk); `make unit-test` runs them against the debug ones too.
test-swift:
	SWIFT=$(SWIFT) scripts/run-swift-tests $(SWIFT_TEST_LIMIT) --shards $(SWIFT_TEST_SHARDS) --skip-suites '^UtensildTests\.($(RELEASE_SUITES))$$'

# Untimed itself: each target it runs is timed.
test-beside:
	nice -n 10 $(MAKE) --no-print-directory $(addprefix timed-,$(TEST_BESIDE))

## Only the Swift tests, their suites dealt into SWIFT_TEST_SHARDS processes that run side by
## side (by the durations in Tests/suite-seconds.tsv). A run that has not finished after
## SWIFT_TEST_LIMIT seconds is ended, naming the tests still running and printing their
## threads' backtraces (scripts/run-swift-tests).
SWIFT_TEST_LIMIT  ?= 1800
SWIFT_TEST_SHARDS ?= 3
unit-test: test-deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/run-swift-tests $(SWIFT_TEST_LIMIT) --shards $(SWIFT_TEST_SHARDS)

clean:
	rm -rf .build var
