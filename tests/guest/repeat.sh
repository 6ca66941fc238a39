#!/bin/bash
# tests/guest/repeat.sh N T1[,T2...] - boot the test guest N times in a row, each
# running only the named guest tests; stop at the first failure.  How the
# memory-pressure tests were shown deterministic (20 runs in a row).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=$1
tests=$2
for i in $(seq 1 "$runs"); do
	start=$(date +%s)
	res=$("$top/tests/guest/run.sh" --only "$tests")
	if echo "$res" | grep -q '^not ok' ||
	    ! echo "$res" | grep -q '^# guest: [0-9]* tests, 0 failed'; then
		echo "run $i: FAILED after $(($(date +%s) - start)) s"
		echo "$res"
		exit 1
	fi
	echo "run $i: ok ($(($(date +%s) - start)) s): $(echo "$res" |
	    grep -c '^ok') ok"
done
echo "$runs runs in a row passed"
