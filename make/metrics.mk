# GET /metrics (issue 25). Tests/UtensildTests/MetricsTests.swift scrapes a real daemon, and
# runs a real Prometheus server (Debian's `prometheus`) listening on loopback only, with its
# configuration and data in the test's temporary folder, that scrapes the daemon and is asked
# through its HTTP API for the ingest counter. `make unit-test` runs both (the package is in
# TEST_PACKAGES); `make metrics-test` runs them alone.

METRICS_PACKAGES := prometheus

.PHONY: metrics-test

metrics-test:
	@scripts/ensure-packages $(BUILD_PACKAGES) $(METRICS_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter 'MetricsTests'
