#!/bin/sh
# Runs each argument as a shell command (a test binary, possibly behind
# valgrind or an emulator), adds up the "RESULT <passed> <failed>" lines the
# binaries print, and ends with "N passed, N failed". A command that exits
# non-zero without reporting a failure counts as one failed test; one that
# prints no RESULT line and exits 0 counts as one passed check.
#
# Leading options `--skipped TEXT` name checks that were not run because a
# tool is missing (the Makefile passes one per missing tool); each is
# printed as "skipped: TEXT" just above the summary, and counts neither way.
pass=0; fail=0; skipped=""
while [ "$1" = "--skipped" ] && [ $# -ge 2 ]; do
    skipped="${skipped}skipped: $2
"
    shift 2
done
log=${TMPDIR:-/tmp}/ecs-test.$$
for cmd in "$@"; do
    sh -c "$cmd" >"$log" 2>&1
    rc=$?
    res=$(grep '^RESULT ' "$log" | tail -n 1)
    if [ -n "$res" ]; then
        p=$(echo "$res" | cut -d' ' -f2); f=$(echo "$res" | cut -d' ' -f3)
    elif [ $rc -eq 0 ]; then p=1; f=0
    else p=0; f=1
    fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" -ne 0 ]; then
        echo "FAIL  $cmd  ($p passed, $f failed, exit $rc)"
        grep -v '^ok ' "$log" | tail -n 30 | sed 's/^/      /'
    else
        echo "ok    $cmd  ($p passed)"
    fi
done
rm -f "$log"
printf '%s' "$skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
