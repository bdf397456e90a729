#!/bin/sh
# test_symbols.sh - every documented function of ecs.h is a real symbol of
# a shared library built from it (ecs.h, section "Real symbols").
#
#   tests/test_symbols.sh DIR CC [FLAGS...]
#
# Builds DIR/libecs.so (DIR/ecs.dll and its import library when CC targets
# Windows) from the implementation of ecs.h with
#   CC FLAGS -fPIC -fvisibility=hidden -DECS_SHARED
# in CC's language (C, or C++ when CC's name has "++"), then checks that
#   - its dynamic symbol table (nm -D; a DLL's export table) has every
#     function listed below, and nothing else (stb_ds stays inside);
#   - a C program that includes ecs.h without ECS_IMPLEMENTATION and without
#     stb_ds's include path, takes the address of every one of them (so the
#     link needs each from the library) and runs the quick start
#     (tests/consumer/quickstart.c), linked with nothing but the library,
#     runs and passes.
# The functions are read from ecs.h itself, so the check follows the API:
#   public   every `ECS_API ... ecs_x(` declaration of the header part (up
#            to `#endif /* ECS_H */`) and every ecs_x the header part defines
#            with ECS__INLINE or ECS__HOT; not the private ecs__ ones.
#   inline   every function the header part defines with ECS__INLINE or
#            ECS__HOT, private ones too: a caller's compiler may keep them
#            out of line, and then the call needs the symbol. They must be
#            exactly the ECS__INLINE_FUNCTIONS list that makes ecs.h emit
#            them.
# Environment: STB_CFLAGS (the library's stb_ds include path), ECS_H (the
# header, default ecs.h), CONSUMER_CC (the C compiler of the program,
# default cc), OBJDUMP (reads a DLL's exports, default objdump), RUN (runs
# the program, e.g. wine). Prints "ok"/"FAIL" per check and
# "RESULT <passed> <failed>" for tests/run.sh.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR CC [FLAGS...]" >&2; exit 2; }
dir=$1
shift
hdr=${ECS_H:-ecs.h}
hdr_dir=$(cd "$(dirname "$hdr")" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() { echo "RESULT $pass $fail"; [ "$fail" -eq 0 ]; exit $?; }
rm -rf "$dir" && mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 2

# ---- the lists, from ecs.h -------------------------------------------------
sed '/^#endif \/\* ECS_H \*\//q' "$hdr" > "$dir/header.h"
grep -q '^#endif /\* ECS_H \*/' "$dir/header.h" || { bad "no '#endif /* ECS_H */' in $hdr"; finish; }
sed -En 's/^ECS_API[^(]*[^A-Za-z0-9_](ecs_[A-Za-z0-9_]*)\(.*/\1/p' "$dir/header.h" > "$dir/api"
# data: `ECS_API type ecs__x;` (the objects the inline functions read)
sed -En 's/^ECS_API [^(]*[^A-Za-z0-9_](ecs_[A-Za-z0-9_]*);.*/\1/p' "$dir/header.h" | sort > "$dir/data"
sed -En 's/^ECS__(INLINE|HOT) [^(]*[^A-Za-z0-9_](ecs_[A-Za-z0-9_]*)\(.*/\2/p' "$dir/header.h" |
    sort > "$dir/inline"
sed -En 's/^ *X\([^,]*, *(ecs_[A-Za-z0-9_]*),.*/\1/p' "$hdr" | sort > "$dir/listed"
{ grep -v '^ecs__' "$dir/api"; grep -v '^ecs__' "$dir/inline"; } | sort -u > "$dir/public"
sort -u "$dir/public" "$dir/inline" > "$dir/all"
sort -u "$dir/all" "$dir/data" > "$dir/all_symbols"

# A declaration this parser does not understand must not drop out silently.
n_api=$(grep -c '^ECS_API' "$dir/header.h")
n_inl=$(grep -Ec '^ECS__(INLINE|HOT) ' "$dir/header.h")
if [ "$n_api" -eq "$(($(wc -l < "$dir/api") + $(wc -l < "$dir/data")))" ] && [ "$n_inl" -eq "$(wc -l < "$dir/inline")" ] &&
   [ -s "$dir/public" ]; then
    ok "read $hdr: $(wc -l < "$dir/public") public functions ($n_api ECS_API declarations, $(wc -l < "$dir/data") of them data; $n_inl functions defined inline)"
else
    bad "read $hdr: $(wc -l < "$dir/api") functions and $(wc -l < "$dir/data") objects from $n_api ECS_API lines, $(wc -l < "$dir/inline") from $n_inl ECS__INLINE/ECS__HOT lines (a declaration this script cannot parse?)"
    finish
fi
if cmp -s "$dir/inline" "$dir/listed"; then
    ok "ECS__INLINE_FUNCTIONS lists every inline function"
else
    bad "ECS__INLINE_FUNCTIONS differs from the functions defined inline ('<' not listed, '>' listed but not inline):"
    diff "$dir/inline" "$dir/listed" | grep '^[<>]' | sed 's/^/       /'
fi

# ---- the library -------------------------------------------------------------
case $("$1" -dumpmachine 2>/dev/null) in
*mingw* | *windows* | *cygwin*) windows=1 lib=$dir/ecs.dll ;;
*) windows=0 lib=$dir/libecs.so ;;
esac
case $1 in
*++*) src=$dir/impl.cpp ;;
*) src=$dir/impl.c ;;
esac
printf '#define ECS_IMPLEMENTATION\n#define ECS_STB_DS_IMPLEMENTATION\n#include "ecs.h"\n' > "$src"
if [ $windows -eq 1 ]; then
    set -- "$@" -shared -DECS_SHARED "-Wl,--out-implib,$dir/libecs.dll.a"
else
    set -- "$@" -shared -fPIC -fvisibility=hidden -DECS_SHARED
fi
# shellcheck disable=SC2086 # STB_CFLAGS is a list of flags
if "$@" ${STB_CFLAGS:-} -I"$hdr_dir" "$src" -o "$lib" > "$dir/lib.log" 2>&1; then
    ok "built $(basename "$lib"): $*"
else
    bad "built $(basename "$lib"): $*"
    sed 's/^/       /' "$dir/lib.log" | head -n 30
    finish
fi

if [ $windows -eq 1 ]; then
    "${OBJDUMP:-objdump}" -p "$lib" | sed -En 's/^[[:space:]]*\[ *[0-9]+\] ([A-Za-z_][A-Za-z0-9_]*)$/\1/p'
else
    nm -D --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TWiBDV]$/ { print $3 }'
fi | sort -u > "$dir/exported"
missing=$(comm -23 "$dir/all_symbols" "$dir/exported")
extra=$(grep -v '^ecs_' "$dir/exported")
if [ -z "$missing" ]; then
    ok "exports all $(wc -l < "$dir/public") public functions, the $(grep -c '^ecs__' "$dir/inline") private inline ones and $(wc -l < "$dir/data") object(s)"
else
    bad "does not export: $(echo $missing)"
fi
if [ -z "$extra" ]; then
    ok "exports nothing but ecs_ names"
else
    bad "also exports: $(echo $extra | cut -c 1-300)"
fi

# ---- a program that links only the library -----------------------------------
{
    echo "/* generated by tests/test_symbols.sh: the address of every function ecs.h"
    echo "   declares or defines inline, so that linking needs each from the library */"
    echo '#include "ecs.h"'
    echo 'typedef void (*symbol_fn)(void);'
    echo 'extern const symbol_fn ecs_symbols[];'
    echo 'const symbol_fn ecs_symbols[] = {'
    sed 's/.*/    (symbol_fn)\&&,/' "$dir/all"
    echo '    0};'
    echo '/* a DLL'"'"'s data is imported through a pointer, so its address is not a'
    echo '   constant: the objects are taken at run time */'
    echo 'extern const void *ecs_object_addresses(void);'
    echo 'const void *ecs_object_addresses(void) {'
    echo '    const void *volatile last = 0;'
    sed 's/.*/    last = \&&;/' "$dir/data"
    echo '    return last;'
    echo '}'
} > "$dir/symbols.c"
exe=$dir/quickstart
[ $windows -eq 1 ] && exe=$dir/quickstart.exe
rpath="-Wl,-rpath,$dir"
[ $windows -eq 1 ] && rpath=
# no STB_CFLAGS: a program using the library must not need stb_ds.h
if ${CONSUMER_CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -O1 -DECS_SHARED -DCONSUMER_LINKS_ECS \
       -I"$hdr_dir" "$here/consumer/quickstart.c" "$dir/symbols.c" -o "$exe" -L"$dir" -lecs $rpath \
       > "$dir/exe.log" 2>&1; then
    ok "linked the quick start and the address of every function with only $(basename "$lib")"
    if (cd "$dir" && ${RUN:-} "$exe") > "$dir/run.log" 2>&1 && grep -q 'quick start ok' "$dir/run.log"; then
        ok "ran it: $(grep 'consumer:' "$dir/run.log")"
    else
        bad "ran it:"
        sed 's/^/       /' "$dir/run.log" | head -n 20
    fi
else
    bad "linked the quick start and the address of every function with only $(basename "$lib"):"
    sed 's/^/       /' "$dir/exe.log" | head -n 8
fi
finish
