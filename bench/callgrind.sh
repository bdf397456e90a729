#!/bin/sh
# Instructions per entity of every bench row and its raw baseline, counted
# by callgrind (no timing noise: the same binary and input give the same
# count on a loaded machine). Usage: bench/callgrind.sh BENCH_BINARY [N] [ONLY]
# The binary must be built with -DBENCH_CALLGRIND (make bench-callgrind does).
# Each measurement is one warm-up run plus one timed run; the count of a
# row is divided by both runs and by N.
set -eu
bin=$1; n=${2:-100000}; only=${3:-}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
if [ -n "$only" ]; then set -- --only "$only"; else set --; fi
valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$dir/cg" \
    "$bin" --n "$n" --reps 1 "$@" > "$dir/table.txt" 2> "$dir/valgrind.txt" ||
    { cat "$dir/valgrind.txt" >&2; exit 1; }
printf '%-36s %12s\n' "measurement (callgrind, N=$n)" "instr/entity"
for f in "$dir"/cg.*; do
    [ -f "$f" ] || continue
    desc=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
    [ -n "$desc" ] || continue
    total=$(sed -n 's/^summary: //p;s/^totals: //p' "$f" | head -n 1)
    name=${desc%%|*}; runs=$(echo "$desc" | sed 's/.*|runs=\([0-9]*\)|.*/\1/')
    num=$(echo "$desc" | sed 's/.*|n=\([0-9]*\)$/\1/')
    printf '%s\t%s\n' "${f##*.}" "$(awk -v t="$total" -v r="$runs" -v k="$num" -v m="$name" \
        'BEGIN { printf "%-36s %12.1f", m, t / r / k }')"
done | sort -n | cut -f2-
