# The JSON API against its OpenAPI document, with tools from PyPI in a virtual
# environment this file makes: openapi-spec-validator (the document is valid OpenAPI 3.1),
# schemathesis (every documented operation answers as documented, on a real utensild) and
# openapi-python-client (a client generated from it lists utensils). `make test` runs it.

OPENAPI_VENV  := $(CURDIR)/.build-openapi-venv
OPENAPI_TOOLS := schemathesis==4.32.5 openapi-spec-validator==0.9.0 openapi-python-client==0.29.1

.PHONY: openapi-test

$(OPENAPI_VENV)/.tools:
	@scripts/ensure-packages python3-venv
	/usr/bin/python3 -m venv $(OPENAPI_VENV)
	$(OPENAPI_VENV)/bin/pip install --quiet $(OPENAPI_TOOLS)
	@touch $@

## The API against its OpenAPI document (schemathesis, a generated client).
openapi-test: test-deps $(OPENAPI_VENV)/.tools
	$(SWIFT) build --product utensild
	$(SWIFT) build --product utensilctl
	$(OPENAPI_VENV)/bin/python tests/web/openapi_test.py $(CURDIR)/.build/debug $(CURDIR)/.build/openapi-test

TEST_EXTRAS += openapi-test
