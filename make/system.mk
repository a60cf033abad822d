# utensild under a real systemd (README: "Install on Debian", "Operate").
#
#   make lint          every Swift import declared in Package.swift (scripts/check-imports), no
#                      fault hooks in the release binary, lintian on the .deb (no warnings),
#                      systemd-analyze verify of the installed unit (clean) and its security
#                      exposure (printed; at most 1.5)
#   make system-test   installs the .deb into a minimal Debian 12 root (debootstrap, cached in
#                      .build-system/), boots systemd in it inside private namespaces and checks
#                      what an administrator would; about 1 minute once the root is cached
#                      (2 more the first time), plus the release build the first time
#
# `make test` (hence .ci/run) runs system-test, and system-test runs lint first.

LINT_PACKAGES   := lintian systemd procps man-db
SYSTEM_PACKAGES := debootstrap debian-archive-keyring util-linux curl $(PHOTO_PACKAGES)

.PHONY: lint system-test

lint: deb
	@scripts/ensure-packages $(LINT_PACKAGES)
	scripts/check-imports
	@# The fault hooks of the tests exist only in debug builds.
	@! strings $(DEB_STAGE)/usr/bin/utensild | grep -e UTENSIL_FAULT -e utensil_crashguard_simulate \
		|| { echo "lint: the release utensild carries fault-injection hooks"; exit 1; }
	lintian --fail-on warning $(DEB_FILE)
	scripts/lint-unit $(DEB_STAGE)

system-test: lint
	@scripts/ensure-packages $(SYSTEM_PACKAGES)
	scripts/system-test $(DEB_FILE)

TEST_EXTRAS += system-test
