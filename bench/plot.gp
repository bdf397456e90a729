# bench/plot.gp - the CSV of bench/bench.c (--csv) as one SVG: where ecs.h
# stands against plain C arrays. One panel per family of workloads (create
# and destroy, random access, the loops over storages in step, tracked
# loops, filtered loops, the hierarchy, the movement frame, snapshots), one
# line per workload: its time (the minimum of the runs) divided by that of
# its raw baseline at the same N, on a linear axis, against N. The dashed
# line at 1 is the raw baseline; 2 means twice its time (bench/README.md).
# make bench-plot runs
#   gnuplot -e "csv='build/bench/results.csv'; svg='build/bench/results.svg'" bench/plot.gp
#
# A row whose baseline is another ecs.h row (the grouped rows against
# "ecs create", the parallel frame against "ecs 1 core") is carried to that
# row's raw baseline: bench.c measures such a baseline once, as the row, so
# at the same N its min is that row's ecs min (the same number in the CSV),
# and the ratio to raw is the product. A baseline that is no row of the file
# (e.g. "ecs placed") stays the row's baseline, and the key says so:
# "name (x ecs placed)". Rows of a family the script does not know get a
# panel of their own.
#
# The CSV's workload names contain commas and are quoted, so awk splits the
# lines (the program below, written to a temporary file), and gnuplot reads
# its tab-separated output: family, workload, N, ratio, key title.
if (!exists("csv") || !exists("svg")) {
    print "usage: gnuplot -e \"csv='results.csv'; svg='results.svg'\" bench/plot.gp"
    exit status 2
}

$PREP << EOD
function split_csv(line, F,    n, f, q, i, c) {
    n = 0; f = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        if (c == "," && !q) { F[++n] = f; f = ""; continue }
        f = f c
    }
    F[++n] = f
    return n
}
function family(name) {
    if (name ~ /^(create|destroy)/) return "create and destroy"
    if (name ~ /^(get|add\+remove)/) return "get, add+remove"
    if (name ~ /^iterate [123],/) return "iterate 1, 2, 3 (storages in step)"
    if (name ~ /^iterate 2 tracked/) return "iterate 2, tracked (ECS_MODIFIED)"
    if (name ~ /^iterate 2 (mixed|NOT)/) return "iterate 2, filtered (mixed, NOT Frozen)"
    if (name ~ /^hierarchy/) return "hierarchy"
    if (name ~ /^movement/) return "movement frame"
    if (name ~ /^(save|load) snapshot/) return "snapshots"
    return name
}
function is_raw(base) { return base ~ /^(raw |memcpy)/ }
NR == 1 { next }
{
    if (split_csv($0, F) != 11) { print "bad line " NR ": " $0 > "/dev/stderr"; bad = 1; next }
    k = ++nrec
    name[k] = F[2]; n[k] = F[3]; emin[k] = F[4]; base[k] = F[6]; bmin[k] = F[7]
    at[F[3] SUBSEP F[4]] = k   # an ecs.h row by its N and min: a baseline's source
    if (!(F[2] in fam_of)) {
        f = family(F[2]); fam_of[F[2]] = f
        if (!(f in fam_no)) { fam_no[f] = ++nfam; fam_name[nfam] = f }
        wl_no[F[2]] = ++nwl[fam_no[f]]
    }
}
END {
    if (bad || nrec == 0) exit 1
    for (k = 1; k <= nrec; k++) {
        r = emin[k] / bmin[k]; b = base[k]; j = k; hops = 0
        while (!is_raw(b) && ((n[j] SUBSEP bmin[j]) in at) && at[n[j] SUBSEP bmin[j]] != j && hops++ < 8) {
            j = at[n[j] SUBSEP bmin[j]]
            r = r * emin[j] / bmin[j]; b = base[j]
        }
        title = is_raw(b) ? name[k] : name[k] " (x " b ")"
        if (!(name[k] in title_of) || !is_raw(b)) title_of[name[k]] = title
        printf "%d\t%d\t%s\t%.6g\n", fam_no[fam_of[name[k]]], wl_no[name[k]], n[k], r
    }
    # the families and their workloads, in order, as gnuplot words
    for (f = 1; f <= nfam; f++) printf "#family\t%d\t\"%s\"\t%d\n", f, fam_name[f], nwl[f]
    for (w in wl_no) printf "#workload\t%d\t%d\t\"%s\"\n", fam_no[fam_of[w]], wl_no[w], title_of[w]
}
EOD

prep = system("mktemp")
set print prep
print $PREP
unset print
data = system("mktemp")
ok = system(sprintf("awk -f '%s' '%s' > '%s'; echo $?", prep, csv, data)) + 0
if (ok != 0) {
    print sprintf("%s: no rows, or a line without the 11 columns of the header", csv)
    system(sprintf("rm -f '%s' '%s'", prep, data))
    exit status 1
}
# families: "name" words in order; workloads of family f, in order
nfam = system(sprintf("grep -c '^#family' '%s'", data)) + 0
fam_names = system(sprintf("awk -F'\t' '$1 == \"#family\" { print $3 }' '%s'", data))
fam_sizes = system(sprintf("awk -F'\t' '$1 == \"#family\" { print $4 }' '%s'", data))
titles(f) = system(sprintf("awk -F'\t' '$1 == \"#workload\" && $2 == %d { print $3 \"\t\" $4 }' '%s' | sort -n | cut -f 2", f, data))

cols  = 2
lines = int((nfam + cols - 1) / cols)
set terminal svg size 1400, 380 * lines + 70 dynamic font "sans,10" background "white"
set output svg
set multiplot layout lines, cols title \
    "ecs.h time / raw baseline time (the minima of the runs) against N; 1 = plain C arrays (bench/README.md)" \
    font "sans,13"
set datafile separator "\t"
set logscale x
set format x "%.0s%c"
set xtics (1000, 3000, 10000, 100000, 1000000, 2000000)
set grid xtics ytics lc "#dddddd"
set autoscale xfix
set offsets graph 0.04, graph 0.04, 0, 0
set yrange [0:*]
set xlabel "N" offset 0, 0.5
set ylabel "x raw" offset 1.5, 0
set key outside right top vertical Left reverse noenhanced samplen 2 spacing 1.1 font "sans,9"
set style data linespoints
array colours[10] = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
do for [f = 1:nfam] {
    t = titles(f)
    set title word(fam_names, f) noenhanced font "sans,11"
    plot for [w = 1:words(t)] sprintf("< awk -F'\t' '$1 == %d && $2 == %d' '%s'", f, w, data) using 3:4 \
             lw 2 pt (w % 7) + 1 ps 0.6 lc rgb colours[(w - 1) % 10 + 1] title word(t, w), \
         1 with lines dt 2 lw 1.5 lc rgb "black" title "baseline = 1"
}
unset multiplot
system(sprintf("rm -f '%s' '%s'", prep, data))
