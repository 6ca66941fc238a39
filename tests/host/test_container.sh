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
	# it unblocks signals (spawn.c), or the SIGTERM was lost.
	grep -q "other: stopped (stopped; killed" "$T/log" &&
	    fail "other needed a SIGKILL: $(cat "$T/log")"
	:
}
