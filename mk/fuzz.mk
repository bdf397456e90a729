# Model-based fuzzing of ecs.h (tests/fuzz/fuzz_model.c: input bytes drive API
# calls, and after every call the world is compared with a naive model).
# Its full mode (most inputs) also passes forged entity ids (values never
# handed out: the documented answer is that of a stale id), and makes hooks,
# sort comparators and the systems of a running workload call back into the
# world (the rules of ecs.h section 2's callback table); see the comment at
# the top of fuzz_model.c.
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
#                               on edges), keeping the known-bug-* and
#                               regress-* inputs
#   make fuzz-replay            replay tests/fuzz/corpus (no libFuzzer needed)
#   make fuzz-minimize FUZZ_CRASH=build/fuzz/crash-... [FUZZ_BUG=n]
#                               shrinks a crashing input (libFuzzer
#                               -minimize_crash, 60 s) to build/fuzz/minimized;
#                               FUZZ_BUG=n keeps known bug n the crash
#                               (FUZZ_ONLY_BUG: the others are steered around)
#
#   FUZZ_SKIP_KNOWN=1 make fuzz steers around the known ecs.h bugs listed
#   at the top of tests/fuzz/fuzz_model.c (FUZZ_TRACE=1 traces a replay).
#   FUZZ_NEW_RULES=0 (make variable, or environment variable of a run)
#   leaves out the calls whose refusal came with ecs.h 0.2's callback rules
#   (ecs_flush, ecs_workload_run and ecs_world_free inside hooks and
#   comparators, ecs_system_new inside systems...), for an older ecs.h.
#
# make test runs, with $(CC) (gcc: no libFuzzer needed):
#   - every file of tests/fuzz/corpus, built with ASan/UBSan: a known-bug-<n>-*
#     input fails until bug n is fixed, the others steer around the known
#     bugs (FUZZ_SKIP_KNOWN=1 leaves known-bug-* files alone);
#   - the fixed-seed random driver, steering around the known bugs:
#     FUZZ_OPS (10^6) operations built -O2 without sanitizers (about 7 s;
#     under ASan/UBSan it would take about 40 s), and FUZZ_SAN_OPS
#     (1.5*10^5) more, another seed, under ASan/UBSan.
# Every op of all three is checked against the model, and so is every call
# a callback makes.

FUZZ_TIME    ?= 60
FUZZ_JOBS    ?= 1
FUZZ_MAX_LEN ?= 8192
FUZZ_OPS     ?= 1000000
FUZZ_SAN_OPS ?= 150000
FUZZ_SEED    ?= 1
FUZZ_NEW_RULES ?= 1
FUZZ_DIR     := tests/fuzz
FUZZ_CORPUS  := $(FUZZ_DIR)/corpus
FUZZ_SRC     := $(FUZZ_DIR)/fuzz_model.c
FUZZ_FLAGS   := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

FUZZ_DEFS    := -DFUZZ_NEW_RULES=$(FUZZ_NEW_RULES)

# the libFuzzer target (clang only)
$(B)/fuzz/fuzz_model: $(FUZZ_SRC) ecs.h $(B)/fuzz/defs | $(B)/fuzz/
	$(CLANG) -std=c11 $(WARN) -O1 $(FUZZ_FLAGS) $(CFLAGS_COMMON) $(FUZZ_DEFS) $< -o $@
# replay + random driver (any C99 compiler): with sanitizers, and -O2 without.
# The sanitized one is -O0: 8 s to compile and 7 s for make test's run,
# against 23 s and 3 s at -O1
$(B)/fuzz/fuzz_replay: $(FUZZ_SRC) $(FUZZ_DIR)/replay.h ecs.h $(B)/fuzz/defs | $(B)/fuzz/
	$(CC) -std=c99 $(WARN) -O0 $(SAN) $(CFLAGS_COMMON) $(FUZZ_DEFS) -DFUZZ_MAIN $< -o $@
$(B)/fuzz/fuzz_driver: $(FUZZ_SRC) $(FUZZ_DIR)/replay.h ecs.h $(B)/fuzz/defs | $(B)/fuzz/
	$(CC) -std=c99 $(WARN) -O2 $(CFLAGS_COMMON) $(FUZZ_DEFS) -DFUZZ_MAIN $< -o $@
# rebuilt when FUZZ_NEW_RULES changes
$(B)/fuzz/defs: FORCE | $(B)/fuzz/
	@echo '$(FUZZ_DEFS)' | cmp -s - $@ || echo '$(FUZZ_DEFS)' > $@

FUZZ_ARGS := -max_len=$(FUZZ_MAX_LEN) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 -artifact_prefix=./ \
             $(if $(filter-out 0 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS))
# the checked-in corpus without the inputs of known bugs (make test replays those)
FUZZ_SEEDS = find $(FUZZ_CORPUS) -type f ! -name 'known-bug-*' -exec cp {} $(1) \;
# what fuzz-cmin keeps whatever their coverage: the bugs' reproducers
FUZZ_KEEP  = -name 'known-bug-*' -o -name 'regress-*'

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
	find $(FUZZ_CORPUS) -type f ! \( $(FUZZ_KEEP) \) -delete && cp $(B)/fuzz/cmin/* $(FUZZ_CORPUS)/
	@echo "$(FUZZ_CORPUS): $$(ls $(FUZZ_CORPUS) | wc -l) inputs"

fuzz-replay: $(B)/fuzz/fuzz_replay
	FUZZ_SKIP_KNOWN=1 ./$(B)/fuzz/fuzz_replay $(FUZZ_CORPUS)

fuzz-minimize: $(B)/fuzz/fuzz_model $(B)/fuzz/fuzz_replay
	@test -n "$(FUZZ_CRASH)" || { echo "make fuzz-minimize FUZZ_CRASH=file [FUZZ_BUG=n]"; exit 2; }
	@rm -f $(B)/fuzz/minimized
	-$(if $(FUZZ_BUG),FUZZ_ONLY_BUG=$(FUZZ_BUG)) $(B)/fuzz/fuzz_model -minimize_crash=1 -max_total_time=60 \
	    -exact_artifact_path=$(B)/fuzz/minimized $(FUZZ_CRASH) >$(B)/fuzz/minimize.log 2>&1
	@test -f $(B)/fuzz/minimized || { tail $(B)/fuzz/minimize.log; exit 1; }
	@echo "$(B)/fuzz/minimized: $$(wc -c < $(B)/fuzz/minimized) bytes"
	-@$(if $(FUZZ_BUG),FUZZ_ONLY_BUG=$(FUZZ_BUG)) FUZZ_TRACE=1 $(B)/fuzz/fuzz_replay $(B)/fuzz/minimized 2>&1 | tail -n 25

TEST_DEPS += $(B)/fuzz/fuzz_replay $(B)/fuzz/fuzz_driver
TEST_CMDS += 'FUZZ_SKIP_KNOWN=1 $(B)/fuzz/fuzz_replay $(FUZZ_CORPUS)' \
             'FUZZ_SKIP_KNOWN=1 $(B)/fuzz/fuzz_driver --random $(FUZZ_OPS) $(FUZZ_SEED)' \
             'FUZZ_SKIP_KNOWN=1 $(B)/fuzz/fuzz_replay --random $(FUZZ_SAN_OPS) 2'

# ---- the index model --------------------------------------------------------------
# tests/fuzz/fuzz_index.c drives tests/index_model.h (the model of
# tests/test_indexes.c: every field index and a cached query against a
# brute-force scan after every step) from its input's bytes.
#
#   make fuzz-index             libFuzzer + ASan/UBSan (clang) for FUZZ_TIME
#                               seconds (FUZZ_JOBS workers) in $(B)/fuzz/index,
#                               on a copy of tests/fuzz/index_corpus; prints the
#                               executions; crashes (a mismatch prints it, then
#                               aborts) go to $(B)/fuzz/index/crash-*
#   make fuzz-index FUZZ_SAVE=1 then copies the new inputs to tests/fuzz/index_corpus
#   make fuzz-index-replay      replay tests/fuzz/index_corpus (no libFuzzer needed)
#   make fuzz-index-minimize FUZZ_CRASH=$(B)/fuzz/index/crash-...
#                               shrinks it (60 s) to $(B)/fuzz/index/minimized
#
# make test replays tests/fuzz/index_corpus and runs the fixed-seed random
# driver for FUZZ_INDEX_OPS steps, both built with $(CC) and ASan/UBSan
# (together about 8 s of CPU).
FUZZ_INDEX_OPS    ?= 20000
FUZZ_INDEX_SRC    := $(FUZZ_DIR)/fuzz_index.c
FUZZ_INDEX_CORPUS := $(FUZZ_DIR)/index_corpus
FUZZ_INDEX_DEPS   := $(FUZZ_INDEX_SRC) $(FUZZ_DIR)/replay.h tests/index_model.h ecs.h

$(B)/fuzz/fuzz_index: $(FUZZ_INDEX_DEPS) | $(B)/fuzz/
	$(CLANG) -std=c11 $(WARN) -O1 $(FUZZ_FLAGS) $(CFLAGS_COMMON) $< -o $@
$(B)/fuzz/fuzz_index_replay: $(FUZZ_INDEX_DEPS) | $(B)/fuzz/
	$(CC) -std=c99 $(WARN) -O0 $(SAN) $(CFLAGS_COMMON) -DFUZZ_MAIN $< -o $@ # (-O0: as fuzz_replay)

fuzz-index: $(B)/fuzz/fuzz_index
	@rm -rf $(B)/fuzz/index && mkdir -p $(B)/fuzz/index/corpus && cp $(FUZZ_INDEX_CORPUS)/* $(B)/fuzz/index/corpus/
	@echo "make fuzz-index: $(FUZZ_TIME) s, $(FUZZ_JOBS) worker(s), corpus $(B)/fuzz/index/corpus, log $(B)/fuzz/index/fuzz.log"
	@cd $(B)/fuzz/index && ../fuzz_index $(FUZZ_ARGS) corpus >fuzz.log 2>&1; status=$$?; \
	    grep -h '^stat::\|^Done \|^INFO: seed\|ERROR\|SUMMARY\|^fuzz_index.c:\|^  last error\|^#[0-9]*.*DONE' fuzz*.log; \
	    if [ $$status -ne 0 ] || ls crash-* leak-* timeout-* oom-* >/dev/null 2>&1; then \
	        echo "make fuzz-index: crash: $$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | sed 's,^,$(B)/fuzz/index/,')"; exit 1; fi
	@$(if $(FUZZ_SAVE),cp -n $(B)/fuzz/index/corpus/* $(FUZZ_INDEX_CORPUS)/ && echo "make fuzz-index: new inputs copied to $(FUZZ_INDEX_CORPUS)")
	@echo "make fuzz-index: no mismatch and no crash in $(FUZZ_TIME) s"

fuzz-index-replay: $(B)/fuzz/fuzz_index_replay
	./$(B)/fuzz/fuzz_index_replay $(FUZZ_INDEX_CORPUS)

fuzz-index-minimize: $(B)/fuzz/fuzz_index $(B)/fuzz/fuzz_index_replay
	@test -n "$(FUZZ_CRASH)" || { echo "make fuzz-index-minimize FUZZ_CRASH=file"; exit 2; }
	@mkdir -p $(B)/fuzz/index && rm -f $(B)/fuzz/index/minimized
	-$(B)/fuzz/fuzz_index -minimize_crash=1 -max_total_time=60 \
	    -exact_artifact_path=$(B)/fuzz/index/minimized $(FUZZ_CRASH) >$(B)/fuzz/index/minimize.log 2>&1
	@test -f $(B)/fuzz/index/minimized || { tail $(B)/fuzz/index/minimize.log; exit 1; }
	@echo "$(B)/fuzz/index/minimized: $$(wc -c < $(B)/fuzz/index/minimized) bytes"
	-@FUZZ_TRACE=1 $(B)/fuzz/fuzz_index_replay $(B)/fuzz/index/minimized 2>&1 | tail -n 25

TEST_DEPS += $(B)/fuzz/fuzz_index_replay
TEST_CMDS += '$(B)/fuzz/fuzz_index_replay $(FUZZ_INDEX_CORPUS)' \
             '$(B)/fuzz/fuzz_index_replay --random $(FUZZ_INDEX_OPS) 3'

.PHONY: fuzz fuzz-cmin fuzz-replay fuzz-minimize fuzz-index fuzz-index-replay fuzz-index-minimize
