# mk/integration.mk - ecs.h in other people's builds (included by the Makefile).
#
#   make install    ecs.h to $(DESTDIR)$(INCLUDEDIR), ecs.pc (from ecs.pc.in)
#                   to $(DESTDIR)$(PKGCONFIGDIR); PREFIX=/usr/local,
#                   INCLUDEDIR=$(PREFIX)/include,
#                   PKGCONFIGDIR=$(PREFIX)/share/pkgconfig (the place of
#                   architecture-independent .pc files; pkg-config looks there)
#   make uninstall  removes those two files
#   make shared     $(B)/shared/libecs.so: ecs.h as a shared library
#                   (-DECS_SHARED, -fvisibility=hidden: only ecs.h's functions
#                   are exported, every documented one included). Programs
#                   include ecs.h with -DECS_SHARED, without ECS_IMPLEMENTATION.
#
# Part of make test, each building and running tests/consumer/quickstart.c:
#   tests/test_symbols.sh   libecs.so built by gcc -std=c99, g++ -std=c++11
#                           and clang++ -std=c++17 exports every function
#                           ecs.h declares or defines inline, and a program
#                           linked with only the .so runs
#   tests/test_install.sh   make install with PREFIX, with DESTDIR, with
#                           STB_DIR; the program built with
#                           pkg-config --cflags --libs ecs
#   tests/test_cmake.sh     add_subdirectory (also with stb_ds.h vendored
#                           next to ecs.h), FetchContent, and find_package
#                           after cmake --install (CMakeLists.txt)
#   make shared             the README's lines: the program built with
#                           -DECS_SHARED -lecs against $(B)/shared/libecs.so
#   ECS_STB_DS_INCLUDE      the program built with
#                           -DECS_STB_DS_INCLUDE='<stb/stb_ds.h>' and no -I for
#                           stb (MSYS2 installs it so; so does Debian)
# make test-matrix adds tests/test_symbols.sh with mingw-w64: ecs.dll, its
# program run under wine (mk/matrix.mk). pkg-config and cmake are optional
# tools: without them, their checks are skipped (Makefile, TEST_SKIPS).

INT := $(B)/integration

# ---- make install -------------------------------------------------------------
PREFIX       ?= /usr/local
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
# the header's version, MAJOR.MINOR.PATCH
ECS_VERSION := $(shell awk '/^\#define ECS_H_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $$3 } END { print v }' ecs.h)
# ecs.pc gives stb_ds's flags through stb.pc where pkg-config has one, else
# as found above (STB_DIR, /usr/include/stb)
PC_REQUIRES   := $(if $(STB_DIR),,$(shell pkg-config --exists stb 2>/dev/null && echo stb))
PC_STB_CFLAGS := $(if $(PC_REQUIRES),,$(STB_CFLAGS:%= %))
PC_INCLUDEDIR := $(if $(filter $(PREFIX)/include,$(INCLUDEDIR)),$${prefix}/include,$(INCLUDEDIR))

install: ecs.h ecs.pc.in
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 ecs.h $(DESTDIR)$(INCLUDEDIR)/ecs.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e 's|@VERSION@|$(ECS_VERSION)|' \
	    -e 's|@REQUIRES@|$(PC_REQUIRES)|' -e 's|@STB_CFLAGS@|$(PC_STB_CFLAGS)|' ecs.pc.in \
	    > $(DESTDIR)$(PKGCONFIGDIR)/ecs.pc
uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/ecs.h $(DESTDIR)$(PKGCONFIGDIR)/ecs.pc

# ---- make shared ----------------------------------------------------------------
shared: $(B)/shared/libecs.so
$(B)/shared/libecs.so: ecs.h | $(B)/shared/
	printf '#define ECS_IMPLEMENTATION\n#define ECS_STB_DS_IMPLEMENTATION\n#include "ecs.h"\n' | \
	    $(CC) -std=c99 $(WARN) -O2 -shared -fPIC -fvisibility=hidden -DECS_SHARED $(CFLAGS_COMMON) \
	    -x c - -o $@

# ---- part of make test ------------------------------------------------------------
HAVE_PKG_CONFIG := $(call have,pkg-config)
HAVE_CMAKE      := $(call have,cmake)
SYMBOLS := STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_symbols.sh
TEST_CMDS += '$(SYMBOLS) $(INT)/symbols-gcc $(CC) -std=c99 $(WARN) -O1' \
             '$(SYMBOLS) $(INT)/symbols-gxx $(CXX) -std=c++11 $(WARN) -O1' \
             $(if $(HAVE_CLANG),'$(SYMBOLS) $(INT)/symbols-clangxx $(CLANGXX) -std=c++17 $(WARN) -O1') \
             'MAKE=$(MAKE) STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_install.sh $(INT)/install' \
             $(if $(HAVE_CMAKE),'sh tests/test_cmake.sh $(INT)/cmake')
$(INT)/shared-user/quickstart: tests/consumer/quickstart.c $(B)/shared/libecs.so | $(INT)/shared-user/
	$(CC) -std=c99 $(WARN) -DECS_SHARED -DCONSUMER_LINKS_ECS -I. $< -o $@ -L$(B)/shared -lecs
TEST_DEPS += $(INT)/shared-user/quickstart
TEST_CMDS += 'LD_LIBRARY_PATH=$(B)/shared $(INT)/shared-user/quickstart'
ifneq ($(wildcard /usr/include/stb/stb_ds.h),)
$(INT)/stb-include/quickstart: tests/consumer/quickstart.c ecs.h | $(INT)/stb-include/
	$(CC) -std=c99 $(WARN) -O1 '-DECS_STB_DS_INCLUDE=<stb/stb_ds.h>' -I. $< -o $@
TEST_DEPS += $(INT)/stb-include/quickstart
TEST_CMDS += $(INT)/stb-include/quickstart
endif
TEST_SKIPS += $(if $(HAVE_PKG_CONFIG),,$(call skipped,pkg-config,pkg-config,the ecs.pc check)) \
              $(if $(HAVE_CMAKE),,$(call skipped,cmake,cmake,the CMake consumers))

.PHONY: install uninstall shared
