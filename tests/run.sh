#!/bin/bash
# tests/run.sh [TIER...] - run test tiers (default: all that exist) and
# end with the line "N passed, N failed".  Every tier speaks TAP; a tier
# that crashes or exits non-zero without a "not ok" line counts as one
# failure, so nothing fails silently.
set -u
cd "$(dirname "$0")/.."

tiers=("$@")
[ ${#tiers[@]} -eq 0 ] && tiers=(unit fuzz host attack container guest kernel debian bench)

results=$(mktemp)
trap 'rm -f "$results"' EXIT

# run NAME CMD...: one TAP producer.
run() {
	local name=$1 rc before
	shift
	before=$(grep -c '^not ok' "$results")
	"$@" 2>&1 | tee -a "$results"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && [ "$(grep -c '^not ok' "$results")" = "$before" ]; then
		echo "not ok - $name exited $rc" | tee -a "$results"
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
	fuzz)
		# The seeds and every crash fuzzing ever saved, each target.
		for t in build/asan/replay_*; do
			name=${t##*/replay_}
			if res=$("$t" tests/fuzz/seeds/"$name"/* \
			    $(find tests/fuzz/corpus/"$name" -type f ! -name .keep) \
			    2>&1); then
				echo "ok - fuzz replay $name: $res" | tee -a "$results"
			else
				echo "not ok - fuzz replay $name" | tee -a "$results"
				echo "$res" | sed 's/^/# /' | tail -30
			fi
		done
		;;
	host)
		run host tests/host/run.sh
		;;
	attack)
		# What a local user, or a service's own, tries against the
		# sanitized daemon (SECURITY.md).
		run attack tests/host/run.sh --attack
		;;
	container)
		# pidvisor as PID 1 of runc containers (tests/container/).
		run container tests/container/run.sh
		;;
	guest)
		run guest tests/guest/run.sh
		;;
	kernel)
		# The series' selftests on patched, stock and broken kernels.
		run kernel tests/guest/kernel-matrix.sh
		;;
	debian)
		# A stock Debian 12 booted by pidvisor (qemu/debian/).
		run debian tests/guest/debian.sh
		;;
	bench)
		# A seconds-long run of make bench, to keep it working; the
		# figures mean nothing at these counts.
		# Every figure must come out, for the limit and for pidvisor.
		if out=$(PEERS=runit bench/run.sh --smoke 2>&1) &&
		    n=$(jq -s '[.[] | select(.who == "pidvisor" and
		        (.value > 0 or (.figure | startswith("idle"))))] |
		        length' build/bench.json) && [ "$n" -ge 9 ] &&
		    [ "$(jq -s '[.[] | select(.who == "limit")] | length' \
		        build/bench.json)" -ge 4 ] &&
		    [ "$(jq -s '[.[] | select(.figure | startswith("reclaim"))] |
		        length' build/bench.json)" -ge 3 ] &&
		    [ "$(jq -s '[.[] | select(.figure == "head-to-head" and
		        .rtt_p99_ms > 0)] | length' build/bench.json)" -ge 1 ] &&
		    [ "$(jq -s '[.[] | select(.figure ==
		        "restart under load, median" and .rps > 0)] | length' \
		        build/bench-sockets.json)" -ge 2 ]; then
			echo "ok - bench smoke: $n pidvisor figures" |
			    tee -a "$results"
		else
			echo "not ok - bench smoke" | tee -a "$results"
			echo "$out" | sed 's/^/# /' | tail -30
		fi
		;;
	*)
		echo "not ok - unknown tier $tier" | tee -a "$results"
		;;
	esac
done

pass=$(grep -c '^ok' "$results")
fail=$(grep -c '^not ok' "$results")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
