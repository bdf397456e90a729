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
for f in "$dir"/cg.*; do
    [ -f "$f" ] || continue
    desc=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
    [ -n "$desc" ] || continue
    total=$(sed -n 's/^summary: //p;s/^totals: //p' "$f" | head -n 1)
    name=${desc%%|*}; runs=$(echo "$desc" | sed 's/.*|runs=\([0-9]*\)|.*/\1/')
    num=$(echo "$desc" | sed 's/.*|n=\([0-9]*\)$/\1/')
    printf '%s\t%s\t%s\n' "${f##*.}" "$name" "$(awk -v t="$total" -v r="$runs" -v k="$num" \
        'BEGIN { printf "%.1f", t / r / k }')"
done | sort -n | cut -f2- > "$dir/rows"
# The instruction targets of issue 12 (and the hierarchy's of issue 25 and
# the movement frame's of issue 22, whose time targets they mirror): "<= X"
# per entity, or "<= Fx ROW"
# (F times another row's count), or "< ROW". Checked only when both rows
# were measured; they never change the exit status.
cat > "$dir/targets" <<'EOT'
create + 2x ECS_ADD	<= 250
add+remove Data	<= 225
destroy, creation order	<= 160
get Position, shuffled	<= 15
get Position, shuffled, handle	<= 15
iterate 2 mixed, per entity	<= 10
iterate 2 mixed, blocks	<= 10
create_n, one by one	< 1x create + 2x ECS_ADD
create_bulk, all at once	< 1x create + 2x ECS_ADD
iterate 1, per entity	<= 1.3x raw iter1
iterate 2, per entity	<= 1.3x raw iter2
iterate 3, per entity	<= 1.3x raw iter3
iterate 1, blocks	<= 1.05x raw iter1
iterate 2, blocks	<= 1.05x raw iter2
iterate 3, blocks	<= 1.05x raw iter3
iterate 2, group blocks	<= 1.05x raw iter2
iterate 3, group blocks	<= 1.05x raw iter3
hierarchy transforms, 4-ary	<= 3x raw tree
hierarchy 1% moved, leaves	<= 0.1x hierarchy transforms, 4-ary
hierarchy reparent 100+, pass	<= 2x hierarchy transforms, 4-ary
hierarchy spawn under a parent	<= 2x ecs placed
movement frame, 1 core	<= 1.5x raw frame
EOT
printf '%-36s %12s   %s\n' "measurement (callgrind, N=$n)" "instr/entity" "target"
awk -F'\t' '
    NR == FNR { count[$1] = $2; order[++n] = $1; next }
    { target[$1] = $2 }
    END {
        for (i = 1; i <= n; i++) {
            m = order[i]; t = target[m]; verdict = ""
            if (t != "") {
                split(t, w, " "); op = w[1]; lim = w[2]
                if (lim ~ /x$/) {
                    ref = substr(t, index(t, lim) + length(lim) + 1)
                    if (ref in count) { lim = substr(lim, 1, length(lim) - 1) * count[ref] }
                    else { lim = ""; verdict = "(" ref " not measured)" }
                }
                if (lim != "") {
                    ok = op == "<" ? count[m] < lim : count[m] <= lim
                    verdict = sprintf("%s %.1f: %s", op, lim, ok ? "ok" : "MISS")
                }
            }
            printf "%-36s %12.1f   %s\n", m, count[m], verdict
        }
    }' "$dir/rows" "$dir/targets"
