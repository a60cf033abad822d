# utensild — build, run and test. `make run` and `make test` install the Debian packages they
# need when they are missing (as root, or through sudo).

SWIFT     ?= swift
PREFIX    ?= /usr/local
VAR       := $(CURDIR)/var
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Suites that `make test` runs after the Swift tests; each make/<topic>.mk appends its own.
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


.PHONY: all build release run test unit-test deps test-deps clean

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

## Builds and runs every test: the Swift tests, then each suite in TEST_EXTRAS.
test: unit-test $(TEST_EXTRAS)

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
