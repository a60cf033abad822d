# The stress suite: burst, kill -9 loop, disk full, database trouble, slow-loris,
# an adversary (folders swapped for links, drops rewritten in place during a burst), files
# planted in rejected/ during a burst, and a web adversary (idle connections past the descriptor
# limit, parallel sign-ins, linked category folders, raced uploads, lying HEIC/AVIF).
# Its short profile runs inside `make test` with the other Swift tests (Tests/UtensildTests/Stress);
# `make stress` runs the long profile, by hand and before each release (about half an hour).
# UTENSIL_STRESS_SEED=<n> replays a run's random choices (each run prints its seed).
# Needs root (tmpfs mounts in a private namespace, chattr, the inotify queue limit).

STRESS_FILTER := UtensildTests.Stress

.PHONY: stress stress-short

## The long profile: 10,000 small + 1,000 large photos, 60 kill -9s, disk full, database trouble, slow-loris, an adversary, planted files.
stress: test-deps
	$(SWIFT) build --build-tests
	UTENSIL_STRESS=long $(SWIFT) test --skip-build --no-parallel --filter '$(STRESS_FILTER)'

## Only the short profile (it also runs within `make test`).
stress-short: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --filter '$(STRESS_FILTER)'
