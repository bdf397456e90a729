# Model-based fuzzing of ecs.h (tests/fuzz/fuzz_model.c: input bytes drive API
# calls, and after every call the world is compared with a naive model).
#
#   make fuzz                   libFuzzer + ASan/UBSan (clang, Debian
#                               libclang-rt-14-dev) for FUZZ_TIME seconds on a
#                               copy of tests/fuzz/corpus in build/fuzz/corpus
#                               (without the known-bug-* inputs); prints the
#                               executions; crashes go to build/fuzz/crash-*
#   make fuzz FUZZ_TIME=600     longer; FUZZ_JOBS=2 runs two workers
#   make fuzz FUZZ_SAVE=1       then copies the new inputs to tests/fuzz/corpus
#   make fuzz-cmin              shrinks tests/fuzz/corpus to a small set of
#                               inputs that together reach every edge the
#                               corpus reaches (libFuzzer -set_cover_merge=1
#                               on edges), keeping the known-bug-* inputs
#   make fuzz-replay            replay tests/fuzz/corpus (no libFuzzer needed)
#
#   FUZZ_SKIP_KNOWN=1 make fuzz steers around the known ecs.h bugs listed
#   at the top of tests/fuzz/fuzz_model.c (FUZZ_TRACE=1 traces a replay).
#
# make test runs, with $(CC) (gcc: no libFuzzer needed):
#   - every file of tests/fuzz/corpus, built with ASan/UBSan;
#   - the fixed-seed random driver: FUZZ_OPS (10^6) operations built -O2
#     without sanitizers (about 5 s; under ASan/UBSan it would take about
#     25 s), and FUZZ_SAN_OPS (1.5*10^5) more, another seed, under ASan/UBSan.
# Every op of all three is checked against the model.

FUZZ_TIME    ?= 60
FUZZ_JOBS    ?= 1
FUZZ_MAX_LEN ?= 8192
FUZZ_OPS     ?= 1000000
FUZZ_SAN_OPS ?= 150000
FUZZ_SEED    ?= 1
FUZZ_DIR     := tests/fuzz
FUZZ_CORPUS  := $(FUZZ_DIR)/corpus
FUZZ_SRC     := $(FUZZ_DIR)/fuzz_model.c
FUZZ_FLAGS   := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# the libFuzzer target (clang only)
$(B)/fuzz/fuzz_model: $(FUZZ_SRC) ecs.h | $(B)/fuzz/
	$(CLANG) -std=c11 $(WARN) -O1 $(FUZZ_FLAGS) $(CFLAGS_COMMON) $< -o $@
# replay + random driver (any C99 compiler): with sanitizers, and -O2 without
$(B)/fuzz/fuzz_replay: $(FUZZ_SRC) ecs.h | $(B)/fuzz/
	$(CC) -std=c99 $(WARN) -O1 $(SAN) $(CFLAGS_COMMON) -DFUZZ_MAIN $< -o $@
$(B)/fuzz/fuzz_driver: $(FUZZ_SRC) ecs.h | $(B)/fuzz/
	$(CC) -std=c99 $(WARN) -O2 $(CFLAGS_COMMON) -DFUZZ_MAIN $< -o $@

FUZZ_ARGS := -max_len=$(FUZZ_MAX_LEN) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 -artifact_prefix=./ \
             $(if $(filter-out 0 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS))
# the checked-in corpus without the inputs of known bugs (make test replays those)
FUZZ_SEEDS = find $(FUZZ_CORPUS) -type f ! -name 'known-bug-*' -exec cp {} $(1) \;

fuzz: $(B)/fuzz/fuzz_model
	@rm -rf $(B)/fuzz/corpus $(B)/fuzz/crash-* $(B)/fuzz/leak-* $(B)/fuzz/timeout-* $(B)/fuzz/oom-* $(B)/fuzz/fuzz*.log
	@mkdir -p $(B)/fuzz/corpus && $(call FUZZ_SEEDS,$(B)/fuzz/corpus)
	@echo "make fuzz: $(FUZZ_TIME) s, $(FUZZ_JOBS) worker(s), corpus $(B)/fuzz/corpus, log $(B)/fuzz/fuzz.log"
	@cd $(B)/fuzz && ./fuzz_model $(FUZZ_ARGS) corpus >fuzz.log 2>&1; status=$$?; \
	    grep -h '^stat::\|^Done \|^INFO: seed\|ERROR\|SUMMARY\|fuzz_model.c:[0-9]' fuzz*.log; \
	    if [ $$status -ne 0 ] || ls crash-* leak-* timeout-* oom-* >/dev/null 2>&1; then \
	        echo "make fuzz: crash: $$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | sed 's,^,$(B)/fuzz/,')"; exit 1; fi
	@$(if $(FUZZ_SAVE),cp -n $(B)/fuzz/corpus/* $(FUZZ_CORPUS)/ && echo "make fuzz: new inputs copied to $(FUZZ_CORPUS) (make fuzz-cmin shrinks it)")
	@echo "make fuzz: no crash in $(FUZZ_TIME) s"

fuzz-cmin: $(B)/fuzz/fuzz_model
	rm -rf $(B)/fuzz/cmin $(B)/fuzz/cmin-in && mkdir -p $(B)/fuzz/cmin $(B)/fuzz/cmin-in
	$(call FUZZ_SEEDS,$(B)/fuzz/cmin-in)
	FUZZ_SKIP_KNOWN=1 $(B)/fuzz/fuzz_model -set_cover_merge=1 -use_counters=0 -max_len=$(FUZZ_MAX_LEN) \
	    $(B)/fuzz/cmin $(B)/fuzz/cmin-in >$(B)/fuzz/cmin.log 2>&1 || { tail $(B)/fuzz/cmin.log; exit 1; }
	find $(FUZZ_CORPUS) -type f ! -name 'known-bug-*' -delete && cp $(B)/fuzz/cmin/* $(FUZZ_CORPUS)/
	@echo "$(FUZZ_CORPUS): $$(ls $(FUZZ_CORPUS) | wc -l) inputs"

fuzz-replay: $(B)/fuzz/fuzz_replay
	./$(B)/fuzz/fuzz_replay $(FUZZ_CORPUS)

TEST_DEPS += $(B)/fuzz/fuzz_replay $(B)/fuzz/fuzz_driver
TEST_CMDS += '$(B)/fuzz/fuzz_replay $(FUZZ_CORPUS)' \
             '$(B)/fuzz/fuzz_driver --random $(FUZZ_OPS) $(FUZZ_SEED)' \
             '$(B)/fuzz/fuzz_replay --random $(FUZZ_SAN_OPS) 2'

.PHONY: fuzz fuzz-cmin fuzz-replay
