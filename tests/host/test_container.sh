# tests/host/test_container.sh - pidvisor as the init of a container:
# essential services and the exit status, the mode, the console's
# formats and dropped lines, control_group.  pv_up runs pidvisor as PID
# 1 of a new PID namespace: a container's init, as runc would
# (tests/container/ runs the real runc and podman).

# stop_ns: SIGTERM to pidvisor; its exit status (unshare's) in $STATUS.
stop_ns() {
	kill -TERM "$PV_PID" 2>/dev/null
	ns_ended
}

# ns_ended: pidvisor exits within 20 s; its status in $STATUS.
ns_ended() {
	waitpid_ms "$UNSHARE_PID" 20000 ||
	    fail "pidvisor did not exit in 20 s: $(cat "$T/log")"
	wait "$UNSHARE_PID" 2>/dev/null
	STATUS=$?
	UNSHARE_PID=
	sanitizer_clean
}

# An essential service ends: the others stop, and pidvisor exits with
# its status: a code, 128 + a signal, 127 for a missing program.
t_essential_status() {
	local spec want
	for spec in "exit=7|restart = never|7" \
	    "sleep=forever|restart = never|137" \
	    "exit=0|restart = on-failure|0" \
	    "exit=5|restart = always
start_limit_burst = 2
restart_delay = 10ms|5"; do
		pv_dir
		IFS='|' read -r -d '' act pol want <<<"$spec"
		want=${want%$'\n'}
		svc other <<-EOF
		exec = $H sleep=forever
		EOF
		# It waits for the test to open the FIFO go.
		mkfifo "$T/go"
		svc job <<-EOF
		exec = /bin/sh -c "test -e $T/went || { read x <$T/go; touch $T/went; }; exec $H $act"
		$pol
		essential = yes
		EOF
		pv_up
		expect_rc 0 ctl wait job ready --timeout=10s
		if [ "$act" = sleep=forever ]; then
			ctl signal job KILL
		else
			timeout 10 sh -c "echo go >'$T/go'" || fail "go"
		fi
		ns_ended
		expect_eq "$STATUS" "$want" "exit status for '$act', $pol"
		grep -q "job is essential and ended" "$T/log" ||
		    fail "no word of the end: $(cat "$T/log")"
		grep -q "other: stopped" "$T/log" || fail "other not stopped"
		rm -rf "$T"
		T=
	done
	pv_dir
	svc job <<-EOF
	exec = /nonexistent/program
	restart = never
	essential = yes
	EOF
	svc other <<-EOF
	exec = $H sleep=forever
	EOF
	unshare --pid --fork --mount-proc --kill-child \
	    "$PV" -v -c "$T/conf" -s "$T/ctl.sock" >"$T/log" 2>&1 &
	UNSHARE_PID=$!
	ns_ended
	expect_eq "$STATUS" 127 "a missing essential program"
	# other was stopped at once, maybe before its exec: not after its
	# stop_timeout: the child puts our handlers back to SIG_DFL before
	# it unblocks signals (spawn_child.c), or the SIGTERM was lost.
	grep -q "other: stopped (stopped; killed" "$T/log" &&
	    fail "other needed a SIGKILL: $(cat "$T/log")"
	:
}

# The first essential service to end decides; a stop by command is not
# an end; with none, a failed service makes the status 1.
t_essential_rules() {
	pv_dir
	mkfifo "$T/go-a"
	svc a <<-EOF
	exec = /bin/sh -c "read x <$T/go-a; exit 3"
	restart = never
	essential = yes
	EOF
	svc b <<-EOF
	exec = $H sleep=forever
	essential = yes
	stop_timeout = 5s
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=10s
	expect_rc 0 ctl stop b --wait --timeout=10s
	pv_answers || fail "pidvisor ended at a stop by command"
	expect_rc 0 ctl start b --wait --timeout=10s
	timeout 10 sh -c "echo go >'$T/go-a'" || fail "go"
	ns_ended
	expect_eq "$STATUS" 3 "the first essential service's status"

	pv_dir
	svc broken <<-EOF
	exec = $H exit=9
	restart = never
	EOF
	svc fine <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	wait_until 10000 eval '[ "$(field broken state)" = failed ]' ||
	    fail "broken did not fail"
	stop_ns
	expect_eq "$STATUS" 1 "exit status with a failed service"

	pv_dir
	svc fine <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	stop_ns
	expect_eq "$STATUS" 0 "exit status of a clean stop"
}

# A run-once job's exit is in status, text and JSON, after it ended.
t_status_exit() {
	pv_dir
	svc job <<-EOF
	exec = $H exit=4
	restart = never
	EOF
	svc killed <<-EOF
	exec = $H sleep=forever
	restart = never
	EOF
	pv_up
	wait_until 10000 eval '[ "$(field job state)" = failed ]' ||
	    fail "job did not end"
	expect_eq "$(field job exit_code)" 4 "exit_code"
	expect_eq "$(field job exit_signal)" null "exit_signal"
	expect_match "$(field job exited_at)" '^20[0-9-]+T[0-9:.]+Z$' "exited_at"
	expect_eq "$(field killed exit_code)" null "before it ran out"
	ctl signal killed TERM
	wait_until 10000 eval '[ "$(field killed state)" = failed ]' ||
	    fail "killed did not end"
	expect_eq "$(field killed exit_code)" 143 "exit_code of a signal"
	expect_eq "$(field killed exit_signal)" TERM "exit_signal"
	expect_match "$(ctl status job)" "job +failed .*exited with code 4"
	# Started by command, then stopped: the last exit stays in view.
	expect_rc 0 ctl start killed --wait --timeout=10s
	expect_rc 0 ctl stop killed --wait --timeout=10s
	expect_match "$(ctl status killed)" "stopped; last exit: signal TERM"
	pv_down
}

# mode = system in a PID namespace: the machine's way, reboot(2), which
# ends the namespace as if by SIGHUP (129), instead of exiting.
t_mode_system() {
	pv_dir
	sup_ini <<-EOF
	mode = system
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	grep -q "PID 1 of a machine (mode in pidvisor.ini)" "$T/log" ||
	    fail "mode: $(cat "$T/log")"
	stop_ns
	expect_eq "$STATUS" 129 "reboot(2) in a PID namespace"
	grep -q "rebooting" "$T/log" || fail "no reboot: $(cat "$T/log")"
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	grep -q "PID 1 of a container$" "$T/log" || fail "auto: $(cat "$T/log")"
	stop_ns
	expect_eq "$STATUS" 0 "a container's init exits"
}

# log_format = json: a service's stdout lines on our stdout, its stderr
# lines and our own messages on our stderr, one JSON object each.
t_log_json() {
	pv_dir
	sup_ini <<-EOF
	log_format = json
	EOF
	svc talk <<-EOF
	exec = /bin/sh -c "echo 'to out'; echo 'to err' >&2; exec $H sleep=forever"
	EOF
	PV_OUT=$T/out pv_up
	wait_until 10000 grep -q '"to out"' "$T/out" || fail "out: $(cat "$T/out")"
	wait_until 10000 grep -q '"to err"' "$T/log" || fail "err: $(cat "$T/log")"
	jq -e 'select(.line == "to out") | .service == "talk" and
	    .stream == "stdout" and (.pid > 0) and
	    (.time | test("^20.*Z$"))' "$T/out" >/dev/null ||
	    fail "stdout line: $(cat "$T/out")"
	grep -q '"to err"' "$T/out" && fail "stderr line on stdout"
	# Every line of our stderr is JSON: pidvisor's own too.
	jq -e . "$T/log" >/dev/null || fail "not JSON: $(cat "$T/log")"
	jq -se 'map(select(.service == "pidvisor" and
	    (.line | test("1 service from")))) | length == 1' "$T/log" \
	    >/dev/null || fail "own messages: $(cat "$T/log")"
	jq -se 'map(select(.line == "to err" and .stream == "stderr")) |
	    length == 1' "$T/log" >/dev/null || fail "stderr line"
	pv_down
}

# log_format = rfc3339, and lines the console cannot take (no one reads
# it) are dropped, counted in status.
t_log_dropped() {
	pv_dir
	sup_ini <<-EOF
	log_format = rfc3339
	EOF
	svc flood <<-EOF
	exec = /bin/sh -c "i=0; while [ \$i -lt 20000 ]; do echo line-\$i-................................................; i=\$((i+1)); done; exec $H sleep=forever"
	EOF
	svc calm <<-EOF
	exec = /bin/sh -c "echo calm; exec $H sleep=forever"
	EOF
	mkfifo "$T/fifo"
	# Held open, never read: the pipe fills, then our queue.
	exec {hold}<>"$T/fifo"
	PV_OUT=$T/fifo pv_up
	wait_until 20000 eval '[ "$(field flood log_dropped)" -gt 0 ]' ||
	    fail "nothing dropped: $(ctl status flood --json)"
	expect_match "$(ctl status flood)" "[0-9]+ log lines dropped"
	expect_eq "$(field calm log_dropped)" 0 "calm's drops"
	# What did get through has the time and the stream.
	local line
	read -r -t 5 line <&"$hold"
	expect_match "$line" '^20[0-9-]+T[0-9:.]+Z (flood|calm)\[[0-9]+\] stdout: ' \
	    "an rfc3339 line"
	grep -qE '^20[0-9-]+T[0-9:.]+Z pidvisor\[[0-9]+\] stderr: ' "$T/log" ||
	    fail "own messages: $(head -3 "$T/log")"
	# No one reads the console: the exit still comes (its last flush
	# is bounded).
	pv_down
	exec {hold}>&-
}

# control_group: the socket is the group's (0660), and its members may
# use every verb; others may not connect.
t_control_group() {
	pv_dir
	sup_ini <<-EOF
	control_group = 4711
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	chmod 755 "$T"
	expect_eq "$(stat -c '%a %g' "$T/ctl.sock")" "660 4711" "the socket"
	local member="setpriv --reuid=65534 --regid=65534 --groups=4711"
	local other="setpriv --reuid=65534 --regid=65534 --clear-groups"
	local pid
	pid=$(field a pid)
	# shellcheck disable=SC2086
	expect_rc 0 $member "$CTL" -s "$T/ctl.sock" restart a --wait \
	    --timeout=10s
	[ "$(field a pid)" != "$pid" ] || fail "a did not restart"
	# A member may change services, not run a binary of its choice.
	# shellcheck disable=SC2086
	expect_rc 5 $member "$CTL" -s "$T/ctl.sock" reexec
	expect_match "$OUT" "only root or pidvisor's own user"
	# shellcheck disable=SC2086
	expect_rc 5 $other "$CTL" -s "$T/ctl.sock" status
	expect_match "$OUT" "permission denied"
	pv_down
}
