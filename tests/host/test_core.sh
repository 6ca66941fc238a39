# tests/host/test_core.sh - the supervisor core, driven through pidvisorctl.
# Each t_* function is one test; tests/host/run.sh runs each in its own
# shell with a deadline.

# ready = exec: ready as soon as exec succeeded.
t_ready_exec() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	expect_eq "$(field a state)" stopped
	expect_rc 3 ctl status a
	expect_rc 0 ctl start a --wait --timeout=5s
	expect_eq "$(field a state)" ready
	expect_rc 0 ctl status a
	pv_down
}

# ready = fd:3: not ready until the newline, and start --wait waits for it.
t_ready_fd() {
	pv_dir
	svc a <<-EOF
	exec = $H stamp=$T/s:START sleep=300 stamp=$T/s:READY ready-fd=3 \
	    sleep=forever
	ready = fd:3
	enabled = no
	EOF
	pv_up
	expect_rc 0 ctl start a --wait --timeout=5s
	"$H" stamp="$T/s:DONE"
	expect_eq "$(cut -d' ' -f1 "$T/s" | tr '\n' ' ')" "START READY DONE " \
	    "order"
	local start done
	start=$(awk '$1=="START"{print $2}' "$T/s")
	done=$(awk '$1=="DONE"{print $2}' "$T/s")
	[ $((done - start)) -ge 300 ] ||
	    fail "start --wait returned after $((done - start)) ms, < 300"
	expect_eq "$(field a state)" ready
	pv_down
}

# fd:3 closed without a newline: never ready; ready_timeout ends it.
t_ready_fd_closed() {
	pv_dir
	svc a <<-EOF
	exec = $H close-fd=3 sleep=forever
	ready = fd:3
	ready_timeout = 700ms
	restart = never
	enabled = no
	EOF
	pv_up
	expect_rc 1 ctl start a --wait --timeout=10s
	expect_match "$OUT" "a: failed \(ready timeout\)"
	expect_eq "$(field a reason)" "ready timeout"
	pv_down
}

# ready = notify: READY=1 and STATUS= from the main process.
t_ready_notify() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=200 notify=STATUS=warm notify=READY=1 sleep=forever
	ready = notify
	enabled = no
	EOF
	pv_up
	expect_rc 0 ctl start a --wait --timeout=5s
	expect_eq "$(field a state)" ready
	expect_eq "$(field a status_text)" warm
	expect_match "$(ctl status a)" '\[warm\]' "status text"
	pv_down
}

# Nothing but the main process can make a notify service ready: not its
# child, not another process in the namespace, not one outside it.
t_notify_impostors() {
	pv_dir
	svc a <<-EOF
	exec = $H notify-child=READY=1 sleep=forever
	ready = notify
	ready_timeout = 1500ms
	restart = never
	enabled = no
	EOF
	pv_up
	ctl start a --wait --timeout=10s >"$T/out" 2>&1 &
	local waiter=$!
	ctl wait a starting --timeout=5s || fail "a never started"
	NOTIFY_SOCKET=$T/notify/a.sock "$H" notify=READY=1
	ns env NOTIFY_SOCKET="$T/notify/a.sock" "$H" notify=READY=1
	# A root service's socket takes anyone's datagrams: they count for
	# nothing.
	expect_rc 0 env NOTIFY_SOCKET="$T/notify/a.sock" setpriv --reuid=4242 \
	    --regid=4242 --clear-groups "$H" notify=READY=1
	wait $waiter
	expect_eq "$?" 1 "start --wait"
	expect_match "$(cat "$T/out")" "ready timeout"
	expect_eq "$(field a state)" failed
	pv_down
}

# A root service whose daemon drops its privileges before READY=1
# (dbus-daemon): its socket is root's, mode 0666, as systemd's is; a
# service with a user, or with an fd store (whose socket takes fds
# whatever the kernel), keeps a socket of that user's alone.
t_notify_root_drops() {
	pv_dir
	chmod 0755 "$T"
	svc a <<-EOF
	exec = setpriv --reuid=65534 --regid=65534 --clear-groups $H notify=READY=1 sleep=forever
	ready = notify
	EOF
	svc u <<-EOF
	exec = $H notify=READY=1 sleep=forever
	ready = notify
	user = nobody
	EOF
	svc f <<-EOF
	exec = $H notify=READY=1 sleep=forever
	ready = notify
	fdstore_max = 2
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=10s
	expect_rc 0 ctl wait u ready --timeout=10s
	expect_rc 0 ctl wait f ready --timeout=10s
	expect_eq "$(stat -c '%U %a' "$T/notify/f.sock")" "root 600" "f's socket"
	expect_eq "$(stat -c '%U %a' "$T/notify/a.sock")" "root 666" "a's socket"
	expect_eq "$(stat -c '%U %a' "$T/notify/u.sock")" "nobody 600" \
	    "u's socket"
	expect_eq "$(ns ps -o user= -p "$(field a pid)")" nobody "a's daemon"
	pv_down
}

# send_sighup (SendSIGHUP=, a getty's): SIGHUP follows the stop signal,
# so that a shell hears its terminal go; without it, none comes.
t_send_sighup() {
	pv_dir
	local s
	for s in hup:yes plain:no; do
		svc "${s%%:*}" <<-EOF
		exec = /bin/sh -c 'trap "echo term >>$T/${s%%:*}.sig" TERM; trap "echo hup >>$T/${s%%:*}.sig; exit 0" HUP; echo up; while :; do sleep 0.1; done'
		send_sighup = ${s#*:}
		stop_timeout = 1s
		EOF
	done
	pv_up
	for s in hup plain; do
		ctl wait "$s" ready --timeout=10s || fail "$s: $(ctl status "$s")"
		wait_until 10000 eval 'ctl logs "$s" | grep -q up' || fail "$s: no output"
		expect_rc 0 ctl stop "$s" --wait --timeout=10s
	done
	expect_match "$(cat "$T/hup.sig")" "hup"
	expect_eq "$(grep -c hup "$T/plain.sig" 2>/dev/null)" 0 "plain's SIGHUP"
	expect_match "$(cat "$T/plain.sig")" "term"
	pv_down
}

# READY=1 and exit at once: the message is read before the death.
t_notify_ready_then_exit() {
	pv_dir
	svc a <<-EOF
	exec = $H notify=READY=1 exit=0
	ready = notify
	restart = never
	enabled = no
	EOF
	pv_up
	local i
	for i in $(seq 1 20); do
		expect_rc 0 ctl start a --wait --timeout=5s
		ctl wait a stopped --timeout=5s || fail "a did not stop"
		expect_eq "$(field a reason)" "exited with code 0"
	done
	pv_down
}

# ready = forking: the first process exits 0 and leaves a daemon, which
# pid_file names (written after the first exited: read again until it
# is there); the daemon is the main process: its stop, its death and its
# restart.  A file that is no PID, one that names another's process,
# another user's file where no cgroup can vouch for its PID, one never
# written, and no pid_file without a cgroup each fail the start, saying
# why.
t_ready_forking() {
	local pid first
	pv_dir
	svc web <<-EOF
	exec = $H stamp=$T/first:UP daemon=$T/web.pid stamp=$T/w:UP on-term=$T/w:TERM sleep=forever
	ready = forking
	pid_file = $T/web.pid
	EOF
	svc junk <<-EOF
	exec = $H daemon=- sleep=forever
	ready = forking
	pid_file = $T/junk.pid
	restart = never
	enabled = no
	EOF
	svc other <<-EOF
	exec = $H daemon=- sleep=forever
	ready = forking
	pid_file = $T/other.pid
	restart = never
	enabled = no
	EOF
	svc theirs <<-EOF
	exec = $H daemon=- sleep=forever
	ready = forking
	pid_file = $T/theirs.pid
	restart = never
	enabled = no
	EOF
	svc never <<-EOF
	exec = $H daemon=- sleep=forever
	ready = forking
	pid_file = $T/never.pid
	ready_timeout = 1s
	restart = never
	enabled = no
	EOF
	svc guess <<-EOF
	exec = $H daemon=- sleep=forever
	ready = forking
	restart = never
	enabled = no
	EOF
	echo hello >"$T/junk.pid"
	echo 1 >"$T/other.pid"		# pidvisor, in its PID namespace
	echo 1 >"$T/theirs.pid"
	chown nobody "$T/theirs.pid"	# another user's: needs a cgroup
	pv_up
	expect_rc 0 ctl start web --wait --timeout=10s
	pid=$(field web pid)
	expect_eq "$pid" "$(cat "$T/web.pid")"
	first=$(cut -d' ' -f3 "$T/first")
	[ "$pid" != "$first" ] || fail "the first process is the main"
	expect_rc 0 ctl signal web KILL
	"$H" waitfile="$T/w:2:10000" || fail "web was not restarted"
	expect_rc 0 ctl wait web ready --timeout=10s
	[ "$(field web pid)" != "$pid" ] || fail "the daemon did not change"
	expect_eq "$(field web pid)" "$(cat "$T/web.pid")"
	expect_eq "$(field web restarts)" 1
	expect_rc 0 ctl stop web --wait --timeout=10s
	expect_eq "$(grep -c TERM "$T/w")" 1
	expect_rc 1 ctl start junk --wait --timeout=10s
	expect_match "$(field junk reason)" "pid_file $T/junk.pid: not a PID: 'hello"
	expect_rc 1 ctl start other --wait --timeout=10s
	expect_match "$(field other reason)" "PID 1 is not the service's"
	expect_rc 1 ctl start theirs --wait --timeout=10s
	expect_match "$(field theirs reason)" "pid_file $T/theirs.pid: another user's file, and no cgroup to check its PID is the service's"
	expect_rc 1 ctl start never --wait --timeout=10s
	expect_match "$(field never reason)" "ready timeout"
	expect_rc 1 ctl start guess --wait --timeout=10s
	expect_match "$(field guess reason)" "no pid_file, and no cgroup"
	pv_down
}

# A crashing service restarts after 100, 200, 400, 800 ms.
t_crash_backoff() {
	pv_dir
	svc a <<-EOF
	exec = $H stamp=$T/s:S exit=1
	restart_delay = 100ms
	start_limit_burst = 0
	EOF
	pv_up
	"$H" waitfile="$T/s:5:10000" || fail "fewer than 5 starts in 10 s"
	ctl stop a --wait --timeout=5s
	local gaps
	gaps=$(awk 'NR>1 && NR<=5 {printf "%d ", $2-prev} {prev=$2}' "$T/s")
	echo "gaps: $gaps"
	set -- $gaps
	[ "$1" -ge 95 ] && [ "$1" -lt 600 ] || fail "first gap $1 ms"
	[ "$2" -ge 195 ] && [ "$3" -ge 395 ] && [ "$4" -ge 795 ] ||
	    fail "gaps $gaps"
	# Each gap grows by half at least, unless (under memcheck) the
	# time to spawn and die, some 70 ms, is as long as the delay.
	if [ -z "${PV_MEMCHECK:-}" ]; then
		[ "$2" -ge $(($1 * 3 / 2)) ] && [ "$3" -ge $(($2 * 3 / 2)) ] &&
		    [ "$4" -ge $(($3 * 3 / 2)) ] || fail "gaps $gaps"
	fi
	expect_match "$(field a restarts)" "^[4-9]$"
	pv_down
}

# Too many starts within the interval: failed, with the last exit.
t_start_limit() {
	pv_dir
	svc a <<-EOF
	exec = $H exit=1
	restart_delay = 10ms
	start_limit_burst = 3
	start_limit_interval = 10s
	EOF
	pv_up
	expect_rc 0 ctl wait a failed --timeout=10s
	expect_eq "$(field a reason)" \
	    "start limit hit (3 starts in 10.0s); last: exited with code 1"
	expect_eq "$(field a restarts)" 2
	# start clears the limit: three more starts, then failed again.
	expect_rc 0 ctl start a
	expect_rc 0 ctl wait a failed --timeout=10s
	expect_eq "$(field a restarts)" 4
	pv_down
}

# Why a start failed, from the child before exec.
t_exec_failure() {
	pv_dir
	local name
	svc missing <<-EOF
	exec = /nonexistent/prog
	restart = never
	EOF
	echo "not a program" >"$T/data"
	chmod 644 "$T/data"
	svc noexec <<-EOF
	exec = $T/data
	restart = never
	EOF
	svc nopath <<-EOF
	exec = no-such-command-anywhere
	restart = never
	EOF
	svc nodir <<-EOF
	exec = $H sleep=forever
	workdir = /nonexistent/dir
	restart = never
	EOF
	pv_up
	for name in missing noexec nopath nodir; do
		expect_rc 0 ctl wait $name failed --timeout=5s
	done
	expect_eq "$(field missing reason)" "exec: No such file or directory"
	expect_eq "$(field noexec reason)" "exec: Permission denied"
	expect_eq "$(field nopath reason)" "exec: No such file or directory"
	expect_eq "$(field nodir reason)" "chdir: No such file or directory"
	pv_down
}

# Where clone3 answers ENOSYS (here a seccomp filter; also valgrind and
# Linux 5.2), pidvisor says so and spawns with clone(CLONE_PIDFD):
# readiness, the child's failure report, restart and stop all work.
t_no_clone3() {
	pv_dir
	local pid
	svc a <<-EOF
	exec = $H sleep=100 ready-fd=3 on-term=$T/s:a-stop sleep=forever
	ready = fd:3
	EOF
	svc missing <<-EOF
	exec = /nonexistent/prog
	restart = never
	EOF
	cat >"$T/pv-wrap" <<-EOF
	#!/bin/sh
	exec "$ROOT/build/test/noclone3" "$PV" "\$@"
	EOF
	chmod +x "$T/pv-wrap"
	PV="$T/pv-wrap" pv_up
	expect_match "$(cat "$T/log")" "clone3 is missing: spawning with clone" \
	    "log"
	expect_rc 0 ctl wait a ready --timeout=5s
	expect_rc 0 ctl wait missing failed --timeout=5s
	expect_eq "$(field missing reason)" "exec: No such file or directory"
	pid=$(field a pid)
	expect_rc 0 ctl restart a --wait --timeout=5s
	"$H" waitfile="$T/s:1:5000" || fail "no SIGTERM on restart"
	[ "$(field a pid)" != "$pid" ] || fail "the restart kept pid $pid"
	expect_eq "$(field a state)" ready
	expect_rc 0 ctl stop a --wait --timeout=5s
	"$H" waitfile="$T/s:2:5000" || fail "no SIGTERM on stop"
	expect_eq "$(field a state)" stopped
	pv_down
}

# requires: started after what they require is ready, stopped before it.
t_requires_order() {
	pv_dir
	svc c <<-EOF
	exec = $H stamp=$T/s:c-start sleep=200 stamp=$T/s:c-ready ready-fd=3 \
	    on-term=$T/s:c-stop sleep=forever
	ready = fd:3
	enabled = no
	EOF
	svc b <<-EOF
	exec = $H stamp=$T/s:b-start sleep=100 stamp=$T/s:b-ready ready-fd=3 \
	    on-term=$T/s:b-stop sleep=forever
	ready = fd:3
	requires = c
	enabled = no
	EOF
	svc a <<-EOF
	exec = $H stamp=$T/s:a-start on-term=$T/s:a-stop sleep=forever
	requires = b
	enabled = no
	EOF
	pv_up
	expect_rc 0 ctl start a --wait --timeout=10s
	expect_eq "$(cut -d' ' -f1 "$T/s" | tr '\n' ' ')" \
	    "c-start c-ready b-start b-ready a-start " "start order"
	expect_rc 0 ctl stop c --wait --timeout=10s
	expect_eq "$(cut -d' ' -f1 "$T/s" | tail -3 | tr '\n' ' ')" \
	    "a-stop b-stop c-stop " "stop order"
	expect_eq "$(field a state)" stopped
	pv_down
}

# A service that ignores SIGTERM is killed after stop_timeout.
t_stop_timeout() {
	pv_dir
	svc a <<-EOF
	exec = $H ignore=15 sleep=forever
	stop_timeout = 500ms
	EOF
	pv_up
	ctl wait a ready --timeout=5s
	"$H" stamp="$T/s:BEGIN"
	expect_rc 0 ctl stop a --wait --timeout=10s
	"$H" stamp="$T/s:END"
	expect_eq "$(field a reason)" "stopped; killed after stop_timeout"
	local took
	took=$(awk '{t[NR]=$2} END {print t[2]-t[1]}' "$T/s")
	[ "$took" -ge 500 ] || fail "stopped after $took ms, before stop_timeout"
	pv_down
}

# Orphans (double-forked grandchildren) are reaped, and the service's
# own exit status is never stolen by the orphan reaper.
t_orphans() {
	pv_dir
	svc a <<-EOF
	exec = $H orphans=50 sleep=300 exit=7
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait a failed --timeout=10s
	expect_eq "$(field a reason)" "exited with code 7"
	no_orphans() {
		[ "$(ns sh -c 'cat /proc/[0-9]*/comm 2>/dev/null' |
		    grep -c '^orphan$')" = 0 ]
	}
	wait_until 5000 no_orphans || fail "orphans left (alive or zombie)"
	expect_eq "$(ns sh -c 'cat /proc/[0-9]*/stat' | awk '$3=="Z"' | wc -l)" \
	    0 "zombies"
	pv_down
}

# A service dies and an unrelated process takes its PID: neither signal
# nor stop on the service may reach that process.
t_pid_reuse() {
	pv_dir
	svc victim <<-EOF
	exec = $H sleep=forever
	restart_delay = 1m
	restart_delay_max = 1m
	EOF
	pv_up
	local pid line
	pid=$(field victim pid)
	expect_rc 0 ctl signal victim KILL
	expect_rc 0 ctl wait victim backoff --timeout=5s
	coproc GRAB { ns "$PIDGRAB" "$pid"; }
	read -r -t 10 line <&"${GRAB[0]}"
	expect_eq "$line" "grabbed $pid" "pidgrab"
	expect_eq "$(field victim pid)" null "pid of a dead service"
	expect_rc 1 ctl signal victim TERM
	expect_eq "$OUT" "pidvisorctl: victim is not running"
	expect_rc 0 ctl stop victim --wait --timeout=5s
	expect_rc 0 ctl start victim --wait --timeout=5s
	[ "$(field victim pid)" != "$pid" ] || fail "new instance has $pid"
	expect_rc 0 ctl stop victim --wait --timeout=5s
	exec {GRAB[1]}>&-
	read -r -t 10 line <&"${GRAB[0]}"
	expect_eq "$line" "alive" "the process holding the old PID"
	pv_down
}

# Only root may change things; others may look.
t_nonroot() {
	pv_dir
	sup_ini <<-EOF
	control_mode = 0666
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	chmod 755 "$T"
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	local pid v
	pid=$(field a pid)
	# Every verb that changes something, or reads a service's output.
	for v in "start a" "stop a" "restart a" "signal a KILL" "logs a" \
	    "pressure kill a" reload shutdown reboot poweroff; do
		# shellcheck disable=SC2086
		expect_rc 5 $nobody "$CTL" -s "$T/ctl.sock" $v
		expect_eq "$OUT" "pidvisorctl: permission denied" "$v"
	done
	expect_rc 0 $nobody "$CTL" -s "$T/ctl.sock" status a
	expect_eq "$(field a state)" ready
	expect_eq "$(field a pid)" "$pid" "a's pid"
	chmod 600 "$T/ctl.sock"
	expect_rc 5 $nobody "$CTL" -s "$T/ctl.sock" status
	expect_match "$OUT" "permission denied"
	pv_down
}

# Garbage, oversized and malformed requests get an error; the daemon
# goes on serving.
t_hostile_requests() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	local pid
	pid=$(field a pid)
	expect_eq "$("$CTLRAW" "$T/ctl.sock" garbage)" \
	    "2 protocol error: expected a version 2 request"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" oversized)" \
	    "2 request too large (at most 4096 bytes)"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" badversion)" \
	    "2 protocol error: expected a version 2 request"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" noterm)" "2 malformed request"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" badtype)" \
	    "2 protocol error: expected a request"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" toomany)" "2 malformed request"
	"$CTLRAW" "$T/ctl.sock" hangup
	expect_rc 0 ctl status
	expect_eq "$(field a pid)" "$pid" "a untouched"
	pv_down
}

# Silent clients neither stall other clients nor stay forever; a full
# house gets a clear refusal.
t_silent_clients() {
	pv_dir
	sup_ini <<-EOF
	client_timeout = 1s
	max_clients = 8
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	local line
	coproc SILENT { "$CTLRAW" "$T/ctl.sock" silent 7 5000; }
	read -r -t 10 line <&"${SILENT[0]}"
	expect_eq "$line" "held 7"
	expect_rc 0 ctl status a
	read -r -t 10 line <&"${SILENT[0]}"
	expect_eq "$line" "closed 7" "silent clients dropped"
	wait "$SILENT_PID"
	coproc FULL { "$CTLRAW" "$T/ctl.sock" silent 8 5000; }
	read -r -t 10 line <&"${FULL[0]}"
	expect_eq "$line" "held 8"
	expect_rc 1 ctl status a
	expect_eq "$OUT" "pidvisorctl: too many clients"
	read -r -t 10 line <&"${FULL[0]}"
	expect_eq "$line" "closed 8"
	wait "$FULL_PID"
	expect_rc 0 ctl status a
	pv_down
}

# A client that asks for a large reply and never reads it neither stalls
# anyone else nor stays forever.
t_slow_reader() {
	pv_dir
	sup_ini <<-EOF
	client_timeout = 1s
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	local i
	for i in $(seq -w 1 6000); do
		printf '[service]\nexec = /bin/true\nenabled = no\n' \
		    >"$T/conf/services/idle-service-with-a-long-name-$i.ini"
	done
	pv_up
	[ "$(ctl status | wc -c)" -gt 400000 ] || fail "status too small"
	local line
	coproc SLOW { "$CTLRAW" "$T/ctl.sock" noread 10000; }
	read -r -t 10 line <&"${SLOW[0]}"
	expect_eq "$line" "sent"
	expect_rc 0 ctl status a
	expect_rc 0 ctl stop a --wait --timeout=5s
	read -r -t 15 line <&"${SLOW[0]}"
	expect_eq "$line" "dropped" "a client that does not read"
	wait "$SLOW_PID"
	pv_down
}

# An invalid tree: every error named, FILE:LINE, and nothing started.
t_bad_config() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	restart = sometimes
	requires = ghost
	EOF
	svc b <<-EOF
	ready = fd:1
	EOF
	expect_rc 2 "$PV" -c "$T/conf" -s "$T/ctl.sock"
	expect_match "$OUT" "services/a.ini:3: restart: expected always, on-failure, never, on-success, on-abnormal, on-abort or on-watchdog, not 'sometimes'"
	expect_match "$OUT" "services/a.ini:4: requires: unknown service 'ghost'"
	expect_match "$OUT" "services/b.ini:1: missing required key 'exec'"
	expect_match "$OUT" "services/b.ini:2: ready: expected exec, fd:N, notify, exit, health or forking"
	expect_match "$OUT" "4 errors in"
	[ ! -e "$T/ctl.sock" ] || fail "a socket was created"
}

# success_exit_status: a code or a signal it names is a clean end, for a
# task (done, not failed) and for restart = on-failure (stopped, not
# restarted); one it does not name is a failure, as before.
t_success_exit_status() {
	pv_dir
	svc job <<-EOF
	exec = $H exit=143
	ready = exit
	success_exit_status = 1 143
	EOF
	svc plain <<-EOF
	exec = $H exit=143
	ready = exit
	EOF
	svc hup <<-EOF
	exec = $H stamp=$T/h:UP sleep=forever
	restart = on-failure
	success_exit_status = SIGHUP
	EOF
	svc term <<-EOF
	exec = $H stamp=$T/t:UP sleep=forever
	restart = on-failure
	success_exit_status = SIGHUP
	EOF
	pv_up
	expect_rc 0 ctl start job --wait --timeout=5s
	expect_eq "$(field job state)" done
	expect_rc 1 ctl start plain --wait --timeout=5s
	expect_eq "$(field plain state)" failed
	ctl wait hup ready --timeout=5s
	ctl wait term ready --timeout=5s
	expect_rc 0 ctl signal hup HUP
	ctl wait hup stopped --timeout=5s
	expect_match "$(field hup reason)" "killed by signal HUP"
	expect_eq "$(field hup restarts)" 0
	expect_rc 0 ctl signal term TERM
	"$H" waitfile="$T/t:2:5000" || fail "term was not restarted"
	expect_eq "$(field term restarts)" 1
	expect_eq "$(grep -c UP "$T/h")" 1
	pv_down
}

# exec = -PROGRAM (systemd's ExecStart=-): every end is clean: a task
# that fails is done, restart = on-failure does not start it again after
# a failure, and the exit status is still shown; show writes the '-';
# a '-' alone is an error at its line.
t_exec_minus() {
	pv_dir
	svc job <<-EOF
	exec = -$H exit=3
	ready = exit
	EOF
	svc keep <<-EOF
	exec = -$H stamp=$T/k:UP exit=7
	restart = on-failure
	EOF
	# A program missing: done too (Debian's modprobe@ without kmod).
	svc gone <<-EOF
	exec = -$T/no-such-program
	ready = exit
	EOF
	pv_up
	expect_rc 0 ctl start gone --wait --timeout=5s
	expect_eq "$(field gone state)" done
	expect_match "$(field gone reason)" "exited with code 127"
	expect_rc 0 ctl start job --wait --timeout=5s
	expect_eq "$(field job state)" done
	expect_match "$(field job reason)" "exited with code 3"
	"$H" waitfile="$T/k:1:5000" || fail "keep did not start"
	ctl wait keep stopped --timeout=5s
	expect_match "$(field keep reason)" "exited with code 7"
	expect_eq "$(field keep restarts)" 0
	expect_rc 0 ctl show job
	expect_match "$OUT" "exec = -$H exit=3"
	pv_down
	pv_dir
	svc bad <<-EOF
	exec = - $H exit=3
	EOF
	expect_rc 1 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "services/bad.ini:2: exec: '-' goes right before the program, with no blank between"
}

# tty: the terminal is the service's 0, 1, 2 and controlling terminal,
# its modes made sane first (tty_reset: the pty is raw); a terminal that
# another session holds fails the start (tty_busy = fail), is waited for
# until that session lets it go (wait, the default: the waiter comes up
# after the holder's end), or is taken (steal).  ignore_sigpipe: SIGPIPE
# ignored in the service, default as it was.
t_tty() {
	pv_dir
	svc pty <<-EOF
	exec = $H pty=$T/tty:$T/ttyout
	EOF
	svc getty <<-EOF
	exec = $H ttyinfo=$T/info sleep=forever
	tty = $T/tty
	tty_reset = yes
	tty_vhangup = yes
	enabled = no
	EOF
	svc holder <<-EOF
	exec = $H ctty=$T/tty stamp=$T/h:HELD on-term=$T/w:GONE sleep=forever
	restart = never
	enabled = no
	EOF
	svc failer <<-EOF
	exec = $H ttyinfo=$T/info2 sleep=forever
	tty = $T/tty
	tty_busy = fail
	restart = never
	enabled = no
	EOF
	svc waiter <<-EOF
	exec = $H stamp=$T/w:UP ttyinfo=$T/info3 sleep=forever
	tty = $T/tty
	restart = never
	enabled = no
	EOF
	svc stealer <<-EOF
	exec = $H ttyinfo=$T/info4 sleep=forever
	tty = $T/tty
	tty_busy = steal
	env = TERM=xterm
	restart = never
	enabled = no
	EOF
	svc pipe <<-EOF
	exec = $H ttyinfo=$T/pipe sleep=forever
	ignore_sigpipe = yes
	EOF
	svc nopipe <<-EOF
	exec = $H ttyinfo=$T/nopipe sleep=forever
	EOF
	pv_up
	wait_until 5000 test -L "$T/tty" || fail "no pty"
	expect_rc 0 ctl start getty --wait --timeout=10s
	"$H" waitfile="$T/info:1:5000" || fail "getty: no info"
	expect_match "$(cat "$T/info")" "^tty /dev/pts/[0-9]+ ctty 1 out 1 err 1 canon 1 sigpipe dfl term vt220$"
	wait_until 5000 grep -q "hello tty" "$T/ttyout" || fail "nothing on the tty"
	expect_rc 0 ctl stop getty --wait --timeout=10s
	expect_rc 0 ctl start holder
	"$H" waitfile="$T/h:1:5000" || fail "the holder has no tty"
	expect_rc 1 ctl start failer --wait --timeout=10s
	expect_eq "$(field failer state)" failed
	expect_match "$(field failer reason)" "tty: Operation not permitted"
	expect_rc 0 ctl start waiter
	local pid
	wait_until 5000 eval 'pid=$(field waiter pid); [ "$pid" -gt 0 ] 2>/dev/null' ||
	    fail "waiter has no process"
	wait_until 5000 eval 'ns ls -l /proc/$pid/fd 2>/dev/null | grep -q inotify' ||
	    fail "waiter does not wait: $(ctl status waiter)"
	expect_eq "$(field waiter state)" starting
	expect_rc 0 ctl stop holder --wait --timeout=10s
	ctl wait waiter ready --timeout=10s || fail "waiter: $(ctl status waiter)"
	"$H" waitfile="$T/info3:1:5000" || fail "waiter: no info"
	expect_eq "$(cut -d' ' -f1 "$T/w" | tr '\n' ' ')" "GONE UP " "the holder's end, then the waiter"
	expect_match "$(cat "$T/info3")" " ctty 1 "
	expect_rc 0 ctl start stealer --wait --timeout=10s
	"$H" waitfile="$T/info4:1:5000" || fail "stealer: no info"
	expect_match "$(cat "$T/info4")" " ctty 1 .* term xterm$"
	"$H" waitfile="$T/pipe:1:5000" || fail "pipe: no info"
	"$H" waitfile="$T/nopipe:1:5000" || fail "nopipe: no info"
	expect_match "$(cat "$T/pipe")" "^tty none .* sigpipe ign term "
	expect_match "$(cat "$T/nopipe")" " sigpipe dfl term "
	pv_down
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	tty_reset = yes
	EOF
	svc b <<-EOF
	exec = $H sleep=forever
	tty = /dev/console
	console = yes
	log = none
	EOF
	svc c <<-EOF
	exec = $H sleep=forever
	tty = dev/tty1
	EOF
	expect_rc 1 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "services/a.ini:3: tty_reset: no tty to act on"
	expect_match "$OUT" "services/b.ini:3: tty: a console service has pidvisor's console"
	expect_match "$OUT" "services/b.ini:5: log: a tty service's output goes to its terminal"
	expect_match "$OUT" "services/c.ini:3: tty: 'dev/tty1' is not an absolute path"
}

# Exit codes of pidvisorctl.
t_exit_codes() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc off <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	expect_rc 6 ctl status
	expect_match "$OUT" "cannot reach pidvisor"
	expect_rc 2 ctl frobnicate
	expect_rc 2 ctl start
	expect_rc 2 ctl status --wait
	expect_rc 2 "$CTL"
	pv_up
	expect_rc 0 ctl status
	expect_rc 0 ctl status a
	expect_rc 3 ctl status off
	expect_rc 4 ctl status nope
	expect_eq "$OUT" "pidvisorctl: no such service 'nope'"
	expect_rc 4 ctl start nope
	expect_rc 2 ctl signal a BOGUS
	expect_rc 1 ctl signal off TERM
	expect_rc 2 ctl wait a sleeping
	expect_rc 1 ctl wait off ready --timeout=200ms
	expect_match "$OUT" "timed out waiting for off"
	expect_rc 0 ctl version
	expect_match "$OUT" "pidvisor 0\.1\.0 \(protocol 2\)"
	pv_down
}

# signal goes to the service's process; restart --wait gives a new one.
t_signal_and_restart() {
	pv_dir
	svc a <<-EOF
	exec = $H stamp=$T/s:UP on-term=$T/s:TERM sleep=forever
	EOF
	pv_up
	ctl wait a ready --timeout=5s
	local pid
	pid=$(field a pid)
	expect_rc 0 ctl restart a --wait --timeout=5s
	[ "$(field a pid)" != "$pid" ] || fail "restart kept pid $pid"
	expect_eq "$(cut -d' ' -f1 "$T/s" | tr '\n' ' ')" "UP TERM UP "
	expect_eq "$(field a restarts)" 0
	expect_rc 0 ctl signal a TERM
	"$H" waitfile="$T/s:5:5000" || fail "no restart after TERM"
	expect_eq "$(cut -d' ' -f1 "$T/s" | tr '\n' ' ')" "UP TERM UP TERM UP "
	expect_eq "$(field a restarts)" 1
	pv_down
}

# status --json is an array of complete objects.
t_status_json() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc "b\"q" <<-EOF
	exec = $H sleep=forever
	EOF
	svc off <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	expect_rc 2 "$PV" -c "$T/conf" -s "$T/ctl.sock"
	rm "$T/conf/services/b\"q.ini"
	pv_up
	ctl status --json | jq -e '
	    length == 2 and
	    all(.[]; has("name") and has("state") and has("pid") and
	        has("uptime_ms") and has("restarts") and has("reason") and
	        has("status_text")) and
	    .[0].name == "a" and .[0].state == "ready" and
	    (.[0].pid | type) == "number" and (.[0].uptime_ms | type) == "number" and
	    .[1].name == "off" and .[1].pid == null and .[1].reason == "not started"
	    ' >/dev/null || fail "status --json: $(ctl status --json)"
	pv_down
}

# As PID 1, SIGTERM stops everything in reverse dependency order, kills
# what ignores SIGTERM, and ends the namespace.
t_pid1_shutdown() {
	pv_dir
	svc db <<-EOF
	exec = $H on-term=$T/s:db-stop sleep=forever
	EOF
	svc web <<-EOF
	exec = $H on-term=$T/s:web-stop sleep=forever
	requires = db
	EOF
	svc stubborn <<-EOF
	exec = $H ignore=15 sleep=forever
	stop_timeout = 300ms
	EOF
	pv_up
	ctl wait web ready --timeout=5s
	ctl wait stubborn ready --timeout=5s
	pv_down
	expect_eq "$(cut -d' ' -f1 "$T/s" | tr '\n' ' ')" "web-stop db-stop "
	grep -q "stubborn: stopped (stopped; killed after stop_timeout)" \
	    "$T/log" || fail "stubborn was not killed: $(cat "$T/log")"
	grep -q "all services stopped" "$T/log" || fail "no orderly stop"
}

# As PID 1, pidvisor is a session of its own, weighted as nice -10 where
# the kernel has autogroup; each service is a session too, at nice 0.
t_pid1_session() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	ctl wait a ready --timeout=5s
	local pid
	# stat field 6 is the session; the comm is in field 2.
	sid() { ns sed 's/.*) //' /proc/"$1"/stat | cut -d' ' -f4; }
	expect_eq "$(sid 1)" 1 "pidvisor's session"
	pid=$(field a pid)
	expect_eq "$(sid "$pid")" "$pid" "the service's session"
	if [ -e /proc/"$PV_PID"/autogroup ]; then
		expect_match "$(cat /proc/"$PV_PID"/autogroup)" ' nice -10$' \
		    "pidvisor's autogroup"
		expect_match "$(ns cat /proc/"$pid"/autogroup)" ' nice 0$' \
		    "the service's autogroup"
	fi
	pv_down
}

# The supervisor never signals by PID: no kill() anywhere in its code.
t_no_kill_by_pid() {
	if grep -nE '(^|[^_a-z])kill[[:space:]]*\(' "$ROOT"/supervisor/*/*.c; then
		fail "kill() in supervisor/"
	fi
	grep -q pidfd_send_signal "$ROOT/supervisor/spawn/spawn.c" ||
	    fail "no pidfd_send_signal"
}
