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
#   - its dynamic symbol table (nm -D; a DLL's export table) is exactly the
#     functions listed below (stb_ds and every other private function stay
#     inside);
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
#   called   every private `ECS_API ... ecs__x(` declaration of the header
#            part that the header part also uses (in a macro or an inline
#            function): a program compiled against the header calls it, so
#            it must be exported too (README.md, "A shared library"). One
#            the header does not use must not be declared there (it would
#            be exported for nothing); UNCALLED_KNOWN names those that are
#            still, until ecs.h moves their declarations.
# With LIB=path/to/libecs.so.X.Y.Z (ELF only) the script checks that
# library, built by make shared or CMake's ECS_BUILD_SHARED, instead of
# building one, and also that it is a release build (no assertion message
# in it) whose SONAME is libecs.so.MAJOR.MINOR of ecs.h's version (readelf
# -d), with the links SONAME -> file and libecs.so beside it.
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
# the private out-of-line functions the header part calls (its declaration is
# one use of the name; a call or a macro using it is another)
UNCALLED_KNOWN=""
: > "$dir/called"
: > "$dir/uncalled"
for f in $(grep '^ecs__' "$dir/api"); do
    if [ "$(grep -ow "$f" "$dir/header.h" | wc -l)" -ge 2 ]; then echo "$f"; else echo "$f" >> "$dir/uncalled"; fi
done | sort > "$dir/called"
sort -u "$dir/all" "$dir/data" "$dir/called" > "$dir/all_symbols"

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
unexpected=$(for f in $(cat "$dir/uncalled"); do case " $UNCALLED_KNOWN " in *" $f "*) ;; *) echo "$f" ;; esac; done)
gone=$(for f in $UNCALLED_KNOWN; do grep -qx "$f" "$dir/uncalled" || echo "$f"; done)
if [ -z "$unexpected" ] && [ -z "$gone" ]; then
    ok "the header calls $(wc -l < "$dir/called") private out-of-line functions (exported for it); declared but not called: $(cat "$dir/uncalled" | tr '\n' ' ')(UNCALLED_KNOWN)"
else
    bad "private ECS_API declarations the header part does not call: [$(echo $unexpected)] (move them out of the header part); UNCALLED_KNOWN lists [$(echo $gone)], which are no longer such: remove them from it"
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
if [ -n "${LIB:-}" ]; then
    # a library built elsewhere: its SONAME, its links and its flags
    version=$(awk '/^#define ECS_H_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 } END { print v }' "$hdr")
    soname=libecs.so.${version%.*}
    libdir=$(cd "$(dirname "$LIB")" && pwd)
    lib=$libdir/$(basename "$LIB")
    got=$(readelf -d "$lib" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    if [ "$got" = "$soname" ] && [ "$(basename "$lib")" = "libecs.so.$version" ]; then
        ok "$(basename "$lib"): SONAME $got (readelf -d)"
    else
        bad "$LIB: SONAME '$got', file $(basename "$lib"); ecs.h $version wants $soname in libecs.so.$version"
    fi
    if [ "$(readlink "$libdir/$soname")" = "libecs.so.$version" ] && [ "$(readlink -f "$libdir/libecs.so")" = "$lib" ]; then
        ok "links: libecs.so -> $(readlink "$libdir/libecs.so"), $soname -> libecs.so.$version"
    else
        bad "links: $(ls -l "$libdir" | grep libecs | tr -s ' ' | cut -d ' ' -f 9- | tr '\n' ';')"
    fi
    # an assertion message of the implementation: absent under NDEBUG
    if grep -q 'a save callback changed the world' "$lib"; then
        bad "$(basename "$lib") has ECS_ASSERT's messages: built without -DNDEBUG"
    else
        ok "$(basename "$lib") is a release build (no ECS_ASSERT message in it)"
    fi
    rm -f "$dir/libecs.so"
    ln -s "$lib" "$dir/libecs.so"
    ln -sf "$lib" "$dir/$soname"
# shellcheck disable=SC2086 # STB_CFLAGS is a list of flags
elif "$@" ${STB_CFLAGS:-} -I"$hdr_dir" "$src" -o "$lib" > "$dir/lib.log" 2>&1; then
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
extra=$(comm -13 "$dir/all_symbols" "$dir/exported" | grep -vxF -f "$dir/uncalled")
if [ -z "$missing" ]; then
    ok "exports all $(wc -l < "$dir/public") public functions, the $(grep -c '^ecs__' "$dir/inline") private inline ones, the $(wc -l < "$dir/called") private ones the header calls and $(wc -l < "$dir/data") object(s)"
else
    bad "does not export: $(echo $missing)"
fi
if [ -z "$extra" ]; then
    ok "exports nothing else ($(wc -l < "$dir/exported") symbols; the UNCALLED_KNOWN ones aside)"
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
