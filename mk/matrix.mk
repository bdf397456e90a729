# mk/matrix.mk - the compiler and platform matrix (included by the Makefile).
#
# Part of make test (cheap, ~10 s on 2 cores): the compilers and modes the
# Makefile's own runs (gcc C99, clang C11, g++ C++11, clang++ C++17, tcc)
# leave out, with $(WARN) = -Wall -Wextra -Wpedantic -Werror:
#   gcc -std=c11, clang -std=c99  every tests/test_*.c and tests/impl.c (the
#                                 implementation), -fsyntax-only: the
#                                 front end, where the -std mode matters
#                                 (gcc's middle-end warnings come from the
#                                 -O1 builds the Makefile runs)
#   clang -std=c99 -O2            tests/test_views_model.c built and run
#   g++ -std=c++17, clang++ -std=c++11   tests/cpp_test.cpp built and run
#   -DNDEBUG                      examples/quickstart.c by gcc -std=c11 -O2,
#                                 built and run (default ECS_ASSERT compiled
#                                 out, ECS_DEBUG 0); every example by clang
#                                 -std=c99 and cpp_test.cpp by clang++
#                                 -std=c++17, -fsyntax-only
#   -DECS_STATIC                  tests/test_sort.c (a TU that leaves most of
#                                 the API unused; -include tests/impl.c puts
#                                 the implementation in front of it, as
#                                 ECS_STATIC wants one TU) by gcc -std=c99,
#                                 built and run; by clang -std=c11 and
#                                 cpp_test.cpp by clang++ -std=c++11,
#                                 -fsyntax-only (clang reports unused static
#                                 functions there)
#
# make test-matrix (slower, run by .ci/run after make test): every
# tests/test_*.c, pthread tests included, built and run (the implementation
# compiled once per platform, as in the Makefile's configurations) on
#   gcc -m32 -std=c11, ASan + UBSan     i386, native          (gcc-12-multilib)
#   x86_64-w64-mingw32-gcc -std=c99     Windows x64, wine     (gcc-mingw-w64-x86-64, wine)
#                                       -static, so winpthreads needs no DLL
#   aarch64-linux-gnu-gcc -std=c11, UBSan  qemu-aarch64       (gcc-aarch64-linux-gnu, qemu-user)
#   arm-linux-gnueabihf-gcc -std=c99, UBSan  qemu-arm         (gcc-arm-linux-gnueabihf, qemu-user)
# and, with mingw-w64, ecs.h as a DLL (-DECS_SHARED): tests/test_symbols.sh
# checks its export table and runs a program that links only ecs.dll
# under wine.
# UBSan on ARM catches misaligned accesses; ASan is left out there (it is
# slow to build and LeakSanitizer does not run under qemu-user). mingw has no
# sanitizers. The cross builds are -g0 (a quarter less compile time; UBSan
# reports name file and line without it); -m32 keeps -g for ASan's traces.
# tests/test_save_golden.c checks on each of them that the platform saves,
# byte for byte, the snapshot the x86-64 build wrote (tests/snapshot_golden.h)
# and loads it back; and snapshots cross between machines through files in
# $(MX)/snapshots, both ways: each platform's saved snapshot loads on x86-64
# (gcc-c99), and x86-64's loads on each platform.
# A platform whose tools are missing is one failed check naming
# the missing command (bash .ci/run installs them), never a silent skip.
# Excluded tests: none.

MX := $(B)/matrix

# ---- part of make test ------------------------------------------------------

$(MX)/gcc-c11/%.ok: tests/%.c $(TEST_HEADERS) ecs.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -fsyntax-only $(CFLAGS_COMMON) $< && touch $@
$(MX)/clang-c99/%.ok: tests/%.c $(TEST_HEADERS) ecs.h
	@mkdir -p $(@D)
	$(CLANG) -std=c99 $(WARN) -fsyntax-only $(CFLAGS_COMMON) $< && touch $@

# one stamp per compiler and mode, so each counts as one check
$(MX)/gcc-c11.ok: $(TESTS:%=$(MX)/gcc-c11/%.ok) $(MX)/gcc-c11/impl.ok
	@echo 'gcc -std=c11 -fsyntax-only: $(words $^) files' > $@
$(MX)/clang-c99.ok: $(TESTS:%=$(MX)/clang-c99/%.ok) $(MX)/clang-c99/impl.ok
	@echo 'clang -std=c99 -fsyntax-only: $(words $^) files' > $@

$(MX)/clang-c99-O2/test_views_model: tests/test_views_model.c tests/impl.c $(TEST_HEADERS) ecs.h
	@mkdir -p $(@D)
	$(CLANG) -std=c99 $(WARN) -O2 $(CFLAGS_COMMON) tests/test_views_model.c tests/impl.c -o $@ -lm -lpthread
$(MX)/cpp/gxx17: tests/cpp_test.cpp tests/test.h ecs.h
	@mkdir -p $(@D)
	$(CXX) -std=c++17 $(WARN) -O1 $(CFLAGS_COMMON) $< -o $@
$(MX)/cpp/clangxx11: tests/cpp_test.cpp tests/test.h ecs.h
	@mkdir -p $(@D)
	$(CLANGXX) -std=c++11 $(WARN) -O1 $(CFLAGS_COMMON) $< -o $@

$(MX)/ndebug/quickstart: examples/quickstart.c ecs.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -DNDEBUG $(CFLAGS_COMMON) $< -o $@ -lm
$(MX)/ndebug.ok: examples/quickstart.c examples/hierarchy.c examples/hierarchy.h examples/solar.h examples/save_load.c \
                 examples/movement.c examples/movement.h examples/parallel.c examples/pool.h \
                 tests/cpp_test.cpp tests/test.h ecs.h
	@mkdir -p $(@D)
	$(CLANG) -std=c99 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) examples/quickstart.c
	$(CLANG) -std=c99 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) examples/hierarchy.c
	$(CLANG) -std=c99 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) examples/save_load.c
	$(CLANG) -std=c99 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) examples/movement.c
	$(CLANG) -std=c99 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) examples/parallel.c
	$(CLANGXX) -std=c++17 $(WARN) -DNDEBUG -fsyntax-only $(CFLAGS_COMMON) tests/cpp_test.cpp
	@echo 'clang -std=c99 / clang++ -std=c++17 -DNDEBUG -fsyntax-only: examples, cpp_test' > $@

$(MX)/static/test_sort: tests/test_sort.c tests/impl.c tests/test.h ecs.h
	@mkdir -p $(@D)
	$(CC) -std=c99 $(WARN) -O1 -DECS_STATIC $(CFLAGS_COMMON) -include tests/impl.c $< -o $@ -lm
$(MX)/static.ok: tests/test_sort.c tests/impl.c tests/cpp_test.cpp tests/test.h ecs.h
	@mkdir -p $(@D)
	$(CLANG) -std=c11 $(WARN) -DECS_STATIC -fsyntax-only $(CFLAGS_COMMON) -include tests/impl.c tests/test_sort.c
	$(CLANGXX) -std=c++11 $(WARN) -DECS_STATIC -fsyntax-only $(CFLAGS_COMMON) tests/cpp_test.cpp
	@echo 'clang -std=c11 / clang++ -std=c++11 -DECS_STATIC -fsyntax-only' > $@

# without clang (HAVE_CLANG, Makefile), the gcc and g++ parts run
MX_QUICK_RUN := $(MX)/cpp/gxx17 $(MX)/ndebug/quickstart $(MX)/static/test_sort \
                $(if $(HAVE_CLANG),$(MX)/clang-c99-O2/test_views_model $(MX)/cpp/clangxx11)
MX_QUICK_OK  := $(MX)/gcc-c11.ok $(if $(HAVE_CLANG),$(MX)/clang-c99.ok $(MX)/ndebug.ok $(MX)/static.ok)

TEST_DEPS += $(MX_QUICK_RUN) $(MX_QUICK_OK)
TEST_CMDS += $(MX_QUICK_RUN) $(MX_QUICK_OK:%='cat %')

# ---- make test-matrix ---------------------------------------------------------
MX_M32_CC     ?= $(CC) -m32
MX_MINGW_CC   ?= x86_64-w64-mingw32-gcc
MX_A64_CC     ?= aarch64-linux-gnu-gcc
MX_ARMHF_CC   ?= arm-linux-gnueabihf-gcc
MX_WINE       ?= wine
MX_WINEBOOT   ?= wineboot
MX_QEMU_A64   ?= qemu-aarch64
MX_QEMU_ARMHF ?= qemu-arm
MX_A64_ROOT   ?= /usr/aarch64-linux-gnu
MX_ARMHF_ROOT ?= /usr/arm-linux-gnueabihf
MX_TIMEOUT    := timeout 600
MX_UBSAN      := -fsanitize=undefined -fno-sanitize-recover=all
# wine keeps its own Windows tree here; mono and gecko are never installed
MX_WINEPREFIX := $(abspath $(MX)/wineprefix)
MX_WINE_ENV   := WINEPREFIX=$(MX_WINEPREFIX) WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml='

# The tools are looked for only when test-matrix is asked for.
ifneq ($(filter test-matrix,$(MAKECMDGOALS)),)
# -m32 needs the 32-bit libc and libasan as well as gcc itself
MX_HAVE_M32   := $(shell printf 'int main(void){return 0;}' | $(MX_M32_CC) -fsanitize=address,undefined \
                   -x c - -o /dev/null >/dev/null 2>&1 && echo yes)
MX_HAVE_MINGW := $(and $(call have,$(MX_MINGW_CC)),$(call have,$(MX_WINE)))
MX_HAVE_A64   := $(and $(call have,$(MX_A64_CC)),$(call have,$(MX_QEMU_A64)),$(wildcard $(MX_A64_ROOT)/lib/libc.so))
MX_HAVE_ARMHF := $(and $(call have,$(MX_ARMHF_CC)),$(call have,$(MX_QEMU_ARMHF)),$(wildcard $(MX_ARMHF_ROOT)/lib/libc.so))
endif

MX_M32_T   := $(TESTS:%=$(MX)/m32/%)
MX_MINGW_T := $(TESTS:%=$(MX)/mingw64/%.exe)
MX_A64_T   := $(TESTS:%=$(MX)/aarch64/%)
MX_ARMHF_T := $(TESTS:%=$(MX)/armhf/%)

# the configurations of the Makefile's test_config: $(MX)/m32/impl.o once,
# linked with each test's object
TEST_CC_matrix/m32     = $(MX_M32_CC) -std=c11 $(WARN) -O1 $(SAN) $(CFLAGS_COMMON)
TEST_CC_matrix/mingw64 = $(MX_MINGW_CC) -std=c99 $(WARN) -O1 -static $(CFLAGS_COMMON) -g0
TEST_CC_matrix/aarch64 = $(MX_A64_CC) -std=c11 $(WARN) -O1 $(MX_UBSAN) $(CFLAGS_COMMON) -g0
TEST_CC_matrix/armhf   = $(MX_ARMHF_CC) -std=c99 $(WARN) -O1 $(MX_UBSAN) $(CFLAGS_COMMON) -g0
$(eval $(call test_config,matrix/m32))
$(eval $(call test_config,matrix/mingw64,.exe))
$(eval $(call test_config,matrix/aarch64))
$(eval $(call test_config,matrix/armhf))
# wine's first start builds the prefix (~10 s); do it once, before the tests,
# with its output (and that of the helpers it leaves running) in a file
$(MX)/wineprefix.ready:
	@mkdir -p $(@D)
	$(MX_WINE_ENV) $(MX_TIMEOUT) $(MX_WINEBOOT) -i >$(MX)/wineprefix.log 2>&1 || \
	    { cat $(MX)/wineprefix.log; exit 1; }
	@touch $@

MX_DLL := 'STB_CFLAGS="$(STB_CFLAGS)" CONSUMER_CC=$(MX_MINGW_CC) RUN="$(MX_TIMEOUT) $(MX_WINE)" \
            sh tests/test_symbols.sh $(MX)/mingw64-dll $(MX_MINGW_CC) -std=c99 $(WARN) -O1'

mx_missing = 'echo "$(1): not installed ($(2)); bash .ci/run installs it"; false'
# $(call mx_cross,platform,runner,exe suffix): save there, load on x86-64; and back
MX_SNAP := $(MX)/snapshots
MX_HOST_GOLDEN := $(B)/gcc-c99/test_save_golden
mx_cross = 'mkdir -p $(MX_SNAP) && SNAPSHOT_SAVE_TO=$(MX_SNAP)/$(1).snap $(2) $(MX)/$(1)/test_save_golden$(3) && \
              SNAPSHOT_LOAD_FROM=$(MX_SNAP)/$(1).snap $(MX_HOST_GOLDEN)' \
           'mkdir -p $(MX_SNAP) && SNAPSHOT_SAVE_TO=$(MX_SNAP)/to-$(1).snap $(MX_HOST_GOLDEN) && \
              SNAPSHOT_LOAD_FROM=$(MX_SNAP)/to-$(1).snap $(2) $(MX)/$(1)/test_save_golden$(3)'
MX_DEPS := $(MX_HOST_GOLDEN) \
           $(if $(MX_HAVE_M32),$(MX_M32_T)) \
           $(if $(MX_HAVE_MINGW),$(MX_MINGW_T) $(MX)/wineprefix.ready) \
           $(if $(MX_HAVE_A64),$(MX_A64_T)) \
           $(if $(MX_HAVE_ARMHF),$(MX_ARMHF_T))
MX_CMDS := $(if $(MX_HAVE_M32),$(MX_M32_T) $(call mx_cross,m32),$(call mx_missing,gcc -m32,gcc-12-multilib)) \
           $(if $(MX_HAVE_MINGW),$(MX_MINGW_T:%='$(MX_TIMEOUT) $(MX_WINE) %') $(MX_DLL) \
                $(call mx_cross,mingw64,$(MX_TIMEOUT) $(MX_WINE),.exe),\
                $(call mx_missing,mingw-w64/wine,gcc-mingw-w64-x86-64 wine)) \
           $(if $(MX_HAVE_A64),$(MX_A64_T:%='$(MX_TIMEOUT) $(MX_QEMU_A64) -L $(MX_A64_ROOT) %') \
                $(call mx_cross,aarch64,$(MX_TIMEOUT) $(MX_QEMU_A64) -L $(MX_A64_ROOT)),\
                $(call mx_missing,aarch64,gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)) \
           $(if $(MX_HAVE_ARMHF),$(MX_ARMHF_T:%='$(MX_TIMEOUT) $(MX_QEMU_ARMHF) -L $(MX_ARMHF_ROOT) %') \
                $(call mx_cross,armhf,$(MX_TIMEOUT) $(MX_QEMU_ARMHF) -L $(MX_ARMHF_ROOT)),\
                $(call mx_missing,armhf,gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user))

# qemu -L is QEMU_LD_PREFIX: where the emulated program's dynamic loader and
# libc are. The wine variables are exported to every command.
test-matrix: $(MX_DEPS)
	@$(MX_WINE_ENV) sh tests/run.sh --since $(TEST_T0) --times $(MX)/test-times $(MX_CMDS)

.PHONY: test-matrix
