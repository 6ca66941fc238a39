#!/bin/bash
# tests/storm.sh [--check-time] MODE N SECONDS - a crash storm.
#
# N services that crash at once (MODE crash: exit 1; MODE orphans: fork
# a grandchild that outlives them, then exit 1), restart_delay 0 and no
# start limit, for SECONDS.  pidvisor (PV=, default the optimized build)
# runs as PID 1 of a fresh PID and mount namespace.  Measured and printed
# as "key=value": restarts per second, pidvisor's RSS and open fds at the
# start and the end of the storm, `status` latency (every 10 ms, all
# services) median/p99/max, and the zombies and processes left once the
# services are removed by a reload.
#
# Exit 0 when: the fds and the RSS at the end are within 1% of those at
# the start, no zombie is left and nothing but pidvisor is left; with
# --check-time also when the status p99 is under 10 ms (make storm: a
# measurement, not a timed test).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PV=${PV:-$top/build/bin/pidvisor}
CTL=${CTL:-$top/build/bin/pidvisorctl}
H=$top/build/test/svc-helper
HARNESS=$top/build/bench/harness

check_time=0
[ "${1:-}" = --check-time ] && { check_time=1; shift; }
mode=${1:?mode}; n=${2:?count}; secs=${3:?seconds}
case $mode in
crash)		run="$H exit=1" ;;
orphans)	run="$H orphans=1 exit=1" ;;
*)		echo "storm: unknown mode $mode" >&2; exit 2 ;;
esac

T=$(mktemp -d /tmp/pvstorm.XXXXXX)
NS=
cleanup() {
	[ -n "$NS" ] && kill -KILL "$NS" 2>/dev/null && wait "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$T/conf/services"
# Never the host's cgroup tree; services keep their output pipes.
printf '[supervisor]\ncgroup_root = none\nlog_level = warning\n' \
    >"$T/conf/pidvisor.ini"
body="[service]"$'\n'"exec = $run"$'\n'"restart_delay = 0"$'\n'
body+="start_limit_burst = 0"$'\n'
for i in $(seq -f %04g 1 "$n"); do
	printf '%s' "$body" >"$T/conf/services/s$i.ini"
done
printf '[service]\nexec = %s sleep=forever\n' "$H" \
    >"$T/conf/services/keep.ini"

ctl() { "$CTL" -s "$T/ctl.sock" "$@"; }

unshare --pid --fork --mount-proc --kill-child \
    "$PV" -q -c "$T/conf" -s "$T/ctl.sock" 2>"$T/log" &
NS=$!
for i in $(seq 1 500); do
	ctl version >/dev/null 2>&1 && break
	sleep 0.02
done
ctl version >/dev/null || { echo "storm: no pidvisor: $(cat "$T/log")" >&2; exit 1; }
PVPID=$(cut -d' ' -f1 /proc/"$NS"/task/"$NS"/children)

restarts() { ctl status --json | jq '[.[].restarts] | add'; }
rss() { awk '/^VmRSS/ { print $2 }' /proc/"$PVPID"/status; }
fds() { ls /proc/"$PVPID"/fd | wc -l; }
# The median of 5 samples of a figure over half a second.
sample() {
	local i
	for i in 1 2 3 4 5; do "$1"; sleep 0.1; done | sort -n | sed -n 3p
}

# Warm up: every service has crashed a few times and status has been
# asked for under the storm (the heap and libev's arrays reach their
# working size; glibc keeps up to 128k of freed heap).
for i in $(seq 1 300); do
	[ "$(restarts)" -ge $((n * 3)) ] && break
	sleep 0.1
done
"$HARNESS" ctl-watch "$T/ctl.sock" 2 status >/dev/null
r0=$(restarts); rss0=$(sample rss); fds0=$(sample fds); t0=$(date +%s%N)
lat=$("$HARNESS" ctl-watch "$T/ctl.sock" "$secs" status)
r1=$(restarts); t1=$(date +%s%N); rss1=$(sample rss); fds1=$(sample fds)

# Remove the services (a reload): every process goes, every zombie and
# every orphan is reaped; only pidvisor and the sentinel stay.
rm -f "$T"/conf/services/s*.ini
ctl reload >/dev/null || { echo "storm: reload failed" >&2; exit 1; }
left=0; zombies=0
for i in $(seq 1 200); do
	st=$(nsenter -t "$PVPID" -p -m -- ps -e -o stat=)
	zombies=$(grep -c '^Z' <<<"$st")
	left=$(($(wc -l <<<"$st") - 3))		# pidvisor, the sentinel, ps
	[ "$zombies" = 0 ] && [ "$left" -le 0 ] && break
	sleep 0.05
done

rate=$(awk -v a="$r0" -v b="$r1" -v t="$((t1 - t0))" \
    'BEGIN { printf "%.0f", (b - a) / (t / 1e9) }')
drss=$(awk -v a="$rss0" -v b="$rss1" 'BEGIN { printf "%.2f", (b - a) * 100 / a }')
echo "mode=$mode services=$n seconds=$secs restarts=$((r1 - r0)) restarts_per_s=$rate"
echo "rss_kb_start=$rss0 rss_kb_end=$rss1 rss_change_pct=$drss fds_start=$fds0 fds_end=$fds1"
echo "status_$lat"

echo "zombies_after=$zombies processes_after=$left (besides pidvisor and the sentinel)"

ok=0
# Both within 1%: a service between its death and its restart holds
# fewer fds than a running one.
within() { awk -v a="$1" -v b="$2" 'BEGIN { d = (b - a) * 100 / a
    exit !(d <= 1 && d >= -1) }'; }
within "$fds0" "$fds1" || { echo "storm: fds $fds0 -> $fds1" >&2; ok=1; }
within "$rss0" "$rss1" || { echo "storm: RSS changed by $drss%" >&2; ok=1; }
[ "$zombies" = 0 ] || { echo "storm: $zombies zombies" >&2; ok=1; }
[ "$left" -le 0 ] || { echo "storm: $left processes left" >&2; ok=1; }
if [ $check_time = 1 ]; then
	p99=$(sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p' <<<"$lat")
	awk -v p="$p99" 'BEGIN { exit !(p < 10) }' ||
	    { echo "storm: status p99 $p99 ms" >&2; ok=1; }
fi
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$T/log"; then
	cat "$T/log" >&2; ok=1
fi
exit $ok
