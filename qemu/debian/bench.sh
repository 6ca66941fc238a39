#!/bin/bash
# qemu/debian/bench.sh [ROUNDS] - the same Debian image (make debian)
# booted by pidvisor and by Debian's systemd (init=/lib/systemd/systemd),
# ROUNDS (3) measured boots each (0: none, the timers alone),
# interleaved, after one warm-up boot of each (systemd commits its machine-id and makes its journal on the
# first).  Each init boots its own copy of the image, under TCG, 2 CPUs,
# 1 GiB, the same kernel and command line.
#
# Measured in the guest's own clock (CLOCK_MONOTONIC, from kernel start):
#   init        the kernel runs /sbin/init or systemd (its log line)
#   tasks done  pidvisor: the last boot task done (ready = exit);
#               systemd: sysinit.target reached (its boot tasks)
#   sshd ready  pidvisor: ssh's ready_at (READY=1); systemd: ssh.service's
#               ActiveEnterTimestampMonotonic (READY=1, Type=notify)
#   all ready   pidvisor: the last ready_at of all started (a timer's
#               service waits for its time); systemd: the end of its
#               boot transaction (FinishTimestampMonotonic, "Startup
#               finished"), once is-system-running says "running"
#   power-off   from a line written to /dev/kmsg just before `pidvisorctl
#               poweroff` / `systemctl poweroff` to the kernel's
#               "reboot: Power down", both in the console log
#   restart     the image's demo-plain and demo-hardened (the same sleep,
#               bare and with every protection, the same unit for both
#               inits): `pidvisorctl restart --wait` and
#               `systemctl restart` (Type=exec) timed in the guest, the
#               median of 10 per boot
# pidvisor's ready_at is wall time: it is turned into uptime with one
# reading of both clocks (/proc/uptime: 10 ms steps).
#
# Prints a Markdown table of medians (and every boot), writes the same to
# build/debian/bench.md and the raw figures to build/debian/bench.json.
set -u
. "$(dirname "$0")/lib.sh"
. "$top/bench/late.sh"
rounds=${1:-3}
raw=$dir/bench-raw.txt
: >"$raw"
trap 'guest_kill; rm -f "$dir"/bench-*.img' EXIT

# (measure runs in a subshell: QEMU goes here, not by the trap)
die() {
	guest_kill
	echo "debian-bench: $*" >&2
	exit 1
}

# Seconds of the last "[   12.345678] $1" kernel message on the console
# (a getty's prompt may precede it on its line).
console_time() {
	sed 's/\x1b\[[0-9;]*[mK]//g' "$serial" |
	    grep -a -o -- "\[ *[0-9]*\.[0-9]*\] $1" | tail -1 |
	    sed 's/^\[ *\([0-9.]*\)\].*/\1/'
}

# restarts WHO: the median time (ms) of REST_N restarts of the image's
# demo-plain and demo-hardened services (the same sleep, bare and with
# every protection, for both inits: qemu/debian/build.sh), each timed in
# the guest around the command that restarts it and waits for its exec.
REST_N=10
restarts() {
	local cmd
	[ "$1" = pidvisor ] && cmd='pidvisorctl restart $s --wait' ||
	    cmd='systemctl restart $s'
	gssh "set -o pipefail; for s in demo-plain demo-hardened; do
		for i in \$(seq 1 $REST_N); do
			t0=\$(date +%s%N); $cmd >/dev/null || exit 1
			echo \$(( (\$(date +%s%N) - t0) / 1000 ))
		done | sort -n | sed -n $(((REST_N + 1) / 2))p || exit 1
	    done" | awk '{ printf "%.2f ", $1 / 1000 }'
	[ "${PIPESTATUS[0]}" = 0 ]	# a failed restart is no figure
}

# One boot: prints "init tasks sshd all poweroff" in seconds, then the
# restart medians in ms (plain, hardened).
measure() {
	local who=$1 tag=$2 out init tasks sshd all off t0 t1
	local args=()
	[ "$who" = systemd ] && args=(init=/lib/systemd/systemd)
	guest_boot "$dir/bench-$who.img" "bench-$tag" "${args[@]}" ||
	    die "$who ($tag): no ssh within 180 s; see $serial"
	if [ "$who" = pidvisor ]; then
		until_ok 120 pidvisor_ready ||
		    die "pidvisor ($tag): not all ready: $bad"
		out=$(gssh 'read u _ </proc/uptime; r=$(date +%s.%N)
		    echo "$u $r"; pidvisorctl status --json') ||
		    die "pidvisor ($tag): status failed"
		# ready_at, "2026-12-05T09:10:11.123Z", as uptime seconds
		read -r tasks sshd all < <(printf '%s' "$out" | sed 1d | jq -r \
		    --argjson off "$(printf '%s' "$out" | head -1 |
		    awk '{ printf "%.3f", $2 - $1 }')" '
		    def up: (.[0:19] + "Z" | fromdateiso8601) +
		        (.[20:23] | tonumber) / 1000 - $off;
		    map(select(.ready_at != null)) |	# timers not yet run
		    [ (map(select(.state == "done") | .ready_at | up) | max),
		      (map(select(.name == "ssh") | .ready_at | up) | first),
		      (map(.ready_at | up) | max) ] | map(. * 1000 | round / 1000)
		    | "\(.[0]) \(.[1]) \(.[2])"')
		rest=$(restarts pidvisor) || die "pidvisor ($tag): restarts"
		gssh 'echo pvbench-poweroff >/dev/kmsg; pidvisorctl poweroff' \
		    >/dev/null 2>&1
	else
		out=$(gssh timeout 100 systemctl is-system-running --wait)
		[ "$out" = running ] || die "systemd ($tag): $out: $(gssh \
		    systemctl --failed --no-legend)"
		read -r tasks sshd all < <(gssh '
		    m() { systemctl show -P ActiveEnterTimestampMonotonic "$1"; }
		    echo $(m sysinit.target) $(m ssh.service) \
		        $(systemctl show -P FinishTimestampMonotonic)' |
		    awk '{ printf "%.3f %.3f %.3f\n", $1/1e6, $2/1e6, $3/1e6 }')
		rest=$(restarts systemd) || die "systemd ($tag): restarts"
		gssh 'echo pvbench-poweroff >/dev/kmsg; systemctl poweroff' \
		    >/dev/null 2>&1
	fi
	guest_end || die "$who ($tag): still running 60 s after poweroff"
	init=$(console_time 'Run .* as init process')
	t0=$(console_time 'pvbench-poweroff')
	t1=$(console_time 'reboot: Power down')
	[ -n "$init" ] && [ -n "$t0" ] && [ -n "$t1" ] && [ -n "$all" ] ||
	    die "$who ($tag): figures missing; see $serial"
	off=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	echo "$init $tasks $sshd $all $off $rest"
}

# Timers: 1,000 jobs due at :00 of every minute, the same job and
# schedule for both inits (bench/timers.sh's, whose host table has cron):
# pidvisor's `on_calendar = *:*:00` with `accuracy = 1ms`, systemd's
# .timer units with OnCalendar=*:*:00 and AccuracySec=1ms (enabled in
# timers.target.wants) starting a Type=oneshot .service; each job
# `sh -c 'bench-svc stamp=/dev/ttyS1 exit'`: its line goes out of the
# guest on a second serial port, into a file here (one write(2) a line,
# which the tty does not interleave), so nothing is asked of the guest
# while it runs (under systemd and 1,000 timers its sshd answers minutes
# late, if at all).  The files are written into a copy of the image
# before it boots (debugfs: nothing mounted here), so that both inits
# arm the timers at boot.  One boot each, TIMER_MIN minutes counted
# after a first one dropped.
TIMER_MIN=3
TIMER_JOB="/bin/sh -c '/usr/local/bin/bench-svc stamp=/dev/ttyS1 exit'"

# timers_image WHO: bench-timers-WHO.img, the image with the jobs in.
timers_image() {
	local who=$1 img=$dir/bench-timers-$1.img w i
	w=$(mktemp -d)
	cp --sparse=always "$dir/rootfs.img" "$img"
	{
		echo "write $top/build/bench/bench-svc /usr/local/bin/bench-svc"
		if [ "$who" = pidvisor ]; then
			printf '%s\n' '[service]' "exec = $TIMER_JOB" \
			    'ready = exit' 'on_calendar = *:*:00' \
			    'accuracy = 1ms' >"$w/t.ini"
			echo "cd /etc/pidvisor/services"
			for ((i = 1; i <= 1000; i++)); do
				echo "write $w/t.ini t$i.ini"
			done
		else
			printf '%s\n' '[Timer]' 'OnCalendar=*:*:00' \
			    'AccuracySec=1ms' >"$w/t.timer"
			printf '%s\n' '[Service]' 'Type=oneshot' \
			    "ExecStart=$TIMER_JOB" >"$w/t.service"
			echo "cd /etc/systemd/system"
			for ((i = 1; i <= 1000; i++)); do
				echo "write $w/t.timer t$i.timer"
				echo "write $w/t.service t$i.service"
				echo "symlink timers.target.wants/t$i.timer" \
				    "/etc/systemd/system/t$i.timer"
			done
		fi
	} >"$w/cmds"
	debugfs -w -f "$w/cmds" "$img" >"$w/out" 2>&1 ||
	    { cat "$w/out" >&2; rm -rf "$w"; return 1; }
	rm -rf "$w"
}

# stamps_past WHO N: a run came out of the guest (a line each; the
# tty's output ends them with CR LF) N minutes after the minute of the
# first: the minutes before are over (late_stats counts a run in the
# minute it started).
stamps_past() {
	tr -d '\r' 2>/dev/null <"$dir/stamps-$1.raw" | grep '^[0-9]' |
	    awk -v n="$2" '{ m = int($1 / 60e9) } NR == 1 { first = m }
	    m >= first + n { found = 1 } END { exit !found }'
}

timers() {
	local who=$1 rc
	local args=()
	[ "$who" = systemd ] && args=(init=/lib/systemd/systemd)
	timers_image "$who" || die "$who (timers): the image"
	rm -f "$dir/stamps-$who.raw"
	PV_SERIAL2=file:$dir/stamps-$who.raw guest_start \
	    "$dir/bench-timers-$who.img" "timers-$who" "${args[@]}"
	# The first minute (the boot's) and TIMER_MIN more, over.
	# (systemd's boot under 1,000 timers takes minutes.)
	until_ok $(((TIMER_MIN + 12) * 60)) stamps_past "$who" \
	    $((TIMER_MIN + 1))
	rc=$?
	guest_kill
	tr -d '\r' <"$dir/stamps-$who.raw" | grep '^[0-9]' >"$dir/stamps-$who"
	rm -f "$dir/bench-timers-$who.img" "$dir/stamps-$who.raw"
	return $rc
}

# timers_row NAME WHO: its line of the table, or how few minutes it
# ran.
timers_row() {
	if [ "$(late_stats "$TIMER_MIN" "$dir/stamps-$2" | wc -l)" -eq \
	    "$TIMER_MIN" ]; then
		late_line "$1" "$TIMER_MIN" "$dir/stamps-$2"
	else
		printf '%-30s only %s runs in %s minutes from its boot\n' \
		    "$1" "$(wc -l <"$dir/stamps-$2")" "$((TIMER_MIN + 12))"
	fi
}

[ -s "$dir/rootfs.img" ] || die "no image (make debian)"
if [ "$rounds" -gt 0 ]; then
for who in pidvisor systemd; do
	cp --sparse=always "$dir/rootfs.img" "$dir/bench-$who.img"
	echo "# $who: warm-up boot" >&2
	measure "$who" "$who-0" >/dev/null
done
for r in $(seq 1 "$rounds"); do
	for who in pidvisor systemd; do
		line=$(measure "$who" "$who-$r") || exit 1
		echo "$who $r $line" >>"$raw"
		echo "# $who boot $r: $line" >&2
	done
done

# The table: medians, and every boot.
awk -v rounds="$rounds" '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	n[$1]++
	for (k = 3; k <= 9; k++) { v[$1, k, n[$1]] = $k; all[$1, k] = all[$1, k] " " $k }
}
END {
	split("init started|boot tasks done (systemd: sysinit.target)|sshd ready|all services ready|power-off|restart of a bare service (ms, median of 10 per boot)|restart of the same, hardened (ms, median of 10 per boot)", name, "|")
	printf "| figure (s, median of %d) | pidvisor | systemd | systemd / pidvisor | pidvisor boots | systemd boots |\n", rounds
	print "|---|---|---|---|---|---|"
	for (k = 3; k <= 9; k++) {
		for (i = 1; i <= n["pidvisor"]; i++) p[i] = v["pidvisor", k, i]
		for (i = 1; i <= n["systemd"]; i++) s[i] = v["systemd", k, i]
		mp = median(p, n["pidvisor"]); ms = median(s, n["systemd"])
		printf "| %s | %.2f | %.2f | %.2f | %s | %s |\n", name[k - 2], mp, ms,
		    (mp > 0 ? ms / mp : 0), all["pidvisor", k], all["systemd", k]
	}
}' "$raw" | tee "$dir/bench.md"
jq -R -s 'split("\n") | map(select(length > 0) | split(" ") |
    { init: .[0], boot: (.[1] | tonumber), init_started: (.[2] | tonumber),
      tasks_done: (.[3] | tonumber), sshd_ready: (.[4] | tonumber),
      all_ready: (.[5] | tonumber), poweroff: (.[6] | tonumber),
      restart_bare_ms: (.[7] | tonumber),
      restart_hardened_ms: (.[8] | tonumber) })' \
    "$raw" >"$dir/bench.json"
fi

# Timers last: each init's image is then no longer measured for boots.
for who in pidvisor systemd; do
	echo "# $who: 1,000 timers, $((TIMER_MIN + 1)) minutes after its first" >&2
	timers "$who" || echo "# $who: too few runs" >&2
done
{
	echo
	echo "1,000 jobs due at :00 of each minute (ms after it):"
	echo
	echo '```'
	late_head 1000
	timers_row "pidvisor accuracy = 1ms" pidvisor
	timers_row "systemd AccuracySec=1ms" systemd
	echo '```'
} | tee -a "$dir/bench.md"
