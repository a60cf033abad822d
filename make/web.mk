# The web gallery in a real browser (issue 14): Debian's chromium, headless, through
# chromium-driver, driven by Selenium from PyPI in a virtual environment this file makes,
# against the real utensild (debug build) with real photographs. `make test` runs it.
# The screenshot it saves is .build/web-gallery.png (docs/gallery.png is one of them); the
# layout checks (issue 24) save docs/gallery-phone.png, docs/gallery-desktop.png and
# docs/utensil-phone.png. heif-enc (libheif-examples) makes the HEIC photo it drops.
# (systemd brings systemd-socket-activate, for the Swift test of the activated listener.)

WEB_PACKAGES := chromium chromium-driver python3-venv systemd libheif-examples
WEB_VENV     := $(CURDIR)/.build-web-venv
SELENIUM     := selenium==4.51.0

.PHONY: web-test

$(WEB_VENV)/.selenium:
	@scripts/ensure-packages $(WEB_PACKAGES)
	/usr/bin/python3 -m venv $(WEB_VENV)
	$(WEB_VENV)/bin/pip install --quiet $(SELENIUM)
	@touch $@

## The browser test of the web gallery (chromium + Selenium).
web-test: test-deps $(WEB_VENV)/.selenium
	@scripts/ensure-packages $(WEB_PACKAGES)
	$(SWIFT) build --product utensild
	$(SWIFT) build --product utensilctl
	$(WEB_VENV)/bin/python tests/web/browser_test.py $(CURDIR)/.build/debug $(CURDIR)/.build/web-gallery.png $(CURDIR)/docs

TEST_EXTRAS += web-test
