#!/bin/sh
# test_docs.sh - the docs name what the code has.
#
#   tests/test_docs.sh DIR
#
# Checks, from the files themselves:
#   1. Every ecs_* / ECS_* name that README.md or ecs.h's doc block (the
#      comment at its top, without the revision history section, which
#      names the old names on purpose) mentions exists in ecs.h: a macro
#      (#define, or an option ecs.h tests with #if/#ifdef/defined), a
#      function (declared or defined), a type (typedef, struct, enum), an
#      enum value (also through an X-macro list: `X(ECS_OK, ...)`) or an
#      object. `ecs_defer_*` stands for the names with that prefix (at
#      least one must exist). Names README.md gives as CMake options must
#      be options of CMakeLists.txt (`option(NAME` or a cache variable);
#      `ecs::x` targets are CMake's, not checked.
#   2. Every "section N" of README.md names a section of the doc block (the
#      numbered headings `   N. TITLE`) and gives its title, `section N
#      (TITLE)`, which must be that section's title (the heading up to two
#      spaces or a parenthesis, compared without case), so a renumbering
#      shows up here. The doc block's own "section N" references name
#      existing sections, and where they give a title, the right one. The
#      table of contents lists every section with its heading's title.
#   3. `FILE, "Title"` and `the section "Title" in FILE` references of
#      README.md name a file of this tree that has that title (a heading of
#      a .md, a line of a .h or .c).
# Prints "ok"/"FAIL" per check and "RESULT <passed> <failed>".
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$1" && mkdir -p "$1" && dir=$(cd "$1" && pwd) || exit 2
hdr=$root/ecs.h
readme=$root/README.md
ID='(ecs|ECS)_[A-Za-z0-9_]*'

# ---- what ecs.h defines --------------------------------------------------------
# its code without comments (the preprocessor removes them, expanding nothing)
if ! ${CC:-cc} -fpreprocessed -dD -E -P -x c "$hdr" > "$dir/code.c" 2> "$dir/code.log"; then
    bad "${CC:-cc} -fpreprocessed -E ecs.h:"
    sed 's/^/       /' "$dir/code.log"
    echo "RESULT $pass $fail"
    exit 1
fi
{
    # macros, and the options it tests
    sed -En 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$dir/code.c"
    grep -E '^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)' "$dir/code.c" | grep -Eo "$ID"
    # functions, declared or defined (the return type before the name)
    grep -Eo "^(ECS_API|ECS__INLINE|ECS__HOT|ECS__FN|static|extern|typedef)[^;{=]*[^A-Za-z0-9_]$ID[[:space:]]*\(" "$dir/code.c" |
        grep -Eo "$ID[[:space:]]*\(\$" | tr -d '( '
    # X-macro lists: the functions of ECS__INLINE_FUNCTIONS, the enum values
    grep -Eo "X\(($ID|[^,()]*, *$ID)," "$dir/code.c" | grep -Eo "$ID" | tail -n +1
    # types: typedef ... name; } name; struct/enum/union tags; (*name) pointers
    grep -Eo "^typedef[^;]*[^A-Za-z0-9_]$ID\)?;" "$dir/code.c" | grep -Eo "$ID\)?;\$" | tr -d ');'
    grep -Eo "^\}[[:space:]]*$ID;" "$dir/code.c" | grep -Eo "$ID"
    grep -Eo "(struct|enum|union)[[:space:]]+$ID" "$dir/code.c" | awk '{ print $2 }'
    grep -Eo "\(\*$ID\)" "$dir/code.c" | tr -d '(*)'
    # enum values written one a line; objects
    grep -Eo "^[[:space:]]+$ID[[:space:]]*(=[^=]|,|\$)" "$dir/code.c" | grep -Eo "$ID"
    grep -Eo "^ECS_API[^(]*[^A-Za-z0-9_]$ID;" "$dir/code.c" | grep -Eo "$ID;\$" | tr -d ';'
} | sort -u > "$dir/defined"
if [ "$(grep -c . "$dir/defined")" -gt 100 ] && grep -qx ecs_world_new "$dir/defined" &&
   grep -qx ECS_ERR_DEAD_ENTITY "$dir/defined" && grep -qx ecs_world "$dir/defined" && grep -qx ECS_ADD "$dir/defined"; then
    ok "ecs.h defines $(wc -l < "$dir/defined") ecs_/ECS_ names (macros, options, functions, types, enum values)"
else
    bad "reading ecs.h's definitions: $(wc -l < "$dir/defined") names (the parser missed some)"
fi

# the doc block: the first comment, up to the revision history section
awk 'NR == 1 && !/^\/\*/ { exit } { print } /\*\// { exit }' "$hdr" > "$dir/docblock"
history=$(grep -n '^   [0-9]*\. REVISION HISTORY' "$dir/docblock" | cut -d: -f1)
if [ -n "$history" ]; then
    head -n "$((history - 1))" "$dir/docblock" > "$dir/doc"
else
    bad "no '   N. REVISION HISTORY' heading in the doc block"
    cp "$dir/docblock" "$dir/doc"
fi
# CMake's options and cache variables (README.md's -DECS_... names)
sed -En 's/^[[:space:]]*option\((ECS_[A-Za-z0-9_]*).*/\1/p; s/^[[:space:]]*set\((ECS_[A-Za-z0-9_]*)[^)]*CACHE.*/\1/p;
         s/^[[:space:]]*find_path\((ECS_[A-Za-z0-9_]*).*/\1/p' \
    "$root/CMakeLists.txt" "$root/cmake/"*.cmake | sort -u > "$dir/cmake_options"
# Names the doc block gets wrong today, until ecs.h is fixed (issue 23): each
# is reported as known; one that is no longer wrong fails, to be removed here.
DOC_KNOWN=""

# exists NAME: ecs.h defines it (NAME* : a name with that prefix), or CMake has it
exists() {
    case $1 in
    *\*) grep -q "^${1%\*}" "$dir/defined" ;;
    *) grep -qx "$1" "$dir/defined" || grep -qx "$1" "$dir/cmake_options" ;;
    esac
}
# mentioned FILE WHAT: every name FILE mentions exists. A list that goes on
# with suffixes, "ecs_track_inserted, _modified" or "ecs_create, _bulk",
# names ecs_track_modified or ecs_create_bulk: the suffix after the last
# name, or after that name cut at one of its underscores, must exist.
mentioned() {
    # names, without CMake targets (ecs::ecs_static) and with a trailing * kept
    sed 's/ecs::[A-Za-z0-9_]*//g' "$1" | grep -Eo "$ID\*?" | sort -u > "$dir/$2.names"
    # suffixes: "LAST/_suffix" for each
    sed 's/ecs::[A-Za-z0-9_]*//g' "$1" | awk '
        {
            line = $0
            while (match(line, /(ecs|ECS)_[A-Za-z0-9_]*|(^|, |,|^ +)_[a-z][a-z0-9_]*\*?/)) {
                tok = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
                sub(/^[ ,]+/, "", tok)
                if (tok ~ /^_/) { if (last != "") print last "/" tok } else last = tok
            }
        }' | sort -u > "$dir/$2.suffixed"
    n_names=$(grep -c . "$dir/$2.names")
    n_suffixed=$(grep -c . "$dir/$2.suffixed")
    wrong=$(
        while read -r name; do exists "$name" || echo "$name"; done < "$dir/$2.names"
        while IFS=/ read -r last suffix; do
            found=
            stem=$last
            while :; do
                exists "$stem$suffix" && found=1 && break
                case $stem in *_*) stem=${stem%_*} ;; *) break ;; esac
            done
            [ -n "$found" ] || echo "$last/$suffix"
        done < "$dir/$2.suffixed")
    known=
    unknown=0
    for name in $wrong; do
        case " $DOC_KNOWN " in
        *" $name "*) known="$known $name" ;;
        *) bad "$2 mentions $name, which ecs.h does not define: $(grep -n -m 3 -F "${name#*/}" "$1" | cut -c 1-100 | tr '\n' ' ')"
           unknown=$((unknown + 1)) ;;
        esac
    done
    if [ "$2" = "the doc block" ]; then
        for name in $DOC_KNOWN; do
            case " $(echo $wrong) " in
            *" $name "*) ;;
            *) bad "$2: $name is right now: remove it from DOC_KNOWN in $0" ;;
            esac
        done
    fi
    [ "$unknown" -eq 0 ] &&
        ok "$2: the $n_names ecs_/ECS_ names and $n_suffixed suffixed ones it mentions exist in ecs.h (or CMake)${known:+, but for the known$known (DOC_KNOWN)}"
}
mentioned "$readme" README.md
mentioned "$dir/doc" "the doc block"

# ---- sections ------------------------------------------------------------------
# the headings: "N<TAB>TITLE" (up to two spaces or a parenthesis)
sed -En 's/^   ([0-9]+)\. ([A-Z][^(]*).*/\1	\2/p' "$dir/docblock" | sed -E 's/  .*//; s/[[:space:]]+$//' > "$dir/sections"
# the table of contents: "      N. Title"
toc_bad=$(sed -En 's/^      ([0-9]+)\. (.*)$/\1	\2/p' "$dir/docblock" | awk -F'\t' -v sections="$dir/sections" '
    BEGIN { while ((getline l < sections) > 0) { split(l, a, "\t"); t[a[1]] = toupper(a[2]) } }
    { seen[$1] = 1; if (!($1 in t) || toupper($2) != t[$1]) print "  TOC " $1 ". " $2 " vs heading: " t[$1] }
    END { for (n in t) if (!(n in seen)) print "  not in the TOC: " n ". " t[n] }')
if [ -z "$toc_bad" ] && [ -s "$dir/sections" ]; then
    ok "the doc block has $(wc -l < "$dir/sections") sections, each in the table of contents with its title"
else
    bad "the doc block's table of contents and headings differ:$toc_bad"
fi

# refs FILE: "N<TAB>TITLE-or-empty" of each "section N" in FILE (lines joined)
refs() {
    tr '\n' ' ' < "$1" | tr -s ' ' | grep -Eo '[Ss]ections? [0-9]+( \([^)]*\)| and [0-9]+)?' |
        sed -E 's/^[Ss]ections? ([0-9]+) \((.*)\)$/\1	\2/; s/^[Ss]ections? ([0-9]+)$/\1	/; s/^[Ss]ections ([0-9]+) and ([0-9]+)$/\1	\n\2	/'
}
# check_refs FILE WHAT NEED_TITLE
check_refs() {
    refs "$1" > "$dir/$2.refs"
    problems=$(awk -F'\t' -v sections="$dir/sections" -v need="$3" '
        BEGIN { while ((getline l < sections) > 0) { split(l, a, "\t"); t[a[1]] = a[2] } }
        {
            title = $2; sub(/^"/, "", title); sub(/"$/, "", title)
            if (!($1 in t)) print "  section " $1 " does not exist"
            else if (title != "" && toupper(title) != toupper(t[$1]) && toupper(substr(t[$1], 1, length(title))) != toupper(title))
                print "  section " $1 " (" $2 ") is " t[$1]
            else if (title == "" && need) print "  section " $1 " gives no title: write section " $1 " (" t[$1] ")"
        }' "$dir/$2.refs")
    if [ -z "$problems" ]; then
        ok "$2: its $(grep -c . "$dir/$2.refs") \"section N\" references name existing sections$([ "$3" = 1 ] && echo ', with their titles')"
    else
        bad "$2: section references:
$problems"
    fi
}
check_refs "$readme" README.md 1
check_refs "$dir/doc" "the doc block" 0

# ---- FILE, "Title" references ----------------------------------------------------
tr '\n' ' ' < "$readme" | tr -s ' ' | grep -Eo '(`?[A-Za-z0-9_./-]+\.(md|h|c)`?, "[^"]+"|the section "[^"]+" in `[^`]+`)' |
    sed -E 's/^the section "([^"]+)" in `([^`]+)`$/\2	\1/; s/^`?([^`,]+)`?, "([^"]+)"$/\1	\2/' > "$dir/titled"
problems=$(while IFS='	' read -r file title; do
    path=$root/$file
    [ -f "$path" ] || path=$(find "$root" -path "$root/build" -prune -o -name "$(basename "$file")" -print | head -n 1)
    if [ -z "$path" ] || [ ! -f "$path" ]; then
        echo "  $file: no such file (\"$title\")"
    elif case $file in *.md) ! grep -Eq "^#+ $title" "$path" ;; *) ! grep -qF "$title" "$path" ;; esac; then
        echo "  $file has no \"$title\""
    fi
done < "$dir/titled")
if [ -z "$problems" ]; then
    ok "README.md: its $(grep -c . "$dir/titled") references to a titled part of a file name one that exists"
else
    bad "README.md: references to titled parts of files:
$problems"
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
