# utensild under a real systemd (README: "Install on Debian", "Operate").
#
#   make lint          every Swift import declared in Package.swift (scripts/check-imports), no
#                      fault hooks in the release binary, its code laid out by packaging/utensild.order
#                      (scripts/check-code-layout), lintian on the .deb (no warnings),
#                      systemd-analyze verify of the installed unit (clean) and its security
#                      exposure (printed; at most 1.5)
#   make system-test   installs the .deb into a minimal Debian 12 root (debootstrap, cached in
#                      .build-system/), boots systemd in it inside private namespaces and checks
#                      what an administrator would; about 1 minute once the root is cached
#                      (2 more the first time), plus the release build the first time
#
# `make test` (hence .ci/run) runs lint beside the Swift tests, then release-suites and
# system-suite: release-test and system-test without their lint.

LINT_PACKAGES   := lintian systemd procps man-db
SYSTEM_PACKAGES := debootstrap debian-archive-keyring util-linux curl $(PHOTO_PACKAGES)

.PHONY: lint release-test system-test release-suites system-suite

lint: deb
	@scripts/ensure-packages $(LINT_PACKAGES)
	scripts/check-imports
	@# The fault hooks of the tests exist only in debug builds.
	@! strings $(DEB_STAGE)/usr/bin/utensild | grep -e UTENSIL_FAULT -e utensil_crashguard_simulate -e original-written \
		|| { echo "lint: the release utensild carries fault-injection hooks"; exit 1; }
	@# The code a daemon runs laid out first (make/install.mk; the .deb's binary has no symbols).
	scripts/check-code-layout $(STATIC_BIN)/utensild $(CODE_ORDER)
	lintian --fail-on warning $(DEB_FILE)
	scripts/lint-unit $(DEB_STAGE)

system-test: lint
	@$(MAKE) --no-print-directory system-suite

# system-test without building and linting the package first (make test has done that).
system-suite:
	@scripts/ensure-packages $(SYSTEM_PACKAGES)
	scripts/system-test $(DEB_FILE)

## The suites about the daemon's doors, run again against the package's release binaries
## (staged by `make lint`): descriptor limits, sign-in, the Host check, upload confinement,
## decoding memory (lying HEIC/AVIF), PngSuite and the web adversary.
RELEASE_SUITES := WebListenerLimitsTests|WebSignInTests|WebHostCheckTests|UploadConfinementTests|DecodeMemoryTests|PngSuiteDaemonTests|StressWebAdversaryTests
release-test: lint
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory release-suites

# release-test without building and linting the package first (make test has done that).
release-suites:
	UTENSIL_TEST_BIN_DIR=$(DEB_STAGE)/usr/bin SWIFT_TEST_LOGS=$(CURDIR)/.build/test-logs/release \
		SWIFT=$(SWIFT) scripts/run-swift-tests $(SWIFT_TEST_LIMIT) -- --filter '^UtensildTests\.($(RELEASE_SUITES))(/|$$)'

TEST_BESIDE += lint
TEST_EXTRAS += release-suites system-suite
