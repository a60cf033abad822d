# `make doctor`: what this machine has and lacks to build and to run `make test`
# (scripts/doctor), every package list of the Makefile and make/*.mk passed to it.

.PHONY: doctor

## Says what is present and what is missing to build and to run `make test`.
doctor:
	@SWIFT=$(SWIFT) scripts/doctor $(sort $(foreach list,$(filter %_PACKAGES,$(.VARIABLES)),$($(list))))
