# ecs.h - build, run and test.
#   make run          build and run the examples
#   make test         build every test and run it (last line: "N passed, N failed");
#                     tests/test_threads.c also under ThreadSanitizer (gcc and clang).
#                     The runs go in parallel (TEST_JOBS=n, default: the CPUs); the
#                     end says how long it took and which runs were the slowest
#   make check T=test_views [N=test_name] [C=gcc-c99]
#                     build and run one test file (tests/test_views.c), or only
#                     its test test_name, in one configuration: gcc-c99 (default),
#                     clang-c11 (both ASan + UBSan), plain (under valgrind), tcc,
#                     tsan-gcc, tsan-clang (test_threads), matrix/m32,
#                     matrix/mingw64, matrix/aarch64, matrix/armhf (mk/matrix.mk);
#                     without T, every test file of that configuration
#   make bench        the benchmark table (-O2 -DNDEBUG; BENCH_CFLAGS="-O3 -march=native" to change),
#                     also written to build/bench/results.csv
#   make bench-plot   build/bench/results.svg from that CSV (gnuplot); make
#                     bench-plot-commit (or BENCH_PLOT_OUT=bench) updates the
#                     committed bench/results.svg and results.csv instead
#   make bench-quick  the benchmark at a small N (also part of make test)
#   make install      ecs.h, ecs.pc and the CMake package (PREFIX=/usr/local, DESTDIR;
#                     mk/integration.mk); make shared: build/shared/libecs.so
#   make test-matrix  more platforms (mk/matrix.mk); make test-minimal: make test
#                     without the optional tools (mk/minimal.mk)
#   make clean
# stb_ds.h is found with pkg-config (Debian/Ubuntu: libstb-dev), or STB_DIR=/path.

CC      ?= cc
CXX     ?= c++
CLANG   ?= clang
CLANGXX ?= clang++
TCC     ?= tcc
B       := build
WARN    := -Wall -Wextra -Wpedantic -Werror
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
NPROC   := $(shell nproc 2>/dev/null || echo 2)
# (a sub-make, as in make test-minimal, shares its parent's jobs)
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(NPROC)
endif

ifdef STB_DIR
STB_CFLAGS := -I$(STB_DIR)
else
# pkg-config, or where Debian puts it when pkg-config is not installed
STB_CFLAGS := $(shell pkg-config --cflags stb 2>/dev/null || \
                { test -f /usr/include/stb/stb_ds.h && echo -I/usr/include/stb; })
endif
ifneq ($(filter clean,$(MAKECMDGOALS)),clean)
ifneq ($(shell printf '\043include "stb_ds.h"\n' | $(CC) $(STB_CFLAGS) -E -x c - >/dev/null 2>&1 && echo ok),ok)
$(error stb_ds.h not found: install it with 'sudo apt-get install libstb-dev' (Debian/Ubuntu) or pass STB_DIR=/path/to/dir/with/stb_ds.h)
endif
endif
# Debug information: -g1, line tables only, is what the sanitizers' and
# valgrind's reports read (file:line of each frame) and compiles a quarter
# faster than -g at -O1 (tests/impl.c with ASan + UBSan: 11.0 -> 7.9 s of
# CPU; a plain test file 1.36 -> 0.99 s). make G=-g for a debugger's locals.
G ?= -g1
CFLAGS_COMMON := $(STB_CFLAGS) -I. $(G)

# ---- examples -------------------------------------------------------------
EXAMPLES := quickstart hierarchy movement parallel save_load life
run: $(EXAMPLES:%=$(B)/ex/%)
	@for e in $(EXAMPLES); do echo "== examples/$$e.c"; ./$(B)/ex/$$e || exit 1; echo; done
$(B)/ex/%: examples/%.c ecs.h | $(B)/ex
	$(CC) -std=c99 $(WARN) -O2 $(CFLAGS_COMMON) $< -o $@ -lm -lpthread
# the examples' headers, included by their programs (and by the tests: TEST_HEADERS)
$(B)/ex/hierarchy: examples/hierarchy.h
$(B)/ex/hierarchy $(B)/ex/save_load: examples/solar.h
$(B)/ex/save_load: examples/hierarchy.h
$(B)/ex/movement: examples/movement.h
$(B)/ex/parallel: examples/movement.h examples/pool.h
$(B)/ex/life: examples/life.h examples/pool.h

# ---- tests ----------------------------------------------------------------
# Every tests/test_*.c is one program. Each is built and run in these
# configurations (the directory under $(B)/ is the configuration's name):
#   gcc-c99     gcc -std=c99, ASan + UBSan: tests/impl.c -O1, the test
#               files -O0 with ASan only (gcc's UBSan more than doubles a
#               test file's build: 1.7 s instead of 0.7, 35 s of CPU in make
#               test; the inline functions those files compile run under
#               UBSan in clang-c11); the few that define ECS_IMPLEMENTATION
#               themselves build it -O0 with both
#   clang-c11   clang -std=c11, ASan + UBSan, as gcc-c99: tests/impl.c -O1,
#               the test files -O0 (clang -O1 with the sanitizers takes 6-8x
#               as long on a test file as -O0: 130 s of CPU in make test,
#               with no test running faster for it. The header's inline
#               functions still run optimized by gcc in plain, by clang in
#               matrix/clang-c99-O2 and as C++ in matrix/cpp)
#   plain       gcc -std=c99 -O1, no sanitizer, everything optimized: run
#               under valgrind memcheck
#   tcc         tcc (no optimizer, its own C front end and inline rules)
# (mk/matrix.mk adds matrix/m32, matrix/mingw64, matrix/aarch64 and
# matrix/armhf for make test-matrix). tests/cpp_test.cpp is built by g++
# and clang++; tests/twotu_*.c link the implementation, a plain user of the
# header and an stb_ds user together.
#
# The implementation is compiled once per configuration: tests/impl.c
# (ECS_IMPLEMENTATION, ECS_ASSERT redirected by tests/test.h) becomes
# $(B)/<config>/impl.o, and each test file, which includes ecs.h without
# ECS_IMPLEMENTATION, is compiled to $(B)/<config>/<test>.o and linked with
# it. Both are compiled by the same command, so every file of a binary sees
# the same ECS_ASSERT and configuration macros. A test file that needs its
# own (ECS_VERSION_MAX...) defines ECS_IMPLEMENTATION itself and is linked
# alone (TESTS_OWN_IMPL, found by grep).
TESTS   := $(basename $(notdir $(wildcard tests/test_*.c)))
TESTS_OWN_IMPL := $(basename $(notdir $(shell grep -l '^\#define ECS_IMPLEMENTATION' tests/test_*.c)))
# what a test file may include besides ecs.h (every test object depends on all of them)
TEST_HEADERS := $(wildcard tests/*.h) examples/hierarchy.h examples/solar.h examples/movement.h examples/pool.h examples/life.h

# how each configuration compiles and links (recursive: CFLAGS_COMMON may
# be target-specific, as for $(B)/plain/test_threads.o below)
TEST_CC_gcc-c99   = $(CC) -std=c99 $(WARN) -O1 $(SAN) $(CFLAGS_COMMON)
TEST_CC_clang-c11 = $(CLANG) -std=c11 $(WARN) -O1 $(SAN) $(CFLAGS_COMMON)
TEST_CC_plain     = $(CC) -std=c99 $(WARN) -O1 $(CFLAGS_COMMON)
TEST_CC_tcc       = $(TCC) -Wall -Werror $(CFLAGS_COMMON)
TEST_OBJ_gcc-c99  = -O0 -fno-sanitize=undefined
TEST_OBJ_clang-c11 = -O0
# $(eval $(call test_config,CONFIG[,EXE-SUFFIX])): the rules that build
# $(B)/CONFIG/<test> for every test with the command TEST_CC_CONFIG
define test_config
$(B)/$(1)/impl.o: tests/impl.c tests/test.h ecs.h
	@mkdir -p $$(@D)
	$$(TEST_CC_$(1)) -c $$< -o $$@
$(B)/$(1)/%.o: tests/%.c $(TEST_HEADERS) ecs.h
	@mkdir -p $$(@D)
	$$(TEST_CC_$(1)) $$(TEST_OBJ_$(1)) -c $$< -o $$@
$(B)/$(1)/%$(2): $(B)/$(1)/%.o
	$$(TEST_CC_$(1)) $$(filter %.o,$$^) -o $$@ -lm -lpthread
$(patsubst %,$(B)/$(1)/%$(2),$(filter-out $(TESTS_OWN_IMPL),$(TESTS))): $(B)/$(1)/impl.o
TEST_EXE_$(1) := $(2)
endef
$(foreach c,gcc-c99 clang-c11 plain tcc,$(eval $(call test_config,$(c))))
# (a test file that builds the implementation itself keeps UBSan)
$(TESTS_OWN_IMPL:%=$(B)/gcc-c99/%.o): TEST_OBJ_gcc-c99 = -O0

GCC_T   := $(TESTS:%=$(B)/gcc-c99/%)
CLANG_T := $(TESTS:%=$(B)/clang-c11/%)
PLAIN_T := $(TESTS:%=$(B)/plain/%)
CPP_T   := $(B)/cpp/gxx $(B)/cpp/clangxx
TWOTU_T := $(B)/twotu/impl-defines-stb $(B)/twotu/links-libstb
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all

# Beyond gcc, g++ and make (build-essential), make test uses clang, valgrind
# and tcc (and mk/*.mk more tools) when they are installed. Without one, its
# checks are left out and named in one line above the summary:
#   skipped: clang not installed (apt-get install clang): ...
# bash .ci/run installs every tool and fails on any skip; make test-minimal
# (mk/minimal.mk) runs make test without them.
have    = $(shell command -v $(firstword $(1)) >/dev/null 2>&1 && echo yes)
skipped = --skipped '$(1) not installed (apt-get install $(2)): $(3)'
HAVE_CLANG    := $(and $(call have,$(CLANG)),$(call have,$(CLANGXX)))
HAVE_TCC      := $(call have,$(TCC))
HAVE_VALGRIND := $(call have,valgrind)
CLANG_T := $(if $(HAVE_CLANG),$(CLANG_T))
CPP_T   := $(if $(HAVE_CLANG),$(CPP_T),$(B)/cpp/gxx)
TCC_T   := $(if $(HAVE_TCC),$(TESTS:%=$(B)/tcc/%))
HAVE_GNUPLOT  := $(call have,gnuplot)
TEST_SKIPS := $(if $(HAVE_CLANG),,$(call skipped,clang,clang,the clang and clang++ builds)) \
              $(if $(HAVE_VALGRIND),,$(call skipped,valgrind,valgrind,the memcheck runs)) \
              $(if $(HAVE_TCC),,$(call skipped,tcc,tcc,the tcc builds)) \
              $(if $(HAVE_GNUPLOT),,$(call skipped,gnuplot,gnuplot-nox,the bench plot))

TEST_CMDS := $(GCC_T) $(CLANG_T) $(CPP_T) $(TWOTU_T) $(TCC_T) \
             $(if $(HAVE_VALGRIND),$(PLAIN_T:%='$(VALGRIND) %')) \
             '$(B)/bench/bench-quick --quick' \
             $(if $(HAVE_GNUPLOT),'sh tests/test_plot.sh $(B)/bench/bench-quick $(B)/plot')
TEST_DEPS := $(GCC_T) $(CLANG_T) $(CPP_T) $(TWOTU_T) $(TCC_T) $(if $(HAVE_VALGRIND),$(PLAIN_T)) \
             $(B)/bench/bench-quick

# mk/*.mk add their checks: TEST_DEPS += <files to build>, TEST_CMDS += <commands>,
# TEST_SKIPS += $(call skipped,...) for those they leave out
-include $(wildcard mk/*.mk)

# ---- ThreadSanitizer ------------------------------------------------------
# tests/test_threads.c does on 4 threads what ecs.h says threads may do at
# once (readers, names, read-only views and the in-step memo, ecs_iter_chunk,
# a workload batch through examples/pool.h). Besides the builds above, make
# test runs it under ThreadSanitizer, where a race report fails the test that
# hit it (TSan reports each race once):
#   $(B)/tsan-gcc/test_threads     gcc -std=c99 (ECS_DEBUG on); -Wno-tsan: gcc
#                                  warns that TSan does not model the memo's
#                                  __atomic_thread_fence (its fields are atomics)
#   $(B)/tsan-clang/test_threads   clang -std=c11 -DNDEBUG (the release paths)
# The valgrind build runs 5% of the rounds (memcheck runs one thread at a time),
# the ASan/UBSan and tcc builds 25%.
# TSan needs its runtime (gcc: libtsan2, which gcc-12 brings along; clang:
# libclang-rt-14-dev) and an address space it knows: a kernel with more
# mmap randomization than it expects stops it at start ("unexpected memory
# mapping"), and then the runs go through setarch -R (no ASLR). make test
# tries a tiny program first; a TSan run it cannot link, or cannot run even
# under setarch -R, is skipped with a "skipped:" line.
TSAN := -fsanitize=thread -fno-omit-frame-pointer
# (only gcc knows -Wtsan; looked for when the build runs)
TSAN_WNO = $(shell $(CC) -Werror -Wno-tsan -x c -fsyntax-only /dev/null >/dev/null 2>&1 && echo -Wno-tsan)
$(B)/plain/test_threads.o: CFLAGS_COMMON += -DTHREADS_PCT=5
$(B)/gcc-c99/test_threads.o $(B)/clang-c11/test_threads.o $(B)/tcc/test_threads.o: CFLAGS_COMMON += -DTHREADS_PCT=25
# gcc's TSan with ECS_DEBUG on runs 25% of the rounds (about 100 s at 100%,
# the longest run of make test); clang's, over the release paths, all of them
$(B)/tsan-gcc/test_threads: tests/test_threads.c tests/impl.c $(TEST_HEADERS) ecs.h | $(B)/tsan-gcc
	$(CC) -std=c99 $(WARN) $(TSAN_WNO) -O1 -g $(TSAN) $(CFLAGS_COMMON) -DTHREADS_PCT=25 tests/test_threads.c tests/impl.c -o $@ -lm -lpthread
$(B)/tsan-clang/test_threads: tests/test_threads.c tests/impl.c $(TEST_HEADERS) ecs.h | $(B)/tsan-clang
	$(CLANG) -std=c11 $(WARN) -O1 -g -DNDEBUG $(TSAN) $(CFLAGS_COMMON) tests/test_threads.c tests/impl.c -o $@ -lm -lpthread
# the phases' threads (Life on 1, 2 and 4 threads, parallel reduction)
$(B)/tsan-clang/test_phases: tests/test_phases.c tests/impl.c $(TEST_HEADERS) ecs.h | $(B)/tsan-clang
	$(CLANG) -std=c11 $(WARN) -O1 -g $(TSAN) $(CFLAGS_COMMON) tests/test_phases.c tests/impl.c -o $@ -lm -lpthread
# $(call tsan_probe,compiler): "run", "setarch" (runs only without ASLR),
# "norun" or "nolink"; looked for only when make test is asked for
tsan_probe = $(shell d=$$(mktemp -d) && \
    printf '\043include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; return pthread_create(&t, 0, f, 0) || pthread_join(t, 0); }\n' > $$d/p.c && \
    if $(1) $(TSAN) $$d/p.c -o $$d/p -lpthread >/dev/null 2>&1; then \
        if $$d/p >/dev/null 2>&1; then echo run; \
        elif setarch $$(uname -m) -R $$d/p >/dev/null 2>&1; then echo setarch; \
        else echo norun; fi; \
    else echo nolink; fi; rm -rf $$d)
ifneq ($(filter test,$(MAKECMDGOALS)),)
TSAN_GCC   := $(call tsan_probe,$(CC))
TSAN_CLANG := $(if $(HAVE_CLANG),$(call tsan_probe,$(CLANG)))
endif
TSAN_NORUN := --skipped 'ThreadSanitizer does not start on this kernel (not even under setarch -R): the TSan runs of tests/test_threads.c'
tsan_cmd   = $(if $(filter setarch,$(1)),'setarch $(shell uname -m) -R $(2)',$(2))
TEST_DEPS  += $(if $(filter run setarch,$(TSAN_GCC)),$(B)/tsan-gcc/test_threads) \
              $(if $(filter run setarch,$(TSAN_CLANG)),$(B)/tsan-clang/test_threads $(B)/tsan-clang/test_phases)
# (first: they are the longest runs, and tests/run.sh starts its commands in
# this order when it has no times of a previous make test)
TEST_CMDS  := $(if $(filter run setarch,$(TSAN_GCC)),$(call tsan_cmd,$(TSAN_GCC),$(B)/tsan-gcc/test_threads)) \
              $(if $(filter run setarch,$(TSAN_CLANG)),$(call tsan_cmd,$(TSAN_CLANG),$(B)/tsan-clang/test_threads)) \
              $(if $(filter run setarch,$(TSAN_CLANG)),$(call tsan_cmd,$(TSAN_CLANG),$(B)/tsan-clang/test_phases)) \
              $(TEST_CMDS)
TEST_SKIPS += $(if $(filter nolink,$(TSAN_GCC)),$(call skipped,libtsan2,libtsan2,the gcc ThreadSanitizer run of tests/test_threads.c)) \
              $(if $(filter nolink,$(TSAN_CLANG)),$(call skipped,libclang-rt-14-dev,libclang-rt-14-dev,the clang ThreadSanitizer run of tests/test_threads.c)) \
              $(if $(filter norun,$(TSAN_GCC) $(TSAN_CLANG)),$(TSAN_NORUN))

# tests/run.sh runs the commands in parallel (TEST_JOBS=n to change) and
# prints, above the summary, how long make test took and its slowest runs;
# $(B)/test-times keeps each run's seconds, so that the next make test starts
# the longest first.
ifneq ($(filter test test-matrix,$(MAKECMDGOALS)),)
TEST_T0 := $(shell date +%s)
endif
test: $(TEST_DEPS)
	@sh tests/run.sh --since $(TEST_T0) --times $(B)/test-times $(TEST_SKIPS) $(TEST_CMDS)

# ---- one test file, one test ------------------------------------------------
#   make check T=test_views                 builds and runs tests/test_views.c (gcc-c99)
#   make check T=test_views N=test_name     only the test test_name of that file
#   make check T=test_views C=plain         in another configuration (see above;
#                                           plain runs under valgrind)
#   make check C=clang-c11                  every test file of one configuration
# Only what that needs is built: the configuration's impl.o and the test's
# object. T may also be written tests/test_views.c; N that no test of the
# file has is a failure.
C ?= gcc-c99
CHECK_T := $(if $(T),$(basename $(notdir $(T))),$(TESTS))
# what runs a configuration's binaries, when it is not run directly
CHECK_RUN_plain = $(VALGRIND)
CHECK_RUN_matrix/mingw64 = $(MX_WINE_ENV) $(MX_WINE)
CHECK_RUN_matrix/aarch64 = $(MX_QEMU_A64) -L $(MX_A64_ROOT)
CHECK_RUN_matrix/armhf = $(MX_QEMU_ARMHF) -L $(MX_ARMHF_ROOT)
ifneq ($(filter check,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(TESTS),$(CHECK_T)),)
$(error make check: no tests/$(firstword $(filter-out $(TESTS),$(CHECK_T))).c; T is one of: $(TESTS))
endif
ifneq ($(filter tsan-%,$(C)),)
CHECK_T := test_threads
else ifeq ($(TEST_CC_$(C)),)
$(error make check: no configuration C=$(C); one of gcc-c99 clang-c11 plain tcc tsan-gcc tsan-clang matrix/m32 matrix/mingw64 matrix/aarch64 matrix/armhf)
endif
endif
CHECK_BINS := $(CHECK_T:%=$(B)/$(C)/%$(TEST_EXE_$(C)))
check: $(CHECK_BINS)
ifneq ($(T),)
	$(CHECK_RUN_$(C)) ./$(CHECK_BINS) $(N)
else
	@sh tests/run.sh $(foreach b,$(CHECK_BINS),'$(CHECK_RUN_$(C)) $(b) $(N)')
endif

# (-O0: g++ 5 s instead of 10, clang++ 3 s instead of 14; their optimized
# builds are matrix/cpp/gxx17 and matrix/cpp/clangxx11)
$(B)/cpp/gxx: tests/cpp_test.cpp tests/test.h ecs.h | $(B)/cpp
	$(CXX) -std=c++11 $(WARN) -O0 $(SAN) $(CFLAGS_COMMON) $< -o $@
$(B)/cpp/clangxx: tests/cpp_test.cpp tests/test.h ecs.h | $(B)/cpp
	$(CLANGXX) -std=c++17 $(WARN) -O0 $(SAN) $(CFLAGS_COMMON) $< -o $@
TWOTU_SRC := tests/twotu_impl.c tests/twotu_user.c tests/twotu_stb_user.c
$(B)/twotu/impl-defines-stb: $(TWOTU_SRC) tests/twotu.h ecs.h | $(B)/twotu
	$(CC) -std=c99 $(WARN) $(SAN) $(CFLAGS_COMMON) $(TWOTU_SRC) -o $@
$(B)/twotu/links-libstb: tests/twotu_impl.c tests/twotu_user.c tests/twotu.h ecs.h | $(B)/twotu
	$(CC) -std=c99 $(WARN) $(CFLAGS_COMMON) -DTWOTU_LINK_LIBSTB tests/twotu_impl.c tests/twotu_user.c \
	    -o $@ $(shell pkg-config --libs stb 2>/dev/null || echo -lstb)

# ---- benchmark ------------------------------------------------------------
# make bench builds bench/bench.c with BENCH_CFLAGS (default -O2 -DNDEBUG, the
# release build the targets are stated for; e.g.
# make bench BENCH_CFLAGS="-O3 -march=native") and prints the table that
# bench/README.md explains. make bench-quick runs it at N = 1000, built like
# the tests (-O1, ASan/UBSan): it only checks that every workload runs and its
# checksum matches (exit status 1 if not), so make test runs it too.
# make bench also writes the table as CSV ($(B)/bench/results.csv); make
# bench-plot draws it with bench/plot.gp into $(B)/bench/results.svg; make
# bench-plot-commit draws it into bench/results.svg (the picture in
# bench/README.md) and copies the CSV beside it: commit both. make test
# checks the CSV and the drawing on two quick runs (tests/test_plot.sh;
# skipped without gnuplot).
# On Intel CPUs with the JCC erratum microcode (Skylake-derived, like the
# Xeons these numbers come from), a tight loop whose branch crosses a 32-byte
# boundary runs up to 2x slower: identical loops on the ecs.h and raw sides
# then differ by where the linker happened to put them. The assembler's
# mitigation aligns such branches for both sides; it is used when available.
JCC_FLAG := $(shell echo 'int main(void){return 0;}' | $(CC) -x c -Wa,-mbranches-within-32B-boundaries -o /dev/null - >/dev/null 2>&1 && echo -Wa,-mbranches-within-32B-boundaries)
BENCH_CFLAGS ?= -O2 -DNDEBUG $(JCC_FLAG)
BENCH_HEADERS := ecs.h examples/hierarchy.h examples/movement.h examples/pool.h
$(B)/bench/bench: bench/bench.c $(BENCH_HEADERS) $(B)/bench/cflags | $(B)/bench
	$(CC) -std=c99 $(WARN) $(BENCH_CFLAGS) $(CFLAGS_COMMON) \
	    -DBENCH_BUILD='"$(CC) -std=c99 $(BENCH_CFLAGS)"' $< -o $@ -lm -lpthread
$(B)/bench/cflags: FORCE | $(B)/bench
	@echo '$(CC) $(BENCH_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(BENCH_CFLAGS)' > $@
$(B)/bench/bench-quick: bench/bench.c $(BENCH_HEADERS) | $(B)/bench
	$(CC) -std=c99 $(WARN) -O1 $(SAN) $(CFLAGS_COMMON) \
	    -DBENCH_BUILD='"$(CC) -std=c99 -O1 -fsanitize=address,undefined"' $< -o $@ -lm -lpthread
bench: $(B)/bench/bench
	./$(B)/bench/bench --csv $(B)/bench/results.csv
# make bench-plot draws into $(BENCH_PLOT_OUT) (default $(B)/bench, beside
# the CSV); make bench-plot-commit (BENCH_PLOT_OUT=bench) updates the
# committed bench/results.svg and bench/results.csv
BENCH_PLOT_OUT ?= $(B)/bench
bench-plot:
	@test -f $(B)/bench/results.csv || $(MAKE) bench
	@mkdir -p $(BENCH_PLOT_OUT)
	gnuplot -e "csv='$(B)/bench/results.csv'; svg='$(BENCH_PLOT_OUT)/results.svg'" bench/plot.gp
	@cmp -s $(B)/bench/results.csv $(BENCH_PLOT_OUT)/results.csv || cp $(B)/bench/results.csv $(BENCH_PLOT_OUT)/results.csv
	@echo "bench-plot: $(BENCH_PLOT_OUT)/results.svg"
bench-plot-commit:
	$(MAKE) bench-plot BENCH_PLOT_OUT=bench
bench-quick: $(B)/bench/bench-quick
	./$(B)/bench/bench-quick --quick
# instructions per entity of every row, counted by callgrind (bench/callgrind.sh);
# BENCH_N=1000000 to change N, BENCH_ONLY=text for some rows
$(B)/bench/bench-callgrind: bench/bench.c $(BENCH_HEADERS) | $(B)/bench
	$(CC) -std=c99 $(WARN) -O2 -DNDEBUG $(JCC_FLAG) -DBENCH_CALLGRIND $(CFLAGS_COMMON) \
	    -DBENCH_BUILD='"$(CC) -std=c99 -O2 -DNDEBUG (callgrind)"' $< -o $@ -lm -lpthread
bench-callgrind: $(B)/bench/bench-callgrind
	sh bench/callgrind.sh ./$(B)/bench/bench-callgrind $(or $(BENCH_N),100000) "$(BENCH_ONLY)"
FORCE:

$(B)/%/:
	@mkdir -p $@
$(B)/ex $(B)/gcc-c99 $(B)/clang-c11 $(B)/plain $(B)/tcc $(B)/cpp $(B)/twotu $(B)/bench $(B)/tsan-gcc $(B)/tsan-clang:
	@mkdir -p $@

clean:
	rm -rf $(B)

.PHONY: run test check clean bench bench-plot bench-plot-commit bench-quick bench-callgrind FORCE
.SECONDARY:
