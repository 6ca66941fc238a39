#!/bin/bash
# bench/sockets.sh [--smoke] - what a restart costs a server's clients.
#
# bench-httpd (bench/httpd.c) under steady load from wrk on loopback
# (one connection per request: "Connection: close"), restarted N times
# by its supervisor, one restart every INTERVAL ms (runit's runsv and
# s6-supervise start a service at most once a second: every contender
# gets the same pace).  Contenders, the same server each:
#
#   pidvisor-listen  pidvisor holds the socket (listen =; LISTEN_FDS)
#   pidvisor-bind    under pidvisor, the server binds the port itself
#   runit            runsv; the server binds the port itself
#   s6               s6-supervise; the server binds the port itself
#   s6-fdholder      s6-supervise; the socket held by s6-fdholder-daemon,
#                    the server takes it with s6-fdholder-retrieve
#
# Per run: STEADY seconds of load without restarts (the steady p99),
# then the load across the N restarts.  Figures per contender: the
# median and the spread (min-max) over RUNS runs of the failed requests
# (wrk's socket errors and non-2xx answers), the rate, the p50 and p99
# during the restarts, and their p99 over the steady p99.  Goal: 0 failed
# at >= 1,000 requests/s, and p99 during at most twice the steady p99.
# Prints a table; JSON lines in build/bench-sockets.json.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
HTTPD=$top/build/bench/bench-httpd
PV=$top/build/bin/pidvisor
CTL=$top/build/bin/pidvisorctl
JSON=$top/build/bench-sockets.json

if [ "${1:-}" = --smoke ]; then
	N=${N:-3}; RUNS=${RUNS:-1}; STEADY=${STEADY:-1}; INTERVAL=${INTERVAL:-1100}
else
	N=${N:-100}; RUNS=${RUNS:-5}; STEADY=${STEADY:-5}; INTERVAL=${INTERVAL:-1100}
fi
CONTENDERS=${CONTENDERS:-pidvisor-listen pidvisor-bind runit s6 s6-fdholder}
for t in wrk socat; do
	command -v $t >/dev/null || { echo "bench: no $t (make bench-deps)" >&2; exit 1; }
done

W=$(mktemp -d /tmp/pvsock.XXXXXX)
cd "$W"
: >"$JSON"

pids_in_w() {
	find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$W" -o -lname "$W/*" \) \
	    2>/dev/null | cut -d/ -f3 || true
}
cleanup() {
	local n p
	for n in 1 2 3; do
		for p in $(pids_in_w); do
			[ "$p" = $$ ] || kill -KILL "$p" 2>/dev/null || true
		done
		sleep 0.2
	done
	cd /
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Htln "sport = :$p")" ] && { echo "$p"; return; }
	done
}

# The pid of the one bench-httpd serving (none, or the old one: empty).
server_pid() {
	local p n=0 found=
	for p in $(pgrep -x bench-httpd || true); do
		found=$p
		n=$((n + 1))
	done
	[ $n = 1 ] && echo "$found"
	return 0
}

# Wait (at most 10 s) until the port answers HTTP.
wait_serving() {
	local i
	for i in $(seq 1000); do
		printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' |
		    socat -t 2 - "TCP:127.0.0.1:$PORT" 2>/dev/null |
		    grep -q "200 OK" && return 0
		sleep 0.01
	done
	echo "bench: $C does not serve" >&2
	return 1
}

# Wait (at most 10 s) until a server other than $1 is the one running.
wait_new() {
	local i p
	for i in $(seq 1000); do
		p=$(server_pid)
		[ -n "$p" ] && [ "$p" != "$1" ] && return 0
		sleep 0.01
	done
	echo "bench: $C: no new server after a restart" >&2
	return 1
}

start() {
	local d
	case $C in
	pidvisor-*)
		mkdir -p "$W/pv/services"
		if [ "$C" = pidvisor-listen ]; then
			printf '[service]\nexec = %s listen\nlisten = tcp:127.0.0.1:%s\n' \
			    "$HTTPD" "$PORT"
		else
			printf '[service]\nexec = %s bind %s\n' "$HTTPD" "$PORT"
		fi >"$W/pv/services/web.ini"
		setsid "$PV" -q -c "$W/pv" -s "$W/pv.sock" 2>"$W/pv.log" &
		SUP=$!
		;;
	runit)
		d=$W/runit/web
		mkdir -p "$d"
		printf '#!/bin/sh\nexec %s bind %s\n' "$HTTPD" "$PORT" >"$d/run"
		chmod +x "$d/run"
		setsid runsvdir "$W/runit" >/dev/null 2>&1 &
		SUP=$!
		;;
	s6|s6-fdholder)
		d=$W/s6/web
		mkdir -p "$d"
		# s6-supervise waits a second before restarting a service
		# that was not ready a second before: it says so at once.
		echo 3 >"$d/notification-fd"
		if [ "$C" = s6 ]; then
			printf '#!/bin/sh\nREADY_FD=3 exec %s bind %s\n' \
			    "$HTTPD" "$PORT"
		else
			# The holder, with rules that let root store and
			# retrieve; the socket stored once, before the server.
			mkdir -p "$W/s6/fdh" "$W/rules/uid/0/env"
			touch "$W/rules/uid/0/allow"
			echo '.*' >"$W/rules/uid/0/env/S6_FDHOLDER_STORE_REGEX"
			echo '.*' >"$W/rules/uid/0/env/S6_FDHOLDER_RETRIEVE_REGEX"
			printf '#!/bin/sh\nexec s6-fdholder-daemon -i %s %s\n' \
			    "$W/rules" "$W/fdh.sock" >"$W/s6/fdh/run"
			chmod +x "$W/s6/fdh/run"
			printf '#!/bin/sh\nREADY_FD=3 exec s6-fdholder-retrieve %s tcp:web %s stdin\n' \
			    "$W/fdh.sock" "$HTTPD"
		fi >"$d/run"
		chmod +x "$d/run"
		[ "$C" = s6-fdholder ] && touch "$d/down"
		setsid s6-svscan "$W/s6" >/dev/null 2>&1 &
		SUP=$!
		if [ "$C" = s6-fdholder ]; then
			local i
			for i in $(seq 1000); do
				[ -S "$W/fdh.sock" ] && break
				sleep 0.01
			done
			"$HTTPD" hold "$PORT" s6-fdholder-store "$W/fdh.sock" \
			    tcp:web
			rm -f "$d/down"
			for i in $(seq 1000); do
				s6-svok "$d" 2>/dev/null && break
				sleep 0.01
			done
			s6-svc -u "$d"
		fi
		;;
	esac
	wait_serving
}

restart() {
	case $C in
	pidvisor-*)	"$CTL" -s "$W/pv.sock" restart web >/dev/null ;;
	runit)		sv -w 10 restart "$W/runit/web" >/dev/null ;;
	s6*)		s6-svc -r "$W/s6/web" ;;
	esac
}

stop() {
	case $C in
	runit)	sv down "$W/runit/web" >/dev/null 2>&1 || true ;;
	s6*)	s6-svscanctl -t "$W/s6" 2>/dev/null || true ;;
	esac
	kill -TERM "$SUP" 2>/dev/null || true
	wait "$SUP" 2>/dev/null || true
	local p
	for p in $(pids_in_w); do
		[ "$p" = $$ ] || kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$W/pv" "$W/runit" "$W/s6" "$W/rules" "$W"/*.sock
}

# A latency of wrk's (12.34us, 1.20ms, 2.00s) in us.
us() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000
		else if (u == "m") n *= 60000000
		printf "%.0f", n }'
}

# wrk's report (--latency) into: requests failed rps p50_us p99_us.
parse() {
	local f=$1 req fail=0 x
	req=$(awk '/requests in/ { print $1 }' "$f")
	x=$(sed -n 's/.*Socket errors: connect \([0-9]*\), read \([0-9]*\), write \([0-9]*\), timeout \([0-9]*\).*/\1 \2 \3 \4/p' "$f")
	for n in $x; do fail=$((fail + n)); done
	x=$(awk '/Non-2xx/ { print $NF }' "$f")
	fail=$((fail + ${x:-0}))
	echo "$req $fail $(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$f") \
$(us "$(awk '$1 == "50%" { print $2 }' "$f")") \
$(us "$(awk '$1 == "99%" { print $2 }' "$f")")"
}

WRK=(wrk -t1 -c8 --latency -H "Connection: close")
declare -A RES
for C in $CONTENDERS; do
	case $C in
	runit)	command -v runsvdir >/dev/null || { echo "bench: no runit: $C left out" >&2; continue; } ;;
	s6*)	command -v s6-svscan >/dev/null || { echo "bench: no s6: $C left out" >&2; continue; } ;;
	esac
	for r in $(seq "$RUNS"); do
		PORT=$(free_port)
		start
		"${WRK[@]}" -d"${STEADY}s" "http://127.0.0.1:$PORT/" >"$W/steady" 2>&1
		dur=$(( (N * INTERVAL + 999) / 1000 + 2 ))
		"${WRK[@]}" -d"${dur}s" "http://127.0.0.1:$PORT/" >"$W/during" 2>&1 &
		wpid=$!
		sleep 1
		done_n=0
		for i in $(seq "$N"); do
			old=$(server_pid)
			restart
			wait_new "$old" || break
			done_n=$((done_n + 1))
			sleep "$(awk -v m="$INTERVAL" 'BEGIN { printf "%.3f", m / 1000 }')"
		done
		wait "$wpid"
		stop
		read -r sreq sfail srps sp50 sp99 <<<"$(parse "$W/steady")"
		read -r dreq dfail drps dp50 dp99 <<<"$(parse "$W/during")"
		echo "  $C run $r: $done_n restarts; steady $srps/s p99 ${sp99}us ($sfail failed); during $drps/s p50 ${dp50}us p99 ${dp99}us, $dfail failed of $dreq" >&2
		printf '{"figure":"restart under load","who":"%s","run":%d,"restarts":%d,"requests":%s,"failed":%s,"rps":%s,"p50_us":%s,"p99_us":%s,"steady_rps":%s,"steady_p99_us":%s,"steady_failed":%s}\n' \
		    "$C" "$r" "$done_n" "$dreq" "$dfail" "$drps" "$dp50" "$dp99" \
		    "$srps" "$sp99" "$sfail" >>"$JSON"
		RES[$C]+="$done_n $dreq $dfail $drps $dp50 $dp99 $sp99
"
	done
done

# median and spread of column K of the runs of a contender
stat() {
	awk -v k="$2" 'NF { print $k }' <<<"$1" | sort -g | awk '
	    { v[++n] = $1 } END {
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%s %s %s", m, v[1], v[n] }'
}
echo
echo "restarts under load: $N restarts, one every $INTERVAL ms, $RUNS runs; median [min-max]"
printf "%-16s %9s %16s %16s %10s %16s %22s\n" CONTENDER RESTARTS FAILED REQ/S "P50 US" "P99 US" "P99 / STEADY P99"
for C in $CONTENDERS; do
	[ -n "${RES[$C]:-}" ] || continue
	rows=${RES[$C]}
	ratios=$(awk 'NF { printf "%.2f\n", ($7 > 0 ? $6 / $7 : 0) }' <<<"$rows")
	read -r rm rl rh <<<"$(stat "$rows" 1)"
	read -r fm fl fh <<<"$(stat "$rows" 3)"
	read -r qm ql qh <<<"$(stat "$rows" 4)"
	read -r pm _ _ <<<"$(stat "$rows" 5)"
	read -r nm nl nh <<<"$(stat "$rows" 6)"
	read -r am al ah <<<"$(stat "$ratios" 1)"
	printf "%-16s %9s %16s %16s %10s %16s %22s\n" "$C" "$rm" \
	    "$fm [$fl-$fh]" "$qm [$ql-$qh]" "$pm" "$nm [$nl-$nh]" \
	    "$am [$al-$ah]"
	printf '{"figure":"restart under load, median","who":"%s","failed":%s,"failed_min":%s,"failed_max":%s,"rps":%s,"p99_us":%s,"p99_over_steady":%s,"p99_over_steady_min":%s,"p99_over_steady_max":%s}\n' \
	    "$C" "$fm" "$fl" "$fh" "$qm" "$nm" "$am" "$al" "$ah" >>"$JSON"
done
echo "(JSON lines in $JSON)"
