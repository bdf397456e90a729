#!/bin/sh
# test_cmake.sh - ecs.h in someone else's CMake build, the ways the README
# shows.
#
#   tests/test_cmake.sh DIR
#
# Each way configures tests/consumer/CMakeLists.txt in DIR/<way>, builds it
# and runs the programs (tests/consumer/quickstart.c):
#   subdirectory  add_subdirectory(<this tree>): ecs::ecs
#   vendored      the same with a copy of the tree that has stb_ds.h next to
#                 ecs.h, pkg-config disabled and the system's stb_ds.h
#                 directory ignored: CMakeLists.txt finds the vendored one
#   fetchcontent  FetchContent_Declare(ecs URL <a tarball of this tree>)
#                 with ECS_BUILD_STATIC=ON: ecs::ecs and ecs::ecs_static
#   fetchcontent_dir  FetchContent_Declare(ecs SOURCE_DIR <this tree>), the
#                 README's form, the same targets
#   fetchcontent_git  FetchContent_Declare(ecs GIT_REPOSITORY file://<a git
#                 repository of the tarball's files> GIT_TAG <its tag>):
#                 the git form, offline
#   find_package  this tree configured with ECS_BUILD_STATIC=ON, built and
#                 installed with cmake --install to DIR/prefix, then
#                 find_package(ecs MAJOR.MINOR CONFIG): both targets, with
#                 ecs_VERSION equal to the header's version. The prefix also
#                 holds include/ecs.h and share/pkgconfig/ecs.pc, and
#                 find_package refuses the next minor version and, before
#                 1.0, the previous one (SameMinorVersion).
#   find_package_header_only  the same with the default configuration (no
#                 library; the package files in share/, not lib/): ecs::ecs
#   make install  make install DESTDIR=... PREFIX=<that prefix> gives the
#                 same files, byte for byte, as that cmake --install; and
#                 find_package after make install PREFIX=DIR/make-prefix,
#                 refusing the same versions
#   shared        this tree with ECS_BUILD_SHARED=ON, cmake --install, then
#                 find_package: ecs::ecs_shared links the program; the
#                 installed library checked by tests/test_symbols.sh (LIB=:
#                 exports, SONAME, links, release build), as make shared's
# Environment: MAKE (default make) and STB_CFLAGS (the Makefile's) for make
# install.
# Environment: CC (the consumer's C compiler), CMAKE (default cmake).
# Prints "ok"/"FAIL" per check and "RESULT <passed> <failed>".
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cmake=${CMAKE:-cmake}
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$1" && mkdir -p "$1" && dir=$(cd "$1" && pwd) || exit 2

version=$(awk '/^#define ECS_H_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 } END { print v }' "$root/ecs.h")
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}

# step NAME LOG COMMAND...: runs it, output to LOG; ok, or FAIL with the log's end
step() {
    name=$1 log=$2
    shift 2
    if "$@" > "$log" 2>&1; then
        ok "$name"
    else
        bad "$name: $*"
        tail -n 25 "$log" | sed 's/^/       /'
        return 1
    fi
}

# consumer WAY HOW "PROGRAMS" [cmake -D options...]: configure tests/consumer
# with -DHOW=HOW in DIR/WAY, build it, and run the programs it must have built
consumer() {
    way=$1 how=$2 exes=$3
    shift 3
    b=$dir/$way
    step "$way: configure" "$b.configure.log" "$cmake" -S "$root/tests/consumer" -B "$b" -DHOW="$how" "$@" &&
        step "$way: build" "$b.build.log" "$cmake" --build "$b" || return
    for exe in $exes; do
        if "$b/$exe" > "$b.$exe.log" 2>&1; then
            ok "$way: $exe: $(cat "$b.$exe.log")"
        else
            bad "$way: $exe:"
            sed 's/^/       /' "$b.$exe.log"
        fi
    done
}

# refuses PREFIX WHAT: find_package refuses the next minor version and, before
# 1.0, the previous one
refuses() {
    refuse="$major.$((minor + 1))"
    [ "$major" -eq 0 ] && [ "$minor" -gt 0 ] && refuse="$refuse $major.$((minor - 1))"
    for want in $refuse; do
        if "$cmake" -S "$root/tests/consumer" -B "$dir/refuse-$2-$want" -DHOW=find_package -DECS_WANT="$want" \
               -DCMAKE_PREFIX_PATH="$1" > "$dir/refuse-$2-$want.log" 2>&1; then
            bad "$2: find_package(ecs $want) accepted version $version"
        elif grep -q 'version' "$dir/refuse-$2-$want.log"; then
            ok "$2: find_package(ecs $want) refuses version $version"
        else
            bad "$2: find_package(ecs $want) failed for another reason:"
            tail -n 15 "$dir/refuse-$2-$want.log" | sed 's/^/       /'
        fi
    done
}

consumer subdirectory subdirectory header_only -DECS_SOURCE_DIR="$root"
stb_dir=$(sed -n 's/^ECS_STB_DIR:PATH=//p' "$dir/subdirectory/CMakeCache.txt" 2>/dev/null)

# what a release tarball (or a GitHub archive) of this tree holds
tar -C "$root" --exclude=./build --exclude=./.git -czf "$dir/ecs-src.tar.gz" . &&
    consumer fetchcontent fetchcontent "header_only with_library" -DECS_URL="$dir/ecs-src.tar.gz"
consumer fetchcontent_dir fetchcontent "header_only with_library" -DECS_SOURCE_DIR="$root"
# a git repository of the tarball's files, tagged as a release would be
g=$dir/ecs-git
if command -v git > /dev/null 2>&1; then
    if mkdir -p "$g" && tar -xzf "$dir/ecs-src.tar.gz" -C "$g" &&
       (cd "$g" && git init -q && git add -A && git -c user.name=test -c user.email=test@localhost commit -qm "ecs.h $version" &&
        git tag "v$version") > "$dir/git.log" 2>&1; then
        consumer fetchcontent_git fetchcontent "header_only with_library" -DECS_GIT="file://$g" -DECS_GIT_TAG="v$version"
    else
        bad "fetchcontent_git: making the repository:"
        sed 's/^/       /' "$dir/git.log"
    fi
else
    echo "skip fetchcontent_git: git not installed"
fi

if [ -f "$stb_dir/stb_ds.h" ] && mkdir -p "$dir/vendored-src" && tar -xzf "$dir/ecs-src.tar.gz" -C "$dir/vendored-src" &&
   cp "$stb_dir/stb_ds.h" "$dir/vendored-src/"; then
    consumer vendored subdirectory header_only -DECS_SOURCE_DIR="$dir/vendored-src" \
        -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_IGNORE_PATH="$stb_dir"
    found=$(sed -n 's/^ECS_STB_DIR:PATH=//p' "$dir/vendored/CMakeCache.txt" 2>/dev/null)
    if [ "$found" = "$dir/vendored-src" ]; then
        ok "vendored: ECS_STB_DIR is the directory of ecs.h"
    else
        bad "vendored: ECS_STB_DIR is '$found', not $dir/vendored-src"
    fi
else
    bad "vendored: no stb_ds.h found by the subdirectory build to copy ('$stb_dir')"
fi

b=$dir/ecs-build
if step "install: configure this tree (ECS_BUILD_STATIC=ON)" "$b.configure.log" \
        "$cmake" -S "$root" -B "$b" -DECS_BUILD_STATIC=ON -DCMAKE_INSTALL_PREFIX="$dir/prefix" &&
   step "install: build" "$b.build.log" "$cmake" --build "$b" &&
   step "install: cmake --install" "$b.install.log" "$cmake" --install "$b"; then
    if cmp -s "$root/ecs.h" "$dir/prefix/include/ecs.h" &&
       grep -q "^Version: $version\$" "$dir/prefix/share/pkgconfig/ecs.pc"; then
        ok "install: include/ecs.h and share/pkgconfig/ecs.pc (Version: $version)"
    else
        bad "install: include/ecs.h or share/pkgconfig/ecs.pc missing or wrong:"
        find "$dir/prefix" | sed 's/^/       /'
    fi
    consumer find_package find_package "header_only with_library" -DECS_WANT="$major.$minor" -DCMAKE_PREFIX_PATH="$dir/prefix"
    refuses "$dir/prefix" cmake
fi

b=$dir/ecs-build-header-only
if step "install, header only: configure this tree" "$b.configure.log" \
        "$cmake" -S "$root" -B "$b" -DCMAKE_INSTALL_PREFIX="$dir/prefix-header-only" &&
   step "install, header only: cmake --install" "$b.install.log" "$cmake" --install "$b"; then
    if [ -f "$dir/prefix-header-only/share/cmake/ecs/ecsConfig.cmake" ] && [ ! -d "$dir/prefix-header-only/lib" ]; then
        ok "install, header only: the package in share/cmake/ecs, nothing in lib/"
    else
        bad "install, header only: files:"
        find "$dir/prefix-header-only" -type f | sed 's/^/       /'
    fi
    consumer find_package_header_only find_package header_only -DECS_WANT="$major.$minor" \
        -DCMAKE_PREFIX_PATH="$dir/prefix-header-only"

    # make install: the same files
    make=${MAKE:-make}
    if step "make install DESTDIR=$dir/make-stage PREFIX=$dir/prefix-header-only" "$dir/make-stage.log" \
            $make -C "$root" --no-print-directory install DESTDIR="$dir/make-stage" PREFIX="$dir/prefix-header-only"; then
        if diff -r "$dir/prefix-header-only" "$dir/make-stage$dir/prefix-header-only" > "$dir/make-stage.diff" 2>&1; then
            ok "make install and cmake --install give the same files: $(cd "$dir/prefix-header-only" && find . -type f | sort | tr '\n' ' ')"
        else
            bad "make install and cmake --install differ:"
            head -n 30 "$dir/make-stage.diff" | sed 's/^/       /'
        fi
    fi
fi
if step "make install PREFIX=$dir/make-prefix" "$dir/make-prefix.log" \
        ${MAKE:-make} -C "$root" --no-print-directory install PREFIX="$dir/make-prefix"; then
    consumer find_package_make_install find_package header_only -DECS_WANT="$major.$minor" \
        -DCMAKE_PREFIX_PATH="$dir/make-prefix"
    refuses "$dir/make-prefix" make-install
fi

# the shared library
b=$dir/ecs-build-shared
if step "shared: configure this tree (ECS_BUILD_SHARED=ON)" "$b.configure.log" \
        "$cmake" -S "$root" -B "$b" -DECS_BUILD_SHARED=ON -DCMAKE_INSTALL_PREFIX="$dir/prefix-shared" &&
   step "shared: build" "$b.build.log" "$cmake" --build "$b" &&
   step "shared: cmake --install" "$b.install.log" "$cmake" --install "$b"; then
    consumer shared find_package "header_only with_shared" -DECS_WANT="$major.$minor" -DCMAKE_PREFIX_PATH="$dir/prefix-shared"
    lib=$(find "$dir/prefix-shared" -name "libecs.so.$version" | head -n 1)
    if LIB="${lib:-$dir/prefix-shared/lib/libecs.so.$version}" ECS_H="$root/ecs.h" \
           sh "$root/tests/test_symbols.sh" "$dir/shared-symbols" "${CC:-cc}" > "$dir/shared-symbols.log" 2>&1; then
        ok "shared: tests/test_symbols.sh on the installed ${lib#$dir/}: $(grep -c '^ok' "$dir/shared-symbols.log") checks"
    else
        bad "shared: tests/test_symbols.sh on the installed library:"
        grep -v '^ok' "$dir/shared-symbols.log" | sed 's/^/       /'
    fi
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
