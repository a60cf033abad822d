# The web gallery in a real browser: Debian's chromium, headless, through
# chromium-driver, driven by Selenium from PyPI in a virtual environment this file makes,
# against the real utensild (debug build) with real photographs. `make test` runs it.
# The screenshots it saves go to .build/web-screenshots/ (web-gallery.png, gallery-phone.png,
# gallery-desktop.png, utensil-phone.png); `make web-screenshots` runs it with the last three
# saved in docs/ (WEB_DOCS) and copies web-gallery.png to docs/gallery.png: the README's
# pictures; the other steps' screenshots stay in .build/web-screenshots/. heif-enc
# (libheif-examples) makes the HEIC photo it drops. axe-core (from axe-selenium-python, in the same environment) checks every page
# for serious accessibility findings; each step's screenshots stay in that folder too.
# (systemd brings systemd-socket-activate, for the Swift test of the activated listener.)

WEB_PACKAGES := chromium chromium-driver python3-venv systemd libheif-examples
WEB_VENV     := $(CURDIR)/.build-web-venv
SELENIUM     := selenium==4.51.0
# axe-core, as the JavaScript file this package ships (no npm): the accessibility check.
AXE          := axe-selenium-python==2.1.6

WEB_SHOTS    ?= $(CURDIR)/.build/web-screenshots
# Where the README's three layout pictures go (gallery-phone.png, gallery-desktop.png,
# utensil-phone.png).
WEB_DOCS     ?= $(WEB_SHOTS)

.PHONY: web-test web-screenshots

$(WEB_VENV)/.selenium-axe:
	@scripts/ensure-packages $(WEB_PACKAGES)
	/usr/bin/python3 -m venv $(WEB_VENV)
	$(WEB_VENV)/bin/pip install --quiet $(SELENIUM) $(AXE)
	@touch $@

## The browser test of the web gallery (chromium + Selenium).
web-test: test-deps $(WEB_VENV)/.selenium-axe
	@scripts/ensure-packages $(WEB_PACKAGES)
	$(SWIFT) build --product utensild
	$(SWIFT) build --product utensilctl
	@mkdir -p $(WEB_SHOTS)
	$(WEB_VENV)/bin/python tests/web/browser_test.py $(CURDIR)/.build/debug $(WEB_SHOTS)/web-gallery.png $(WEB_DOCS)

## The browser test, leaving its screenshots in docs/ (the README shows them).
web-screenshots:
	$(MAKE) web-test WEB_DOCS=$(CURDIR)/docs
	cp $(WEB_SHOTS)/web-gallery.png $(CURDIR)/docs/gallery.png

TEST_EXTRAS += web-test
