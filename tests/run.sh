#!/bin/bash
# tests/run.sh [TIER...] - run test tiers (default: all that exist) and
# end with the line "N passed, N failed".  Every tier speaks TAP; a tier
# that crashes or exits non-zero without a "not ok" line counts as one
# failure, so nothing fails silently.
set -u
cd "$(dirname "$0")/.."

tiers=("$@")
[ ${#tiers[@]} -eq 0 ] && tiers=(unit host guest)

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NAME CMD...: one TAP producer.
run() {
	local name=$1 rc before
	shift
	before=$(grep -c '^not ok' "$out")
	"$@" 2>&1 | tee -a "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && [ "$(grep -c '^not ok' "$out")" = "$before" ]; then
		echo "not ok - $name exited $rc" | tee -a "$out"
	fi
}

for tier in "${tiers[@]}"; do
	echo "# tier: $tier"
	case $tier in
	unit)
		for t in build/asan/test_*; do
			CMOCKA_MESSAGE_OUTPUT=TAP run "$t" "$t"
		done
		;;
	host)
		run host tests/host/run.sh
		;;
	guest)
		run guest qemu/test.sh
		;;
	*)
		echo "not ok - unknown tier $tier" | tee -a "$out"
		;;
	esac
done

pass=$(grep -c '^ok' "$out")
fail=$(grep -c '^not ok' "$out")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
