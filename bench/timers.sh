#!/bin/bash
# bench/timers.sh [-n MINUTES] [-N TIMERS] - what timers cost and how late
# they come.
#
#   idle:     N timers armed (default 10,000), none due for years: the
#             wake-ups a second of pidvisor (its context switches over
#             10 s) and its PSS against the same services without a timer.
#   lateness: 1,000 jobs due at each minute's :00, for MINUTES minutes
#             (default 5): when each job started after :00 (its own
#             CLOCK_REALTIME stamp), per minute p50, p99 and max; the
#             table gives the median of the minutes and their range.
#             Contenders, each the same job (sh -c 'bench-svc stamp=...'):
#             pidvisor with accuracy = 1ms, pidvisor at its defaults
#             (accuracy 1 min: late by design, to coalesce wake-ups, as
#             systemd's AccuracySec=), Debian's cron with a `* * * * *`
#             line per job (unpacked, not installed; run in a mount
#             namespace of its own with a copy of /etc).
#
# Not part of make test: it takes MINUTES * 3 minutes and more.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
minutes=5
ntimers=10000
while [ $# -gt 0 ]; do
	case $1 in
	-n) minutes=$2; shift 2 ;;
	-N) ntimers=$2; shift 2 ;;
	*) echo "usage: bench/timers.sh [-n MINUTES] [-N TIMERS]" >&2; exit 2 ;;
	esac
done
make -s -C "$top" build/bin/pidvisor build/bin/pidvisorctl \
    build/bench/bench-svc build/cron/usr/sbin/cron >/dev/null
PV=$top/build/bin/pidvisor
CTL=$top/build/bin/pidvisorctl
SVC=$top/build/bench/bench-svc
CRON=$top/build/cron/usr/sbin/cron
. "$top/bench/late.sh"
W=$(mktemp -d /tmp/pvtm.XXXXXX)
chmod 755 "$W"
NS_PID=

cleanup() {
	[ -n "$NS_PID" ] && kill -KILL "$NS_PID" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# pv_start: pidvisor as PID 1 of a PID namespace, on $W/conf; its PID.
pv_start() {
	unshare --pid --fork --mount-proc --kill-child "$PV" -c "$W/conf" \
	    -s "$W/ctl.sock" >"$W/log" 2>&1 &
	NS_PID=$!
	for _ in $(seq 600); do
		"$CTL" -s "$W/ctl.sock" version >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$CTL" -s "$W/ctl.sock" version >/dev/null ||
	    { cat "$W/log" >&2; exit 1; }
	PID=$(cut -d' ' -f1 "/proc/$NS_PID/task/$NS_PID/children")
}

pv_stop() {
	kill -KILL "$NS_PID" 2>/dev/null || true
	wait "$NS_PID" 2>/dev/null || true
	NS_PID=
}

# conf N BODY: N services t1..tN with the body (%i: the number).
conf() {
	local n=$1 body=$2 i
	rm -rf "$W/conf"
	mkdir -p "$W/conf/services"
	for ((i = 1; i <= n; i++)); do
		printf '[service]\n%s\n' "${body//%i/$i}" \
		    >"$W/conf/services/t$i.ini"
	done
}

switches() {
	awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$PID/status"
}

pss_kib() {
	awk '/^Pss:/ { print $2 }' "/proc/$PID/smaps_rollup"
}

# idle BODY: the wake-ups a second over 10 s, and the PSS (KiB).
idle() {
	local a b
	conf "$ntimers" "$1"
	pv_start
	sleep 2				# the start-up's own turns
	a=$(switches)
	sleep 10
	b=$(switches)
	echo "$((b - a)) $(pss_kib)"
	pv_stop
}

echo "# idle: $ntimers services, ready = exit, enabled"
read -r w_t pss_t < <(idle "exec = $SVC exit
ready = exit
on_calendar = 2199-01-01")
read -r w_p pss_p < <(idle "exec = $SVC exit
ready = exit
enabled = no")
printf '%-34s %12s %12s\n' "" "WAKEUPS/S" "PSS KIB"
printf '%-34s %12s %12s\n' "pidvisor, $ntimers timers armed" \
    "$(awk -v x="$w_t" 'BEGIN { printf "%.1f", x / 10 }')" "$pss_t"
printf '%-34s %12s %12s\n' "pidvisor, the same without timers" \
    "$(awk -v x="$w_p" 'BEGIN { printf "%.1f", x / 10 }')" "$pss_p"
echo "PSS per timer: $(((pss_t - pss_p) * 1024 / ntimers)) bytes"

# wait_stamps N: until the stamps file has N lines (at most an hour).
wait_stamps() {
	local i
	for ((i = 0; i < 36000; i++)); do
		[ -f "$W/stamps" ] && [ "$(wc -l <"$W/stamps")" -ge "$1" ] &&
		    return 0
		sleep 0.1
	done
	return 1
}

# A contender's minutes: the first minute after its start is dropped
# (it may have started within it).
late_row() {
	local want=$(((minutes + 1) * 1000))
	wait_stamps "$want" || { echo "$1: too few runs" >&2; exit 1; }
	late_line "$1" "$minutes" "$W/stamps"
}

job="exec = /bin/sh -c '$SVC stamp=$W/stamps exit'
ready = exit
on_calendar = *:*:00"

echo
echo "# lateness: 1000 jobs due at :00 of each minute, ms after it"
late_head 1000
for acc in "accuracy = 1ms" ""; do
	rm -f "$W/stamps"
	conf 1000 "$job
$acc"
	pv_start
	late_row "pidvisor ${acc:-(defaults)}"
	pv_stop
done

# cron: a copy of /etc with the crontab, an empty spool, in a mount
# namespace; the host's /etc and /var/spool are not touched.
rm -f "$W/stamps"
cp -a /etc "$W/etc"
mkdir -p "$W/etc/cron.d" "$W/spool/cron/crontabs"
{
	echo "SHELL=/bin/sh"
	for ((i = 1; i <= 1000; i++)); do
		echo "* * * * * root $SVC stamp=$W/stamps exit"
	done
} >"$W/etc/crontab"
chmod 644 "$W/etc/crontab"
unshare --mount --pid --fork --kill-child sh -c "
	mount --make-rprivate /
	mount --bind '$W/etc' /etc
	mount --bind '$W/spool' /var/spool
	exec '$CRON' -f -L 0" >"$W/cron.log" 2>&1 &
NS_PID=$!
late_row "cron (Debian's, * * * * *)"
kill -KILL "$NS_PID" 2>/dev/null || true
NS_PID=
