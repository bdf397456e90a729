#!/bin/sh
# test_install.sh - make install, as a user and as a packager run it.
#
#   tests/test_install.sh DIR
#
#   1. make install PREFIX=DIR/prefix puts ecs.h (the same file) in
#      DIR/prefix/include, ecs.pc, with the header's version, in
#      DIR/prefix/share/pkgconfig, and the CMake package (ecsConfig.cmake,
#      ecsConfigVersion.cmake with that version, ecs-stb.cmake) in
#      DIR/prefix/share/cmake/ecs (tests/test_cmake.sh builds with it). Where pkg-config is installed:
#      pkg-config --modversion ecs is that version, and
#      tests/consumer/quickstart.c built with
#      `cc quickstart.c $(pkg-config --cflags --libs ecs)` runs.
#   2. make install DESTDIR=DIR/stage PREFIX=/opt/ecs puts the same files
#      under DIR/stage/opt/ecs, and ecs.pc says prefix=/opt/ecs: the staging
#      directory does not leak into it.
#   3. make uninstall, with the same variables, removes them again.
#   4. make install STB_DIR=<the directory of the stb_ds.h that the
#      compiler finds with STB_CFLAGS> writes
#      that directory into ecs.pc's Cflags instead of requiring stb.pc, and
#      (with pkg-config) the program builds with those flags.
# Environment: MAKE (default make), CC (default cc), STB_CFLAGS (the
# Makefile's). Prints "ok"/"FAIL" per check and "RESULT <passed> <failed>".
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
make=${MAKE:-make}
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$1" && mkdir -p "$1" && dir=$(cd "$1" && pwd) || exit 2
version=$(awk '/^#define ECS_H_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 } END { print v }' "$root/ecs.h")

# installed WHAT PREFIX_DIR PREFIX: the files are in PREFIX_DIR, right
installed() {
    if cmp -s "$root/ecs.h" "$2/include/ecs.h" && [ -f "$2/share/pkgconfig/ecs.pc" ] &&
       grep -qx "Version: $version" "$2/share/pkgconfig/ecs.pc" &&
       grep -qx "prefix=$3" "$2/share/pkgconfig/ecs.pc" &&
       grep -qx "set(PACKAGE_VERSION \"$version\")" "$2/share/cmake/ecs/ecsConfigVersion.cmake" &&
       grep -q 'add_library(ecs::ecs INTERFACE IMPORTED)' "$2/share/cmake/ecs/ecsConfig.cmake" &&
       cmp -s "$root/cmake/ecs-stb.cmake" "$2/share/cmake/ecs/ecs-stb.cmake"; then
        ok "$1: include/ecs.h, share/pkgconfig/ecs.pc (Version: $version, prefix=$3), share/cmake/ecs/{ecsConfig,ecsConfigVersion,ecs-stb}.cmake"
    else
        bad "$1: include/ecs.h or share/pkgconfig/ecs.pc missing or wrong:"
        find "$2" -type f | sed 's/^/       /'
        [ -f "$2/share/pkgconfig/ecs.pc" ] && sed 's/^/       | /' "$2/share/pkgconfig/ecs.pc"
    fi
}
# uninstalled WHAT PREFIX_DIR VARIABLES...: make uninstall removes them
uninstalled() {
    what=$1 at=$2
    shift 2
    $make -C "$root" --no-print-directory uninstall "$@" > "$dir/uninstall.log" 2>&1
    if [ ! -e "$at/include/ecs.h" ] && [ ! -e "$at/share/pkgconfig/ecs.pc" ] && [ ! -e "$at/share/cmake/ecs" ]; then
        ok "$what: make uninstall removed them"
    else
        bad "$what: make uninstall $*:"
        sed 's/^/       /' "$dir/uninstall.log"
    fi
}

# with_pkg_config: builds and runs the program with pkg-config's flags for ecs
with_pkg_config() {
    flags=$(pkg-config --cflags --libs ecs 2>&1)
    # shellcheck disable=SC2086 # flags is a list
    if ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -O1 -DEXPECT_VERSION="\"$version\"" \
           "$root/tests/consumer/quickstart.c" $flags -o "$dir/quickstart" > "$dir/cc.log" 2>&1 &&
       "$dir/quickstart" > "$dir/run.log" 2>&1; then
        ok "cc quickstart.c \$(pkg-config --cflags --libs ecs) [$flags]: $(cat "$dir/run.log")"
    else
        bad "cc quickstart.c \$(pkg-config --cflags --libs ecs) [$flags]:"
        cat "$dir/cc.log" "$dir/run.log" 2>/dev/null | head -n 20 | sed 's/^/       /'
    fi
}

# 1. a user's install
p=$dir/prefix
if $make -C "$root" --no-print-directory install PREFIX="$p" > "$dir/install.log" 2>&1; then
    installed "make install PREFIX=$p" "$p" "$p"
    if command -v pkg-config > /dev/null 2>&1; then
        export PKG_CONFIG_PATH="$p/share/pkgconfig"
        got=$(pkg-config --modversion ecs 2>&1)
        if [ "$got" = "$version" ]; then
            ok "pkg-config --modversion ecs: $got"
        else
            bad "pkg-config --modversion ecs: $got (the header says $version)"
        fi
        with_pkg_config
    fi
    uninstalled "PREFIX=$p" "$p" PREFIX="$p"
else
    bad "make install PREFIX=$p:"
    sed 's/^/       /' "$dir/install.log"
fi

# 2. a packager's staged install
s=$dir/stage
if $make -C "$root" --no-print-directory install DESTDIR="$s" PREFIX=/opt/ecs > "$dir/stage.log" 2>&1; then
    installed "make install DESTDIR=$s PREFIX=/opt/ecs" "$s/opt/ecs" /opt/ecs
    uninstalled "DESTDIR" "$s/opt/ecs" DESTDIR="$s" PREFIX=/opt/ecs
else
    bad "make install DESTDIR=$s PREFIX=/opt/ecs:"
    sed 's/^/       /' "$dir/stage.log"
fi
# 4. stb_ds.h named with STB_DIR
# shellcheck disable=SC2086 # STB_CFLAGS is a list
stb_h=$(printf '#include "stb_ds.h"\n' | ${CC:-cc} ${STB_CFLAGS:-} -M -x c - 2>/dev/null | tr ' \\' '\n\n' |
        grep '/stb_ds\.h$' | head -n 1)
stb_dir=$(dirname "${stb_h:-none}")
p=$dir/stb-dir
if [ ! -f "$stb_dir/stb_ds.h" ]; then
    bad "STB_DIR: the compiler does not find stb_ds.h with STB_CFLAGS='${STB_CFLAGS:-}'"
elif $make -C "$root" --no-print-directory install PREFIX="$p" STB_DIR="$stb_dir" > "$dir/stb-dir.log" 2>&1 &&
     grep -qx "Cflags: -I\${includedir} -I$stb_dir" "$p/share/pkgconfig/ecs.pc" &&
     grep -qx "Requires: " "$p/share/pkgconfig/ecs.pc"; then
    ok "make install STB_DIR=$stb_dir: ecs.pc's Cflags name it, no Requires"
    if command -v pkg-config > /dev/null 2>&1; then
        PKG_CONFIG_PATH="$p/share/pkgconfig" with_pkg_config
    fi
else
    bad "make install STB_DIR=$stb_dir:"
    cat "$dir/stb-dir.log" "$p/share/pkgconfig/ecs.pc" 2>/dev/null | sed 's/^/       /'
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
