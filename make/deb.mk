# The Debian package (README: "Install on Debian"): `make deb` stages `make install PREFIX=/usr`
# under .build-deb/stage and packs it with scripts/build-deb (dpkg-deb; Depends: from
# dpkg-shlibdeps); the package lands in .build-deb/. `make lint` also runs lintian on it.

DEB_DIR      := $(CURDIR)/.build-deb
DEB_STAGE    := $(DEB_DIR)/stage
DEB_PACKAGES := dpkg-dev binutils xz-utils
DEB_VERSION   = $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/UtensilControlProtocol/UtensildVersion.swift)
DEB_FILE      = $(DEB_DIR)/utensild_$(DEB_VERSION)_$(shell dpkg --print-architecture).deb

.PHONY: deb

deb: install-build
	@scripts/ensure-packages $(DEB_PACKAGES)
	rm -rf $(DEB_STAGE)
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(DEB_STAGE)
	@[ -n "$(DEB_VERSION)" ] || { echo "deb: no version in Sources/UtensilControlProtocol/UtensildVersion.swift"; exit 1; }
	scripts/build-deb $(DEB_STAGE) $(DEB_DIR) $(DEB_VERSION)
