# The PostgreSQL catalog. Its tests start a private PostgreSQL 15 server of their own
# (Tests/UtensilTestSupport/PostgresServer.swift: initdb in a temporary folder, run as the
# `postgres` user that Debian's package makes, a Unix socket and a loopback port), so they need
# the server programs under /usr/lib/postgresql/15/bin and pg_trgm, both in `postgresql-15`.
# The catalog contract suite (Tests/UtensilCatalogContractTests) runs against it too, one server
# per test process. `make unit-test` runs them (the package is in TEST_PACKAGES); `make
# postgres-test` runs them alone.

# The several-hosts tests put each host in a network namespace of its own (NetworkLab), made
# with `ip` from iproute2; the TLS tests make a certificate authority and the server's
# certificate with the openssl command.
POSTGRES_PACKAGES := postgresql-15 iproute2 openssl

.PHONY: postgres-test

postgres-test:
	@scripts/ensure-packages $(BUILD_PACKAGES) $(POSTGRES_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter 'UtensilCatalogPostgresTests|UtensilCatalogContractTests'
