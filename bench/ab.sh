#!/bin/bash
# bench/ab.sh [-n RUNS] A_DIR B_DIR - two builds of pidvisor side by side
# on the host cells of make bench that a change to the daemon can move:
# restart latency, restart throughput, start-all, and with 10,000
# services the round trip of status and a re-exec.  Each directory holds a
# pidvisor and a pidvisorctl (build/bin of one checkout, say).  The runs
# alternate A, B, B, A... so that the machine's drift falls on both; each
# cell prints the median and the range of each build and the ratio of
# the medians, B / A.  Not part of make test: it takes minutes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=7
[ "${1:-}" = -n ] && { runs=$2; shift 2; }
[ $# = 2 ] || { echo "usage: bench/ab.sh [-n RUNS] A_DIR B_DIR" >&2; exit 2; }
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
for d in "$A" "$B"; do
	[ -x "$d/pidvisor" ] && [ -x "$d/pidvisorctl" ] ||
	    { echo "bench/ab.sh: no pidvisor, pidvisorctl in $d" >&2; exit 2; }
done
make -s -C "$top" build/bench/bench-svc build/bench/harness >/dev/null
SVC=$top/build/bench/bench-svc
H=$top/build/bench/harness
W=$(mktemp -d /tmp/pvab.XXXXXX)
FIFO=$W/fifo
mkfifo "$FIFO"

cleanup() {
	local p
	for p in $(find /proc/[0-9]*/cwd -maxdepth 0 -lname "$W*" 2>/dev/null |
	    cut -d/ -f3); do
		kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

harness_bg() {	# harness_bg OUT ARGS...: started before the supervisor
	local out=$1 i fd
	shift
	(cd "$W" && exec "$H" "$@") >"$out" &
	HPID=$!
	for i in $(seq 1 200); do
		for fd in /proc/$HPID/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "$FIFO" ] && return
		done
		sleep 0.01
	done
}

services() {	# services N EXEC [KEY=VALUE...]
	local n=$1 body="[service]"$'\n'"exec = $2"$'\n' kv i
	shift 2
	for kv in "$@"; do body+="${kv%%=*} = ${kv#*=}"$'\n'; done
	rm -rf "$W/pv"
	mkdir -p "$W/pv/services"
	printf '[supervisor]\nlog_level = warning\n' >"$W/pv/pidvisor.ini"
	for i in $(seq -f %05g 1 "$n"); do
		printf '%s' "$body" >"$W/pv/services/svc$i.ini"
	done
}

start() {	# start DIR: that build's pidvisor on $W/pv; waits for its socket
	(cd "$W" && exec "$1/pidvisor" -q -c "$W/pv" -s "$W/pv.sock") \
	    2>"$W/pv.log" &
	PVPID=$!
	local i
	for i in $(seq 1 3000); do
		"$1/pidvisorctl" -s "$W/pv.sock" version >/dev/null 2>&1 && return
		sleep 0.01
	done
	echo "bench/ab.sh: pidvisor did not start: $(cat "$W/pv.log")" >&2
	exit 1
}

stop() {
	kill -TERM "$PVPID" 2>/dev/null || true
	wait "$PVPID" 2>/dev/null || true
	rm -f "$W/pv.sock"
	local i
	for i in $(seq 1 200); do	# its services go with it; at most 10 s
		pgrep -f "$SVC" >/dev/null || return 0
		sleep 0.05
	done
	pkill -KILL -f "$SVC" || true
}

latency() {	# latency DIR: median and p90 of 50 restarts, us
	services 1 "$SVC fifo=$FIFO sleep" restart_delay=0 \
	    start_limit_burst=0 log=none log_buffer=0
	harness_bg "$W/h.out" latency "$FIFO" 50 200
	start "$1"
	wait "$HPID"
	stop
	echo "$(kv median_us "$(cat "$W/h.out")") $(kv p90_us "$(cat "$W/h.out")")"
}

throughput() {	# throughput DIR: starts/s of 100 services exiting at once
	services 100 "$SVC fifo=$FIFO exit" restart_delay=0 \
	    start_limit_burst=0 log=none log_buffer=0
	harness_bg "$W/h.out" count "$FIFO" 5
	start "$1"
	wait "$HPID"
	stop
	kv starts_per_s "$(cat "$W/h.out")"
}

startall() {	# startall DIR: ms from launch to 1,000 fd-ready services
	local i t0
	services 1000 "$SVC ready=3 sleep" ready=fd:3
	{
		echo "[service]"
		echo "exec = $SVC fifo=$FIFO sleep"
		for i in $(seq -f %05g 1 1000); do echo "requires = svc$i"; done
	} >"$W/pv/services/zz-all.ini"
	harness_bg "$W/h.out" first "$FIFO" 120
	t0=$("$H" now)
	start "$1"
	wait "$HPID"
	stop
	awk -v t="$(kv ts "$(cat "$W/h.out")")" -v t0="$t0" \
	    'BEGIN { printf "%.1f\n", (t - t0) / 1e6 }'
}

many() {	# many DIR: status and reexec, ms, with 10,000 sleeping services
	local i got r st
	services 10000 "$SVC sleep" log=none log_buffer=0
	start "$1"
	for i in $(seq 1 2400); do	# at most 2 min
		got=$("$1/pidvisorctl" -s "$W/pv.sock" status 2>/dev/null | grep -c ' ready ' ||
		    true)
		[ "$got" -ge 10000 ] && break
		sleep 0.05
	done
	[ "$got" -ge 10000 ] ||
	    { echo "bench/ab.sh: only $got of 10000 ready" >&2; exit 1; }
	st=$(kv median_ms "$("$H" ctl-latency "$W/pv.sock" 20 status)")
	r=$("$H" reexec "$W/pv.sock" 5)
	stop
	echo "$st $(kv median_ms "$r")"
}

# stats V...: "median [min-max]"
stats() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
	    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	    printf "%.1f [%.1f-%.1f]", m, v[1], v[NR] }'
}

declare -A R
for i in $(seq 1 "$runs"); do
	echo "round $i of $runs" >&2
	# A, B in odd rounds and B, A in even ones: what one run leaves
	# behind (exiting services, a cold cache) falls on both alike.
	order="A B"
	[ $((i % 2)) = 0 ] && order="B A"
	for who in $order; do
		dir=$A
		[ $who = B ] && dir=$B
		read -r med p90 <<<"$(latency "$dir")"
		R[$who,lat]+=" $med"
		R[$who,p90]+=" $p90"
		R[$who,thru]+=" $(throughput "$dir")"
		R[$who,start]+=" $(startall "$dir")"
		read -r st rx <<<"$(many "$dir")"
		R[$who,status]+=" $st"
		R[$who,reexec]+=" $rx"
	done
done

printf '%-32s %-24s %-24s %s\n' "CELL ($runs runs each)" "A: $1" "B: $2" "B/A"
for cell in "lat:restart latency median (us)" "p90:restart latency p90 (us)" \
    "thru:restart throughput (/s)" "start:start-all 1000 (ms)" \
    "status:status of 10000 (ms)" "reexec:reexec of 10000 (ms)"; do
	k=${cell%%:*}
	# shellcheck disable=SC2086
	a=$(stats ${R[A,$k]})
	# shellcheck disable=SC2086
	b=$(stats ${R[B,$k]})
	printf '%-32s %-24s %-24s %.2f\n' "${cell#*:}" "$a" "$b" \
	    "$(awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN { print b / a }')"
done
