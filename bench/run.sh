#!/bin/bash
# bench/run.sh [--smoke] - pidvisor against the limit and its peers.
#
# Prints one table and writes the same rows as JSON lines to
# build/bench.json.  Every pidvisor figure is also given as a ratio to the
# limit measured in the same run.  --smoke: tiny counts and durations,
# to keep the benchmark working (make test runs it).
#
# Everything runs in a temporary directory and is stopped at the end:
# each process started here has its working directory there, and the
# clean-up kills whatever still does.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build/bench
SVC=$B/bench-svc
LIMIT=$B/limit
H=$B/harness
PV=$top/build/bin/pidvisor
CTL=$top/build/bin/pidvisorctl
JSON=$top/build/bench.json

smoke=0
[ "${1:-}" = --smoke ] && smoke=1
if [ $smoke = 1 ]; then
	N_LAT=5; WAIT_PV=50; WAIT_PEER=1100; THRU_S=1; THRU_N=20
	MEM_NS="100"; PEER_MEM_NS="100"; START_N=100; CTL_N=200; CTL_S=1
	IDLE_N=100; IDLE_S=1; PEERS=${PEERS-runit}; REEXEC_N=3
	HC_N=20; HC_S=1; HC_W=1; HARD_R=1
else
	N_LAT=50; WAIT_PV=200; WAIT_PEER=1100; THRU_S=5; THRU_N=100
	MEM_NS="100 1000 10000"; PEER_MEM_NS="100 1000"; START_N=1000
	CTL_N=10000; CTL_S=5; IDLE_N=1000; IDLE_S=5; REEXEC_N=11
	HC_N=1000; HC_S=5; HC_W=5; HARD_R=5
	PEERS=${PEERS-runit s6 daemontools}
fi
# A peer that is not installed is left out, and said so.
have=()
for peer in $PEERS; do
	case $peer in
	runit)		bin=runsvdir ;;
	s6)		bin=s6-svscan ;;
	daemontools)	bin=svscan ;;
	*)		echo "bench: unknown peer $peer" >&2; exit 2 ;;
	esac
	if command -v $bin >/dev/null; then have+=("$peer"); else
		echo "bench: $peer is not installed (make bench-deps): left out" >&2
	fi
done
PEERS="${have[*]}"

W=$(mktemp -d /tmp/pvbench.XXXXXX)
: >"$JSON"
ROWS=()
declare -A LIMITV

# The processes whose working directory is $W or inside it.
pids_in_w() {
	find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$W" -o -lname "$W/*" \) \
	    2>/dev/null | cut -d/ -f3 || true
}

kill_in_w() {
	local p
	for p in $(pids_in_w); do kill -KILL "$p" 2>/dev/null || true; done
}

# Kill whatever we started: every process whose cwd is inside $W.
cleanup() {
	local n
	for n in 1 2 3; do
		kill_in_w
		sleep 0.2
	done
	rm -rf "$W" ${HW:+"$HW"}
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# row FIGURE WHO VALUE UNIT [LIMIT_KEY]: one line of the table and JSON.
row() {
	local fig=$1 who=$2 val=$3 unit=$4 key=${5:-} ratio=null
	if [ -n "$key" ] && [ -n "${LIMITV[$key]:-}" ] && [ "$who" != limit ] &&
	    [ "$who" != goal ]; then
		ratio=$(awk -v a="$val" -v b="${LIMITV[$key]}" \
		    'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	fi
	# A goal (set by an issue) stands where no limit can be measured.
	if [ "$who" = limit ] || [ "$who" = goal ]; then
		[ -n "$key" ] && LIMITV[$key]=$val && ratio=1.00
	fi
	ROWS+=("$(printf "%-34s %-12s %12s %-8s %8s" "$fig" "$who" "$val" \
	    "$unit" "${ratio/null/-}")")
	printf '{"figure":"%s","who":"%s","value":%s,"unit":"%s","ratio_to_limit":%s}\n' \
	    "$fig" "$who" "$val" "$unit" "$ratio" >>"$JSON"
	echo "  $fig / $who: $val $unit" >&2
}

kv() {	# kv KEY LINE: the value of KEY=... in a key=value line
	sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"
}

# A harness reading FIFO, started before the supervisor; wait until it
# has the FIFO open.
harness_bg() {
	local out=$1
	shift
	(cd "$W" && exec "$H" "$@") >"$out" &
	HPID=$!
	local i
	for i in $(seq 1 200); do
		ls -l /proc/$HPID/fd 2>/dev/null | grep -q "$W/fifo" && return
		sleep 0.01
	done
}

# pidvisor with the services written into $W/pv; waits for its socket.
pv_start() {
	(cd "$W" && exec "$PV" -q -c "$W/pv" -s "$W/pv.sock") 2>"$W/pv.log" &
	PVPID=$!
	local i
	for i in $(seq 1 3000); do
		"$CTL" -s "$W/pv.sock" version >/dev/null 2>&1 && return
		sleep 0.01
	done
	echo "bench: pidvisor did not start: $(cat "$W/pv.log")" >&2
	exit 1
}

pv_stop() {
	kill -TERM "$PVPID" 2>/dev/null || true
	wait "$PVPID" 2>/dev/null || true
	rm -rf "$W/pv" "$W/pv.sock"
}

# pv_services N EXEC [KEY=VALUE...]: N services svcNNNNN.
pv_services() {
	local n=$1 exec=$2 i kv body
	shift 2
	body="[service]"$'\n'"exec = $exec"$'\n'
	for kv in "$@"; do body+="${kv%%=*} = ${kv#*=}"$'\n'; done
	mkdir -p "$W/pv/services"
	# metrics_listen: section 9 scrapes it (an idle socket otherwise).
	printf '[supervisor]\nlog_level = warning\nmetrics_listen = 127.0.0.1:0\n' \
	    >"$W/pv/pidvisor.ini"
	for i in $(seq -f %05g 1 "$n"); do	# no fork per file
		printf '%s' "$body" >"$W/pv/services/svc$i.ini"
	done
}

# Wait until n services are ready (status), at most s seconds.
pv_wait_ready() {
	local n=$1 s=$2 i got
	for i in $(seq 1 $((s * 20))); do
		got=$("$CTL" -s "$W/pv.sock" status | grep -c ' ready ' || true)
		[ "$got" -ge "$n" ] && return
		sleep 0.05
	done
	echo "bench: only $got of $n services ready" >&2
	exit 1
}

# Peers: one directory per service, run -> bench-svc, its args in ./args.
peer_dirs() {	# peer_dirs PEER N ARGS
	local peer=$1 n=$2 args=$3 i d
	mkdir -p "$W/$peer"
	for i in $(seq -f %05g 1 "$n"); do
		d=$W/$peer/svc$i
		mkdir -p "$d"
		ln -s "$SVC" "$d/run"
		if [ "$peer" = s6 ]; then
			# s6-supervise waits a second before restarting a
			# service that was not ready a second before it died
			# (without notification-fd: up counts as ready only
			# as of when it started); tell it at once.
			echo 3 >"$d/notification-fd"
			echo "ready=3 $args" >"$d/args"
		else
			echo "$args" >"$d/args"
		fi
	done
}

peer_start() {	# peer_start PEER: the scanner, in the background
	local peer=$1
	case $peer in
	runit)		(cd "$W" && exec setsid runsvdir "$W/$peer") & ;;
	# s6-svscan supervises at most 500 services unless told (-c).
	s6)		(cd "$W" && exec setsid s6-svscan -c 4096 "$W/$peer") & ;;
	daemontools)	(cd "$W" && exec setsid svscan "$W/$peer") & ;;
	esac
	PEERPID=$!
}

# The supervising processes of a peer (scanner and one per service).
peer_pids() {
	case $1 in
	runit)		pgrep -x 'runsvdir|runsv' ;;
	s6)		pgrep -x 's6-svscan|s6-supervise' ;;
	daemontools)	pgrep -x 'svscan|supervise' ;;
	esac
}

peer_stop() {
	local peer=$1
	case $peer in
	s6)		s6-svscanctl -t "$W/$peer" 2>/dev/null || true ;;
	daemontools)	svc -dx "$W/$peer"/* 2>/dev/null || true ;;
	esac
	kill -TERM "$PEERPID" 2>/dev/null || true
	wait "$PEERPID" 2>/dev/null || true
	cleanup_procs
	rm -rf "${W:?}/$peer"
}

# Kill what is left running from $W (services of a peer).
cleanup_procs() {
	kill_in_w
	sleep 0.3
}

count_svc() {	# the number of bench-svc processes (peers run it as ./run)
	{ find /proc/[0-9]*/exe -maxdepth 0 -lname "$SVC" 2>/dev/null || true; } | wc -l
}

wait_svc_count() {	# wait_svc_count N SECONDS
	local i
	for i in $(seq 1 $(($2 * 10))); do
		[ "$(count_svc)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

FIFO=$W/fifo
mkfifo "$FIFO"
echo "bench: $(nproc) CPUs, kernel $(uname -r); in $W" >&2

# 1. Restart latency: kill a running service, time until the next one
# has exec'd.  Peers wait about a second before restarting a service
# that ran less than one, so every service has been up longer than that
# (WAIT_PEER ms) when it is killed; the wait is not part of the figure.
echo "restart latency (at ${SECONDS}s)" >&2
r=$(cd "$W" && "$LIMIT" latency "$N_LAT" "$WAIT_PV" "$FIFO" "$SVC")
row "restart latency median" limit "$(kv median_us "$r")" us lat
row "restart latency p90" limit "$(kv p90_us "$r")" us latp90
pv_services 1 "$SVC fifo=$FIFO sleep" restart_delay=0 start_limit_burst=0 \
    log=none log_buffer=0
harness_bg "$W/h.out" latency "$FIFO" "$N_LAT" "$WAIT_PV"
pv_start
wait "$HPID"
r=$(cat "$W/h.out")
row "restart latency median" pidvisor "$(kv median_us "$r")" us lat
row "restart latency p90" pidvisor "$(kv p90_us "$r")" us latp90
pv_stop
for peer in $PEERS; do
	peer_dirs "$peer" 1 "fifo=$FIFO sleep"
	harness_bg "$W/h.out" latency "$FIFO" "$N_LAT" "$WAIT_PEER"
	peer_start "$peer"
	wait "$HPID"
	r=$(cat "$W/h.out")
	row "restart latency median" "$peer" "$(kv median_us "$r")" us lat
	row "restart latency p90" "$peer" "$(kv p90_us "$r")" us latp90
	peer_stop "$peer"
done

# 1b. Hardening: the restart latency of a service with every protection
# (its own mount and network namespaces, a seccomp filter, no
# capabilities, nobody) against the same service bare, HARD_R rounds of
# N_LAT restarts each, interleaved; the median of the rounds' medians,
# their spread, and the ratio (goal: under 2).  Its FIFO is outside
# /tmp, which private_tmp hides.
echo "restart latency, hardened (at ${SECONDS}s)" >&2
HW=$(mktemp -d /run/pvbench.XXXXXX)
chmod 755 "$HW"
mkfifo -m 0666 "$HW/fifo"
declare -A HARD
for round in $(seq 1 "$HARD_R"); do
	for how in bare hardened; do
		keys=(restart_delay=0 start_limit_burst=0 log=none log_buffer=0
		    user=nobody)
		[ $how = hardened ] && keys+=(no_new_privs=yes capabilities=
		    protect_system=strict protect_home=yes private_tmp=yes
		    private_devices=yes private_network=yes
		    syscall_filter=@system-service limit_core=0)
		pv_services 1 "$SVC fifo=$HW/fifo sleep" "${keys[@]}"
		harness_bg "$W/h.out" latency "$HW/fifo" "$N_LAT" "$WAIT_PV"
		pv_start
		wait "$HPID"
		HARD[$how]+=" $(kv median_us "$(cat "$W/h.out")")"
		pv_stop
	done
done
rm -rf "$HW"
hard_stats() {	# median min max of the words of $1
	tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 }
	    END { printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
read -r hb hbmin hbmax < <(hard_stats "${HARD[bare]}")
read -r hh hhmin hhmax < <(hard_stats "${HARD[hardened]}")
row "restart latency, bare (median)" pidvisor "$hb" us lat
row "restart latency, bare (min)" pidvisor "$hbmin" us
row "restart latency, bare (max)" pidvisor "$hbmax" us
row "restart latency, hardened (median)" pidvisor "$hh" us lat
row "restart latency, hardened (min)" pidvisor "$hhmin" us
row "restart latency, hardened (max)" pidvisor "$hhmax" us
row "hardened / bare (goal < 2)" pidvisor \
    "$(awk -v a="$hh" -v b="$hb" 'BEGIN { printf "%.2f", a / b }')" x

# 2. Restart throughput: THRU_N services that exit at once, no delay, no
# start limit; starts per second counted from their start lines.
echo "restart throughput (at ${SECONDS}s)" >&2
r=$(cd "$W" && "$LIMIT" throughput "$THRU_S" "$THRU_N" "$FIFO" "$SVC")
row "restart throughput" limit "$(kv starts_per_s "$r")" starts/s thru
pv_services "$THRU_N" "$SVC fifo=$FIFO exit" restart_delay=0 \
    start_limit_burst=0 log=none log_buffer=0
harness_bg "$W/h.out" count "$FIFO" "$THRU_S"
pv_start
wait "$HPID"
row "restart throughput" pidvisor "$(kv starts_per_s "$(cat "$W/h.out")")" \
    starts/s thru
pv_stop
for peer in $PEERS; do
	peer_dirs "$peer" "$THRU_N" "fifo=$FIFO exit"
	harness_bg "$W/h.out" count "$FIFO" "$THRU_S"
	peer_start "$peer"
	wait "$HPID"
	row "restart throughput" "$peer" \
	    "$(kv starts_per_s "$(cat "$W/h.out")")" starts/s thru
	peer_stop "$peer"
done

# 3. Memory per service: N sleeping services; the supervisor's own RSS
# and PSS divided by N (the peers: all their supervising processes).
echo "memory per service (at ${SECONDS}s)" >&2
for n in $MEM_NS; do
	# A service whose output is kept holds five of our fds (its pidfd
	# and two pipes); where the hard RLIMIT_NOFILE cannot take that
	# (20,000 on the reference machine), the services log nowhere.
	how=""
	if [ $((n * 5 + 100)) -gt "$(ulimit -Hn)" ]; then
		pv_services "$n" "$SVC sleep" log=none log_buffer=0
		how=", log=none"
	else
		pv_services "$n" "$SVC sleep"
	fi
	pv_start
	pv_wait_ready "$n" 120
	r=$("$H" mem "$PVPID")
	row "memory per service, $n$how (RSS)" pidvisor \
	    "$(awk -v k="$(kv rss_kb "$r")" -v n="$n" 'BEGIN { printf "%.2f", k / n }')" KiB
	row "memory per service, $n$how (PSS)" pidvisor \
	    "$(awk -v k="$(kv pss_kb "$r")" -v n="$n" 'BEGIN { printf "%.2f", k / n }')" KiB
	if [ "$n" = "$IDLE_N" ]; then
		# 6. Idle cost, on the same supervisor.
		row "idle wake-ups, $n services" pidvisor \
		    "$(kv wakeups_per_s "$("$H" wakeups "$PVPID" "$IDLE_S")")" /s
	fi
	if [ "$n" = "$CTL_N" ] || [ $smoke = 1 ]; then
		# 5. Control plane, on the same supervisor.
		r=$("$H" ctl-latency "$W/pv.sock" 20 status)
		row "status of $n services (median)" pidvisor \
		    "$(kv median_ms "$r")" ms
		r=$("$H" ctl "$W/pv.sock" 8 "$CTL_S" status svc00001)
		row "requests/s, 8 clients, $n services" pidvisor \
		    "$(kv requests_per_s "$r")" req/s
		# 10. Metrics: the whole Prometheus text of n services, by
		# pidvisorctl and by GET /metrics (metrics_listen), the
		# second from a new connection each time, as a scraper.
		r=$("$H" ctl-latency "$W/pv.sock" 20 metrics)
		row "metrics of $n services, pidvisorctl (median)" pidvisor \
		    "$(kv median_ms "$r")" ms
		port=$(ss -Hltnp | grep "pid=$PVPID," |
		    sed -n 's/.*127.0.0.1:\([0-9]*\) .*/\1/p' | head -1)
		r=$("$H" http-latency "$port" 20)
		row "scrape of $n services, GET /metrics (median)" pidvisor \
		    "$(kv median_ms "$r")" ms
		row "scrape of $n services, GET /metrics (max)" pidvisor \
		    "$(kv max_ms "$r")" ms
		row "scrape of $n services, bytes" pidvisor \
		    "$(awk -v b="$(kv bytes "$r")" 'BEGIN { printf "%.0f", b / 1024 }')" KiB
	fi
	if [ "$n" -ge 1000 ] || [ $smoke = 1 ]; then
		# 8. Re-exec: from `reexec` to the new binary answering
		# `status`, every service kept; against the goal (50 ms at
		# 1,000 services, proportionally more beyond).
		row "reexec to status answered, $n" goal \
		    "$(awk -v n="$n" 'BEGIN { printf "%.1f", 50 * (n < 1000 ? 1 : n / 1000) }')" \
		    ms "reexec$n"
		r=$("$H" reexec "$W/pv.sock" "$REEXEC_N")
		row "reexec to status answered, $n" pidvisor \
		    "$(kv median_ms "$r")" ms "reexec$n"
		row "reexec to status answered, $n (max)" pidvisor \
		    "$(kv max_ms "$r")" ms "reexec$n"
		[ "$(pgrep -c -P "$PVPID" -x bench-svc)" -ge "$n" ] ||
		    { echo "bench: services lost in the re-execs" >&2; exit 1; }
	fi
	pv_stop
	cleanup_procs
done
for peer in $PEERS; do
	for n in $PEER_MEM_NS; do
		peer_dirs "$peer" "$n" "sleep"
		peer_start "$peer"
		wait_svc_count "$n" 120 || echo "bench: $peer started $(count_svc) of $n" >&2
		sleep 1
		r=$("$H" mem $(peer_pids "$peer"))
		row "memory per service, $n (RSS)" "$peer" \
		    "$(awk -v k="$(kv rss_kb "$r")" -v n="$n" 'BEGIN { printf "%.2f", k / n }')" KiB
		row "memory per service, $n (PSS)" "$peer" \
		    "$(awk -v k="$(kv pss_kb "$r")" -v n="$n" 'BEGIN { printf "%.2f", k / n }')" KiB
		peer_stop "$peer"
	done
done

# 4. Start-all: from launching pidvisor to all START_N services ready
# (fd readiness), seen as the start of a service that requires them all.
echo "start-all (at ${SECONDS}s)" >&2
r=$(cd "$W" && "$LIMIT" startall "$START_N" "$SVC")
row "start-all $START_N (fd readiness)" limit \
    "$(awk -v u="$(kv all_ready_us "$r")" 'BEGIN { printf "%.1f", u / 1000 }')" ms start
pv_services "$START_N" "$SVC ready=3 sleep" ready=fd:3
{
	echo "[service]"
	echo "exec = $SVC fifo=$FIFO sleep"
	for i in $(seq -f %05g 1 "$START_N"); do echo "requires = svc$i"; done
} >"$W/pv/services/zz-all.ini"
harness_bg "$W/h.out" first "$FIFO" 120
t0=$("$H" now)
pv_start
wait "$HPID"
row "start-all $START_N (fd readiness)" pidvisor \
    "$(awk -v t="$(kv ts "$(cat "$W/h.out")")" -v t0="$t0" \
    'BEGIN { printf "%.1f", (t - t0) / 1e6 }')" ms start
pv_stop
cleanup_procs

# 9. Health checks: HC_N services, each checked every second by a
# process of its own (bench-svc, which writes a line per check); the
# same services unchecked beside it.  pidvisor's CPU (the median of
# HC_W windows of HC_S seconds, and the worst), the checks it ran per
# second, and the restart latency of one more service meanwhile.
echo "health checks (at ${SECONDS}s)" >&2
FIFOH=$W/fifoh
mkfifo "$FIFOH"
for checked in no yes; do
	if [ $checked = yes ]; then
		pv_services "$HC_N" "$SVC sleep" log=none log_buffer=0 \
		    health_exec="$SVC fifo=$FIFOH exit" health_interval=1s
		what="$HC_N services checked every 1s"
	else
		pv_services "$HC_N" "$SVC sleep" log=none log_buffer=0
		what="$HC_N services, unchecked"
	fi
	printf '[service]\nexec = %s fifo=%s sleep\nrestart_delay = 0\nlog = none\nlog_buffer = 0\n' \
	    "$SVC" "$FIFO" >"$W/pv/services/zz-lat.ini"
	pv_start
	pv_wait_ready $((HC_N + 1)) 300
	if [ $checked = yes ]; then
		(cd "$W" && exec "$H" count "$FIFOH" \
		    "$(awk -v s="$HC_S" -v w="$HC_W" 'BEGIN { print s * w }')") \
		    >"$W/hc.out" &
		HCPID=$!
	fi
	r=$("$H" cpu "$PVPID" "$HC_S" "$HC_W")
	row "pidvisor CPU, $what" pidvisor "$(kv cpu_pct "$r")" "%cpu"
	row "pidvisor CPU, $what (max)" pidvisor "$(kv max_pct "$r")" "%cpu"
	if [ $checked = yes ]; then
		wait "$HCPID"
		row "checks run, $what" pidvisor \
		    "$(kv starts_per_s "$(cat "$W/hc.out")")" checks/s
	fi
	harness_bg "$W/h.out" latency "$FIFO" "$N_LAT" "$WAIT_PV"
	"$CTL" -s "$W/pv.sock" restart zz-lat >/dev/null
	wait "$HPID"
	r=$(cat "$W/h.out")
	row "restart latency median, $what" pidvisor "$(kv median_us "$r")" us lat
	row "restart latency p90, $what" pidvisor "$(kv p90_us "$r")" us latp90
	[ "$("$CTL" -s "$W/pv.sock" status | grep -c ' ready ')" -ge "$HC_N" ] ||
	    { echo "bench: services lost beside the checks" >&2; exit 1; }
	pv_stop
	cleanup_procs
done

# 7. Reclaim (the memory-pressure issue), in the guest on our kernel:
# kill to memory back, by path, ratio to plain SIGKILL.
echo "reclaim under CPU contention, in the guest" >&2
if [ $smoke = 1 ]; then r=$("$top/qemu/bench.sh" 1 weight 128); else
	r=$("$top/qemu/bench.sh" 7 weight,max 256 1024); fi
for rs in weight max; do
	[ $rs = weight ] && label="cpu.weight 1" || label="cpu.max 5ms/100ms"
	for size in $(sed -n "s/^restrict=$rs size_mb=\([0-9]*\) path=kill .*/\1/p" <<<"$r"); do
		# The killer at nice 0, then mrelease and reap at nice -20.
		for pn in kill:0 boost:0 mrelease:0 reap:0 mrelease:-20 \
		    reap:-20; do
			path=${pn%:*}
			nice=${pn#*:}
			line=$(grep "^restrict=$rs size_mb=$size path=$path nice=$nice " \
			    <<<"$r" || true)
			if [ -z "$line" ] || grep -q missing <<<"$line"; then
				continue
			fi
			who=$path
			[ "$nice" = 0 ] || who="$path, nice $nice"
			[ $path = kill ] && LIMITV[rec$rs$size]=$(kv back_ms "$line")
			ratio=$(awk -v a="$(kv back_ms "$line")" \
			    -v b="${LIMITV[rec$rs$size]}" \
			    'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
			ROWS+=("$(printf "%-34s %-18s %12s %-8s %8s" \
			    "reclaim $size MiB, $label" "$who" \
			    "$(kv back_ms "$line")" ms "$ratio")")
			printf '{"figure":"reclaim %s MiB, %s","who":"%s","value":%s,"unit":"ms","dead_ms":%s,"timeouts":%s,"ratio_to_kill":%s%s}\n' \
			    "$size" "$label" "$who" "$(kv back_ms "$line")" \
			    "$(kv dead_ms "$line")" "$(kv timeouts "$line")" \
			    "$ratio" "$([ $path = mrelease ] && printf \
			    ',"esrch":%s,"back_mm_ms":"%s","back_esrch_ms":"%s"' \
			    "$(kv esrch "$line")" "$(kv back_mm_ms "$line")" \
			    "$(kv back_esrch_ms "$line")")" >>"$JSON"
		done
	done
done

# The head-to-head of low-memory killers (qemu/hh.sh), its own table.
echo "head-to-head of low-memory killers, in the guest" >&2
if [ $smoke = 1 ]; then hh=$("$top/qemu/hh.sh" 1 8 reap); else
	hh=$("$top/qemu/hh.sh" 3 40 kernel earlyoom earlyoom-prefer reap \
	    mrelease kill); fi
HH=()
while read -r line; do
	c=$(kv contender "$line")
	[ -z "$c" ] && continue
	if grep -q missing <<<"$line"; then
		HH+=("$(printf "%-16s missing" "$c")")
		continue
	fi
	HH+=("$(printf "%-16s %10s %9s %9s %6s %6s %6s %10s %10s" "$c" \
	    "$(kv full_stall_ms "$line")" "$(kv rtt_p99_ms "$line")" \
	    "$(kv rtt_max_ms "$line")" "$(kv kills "$line")" \
	    "$(kv wrong "$line")" "$(kv oom_kills "$line")" \
	    "$(kv back_median_ms "$line")" "$(kv back_max_ms "$line")")")
	printf '{"figure":"head-to-head","who":"%s","full_stall_ms":%s,"rtt_p50_ms":%s,"rtt_p99_ms":%s,"rtt_max_ms":%s,"kills":%s,"wrong":%s,"oom_kills":%s,"episodes":%s,"back_median_ms":%s,"back_max_ms":%s}\n' \
	    "$c" "$(kv full_stall_ms "$line")" "$(kv rtt_p50_ms "$line")" \
	    "$(kv rtt_p99_ms "$line")" "$(kv rtt_max_ms "$line")" \
	    "$(kv kills "$line")" "$(kv wrong "$line")" \
	    "$(kv oom_kills "$line")" "$(kv episodes "$line")" \
	    "$(kv back_median_ms "$line")" "$(kv back_max_ms "$line")" >>"$JSON"
done <<<"$hh"

# 10. Restarts under load (bench/sockets.sh): a server's clients while
# it restarts, pidvisor holding its socket or not, and the peers; its
# own table, printed last.
sc="pidvisor-listen pidvisor-bind"
for peer in $PEERS; do
	case $peer in
	runit)	sc="$sc runit" ;;
	s6)	sc="$sc s6 s6-fdholder" ;;
	esac
done
echo "restarts under load: $sc" >&2
if [ $smoke = 1 ]; then sargs=(--smoke); else sargs=(); fi
SOCKS=$(CONTENDERS=$sc "$top/bench/sockets.sh" "${sargs[@]}")

echo
printf "%-34s %-12s %12s %-8s %8s\n" FIGURE WHO VALUE UNIT "VS LIMIT"
printf '%s\n' "${ROWS[@]}"
echo
printf "%-16s %10s %9s %9s %6s %6s %6s %10s %10s\n" CONTENDER "STALL MS" \
    "RTT P99" "RTT MAX" KILLS WRONG "OOM K" "BACK MED" "BACK MAX"
printf '%s\n' "${HH[@]}"
echo "(JSON lines in $JSON)"
echo "$SOCKS"
