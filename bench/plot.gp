# bench/plot.gp - the CSV of bench/bench.c (--csv) as one SVG: a panel per
# workload, ns per entity (the minimum of the runs) against N, ecs.h next
# to the baseline of its row (bench/README.md). make bench-plot runs
#   gnuplot -e "csv='build/bench/results.csv'; svg='bench/results.svg'" bench/plot.gp
#
# The CSV's workload names contain commas and are quoted; gnuplot counts a
# quoted field as one column but does not read it as a string, so each
# panel reads the lines of its row number (column 1, through awk) and is
# titled from a list that sed and awk cut out of the file in row order.
if (!exists("csv") || !exists("svg")) {
    print "usage: gnuplot -e \"csv='results.csv'; svg='results.svg'\" bench/plot.gp"
    exit status 2
}
set datafile separator comma
# first appearance of each row: its number, its name, its baseline's name
rows  = system(sprintf("awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' '%s'", csv))
names = system(sprintf("sed -n 's/^[0-9]*,\\(\"[^\"]*\"\\),.*/\\1/p' '%s' | awk '!seen[$0]++'", csv))
bases = system(sprintf("sed -n 's/^\\([0-9]*\\),\"[^\"]*\",[^,]*,[^,]*,[^,]*,\\(\"[^\"]*\"\\),.*/\\1 \\2/p' '%s' | awk '!seen[$1]++ { $1 = \"\"; print }'", csv))
n = words(rows)
if (n == 0 || words(names) != n || words(bases) != n) {
    print sprintf("%s: no rows, or rows without a name or baseline", csv)
    exit status 1
}

cols  = 5
lines = int((n + cols - 1) / cols)
set terminal svg size 1500, 270 * lines + 60 dynamic font "sans,10" background "white"
set output svg
set multiplot layout lines, cols title \
    "ns per entity (the minimum of the runs) against N: ecs.h in red, the row's baseline in blue (bench/README.md)" \
    font "sans,13"
set logscale x
set logscale y
set format x "%.0s%c"
set grid xtics ytics lc "#dddddd"
set autoscale xfix
set offsets graph 0.08, graph 0.08, graph 0.1, graph 0.1
set xlabel "N" offset 0, 0.5
set ylabel "ns / entity" offset 1.5, 0
unset key
set style line 1 lc "#d62728" lw 2 pt 7 ps 0.6
set style line 2 lc "#1f77b4" lw 2 pt 5 ps 0.6
do for [i = 1:n] {
    r = word(rows, i) + 0
    lines_of_r = sprintf("< awk -F, 'NR > 1 && $1 == %d' '%s'", r, csv)
    set title sprintf("%s\nagainst %s", word(names, i), word(bases, i)) noenhanced
    plot lines_of_r using 3:4 with linespoints ls 1, '' using 3:7 with linespoints ls 2
}
unset multiplot
