#!/bin/sh
# test_readme.sh - README.md's C, built as C99 and as C++.
#
#   tests/test_readme.sh DIR
#
# Every ```c and ```cpp block of README.md has a marker on the line above
# its fence, which says how it is tested:
#   <!-- test: main -->     a fragment of a function: its first lines that
#                           are preprocessor lines, typedefs, comments or
#                           blank stay at file scope, the rest becomes the
#                           body of main (which returns 0 after it)
#   <!-- test: file -->     file-scope code, with an empty main after it
#   <!-- test: main c -->   as main, but C only: C++ has its own form of it,
#                           the next block, marked
#   <!-- test: variant -->  (```cpp) the C++ form of the block above: each
#                           of its lines replaces the line of that block
#                           that begins with the same text up to its first
#                           " = " (or its first "(" or "{" if it has none)
#   <!-- test: skip REASON -->  not compiled (e.g. elided with "...")
# A block that does not include ecs.h gets
#   #define ECS_IMPLEMENTATION / ECS_STB_DS_IMPLEMENTATION, #include "ecs.h",
#   <stdio.h>
# in front. Each ```c block (but "main c") is built with
#   cc -std=c99 and c++ -std=c++11 (and clang++ -std=c++17 when installed)
# each ```cpp block with the C++ compilers only, all with -Wall -Wextra
# -Wpedantic -Werror (and -Wno-unused-variable -Wno-unused-but-set-variable
# -Wno-unused-function: a fragment declares what the reader would go on to
# use), and every program built is run. A block without a marker fails.
# Environment: CC, CXX, CLANGXX (leave empty to skip), STB_CFLAGS.
# Prints "ok"/"FAIL" per check and "RESULT <passed> <failed>".
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$1" && mkdir -p "$1" && dir=$(cd "$1" && pwd) || exit 2
cc=${CC:-cc}
cxx=${CXX:-c++}
clangxx=${CLANGXX-clang++}
command -v "$clangxx" > /dev/null 2>&1 || clangxx=
WFLAGS="-Wall -Wextra -Wpedantic -Werror -Wno-unused-variable -Wno-unused-but-set-variable -Wno-unused-function"

# the blocks: DIR/b<N>.src, DIR/b<N>.info = "LANG<TAB>LINE<TAB>MODE"
awk -v dir="$dir" '
    /^```(c|cpp)[[:space:]]*$/ && !inside {
        inside = 1; n++; lang = $0; sub(/^```/, "", lang); sub(/[[:space:]]*$/, "", lang)
        mode = prev; if (mode ~ /^<!-- test: .* -->$/) { sub(/^<!-- test: /, "", mode); sub(/ -->$/, "", mode) } else mode = ""
        printf "%s\t%d\t%s\n", lang, NR, mode > (dir "/b" n ".info")
        printf "" > (dir "/b" n ".src")
        next
    }
    /^```/ && inside { inside = 0; next }
    inside { print > (dir "/b" n ".src") }
    { prev = $0 }
    END { print n + 0 > (dir "/count") }' "$root/README.md"
count=$(cat "$dir/count")

# program N LANG MODE: DIR/b<N>.<c|cpp>, the block as a program
program() {
    src=$dir/b$1.src out=$dir/b$1.$2
    : > "$out"
    grep -q '#include "ecs.h"' "$src" ||
        printf '#define ECS_IMPLEMENTATION\n#define ECS_STB_DS_IMPLEMENTATION\n#include "ecs.h"\n#include <stdio.h>\n' >> "$out"
    case $3 in
    file*) cat "$src" >> "$out"; printf '\nint main(void) { return 0; }\n' >> "$out" ;;
    main*)
        awk '
            !body && (/^[[:space:]]*$/ || /^#/ || /^typedef/ || /^\/\*/ || (in_typedef)) {
                print; if (/^typedef/ && !/;[[:space:]]*(\/\*.*)?$/) in_typedef = 1; else if (/;/) in_typedef = 0
                next
            }
            !body { body = 1; print "int main(void) {" }
            { print "    " $0 }
            END { if (!body) print "int main(void) {"; print "    return 0;"; print "}" }' "$src" >> "$out" ;;
    esac
}

# build N LANG WHAT COMPILER FLAGS...: builds DIR/b<N>.<lang> and runs it
build() {
    n=$1 lang=$2 what=$3
    shift 3
    exe=$dir/b$n-$(basename "$1" | tr -c 'A-Za-z0-9\n' '_')
    # shellcheck disable=SC2086 # STB_CFLAGS and WFLAGS are lists
    if "$@" $WFLAGS ${STB_CFLAGS:-} -I"$root" "$dir/b$n.$lang" -o "$exe" -lm > "$exe.log" 2>&1; then
        if "$exe" > "$exe.run" 2>&1; then
            ok "README.md:$line $what: $* builds and runs"
        else
            bad "README.md:$line $what: $* built, but the program failed:"
            sed 's/^/       /' "$exe.run" | head -n 10
        fi
    else
        bad "README.md:$line $what: $*:"
        head -n 15 "$exe.log" | sed 's/^/       /'
        echo "       (the program: $dir/b$n.$lang)"
    fi
}

cxx_builds() { # N LANG WHAT
    build "$1" "$2" "$3" "$cxx" -std=c++11 -x c++
    [ -n "$clangxx" ] && build "$1" "$2" "$3" "$clangxx" -std=c++17 -x c++
}

i=1
tested=0
while [ "$i" -le "$count" ]; do
    IFS='	' read -r lang line mode < "$dir/b$i.info"
    case $lang:$mode in
    *:skip*) ok "README.md:$line: not compiled (${mode#skip })" ;;
    c:main | c:file)
        program "$i" c "$mode"
        build "$i" c "$mode, C99" "$cc" -std=c99
        cxx_builds "$i" c "$mode, C++"
        tested=$((tested + 1)) ;;
    c:"main c")
        program "$i" c main
        build "$i" c "main, C99 (C only)" "$cc" -std=c99
        j=$((i + 1))
        if [ "$j" -le "$count" ] && grep -q "^cpp	[0-9]*	variant\$" "$dir/b$j.info"; then
            : # the next block, its C++ form, is built next
        else
            bad "README.md:$line: a C-only block ('main c') without its C++ form (a \`\`\`cpp block marked 'variant') right after it"
        fi
        tested=$((tested + 1)) ;;
    cpp:variant)
        k=$((i - 1))
        # each line of the variant replaces the line of block k with its start
        awk -v variant="$dir/b$i.src" '
            function key(s,    p) {
                sub(/^[[:space:]]+/, "", s)
                p = index(s, " = "); if (p) return substr(s, 1, p + 2)
                p = match(s, /[({]/); if (p) return substr(s, 1, p)
                return s
            }
            BEGIN { while ((getline l < variant) > 0) if (l !~ /^[[:space:]]*$/) { k = key(l); repl[k] = l; order[++n] = k } }
            { k = key($0); if (k in repl) { print repl[k]; used[k] = 1 } else print }
            END { for (i = 1; i <= n; i++) if (!(order[i] in used)) print "#error the C++ variant line \"" repl[order[i]] "\" replaces no line of the block above" }' \
            "$dir/b$k.src" > "$dir/b$i.merged" && mv "$dir/b$i.merged" "$dir/b$i.src"
        program "$i" cpp main
        cxx_builds "$i" cpp "the C++ form of the block above"
        tested=$((tested + 1)) ;;
    cpp:main | cpp:file)
        program "$i" cpp "$mode"
        cxx_builds "$i" cpp "$mode, C++"
        tested=$((tested + 1)) ;;
    *) bad "README.md:$line: a \`\`\`$lang block without a valid '<!-- test: ... -->' marker above it (mode '$mode'; see $0)" ;;
    esac
    i=$((i + 1))
done
if [ "$tested" -gt 0 ]; then
    ok "README.md: $count C/C++ blocks, $tested of them compiled"
else
    bad "README.md: no block compiled ($count blocks)"
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
