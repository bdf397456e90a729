# mk/integration.mk - ecs.h in other people's builds (included by the Makefile).
#
#   make install    ecs.h to $(DESTDIR)$(INCLUDEDIR), ecs.pc (from ecs.pc.in)
#                   to $(DESTDIR)$(PKGCONFIGDIR), and the CMake package
#                   (ecsConfig.cmake, ecsConfigVersion.cmake, ecs-stb.cmake,
#                   from cmake/*.in) to $(DESTDIR)$(CMAKEDIR): byte for byte
#                   the files cmake --install writes for the default
#                   (header-only) configuration, without cmake. PREFIX=
#                   /usr/local, INCLUDEDIR=$(PREFIX)/include,
#                   PKGCONFIGDIR=$(PREFIX)/share/pkgconfig (the place of
#                   architecture-independent .pc files; pkg-config looks
#                   there), CMAKEDIR=$(PREFIX)/share/cmake/ecs
#   make uninstall  removes those files
#   make shared     $(B)/shared/libecs.so.MAJOR.MINOR.PATCH with the SONAME
#                   libecs.so.MAJOR.MINOR and the links libecs.so.MAJOR.MINOR
#                   and libecs.so: ecs.h as a shared library, built with
#                   SHARED_CFLAGS (default -O2 -DNDEBUG), -DECS_SHARED and
#                   -fvisibility=hidden: it exports ecs.h's functions, every
#                   documented one included, and the private ones the
#                   header's macros and inline functions call. Programs
#                   include ecs.h with -DECS_SHARED, without
#                   ECS_IMPLEMENTATION. CMake's -DECS_BUILD_SHARED=ON builds
#                   the same library.
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
#                           next to ecs.h), FetchContent (of a tarball, of a
#                           directory, of a git repository), find_package
#                           after cmake --install and after make install
#                           (the same files), ECS_BUILD_SHARED
#                           (CMakeLists.txt)
#   make shared             the README's lines: the program built with
#                           -DECS_SHARED -lecs against $(B)/shared/libecs.so;
#                           that library checked by tests/test_symbols.sh
#                           (LIB=): its exports, SONAME, links, NDEBUG
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
CMAKEDIR     ?= $(PREFIX)/share/cmake/ecs
# the header's version, MAJOR.MINOR.PATCH
ECS_VERSION := $(shell awk '/^\#define ECS_H_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $$3 } END { print v }' ecs.h)
ECS_SOVERSION := $(basename $(ECS_VERSION))
# ecs.pc gives stb_ds's flags through stb.pc where pkg-config has one, else
# as found above (STB_DIR, /usr/include/stb)
PC_REQUIRES   := $(if $(STB_DIR),,$(shell pkg-config --exists stb 2>/dev/null && echo stb))
PC_STB_CFLAGS := $(if $(PC_REQUIRES),,$(STB_CFLAGS:%= %))
PC_INCLUDEDIR := $(if $(filter $(PREFIX)/include,$(INCLUDEDIR)),$${prefix}/include,$(INCLUDEDIR))
# The CMake package is the one cmake --install writes for the default
# (header-only) configuration, from the same templates and with the same
# values: ecsConfig.cmake finds include/ relative to itself where the
# layout is the standard one, and the directory of the stb_ds.h found at
# install time is a hint for it (cmake/ecsConfig.cmake.in).
CM_INCLUDEDIR := $(if $(and $(filter $(PREFIX)/include,$(INCLUDEDIR)),$(filter $(PREFIX)/share/cmake/ecs,$(CMAKEDIR))),$${CMAKE_CURRENT_LIST_DIR}/../../../include,$(INCLUDEDIR))
CM_STB_HINT   := $(or $(STB_DIR),$(patsubst -I%,%,$(firstword $(filter -I%,$(STB_CFLAGS)))))

install: ecs.h ecs.pc.in cmake/ecsConfig.cmake.in cmake/ecsConfigVersion.cmake.in cmake/ecs-stb.cmake
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 644 ecs.h $(DESTDIR)$(INCLUDEDIR)/ecs.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e 's|@VERSION@|$(ECS_VERSION)|' \
	    -e 's|@REQUIRES@|$(PC_REQUIRES)|' -e 's|@STB_CFLAGS@|$(PC_STB_CFLAGS)|' ecs.pc.in \
	    > $(DESTDIR)$(PKGCONFIGDIR)/ecs.pc
	sed -e 's|@PROJECT_VERSION@|$(ECS_VERSION)|' -e 's|@ECS_CONFIG_INCLUDEDIR@|$(CM_INCLUDEDIR)|' \
	    -e 's|@ECS_STB_DIR@|$(CM_STB_HINT)|' cmake/ecsConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/ecsConfig.cmake
	sed -e 's|@PROJECT_VERSION@|$(ECS_VERSION)|' -e 's|@ECS_SIZEOF_VOID_P@||' \
	    cmake/ecsConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/ecsConfigVersion.cmake
	install -m 644 cmake/ecs-stb.cmake $(DESTDIR)$(CMAKEDIR)/ecs-stb.cmake
uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/ecs.h $(DESTDIR)$(PKGCONFIGDIR)/ecs.pc \
	    $(DESTDIR)$(CMAKEDIR)/ecsConfig.cmake $(DESTDIR)$(CMAKEDIR)/ecsConfigVersion.cmake \
	    $(DESTDIR)$(CMAKEDIR)/ecs-stb.cmake
	-rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null

# ---- make shared ----------------------------------------------------------------
# libecs.so.MAJOR.MINOR.PATCH with the SONAME libecs.so.MAJOR.MINOR (before
# 1.0 a minor release may change the API: README.md, "Versions and
# stability"), and the links libecs.so.MAJOR.MINOR and libecs.so beside it.
# SHARED_CFLAGS are the release flags unless given.
SHARED_CFLAGS ?= -O2 -DNDEBUG
SHARED_LIB    := $(B)/shared/libecs.so.$(ECS_VERSION)
shared: $(B)/shared/libecs.so
$(B)/shared/libecs.so: $(SHARED_LIB)
	ln -sf libecs.so.$(ECS_VERSION) $(B)/shared/libecs.so.$(ECS_SOVERSION)
	ln -sf libecs.so.$(ECS_SOVERSION) $@
$(SHARED_LIB): ecs.h $(B)/shared/cflags | $(B)/shared/
	printf '#define ECS_IMPLEMENTATION\n#define ECS_STB_DS_IMPLEMENTATION\n#include "ecs.h"\n' | \
	    $(CC) -std=c99 $(WARN) $(SHARED_CFLAGS) -shared -fPIC -fvisibility=hidden -DECS_SHARED $(CFLAGS_COMMON) \
	    -Wl,-soname,libecs.so.$(ECS_SOVERSION) -x c - -o $@
$(B)/shared/cflags: FORCE | $(B)/shared/
	@echo '$(CC) $(SHARED_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(SHARED_CFLAGS)' > $@

# ---- part of make test ------------------------------------------------------------
HAVE_PKG_CONFIG := $(call have,pkg-config)
HAVE_CMAKE      := $(call have,cmake)
SYMBOLS := STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_symbols.sh
TEST_CMDS += '$(SYMBOLS) $(INT)/symbols-gcc $(CC) -std=c99 $(WARN) -O1' \
             '$(SYMBOLS) $(INT)/symbols-gxx $(CXX) -std=c++11 $(WARN) -O1' \
             $(if $(HAVE_CLANG),'$(SYMBOLS) $(INT)/symbols-clangxx $(CLANGXX) -std=c++17 $(WARN) -O1') \
             'LIB=$(SHARED_LIB) $(SYMBOLS) $(INT)/symbols-make-shared $(CC)' \
             'MAKE=$(MAKE) STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_install.sh $(INT)/install' \
             $(if $(HAVE_CMAKE),'MAKE=$(MAKE) STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_cmake.sh $(INT)/cmake')
$(INT)/shared-user/quickstart: tests/consumer/quickstart.c $(B)/shared/libecs.so | $(INT)/shared-user/
	$(CC) -std=c99 $(WARN) -DECS_SHARED -DCONSUMER_LINKS_ECS -I. $< -o $@ -L$(B)/shared -lecs
TEST_DEPS += $(INT)/shared-user/quickstart $(B)/shared/libecs.so
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
