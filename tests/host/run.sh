#!/bin/bash
# tests/host/run.sh [--attack] [TEST...] - run the host integration tests
# as TAP: every t_* but the attacks of test_security.sh, or (--attack)
# those alone, or the named ones.
#
# Each t_* function of tests/host/test_*.sh runs in a shell of its own
# under a 120 s deadline; its output is shown only when it fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "not ok 1 - host tests need root"; exit 1; }

attack=0
[ "${1:-}" = --attack ] && { attack=1; shift; }
tests=("$@")
if [ ${#tests[@]} -eq 0 ] && [ $attack = 1 ]; then
	mapfile -t tests < <(grep -ho '^t_sec_[a-z0-9_]*' "$here"/test_*.sh)
elif [ ${#tests[@]} -eq 0 ]; then
	mapfile -t tests < <(grep -ho '^t_[a-z0-9_]*' "$here"/test_*.sh |
	    grep -v '^t_sec_')
fi

# A line of a service's file has at most 199 bytes: the tests name the
# helper by a short path, wherever the checkout is.
short=$(mktemp -d /tmp/pvh.XXXXXX)
trap 'rm -rf "$short"' EXIT
chmod 0755 "$short"
ln -s "$(cd "$here/../.." && pwd)/build/test/svc-helper" "$short/svc-helper"
export PV_HELPER=$short/svc-helper

echo "1..${#tests[@]}"
n=0
failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	log=$(mktemp)
	start=$(date +%s%N)
	# A process group of its own: whatever a test that timed out (and
	# so ran no clean-up) left, its unshare first, is killed after it.
	timeout -k 5 120 setsid -w bash -c "
		echo \$\$ >'$log.pgid'
		source '$here/lib.sh'
		for f in '$here'/test_*.sh; do source \"\$f\"; done
		set -o pipefail
		$t
	" >"$log" 2>&1
	rc=$?
	[ -s "$log.pgid" ] && kill -KILL -- "-$(cat "$log.pgid")" 2>/dev/null
	rm -f "$log.pgid"
	ms=$((($(date +%s%N) - start) / 1000000))
	if [ $rc -eq 0 ]; then
		echo "ok $n - $t (${ms} ms)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $t (exit $rc, ${ms} ms)"
		sed 's/^/# /' "$log"
	fi
	rm -f "$log"
done
[ $failed -eq 0 ]
