#!/bin/bash
# tests/guest/run.sh [--stock | --kernel IMAGE] [--only T1,T2...] - the
# guest tier, as TAP.
#
# Boot 1: the guest test runner (tests/guest/in-guest.sh) as a
# service of pidvisor-as-init; its TAP comes back over the second serial
# port; it ends with `pidvisorctl poweroff`.  Boot 2: Ctrl-Alt-Del, that
# is SIGINT to init.  Boot 3: init, re-executed, crashes (SIGSEGV) and
# freezes.  Here we add what only the host can see: that QEMU
# exited, and in time, and what the console said about the shutdown.
# --stock boots the same initramfs on the kernel without our series,
# --kernel on another (tests/guest/kernel-matrix.sh).
# --only runs the named guest tests in one boot, and nothing else (to
# run one test many times: see tests/guest/repeat.sh).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/qemu/qemu.sh"
out=$top/build/qemu
kernel=$top/build/kernel/bzImage
only=
while [ $# -gt 0 ]; do
	case $1 in
	--stock) kernel=$top/build/kernel/bzImage-stock ;;
	--kernel) kernel=$2; shift ;;
	--only) only=$2; shift ;;
	*) echo "usage: tests/guest/run.sh [--stock | --kernel IMAGE]" \
	    "[--only T1,T2...]" >&2; exit 2 ;;
	esac
	shift
done
initrd=$out/initramfs-test.cpio.gz
n=0

check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - qemu: $name"
	else
		echo "not ok $n - qemu: $name"
	fi
}

# boot NAME APPEND DEADLINE: one boot; QEMU's exit code in $rc.
boot() {
	local name=$1 append=$2 deadline=$3 start
	rm -f "$out/console-$name.log" "$out/results-$name.tap"
	start=$(date +%s%N)
	timeout -k 5 "$deadline" bash -c ". '$top/qemu/qemu.sh'; qemu_run \
	    '$kernel' '$initrd' '$append' \
	    -serial file:'$out/console-$name.log' \
	    -serial file:'$out/results-$name.tap'" </dev/null
	rc=$?
	echo "# boot $name: QEMU exit $rc after $((($(date +%s%N) - start) / 1000000)) ms"
}

# in_order FILE A B: line matching A comes before a line matching B.
in_order() {
	local a b
	a=$(grep -n -m1 -e "$2" "$1" | cut -d: -f1)
	b=$(grep -n -m1 -e "$3" "$1" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}

if [ -n "$only" ]; then
	# A hang guard: the whole of the selftests take 3 minutes here,
	# more on a broken kernel whose memory waits run to their end.
	boot only "pidvisor.only=$only" 600
	console=$out/console-only.log
	cat "$out/results-only.tap"
	[ "$rc" = 0 ] || echo "not ok - qemu: QEMU exit $rc"
	grep -qE 'Kernel panic|runtime error|Sanitizer' "$console" &&
	    echo "not ok - qemu: panic or sanitizer report"
	grep -q '^# guest: [0-9]* tests' "$out/results-only.tap" ||
	    echo "not ok - qemu: the guest runner did not finish"
	exit 0
fi

# A hang guard, not a timing: 170 s on a quiet machine, over 240 s with
# a kernel build beside it on the same 2 CPUs.
boot tests "" 420
console=$out/console-tests.log
# The guest's results, renumbered into ours.
while IFS= read -r line; do
	case $line in
	"ok "*|"not ok "*)
		n=$((n + 1))
		echo "$line" | sed -E "s/^(not ok|ok) [0-9]+/\1 $n/"
		;;
	*) echo "$line" ;;
	esac
done <"$out/results-tests.tap"
check "the guest test runner finished" \
    grep -q '^# guest: [0-9]* tests' "$out/results-tests.tap"
check "pidvisorctl poweroff ends QEMU with status 0" \
    [ "$rc" = 0 -a -n "$(grep 'pidvisor: powering off' "$console")" ]
check "shutdown stops web before db (reverse dependency order)" \
    in_order "$console" "pidvisor: web: stopped" "pidvisor: db: stopped"
check "shutdown kills stubborn (ignores SIGTERM) after stop_timeout" \
    grep -q "pidvisor: stubborn: stopped (stopped; killed after stop_timeout)" \
    "$console"
check "all services stopped before power off" \
    in_order "$console" "all services stopped" "powering off"
check "the killer logs its first victim, its priority and the reap path" \
    grep -qE "pressure: killed mem-high-big \(kill_priority 50, [0-9.]+ MiB, 1 process\) at (medium|critical) pressure: (some|full) stall at [0-9]+ ms a [0-9]+ ms window; some avg10=[0-9.]+ full avg10=[0-9.]+; MemAvailable [0-9.]+ MiB, SwapFree [0-9.]+ MiB; reclaim by reap" \
    "$console"
check "... and its death and its memory coming back" \
    grep -qE "pressure: mem-high-big: dead after [0-9.]+ ms, memory back after [0-9.]+ ms" \
    "$console"
check "no kernel panic, no sanitizer report" \
    bash -c "! grep -qE 'Kernel panic|runtime error|Sanitizer' '$console'"

boot cad "pidvisor.test=cad" 120
console=$out/console-cad.log
check "Ctrl-Alt-Del (SIGINT to init) stops everything and reboots" \
    [ "$rc" = 0 -a -n "$(grep 'pidvisor: rebooting' "$console")" \
    -a -n "$(grep 'all services stopped' "$console")" ]
boot dstate "pidvisor.test=dstate" 120
console=$out/console-dstate.log
# From the guest's mark to the kernel's power-off line, by its clock.
dstate_s=$(awk '/guest: poweroff, dstate held/ { t = $2 + 0 }
    /reboot: Power down/ { if (t) printf "%d", $2 - t }' FS='[][]' \
    "$console")
echo "# boot dstate: power-off $dstate_s s after poweroff (shutdown_timeout 3 s)"
check "poweroff ends with a service in D state (shutdown_timeout 3 s)" \
    [ "$rc" = 0 -a -n "$(grep '^ok 1 - guest dstate' \
    "$out/results-dstate.tap")" -a -n "$(grep \
    'shutdown_timeout (3.0s) passed' "$console")" \
    -a -n "$dstate_s" -a "${dstate_s:-99}" -lt 30 ]
boot crash "pidvisor.test=crash" 120
console=$out/console-crash.log
check "PID 1 that crashes (after a re-exec) freezes: services up, orphans reaped, no panic" \
    [ "$rc" = 0 -a -n "$(grep '^ok 1 - guest crash' \
    "$out/results-crash.tap")" -a -n "$(grep 'PID 1 crashed: signal 11' \
    "$console")" -a -z "$(grep 'Kernel panic' "$console")" ]
[ -z "$(grep '^not ok' "$out/results-tests.tap")" ]
