#!/bin/sh
# Runs each argument as a shell command (a test binary, possibly behind
# valgrind or an emulator), adds up the "RESULT <passed> <failed>" lines the
# binaries print, and ends with "N passed, N failed". A command that exits
# non-zero without reporting a failure counts as one failed test; one that
# prints no RESULT line and exits 0 counts as one passed check.
#
# The commands run in parallel, TEST_JOBS at a time (default: the number of
# CPUs), each with its output in its own file; their reports are printed in
# the order of the arguments, as each one's turn comes, with the seconds it
# took. Options, before the commands:
#   --skipped TEXT   a check that was not run because a tool is missing (the
#                    Makefile passes one per missing tool); printed as
#                    "skipped: TEXT" just above the summary, counts neither way
#   --times FILE     the seconds each command took, written there; the next
#                    run starts the longest ones first, so that the last to
#                    finish is a short one
#   --since SECONDS  when make started (date +%s): the total time and the
#                    slowest commands are printed above the summary
pass=0; fail=0; skipped=""; times=""; since=""
while [ $# -ge 2 ]; do
    case $1 in
    --skipped) skipped="${skipped}skipped: $2
";;
    --times) times=$2;;
    --since) since=$2;;
    *) break;;
    esac
    shift 2
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/ecs-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
n=0
for cmd in "$@"; do
    n=$((n + 1))
    printf '%s\n' "$cmd" >>"$dir/cmds"
done
[ $n -gt 0 ] || : >"$dir/cmds"

# The order to start them in: by the time each took last time, longest
# first (a command not seen before counts as the longest).
if [ -n "$times" ] && [ -f "$times" ]; then
    awk -F '\t' 'NR == FNR { t[$2] = $1; next }
                 { print (($0 in t) ? t[$0] : 1e9), FNR }' "$times" "$dir/cmds" |
        sort -k1,1gr -k2,2n | cut -d' ' -f2 >"$dir/order"
else
    seq 1 $n >"$dir/order"
fi

# one command: its output in $dir/<i>.log, then "<exit status> <ms> <CPU ms>"
# in $dir/<i>.done (the CPU time of the command and its children: the
# second line of the shell's `times`, e.g. "0m1.5s 0m0.2s")
one='i=$1
cmd=$(sed -n "${i}p" "$dir/cmds")
t0=$(date +%s%N)
sh -c "$cmd" >"$dir/$i.log" 2>&1 </dev/null
rc=$?
t1=$(date +%s%N)
times >"$dir/$i.times" # (not in a pipe: a subshell has no children)
cpu=$(tail -n 1 "$dir/$i.times" | awk "{ split(\$1, u, \"m\"); split(\$2, s, \"m\");
      printf \"%d\", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }")
echo "$rc $(( (t1 - t0) / 1000000 )) ${cpu:-0}" >"$dir/$i.tmp" && mv "$dir/$i.tmp" "$dir/$i.done"'
export dir
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
xargs -P "$jobs" -n 1 sh -c "$one" sh <"$dir/order" &
runner=$!

i=0
for cmd in "$@"; do
    i=$((i + 1))
    while [ ! -f "$dir/$i.done" ]; do
        kill -0 $runner 2>/dev/null || [ -f "$dir/$i.done" ] || { echo "run.sh: $cmd did not run"; break; }
        sleep 0.1
    done
    read -r rc ms cpu <"$dir/$i.done" 2>/dev/null || { rc=1; ms=0; cpu=0; }
    printf '%s\t%s\n' "$ms" "$cmd" >>"$dir/times"
    printf '%s\t%s\n' "$cpu" "$cmd" >>"$dir/cpu"
    sec=$(awk "BEGIN { printf \"%.1f\", $ms / 1000 }")
    log="$dir/$i.log"
    res=$(grep '^RESULT ' "$log" 2>/dev/null | tail -n 1)
    if [ -n "$res" ]; then
        p=$(echo "$res" | cut -d' ' -f2); f=$(echo "$res" | cut -d' ' -f3)
    elif [ "$rc" -eq 0 ]; then p=1; f=0
    else p=0; f=1
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" -ne 0 ]; then
        echo "FAIL  $cmd  ($p passed, $f failed, exit $rc, $sec s)"
        grep -v '^ok ' "$log" | tail -n 30 | sed 's/^/      /'
    else
        echo "ok    $cmd  ($p passed, $sec s)"
    fi
done
wait $runner

[ -z "$times" ] || cp "$dir/times" "$times"
if [ -n "$since" ] && [ $n -gt 0 ]; then
    echo "slowest:"
    sort -k1,1nr "$dir/times" | head -n 5 |
        awk -F '\t' '{ printf "  %6.1f s  %s\n", $1 / 1000, $2 }'
    runs=$(awk -F '\t' '{ s += $1 } END { printf "%.0f", s / 1000 }' "$dir/times")
    cpu=$(awk -F '\t' '{ s += $1 } END { printf "%.0f", s / 1000 }' "$dir/cpu")
    echo "took $(( $(date +%s) - since )) s, build and run (the runs: $runs s one after another, $cpu s of CPU; $jobs at a time)"
fi
printf '%s' "$skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
