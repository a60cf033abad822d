# GET /metrics. Tests/UtensildTests/MetricsTests.swift scrapes a real daemon, checks the
# scrape with `promtool check metrics` (HELP and TYPE for every family; promtool comes with
# the `prometheus` package), and runs a real Prometheus server listening on loopback only,
# with its configuration and data in the test's temporary folder, that scrapes the daemon and
# is asked through its HTTP API for the ingest counter. `make unit-test` runs them all (the
# package is in TEST_PACKAGES); `make metrics-test` runs them alone.

METRICS_PACKAGES := prometheus

.PHONY: metrics-test

metrics-test:
	@scripts/ensure-packages $(BUILD_PACKAGES) $(METRICS_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter 'MetricsTests'
