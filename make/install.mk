# Installing utensild (README: "Install").
#
#   make install-build          release binaries with the Swift runtime linked in (--static-swift-stdlib,
#                               so the target machine needs no Swift toolchain), man pages, completions
#   make symbol-order           profiles those binaries (valgrind) and rewrites packaging/utensild.order,
#                               the order their code is laid out in; commit the file it writes
#   make install                installs them, the systemd units, the sysusers.d/tmpfiles.d snippets,
#                               the journal catalog and /etc/utensild/utensild.toml (kept if present)
#   make uninstall              removes what `make install` put there (never the data, and the
#                               configuration only if unchanged)
#
# Both honour PREFIX (default /usr/local) and DESTDIR; the Debian package (make deb) is
# `make install PREFIX=/usr DESTDIR=…`. Every folder below can be overridden on the command line.

DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/utensild
SYSCONFDIR  ?= /etc
SYSTEMDDIR  ?= $(PREFIX)/lib/systemd
UNITDIR     ?= $(SYSTEMDDIR)/system
CATALOGDIR  ?= $(SYSTEMDDIR)/catalog
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# zsh looks in vendor-completions under /usr, in site-functions under /usr/local.
ZSHCOMPDIR  ?= $(DATADIR)/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d

# The release build for installing: its own scratch folder, so that it never fights `make
# release` (dynamically linked) over .build/. About 5 to 9 minutes cold on two cores.
STATIC_SCRATCH := $(CURDIR)/.build-static
STATIC_BIN     := $(STATIC_SCRATCH)/release
# The build of those binaries (make bench measures the same ones: make/bench.mk). The code a
# daemon runs is laid out first and together: every Swift function is compiled into a section of
# its own, which utensild's link (Package.swift) places in the order CODE_ORDER gives (make
# symbol-order writes it; docs/PERFORMANCE.md, "The binary's resident code"). The script builds
# again what SwiftPM would not: objects of other compiler flags, utensild after a new order file.
CODE_ORDER     := $(CURDIR)/packaging/utensild.order
STATIC_BUILD    = SWIFT=$(SWIFT) scripts/build-installed $(STATIC_SCRATCH) $(CODE_ORDER)
# GRDB also leaves GRDB_GRDB.resources beside the binaries: only Apple's privacy manifest, never
# read at run time, so it is not installed (the system test runs the installed binaries without it).
# Generated man pages and completions.
GENERATED      := $(STATIC_SCRATCH)/generated
# Man pages carry the date of the last commit, so that two builds of one commit are identical.
MAN_DATE       := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

.PHONY: install-build install uninstall symbol-order

install-build: deps
	@# The whole package (no test code: test support is a test target), then the man-page tool,
	@# which is a product of swift-argument-parser and so is built only when named.
	$(STATIC_BUILD)
	$(STATIC_BUILD) --product generate-manual
	@rm -rf $(GENERATED) && mkdir -p $(GENERATED)/man $(GENERATED)/completions
	$(STATIC_BIN)/generate-manual $(STATIC_BIN)/utensilctl --section 1 --date $(MAN_DATE) \
		--authors 'utensild maintainers' --output-directory $(GENERATED)/man
	$(STATIC_BIN)/generate-manual $(STATIC_BIN)/utensild --section 8 --date $(MAN_DATE) \
		--authors 'utensild maintainers' --output-directory $(GENERATED)/man
	@# Blank lines in mdoc are groff warnings; bash completions are sourced, not run (no #!).
	sed -i '/^$$/d' $(GENERATED)/man/*
	$(STATIC_BIN)/utensilctl --generate-completion-script bash | sed '1{/^#!/d}' > $(GENERATED)/completions/utensilctl.bash
	$(STATIC_BIN)/utensilctl --generate-completion-script zsh  > $(GENERATED)/completions/_utensilctl
	$(STATIC_BIN)/utensilctl --generate-completion-script fish > $(GENERATED)/completions/utensilctl.fish

install: install-build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(CATALOGDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/utensild \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(STATIC_BIN)/utensild $(STATIC_BIN)/utensilctl $(DESTDIR)$(BINDIR)/
	sed 's|/usr/bin/utensild|$(BINDIR)/utensild|; s|/etc/utensild/|$(SYSCONFDIR)/utensild/|; s|/usr/share/doc/utensild/|$(DOCDIR)/|' \
		systemd/utensild.service > $(DESTDIR)$(UNITDIR)/utensild.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/utensild.service
	sed 's|/usr/share/doc/utensild/|$(DOCDIR)/|' systemd/utensild-web.socket > $(DESTDIR)$(UNITDIR)/utensild-web.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/utensild-web.socket
	install -m 0644 systemd/utensild.catalog $(DESTDIR)$(CATALOGDIR)/utensild.catalog
	install -m 0644 systemd/utensild.sysusers $(DESTDIR)$(SYSUSERSDIR)/utensild.conf
	install -m 0644 systemd/utensild.tmpfiles $(DESTDIR)$(TMPFILESDIR)/utensild.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml ]; then \
		echo "install: keeping the existing $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml"; \
	else \
		install -m 0644 config/utensild.toml $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml; \
	fi
	install -m 0644 $(GENERATED)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(GENERATED)/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(GENERATED)/completions/utensilctl.bash $(DESTDIR)$(BASHCOMPDIR)/utensilctl
	install -m 0644 $(GENERATED)/completions/_utensilctl $(DESTDIR)$(ZSHCOMPDIR)/_utensilctl
	install -m 0644 $(GENERATED)/completions/utensilctl.fish $(DESTDIR)$(FISHCOMPDIR)/utensilctl.fish
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 docs/WEB.md $(DESTDIR)$(DOCDIR)/WEB.md
	@[ -n "$(DESTDIR)" ] || echo "install: done; now run: systemd-sysusers; systemd-tmpfiles --create; \
	journalctl --update-catalog; systemctl daemon-reload; systemctl enable --now utensild-web.socket utensild"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/utensild $(DESTDIR)$(BINDIR)/utensilctl \
		$(DESTDIR)$(UNITDIR)/utensild.service $(DESTDIR)$(UNITDIR)/utensild-web.socket \
		$(DESTDIR)$(CATALOGDIR)/utensild.catalog \
		$(DESTDIR)$(SYSUSERSDIR)/utensild.conf $(DESTDIR)$(TMPFILESDIR)/utensild.conf \
		$(DESTDIR)$(MANDIR)/man1/utensilctl*.1 $(DESTDIR)$(MANDIR)/man8/utensild*.8 \
		$(DESTDIR)$(BASHCOMPDIR)/utensilctl $(DESTDIR)$(ZSHCOMPDIR)/_utensilctl \
		$(DESTDIR)$(FISHCOMPDIR)/utensilctl.fish $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/WEB.md
	@rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	@if cmp -s config/utensild.toml $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml; rmdir $(DESTDIR)$(SYSCONFDIR)/utensild 2>/dev/null || true; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml ]; then \
		echo "uninstall: $(DESTDIR)$(SYSCONFDIR)/utensild/utensild.toml was changed; left in place"; \
	fi
	@echo "uninstall: the data (/var/lib/utensild, the inbox, rejected/) and the utensil user are left in place"

## The functions a daemon runs in its first minutes, in the order the linker lays them out
## (scripts/symbol-order: valgrind's callgrind over the installed build and make bench's photos).
symbol-order: install-build bench-deps
	@scripts/ensure-packages valgrind
	/usr/bin/python3 $(CURDIR)/bench/corpus.py $(CURDIR)/bench/corpus --profile full
	scripts/symbol-order $(STATIC_BIN) $(CURDIR)/bench/corpus $(CODE_ORDER)
	$(STATIC_BUILD)
