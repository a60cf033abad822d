# Fuzzing and sanitizers for the image codec (docs/RELIABILITY.md: "Hostile files and fuzzing").
#
# fuzz/ is a small package of the codec alone (its targets are symbolic links to Sources/ and
# Tests/), so that libFuzzer and sanitizer builds compile only the codec and its tests.
#
#   make fuzz FUZZ_SECONDS=300   libFuzzer over sniff + makeThumbnail, from fuzz/corpus;
#                                new inputs go to fuzz/.work/corpus, crashes to fuzz/.work/artifacts
#   make fuzz-merge              minimises fuzz/corpus with what the runs found (-merge=1)
#   make fuzz-seeds              regenerates the seed images (fuzz/seeds.py) and merges them
#   make sanitize                the codec tests (corpus replay included) under ASan, then TSan
#
# A crash file belongs in fuzz/regressions/ once fixed: `make test` replays it for ever.

FUZZ_SECONDS ?= 300
FUZZ_DIR     := $(CURDIR)/fuzz
FUZZ_WORK    := $(FUZZ_DIR)/.work
FUZZER       := $(FUZZ_DIR)/.build-fuzz/release/CodecFuzz
# 180 px thumbnails with the daemon's default limits (100 megapixels); inputs up to 8 KiB;
# a single input taking 20 s is reported as a hang, 2.5 GB of memory as a leak or bomb.
FUZZ_FLAGS   ?= -max_len=8192 -timeout=20 -rss_limit_mb=2560 -print_final_stats=1

.PHONY: fuzz fuzz-build fuzz-merge fuzz-seeds sanitize sanitize-address sanitize-thread

# `--sanitize=fuzzer --sanitize=address` reaches swiftc as two -sanitize options, and only the
# last one counts (no coverage, so libFuzzer fuzzes blind). SwiftPM's --sanitize=fuzzer is kept
# for the link (libFuzzer's main), and swiftc gets both sanitizers in one option.
fuzz-build: deps
	cd $(FUZZ_DIR) && $(SWIFT) build -c release --product CodecFuzz --scratch-path .build-fuzz \
		--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DUTENSIL_LIBFUZZER
	@$(FUZZER) -runs=0 $(FUZZ_DIR)/regressions 2>&1 | grep -q "inline 8-bit counters" \
		|| { echo "fuzz-build: CodecFuzz has no coverage counters"; exit 1; }

fuzz: fuzz-build
	@mkdir -p $(FUZZ_WORK)/corpus $(FUZZ_WORK)/artifacts $(FUZZ_DIR)/regressions
	$(FUZZER) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_WORK)/artifacts/ \
		$(FUZZ_WORK)/corpus $(FUZZ_DIR)/corpus $(FUZZ_DIR)/regressions \
	|| { echo "fuzz: a finding is in $(FUZZ_WORK)/artifacts/; fix it, then add the file to fuzz/regressions/"; exit 1; }

fuzz-merge: fuzz-build
	@mkdir -p $(FUZZ_WORK)/corpus $(FUZZ_WORK)/merged
	rm -rf $(FUZZ_WORK)/merged && mkdir -p $(FUZZ_WORK)/merged
	$(FUZZER) $(FUZZ_FLAGS) -merge=1 $(FUZZ_WORK)/merged $(FUZZ_DIR)/corpus $(FUZZ_WORK)/corpus
	@test -n "$$(ls $(FUZZ_WORK)/merged)" || { echo "fuzz-merge: the merge kept nothing; fuzz/corpus left as it was"; exit 1; }
	rm -f $(FUZZ_DIR)/corpus/* && cp $(FUZZ_WORK)/merged/* $(FUZZ_DIR)/corpus/
	@echo "fuzz/corpus: $$(ls $(FUZZ_DIR)/corpus | wc -l) files, $$(du -sh $(FUZZ_DIR)/corpus | cut -f1)"

fuzz-seeds: fuzz-build test-deps
	@mkdir -p $(FUZZ_WORK)/seeds
	rm -f $(FUZZ_WORK)/seeds/*
	/usr/bin/python3 $(FUZZ_DIR)/seeds.py $(FUZZ_WORK)/seeds
	$(FUZZER) $(FUZZ_FLAGS) -merge=1 $(FUZZ_DIR)/corpus $(FUZZ_WORK)/seeds

# UBSan is not offered: swiftc 6.3.1 refuses -sanitize=undefined for x86_64 Linux, and the codec
# has no C of its own (Swift traps on overflow and out-of-bounds access by itself). TSan runs
# instead: the codec promises to be safe from many threads at once, and a test holds it to that.
sanitize: sanitize-address sanitize-thread

# make test runs the ASan pass after the Swift tests (about 3 minutes on two cores, build
# included); the TSan pass (about 4 more) is left to `make sanitize`.
TEST_EXTRAS += sanitize-address

# With LeakSanitizer; fuzz/lsan.supp names the two leaks of the test tools (XCTest, Process).
sanitize-address: test-deps
	cd $(FUZZ_DIR) && $(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	cd $(FUZZ_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		LSAN_OPTIONS=suppressions=$(FUZZ_DIR)/lsan.supp:print_suppressions=0 \
		$(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan

sanitize-thread: test-deps
	cd $(FUZZ_DIR) && $(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	cd $(FUZZ_DIR) && TSAN_OPTIONS=halt_on_error=1 \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan
