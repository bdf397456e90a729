#!/bin/sh
# test_stb_hint.sh - what a new user sees without stb_ds.h (ecs.h's header
# comment and the #error beside its include).
#
#   tests/test_stb_hint.sh DIR CC...
#
#   1. The implementation compiled without stb_ds.h on the include path
#      stops at ecs.h's #error, which names the package (libstb-dev), the
#      pkg-config line and ECS_STB_DS_INCLUDE - with every compiler that
#      has __has_include (gcc, clang, g++, clang++).
#   2. A file that only includes ecs.h (no ECS_IMPLEMENTATION) needs no
#      stb_ds.h at all.
#   3. Built with stb_ds.h but without its implementation, the link fails
#      on stbds_hash_string - the name the header's comment tells the
#      reader to look for.
# Prints "ok"/"FAIL" per check and "RESULT <passed> <failed>".
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR CC..." >&2; exit 2; }
dir=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$dir" && mkdir -p "$dir" || exit 2
printf '#define ECS_IMPLEMENTATION\n#include "ecs.h"\nint main(void) { return ecs_world_new(0) == 0; }\n' > "$dir/impl.c"
printf '#include "ecs.h"\nint f(const ecs_world *w) { return (int)ecs_count(w); }\n' > "$dir/user.c"
for cc in "$@"; do
    lang=c; case $cc in *++*) lang=c++ ;; esac
    if printf '#include "stb_ds.h"\n' | $cc -x $lang -E - > /dev/null 2>&1; then
        ok "$cc: (stb_ds.h is on its default include path: nothing to hint)"
    elif $cc -x $lang -I"$root" -c "$dir/impl.c" -o "$dir/impl.o" > "$dir/out" 2>&1; then
        bad "$cc: compiled without stb_ds.h"
    elif grep -q 'libstb-dev' "$dir/out" && grep -q 'pkg-config --cflags stb' "$dir/out" &&
         grep -q 'ECS_STB_DS_INCLUDE' "$dir/out"; then
        ok "$cc: the #error names libstb-dev, pkg-config and ECS_STB_DS_INCLUDE"
    else
        bad "$cc: no hint:"; sed 's/^/      /' "$dir/out" | head -5
    fi
    if $cc -x $lang -I"$root" -c "$dir/user.c" -o "$dir/user.o" > "$dir/out" 2>&1; then
        ok "$cc: a user of the header needs no stb_ds.h"
    else
        bad "$cc: a user of the header failed:"; sed 's/^/      /' "$dir/out" | head -5
    fi
done
cc=$1
if $cc -I"$root" ${STB_CFLAGS:-} "$dir/impl.c" -o "$dir/impl" > "$dir/out" 2>&1; then
    bad "linked without the stb_ds implementation"
elif grep -q 'stbds_hash_string' "$dir/out" && grep -q 'stbds_hash_string' "$root/ecs.h"; then
    ok "without the stb_ds implementation the link names stbds_hash_string, as ecs.h's comment says"
else
    bad "the link failed another way:"; sed 's/^/      /' "$dir/out" | head -5
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
