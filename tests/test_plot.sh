#!/bin/sh
# test_plot.sh - the benchmark's CSV and its picture (make bench-plot).
#
#   tests/test_plot.sh BENCH DIR
#
# Runs BENCH (a build of bench/bench.c) --quick twice, at N = 1000 and
# 3000, with --csv, draws the two files together with bench/plot.gp into
# DIR/quick.svg, and checks that every line of the CSV has the 11 columns
# of its header and that the picture has a line, named in its panel's key,
# for every workload of the table the benchmark printed (named as is, or
# "name (x baseline)" where that baseline is not raw), and a dashed
# "baseline = 1" in each panel, fewer panels than workloads (one per
# family). Prints "ok"/"FAIL" per check and
# "RESULT <passed> <failed>".
set -u
[ $# -eq 2 ] || { echo "usage: $0 BENCH DIR" >&2; exit 2; }
bench=$1
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
rm -rf "$2" && mkdir -p "$2" && dir=$(cd "$2" && pwd) || exit 2

if "$bench" --quick --n 1000 --csv "$dir/a.csv" > "$dir/a.txt" 2>&1 &&
   "$bench" --quick --n 3000 --csv "$dir/b.csv" > "$dir/b.txt" 2>&1; then
    ok "bench --quick --csv, at N = 1000 and 3000"
else
    bad "bench --quick --csv:"
    tail -n 20 "$dir/a.txt" "$dir/b.txt" | sed 's/^/       /'
fi
{ cat "$dir/a.csv"; tail -n +2 "$dir/b.csv"; } > "$dir/quick.csv"

# the workloads of the printed table: the lines with "N" = 1000 in columns 36-43
names=$(grep -v '^memory ' "$dir/a.txt" | sed -n 's/^\(.\{34\}\)     1000 .*/\1/p' | sed 's/ *$//')
rows=$(printf '%s\n' "$names" | grep -c .)
# a quoted name may hold commas: the columns are counted with it taken out
bad_lines=$(sed 's/"[^"]*"/x/g' "$dir/quick.csv" | awk -F, 'NF != 11' | wc -l)
csv_rows=$(tail -n +2 "$dir/quick.csv" | wc -l)
if [ "$rows" -gt 0 ] && [ "$bad_lines" -eq 0 ] && [ "$csv_rows" -eq $((2 * rows)) ]; then
    ok "the CSV: a line of 11 columns per row and N ($csv_rows lines, $rows workloads)"
else
    bad "the CSV: $csv_rows lines (expected 2 x $rows workloads), $bad_lines without 11 columns"
fi

if gnuplot -e "csv='$dir/quick.csv'; svg='$dir/quick.svg'" "$root/bench/plot.gp" > "$dir/plot.log" 2>&1; then
    missing=$(printf '%s\n' "$names" | while IFS= read -r name; do
        grep -qF ">$name<" "$dir/quick.svg" || grep -qF ">$name (x " "$dir/quick.svg" || echo "'$name'"
    done)
    if [ -z "$missing" ]; then
        ok "bench/plot.gp drew a line for each of the $rows workloads"
    else
        bad "bench/plot.gp: no line named $(echo $missing)"
    fi
    # gnuplot's SVG writes each key's text twice
    panels=$(($(grep -c '>baseline = 1<' "$dir/quick.svg") / 2))
    if [ "$panels" -gt 1 ] && [ "$panels" -lt "$rows" ]; then
        ok "bench/plot.gp drew $panels panels (workload families), each with the line at 1"
    else
        bad "bench/plot.gp: $panels panels with a 'baseline = 1' line for $rows workloads"
    fi
else
    bad "gnuplot bench/plot.gp:"
    sed 's/^/       /' "$dir/plot.log"
fi
echo "RESULT $pass $fail"
[ "$fail" -eq 0 ]
