# tests/host/test_security.sh - what a local user, or a service's own
# user, must not be able to do to PID 1 (SECURITY.md).  The attacks
# run as nobody where the finding is about an unprivileged user;
# `tests/run.sh attack` runs these alone.

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# A FIFO in services/ would block reload's open; a symlink out of the
# tree would read another file as a service.  Both are refused, at
# once, and nothing changes.
t_sec_config_files() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=5s
	local pid
	pid=$(field a pid)
	mkfifo "$T/conf/services/fifo.ini"
	ln -s /etc/passwd "$T/conf/services/out.ini"
	cp "$T/conf/services/a.ini" "$T/in.ini"
	expect_rc 1 timeout 10 "$CTL" -s "$T/ctl.sock" reload
	expect_match "$OUT" "fifo.ini: not a regular file"
	expect_match "$OUT" "out.ini: a symlink out of the configuration \
directory"
	expect_eq "$(field a pid)" "$pid" "a after a refused reload"
	# A symlink that stays in the tree is a file like any other.
	rm "$T/conf/services/fifo.ini" "$T/conf/services/out.ini"
	mv "$T/in.ini" "$T/conf/b.ini.real"
	ln -s ../b.ini.real "$T/conf/services/b.ini"
	expect_rc 0 ctl reload
	expect_rc 0 ctl wait b ready --timeout=5s
	pv_down
}

# A service never sees the supervisor's own NOTIFY_SOCKET (pidvisor
# started by another supervisor has one): with env keys or without.
t_sec_notify_env() {
	pv_dir
	svc plain <<-EOF
	exec = /bin/sh -c "echo NS=\${NOTIFY_SOCKET:-none}; exec sleep 1000"
	EOF
	svc keyed <<-EOF
	exec = /bin/sh -c "echo NS=\${NOTIFY_SOCKET:-none}; exec sleep 1000"
	env = A=1
	EOF
	NOTIFY_SOCKET=$T/parent.sock pv_up
	expect_rc 0 ctl wait plain ready --timeout=5s
	expect_rc 0 ctl wait keyed ready --timeout=5s
	wait_until 5000 eval 'grep -q NS= <<<"$(ctl logs plain)"' ||
	    fail "plain printed nothing"
	wait_until 5000 eval 'grep -q NS= <<<"$(ctl logs keyed)"' ||
	    fail "keyed printed nothing"
	expect_match "$(ctl logs plain)" "NS=none$" "plain's NOTIFY_SOCKET"
	expect_match "$(ctl logs keyed)" "NS=none$" "keyed's NOTIFY_SOCKET"
	pv_down
}

# A second pidvisor pointed at a running one's socket is refused before
# it touches anything: the running one's notify socket still works, and
# a path that is not a socket is never replaced by one.
t_sec_second_instance() {
	pv_dir
	svc n <<-EOF
	exec = $H notify=READY=1 sleep=forever
	ready = notify
	EOF
	pv_up
	expect_rc 0 ctl wait n ready --timeout=5s
	expect_rc 2 ns "$PV" -c "$T/conf" -s "$T/ctl.sock"
	expect_match "$OUT" "another supervisor is answering there"
	# Its notify socket is the same: a restart gets ready through it.
	expect_rc 0 ctl restart n --wait --timeout=5s
	# -s at a file that is not a socket: refused, the file kept.
	echo precious >"$T/precious.txt"
	expect_rc 2 ns "$PV" -c "$T/conf" -s "$T/precious.txt"
	expect_match "$OUT" "not a socket; not replaced"
	expect_eq "$(cat "$T/precious.txt")" precious "the file"
	# The notify sockets' directory taken by a file: refused the same
	# way; and one another user may write in, too.
	mkdir "$T/other"
	echo keep >"$T/other/notify"
	expect_rc 2 ns "$PV" -c "$T/conf" -s "$T/other/ctl.sock"
	expect_match "$OUT" "notify: not a directory; not replaced"
	expect_eq "$(cat "$T/other/notify")" keep "the notify path's file"
	[ ! -e "$T/other/ctl.sock" ] || fail "the refused one left its socket"
	rm "$T/other/notify"
	mkdir -m 0777 "$T/other/notify"
	expect_rc 2 ns "$PV" -c "$T/conf" -s "$T/other/ctl.sock"
	expect_match "$OUT" "notify: not ours alone"
	expect_rc 0 ctl restart n --wait --timeout=5s
	pv_down
}

# log = file: never through a symlink, never in a directory others can
# write in (they could put a symlink or a FIFO there).
t_sec_log_files() {
	pv_dir
	mkdir -p "$T/logs" "$T/open"
	chmod 0755 "$T" "$T/logs"
	chmod 1777 "$T/open"
	echo secret >"$T/secret"
	chmod 0600 "$T/secret"
	# What nobody could do in a directory it may write in.
	$NOBODY ln -s "$T/secret" "$T/open/w.log" ||
	    fail "nobody cannot write in $T/open"
	ln -s "$T/secret" "$T/logs/s.log"
	sup_ini <<-EOF
	log_dir = $T/logs
	EOF
	svc s <<-EOF
	exec = /bin/sh -c "echo to-s; exec sleep 1000"
	log = file
	EOF
	pv_up
	expect_rc 0 ctl wait s ready --timeout=5s
	wait_until 5000 grep -q "s: cannot write its log" "$T/log" ||
	    fail "no warning: $(cat "$T/log")"
	expect_match "$(grep "s: cannot write" "$T/log")" "is a symlink"
	expect_eq "$(cat "$T/secret")" secret "the file behind the symlink"
	wait_until 5000 eval 'grep -q to-s <<<"$(ctl logs s)"' ||
	    fail "the line is not kept in memory"
	pv_down
	# The same service, its log_dir writable by everyone.
	sup_ini <<-EOF
	log_dir = $T/open
	EOF
	svc w <<-EOF
	exec = /bin/sh -c "echo to-w; exec sleep 1000"
	log = file
	EOF
	rm "$T/conf/services/s.ini"
	pv_up
	expect_rc 0 ctl wait w ready --timeout=5s
	wait_until 5000 grep -q "w: cannot write its log" "$T/log" ||
	    fail "no warning: $(cat "$T/log")"
	expect_match "$(grep "w: cannot write" "$T/log")" "others may write"
	expect_eq "$(cat "$T/secret")" secret "the file behind the symlink"
	pv_down
}

# What a service prints reaches root's terminal escaped (logs, the
# console sink); its log file and JSON keep or encode the bytes.
t_sec_escape_output() {
	pv_dir
	mkdir -p "$T/logs"
	sup_ini <<-EOF
	log_dir = $T/logs
	EOF
	svc esc <<-EOF
	exec = /usr/bin/printf "title\\\\033]0;pwned\\\\007 end\\\\n"
	restart = never
	log = file
	EOF
	svc con <<-EOF
	exec = /usr/bin/printf "bell\\\\007 end\\\\n"
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait esc stopped --timeout=5s
	expect_rc 0 ctl wait con stopped --timeout=5s
	expect_match "$(ctl logs esc)" 'title\\x1b\]0;pwned\\x07 end$' "logs"
	grep -q $'\033' <<<"$(ctl logs esc)" && fail "logs let ESC through"
	expect_eq "$(ctl logs esc --json | jq -r '.[0].line')" \
	    $'title\033]0;pwned\a end' "--json"
	grep -q $'\033]0;pwned\a' "$T/logs/esc.log" ||
	    fail "the log file lost the bytes"
	wait_until 5000 grep -q 'con\[[0-9]*\]: bell' "$T/log" ||
	    fail "no console line: $(cat "$T/log")"
	grep -q $'bell\a' "$T/log" && fail "the console sink let BEL through"
	expect_match "$(grep 'con\[' "$T/log")" 'bell\\x07 end'
	# What a configuration says is text too: show and cat escape it.
	printf 'env = T=a\033]0;x\007b\n' >>"$T/conf/services/con.ini"
	expect_rc 0 ctl reload
	expect_match "$(ctl show con | grep '^env')" 'T=a\\x1b\]0;x\\x07b'
	expect_match "$(ctl cat con | grep '^env')" 'T=a\\x1b\]0;x\\x07b'
	grep -q $'\033' <<<"$(ctl cat con)" && fail "cat let ESC through"
	# status: STATUS= and the reason, C0, DEL and C1 (as UTF-8) alike.
	printf '[service]\nexec = %s notify=READY=1 notify=STATUS=a\033[2J\177\302\2332J\302\2350;x\007b sleep=forever\nready = notify\n' \
	    "$H" >"$T/conf/services/st.ini"
	printf '[service]\nexec = /bin/true\nenv_file = %s/e\302\2330;x\nrestart = never\n' \
	    "$T" >"$T/conf/services/rs.ini"
	expect_rc 0 ctl reload
	expect_rc 0 ctl wait st ready --timeout=5s
	expect_rc 0 ctl wait rs failed --timeout=5s
	local out
	out=$(ctl status st rs 2>&1)
	echo "# $out" >&2
	LC_ALL=C grep -q $'\033\|\177\|\302\233\|\302\235\|\007' <<<"$out" &&
	    fail "status let a control through: $(od -c <<<"$out")"
	expect_match "$out" 'a\\x1b\[2J\\x7f\\xc2\\x9b2J\\xc2\\x9d0;x\\x07b' "st"
	expect_match "$out" 'rs .*env_file: .*/e\\xc2\\x9b0;x: No such file' "rs"
	LC_ALL=C grep -q $'\302\233' <<<"$(ctl status st --json)" &&
	    fail "JSON let a C1 control through"
	pv_down
}

# A user who may connect cannot fill the control socket: one user holds
# at most a quarter of max_clients, all other users together leave a
# quarter free, and root always gets in.
t_sec_client_flood() {
	pv_dir
	chmod 0755 "$T"
	sup_ini <<-EOF
	max_clients = 8
	control_mode = 0666
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=5s
	local i pids=()
	for i in 1 2 3 4; do
		$NOBODY "$CTL" -s "$T/ctl.sock" wait a stopped --timeout=60s \
		    >"$T/w$i" 2>&1 &
		pids+=($!)
	done
	# Two are held, two refused.
	wait_until 15000 eval '[ "$(grep -l "too many clients" "$T"/w* |
	    wc -l)" = 2 ]' || fail "nobody's clients: $(cat "$T"/w*)"
	expect_rc 0 ctl status a
	expect_rc 0 ctl restart a --wait --timeout=5s
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pv_down
}

# A service's user may send to its notify socket; a datagram carrying
# the last reference to a TCP socket that lingers with unsent data must
# not make PID 1 wait out the linger: the kernel refuses the fd
# (SO_PASSRIGHTS), or, on a kernel without (PIDVISOR_NO_PASSRIGHTS=1
# makes this one so), a drainer takes it off the socket and drops its
# linger.  Another user cannot reach the socket at all.
t_sec_notify_fds() {
	local mode attacker t0 ms
	for mode in rights peek; do
		pv_dir
		chmod 0755 "$T"
		svc a <<-EOF
		exec = $H notify=READY=1 sleep=forever
		ready = notify
		user = nobody
		EOF
		if [ $mode = peek ]; then
			PIDVISOR_NO_PASSRIGHTS=1 pv_up
		else
			pv_up
		fi
		expect_rc 0 ctl wait a ready --timeout=5s
		expect_eq "$(stat -c '%U %a' "$T/notify/a.sock")" "nobody 600" \
		    "a's socket"
		expect_rc 0 setpriv --reuid=4242 --regid=4242 --clear-groups \
		    "$H" linger="$T/notify/a.sock:0"
		expect_match "$OUT" "refused: Permission denied" "another user"
		$NOBODY "$H" linger="$T/notify/a.sock:30" >"$T/linger.out" 2>&1 &
		attacker=$!
		bg $attacker
		wait_until 10000 grep -q "sent\|refused" "$T/linger.out" ||
		    fail "the attack did not run: $(cat "$T/linger.out")"
		t0=${EPOCHREALTIME/./}
		expect_rc 0 timeout 10 "$CTL" -s "$T/ctl.sock" status a
		ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
		echo "# $mode: $(cat "$T/linger.out"); status took $ms ms" >&2
		# The linger is 30 s: a close on the loop would hold status
		# that long; anything well under it is the loop free, loaded
		# or not.
		[ "$ms" -lt 15000 ] || fail "status took $ms ms"
		expect_rc 0 ctl restart a --wait --timeout=5s
		kill "$attacker"
		wait "$attacker" 2>/dev/null
		pv_down
	done
}

# A kill_mode this system cannot give degrades, and says so: at start
# in the log, in status on stderr and in JSON.  (Here, without cgroups,
# cgroup acts as group; a kernel without PIDFD_SIGNAL_PROCESS_GROUP
# makes group act as process.)
t_sec_kill_mode_degraded() {
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] &&
	    echo "# cgroups here: cgroup mode does not degrade" >&2
	pv_dir
	svc cg <<-EOF
	exec = $H sleep=forever
	kill_mode = cgroup
	EOF
	svc pr <<-EOF
	exec = $H sleep=forever
	kill_mode = process
	EOF
	svc df <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 ctl wait cg ready --timeout=5s
	local real
	real=$(field cg kill_mode_effective)
	expect_eq "$(field cg kill_mode)" cgroup "as set"
	expect_eq "$(field pr kill_mode_effective)" process "pr"
	# The default is cgroup too, and adapts in silence.
	expect_eq "$(field df kill_mode)/$(field df kill_mode_effective)" \
	    "cgroup/$real" "the default"
	if [ "$real" != cgroup ]; then
		expect_match "$(ctl status 2>&1 >/dev/null)" \
		    "cg: kill_mode = cgroup acts as $real here" "the note"
		grep -q "cg: kill_mode = cgroup acts as $real here" "$T/log" ||
		    fail "no warning at start: $(cat "$T/log")"
		! ctl status 2>&1 >/dev/null | grep -q "df:" ||
		    fail "a note on the default"
		! grep -q "df: kill_mode" "$T/log" || fail "a warning on the default"
	fi
	pv_down
}

# A child that never reaches exec (here: its binary on a FUSE mount
# that never answers a read; its own user could SIGSTOP it as well)
# holds no other service's start, and is killed at the spawn deadline.
t_sec_spawn_stall() {
	pv_dir
	svc stuck <<-EOF
	exec = $T/fh/file
	restart = never
	enabled = no
	EOF
	svc other <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	# Its mount namespace only: no fork, so that $! is fuse-hang.
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" exec \
	    >"$T/fh.log" 2>&1 &
	local fh=$!
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	expect_rc 0 ctl start stuck
	wait_until 5000 grep -q "read held" "$T/fh.log" ||
	    fail "the exec did not reach the file system"
	expect_rc 0 ctl start other --wait --timeout=5s
	# Killed at the deadline; stuck in the kernel, it dies when the
	# mount answers.
	expect_rc 0 ctl wait stuck stopping --timeout=20s
	expect_eq "$(field stuck reason)" "spawn timed out"
	kill -TERM "$fh"
	wait "$fh" 2>/dev/null
	expect_rc 0 ctl wait stuck failed --timeout=10s
	expect_eq "$(field stuck reason)" "spawn timed out"
	pv_down
}

# PID 1 that crashes does not take the system down: with crash_action
# freeze (the default) it says so, leaves the services running, stops
# answering, and goes on reaping orphans; with reboot it ends (here:
# its PID namespace).  The crash is a SIGSEGV sent to it, which takes
# the same handler as a fault.  The crash handler is a machine's init's
# (a container's crash ends the container): mode = system.
t_sec_crash() {
	pv_dir
	sup_ini <<-EOF
	mode = system
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=5s
	local pid
	pid=$(field a pid)
	kill -SEGV "$PV_PID"
	wait_until 5000 grep -q "PID 1 crashed: signal 11" "$T/log" ||
	    fail "no crash message: $(cat "$T/log")"
	expect_match "$(grep "PID 1 crashed" "$T/log")" "frozen"
	kill -0 "$UNSHARE_PID" || fail "the namespace ended"
	ns kill -0 "$pid" || fail "the service is gone"
	# Orphans are still reaped: one made now leaves no zombie.
	ns "$H" orphans=3
	no_zombies() {
		[ "$(ns sh -c 'cat /proc/[0-9]*/stat' | awk '$3=="Z"' |
		    wc -l)" = 0 ]
	}
	wait_until 5000 no_zombies || fail "zombies left after the crash"
	kill -KILL "$UNSHARE_PID"
	wait "$UNSHARE_PID" 2>/dev/null
	UNSHARE_PID=
	# crash_action = reboot: the namespace ends.
	sup_ini <<-EOF
	mode = system
	crash_action = reboot
	EOF
	pv_up
	kill -ABRT "$PV_PID"
	waitpid_ms "$UNSHARE_PID" 10000 || fail "crash_action = reboot: still up"
	wait "$UNSHARE_PID" 2>/dev/null
	UNSHARE_PID=
	grep -q "PID 1 crashed: signal 6.*rebooting" "$T/log" ||
	    fail "no crash message: $(cat "$T/log")"
	# A container's init has no crash handler: a crash ends the
	# container.  (A signal sent from outside is no fault: the kernel
	# ignores it for a namespace's init without a handler.)  SIGABRT
	# and SIGILL, which the sanitizer leaves alone, are not caught.
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	local cgt
	cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/"$PV_PID"/status)
	(((0x$cgt >> (6 - 1)) & 1)) && fail "SIGABRT caught in a container"
	(((0x$cgt >> (4 - 1)) & 1)) && fail "SIGILL caught in a container"
	pv_down
	pv_dir
	sup_ini <<-EOF
	mode = system
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/"$PV_PID"/status)
	(((0x$cgt >> (6 - 1)) & 1)) || fail "SIGABRT not caught by a machine's init"
	pv_down
}

# An env file in a directory the service's user may write (an app's own
# .env): that user can put a symlink there.  It is read by the spawn
# child with the service's credentials, never by PID 1 on its loop: a
# link into a FUSE mount whose reads never answer holds that child
# alone (status answers; the spawn deadline ends it); a link to a file
# only root may read gets "Permission denied", not its variables; a
# root service does not follow a link another user owns; and no error
# repeats what a file says.
t_sec_env_file() {
	pv_dir
	chmod 0755 "$T"
	mkdir -p "$T/app" "$T/fh"
	chown 65534:65534 "$T/app"
	printf 'DB_PASSWORD=hunter2\n' >"$T/secret"
	chmod 0600 "$T/secret"
	printf '\033]0;pwned\007 not KEY=VALUE\n' >"$T/escape"
	svc app <<-EOF
	exec = /bin/sh -c "echo pw=\$DB_PASSWORD; exec sleep 1000"
	user = nobody
	env_file = $T/app/.env
	restart = never
	enabled = no
	EOF
	svc rootapp <<-EOF
	exec = /bin/sh -c "echo pw=\$DB_PASSWORD; exec sleep 1000"
	env_file = $T/app/.env
	restart = never
	enabled = no
	EOF
	svc esc <<-EOF
	exec = /bin/sh -c "exec sleep 1000"
	env_file = $T/escape
	restart = never
	enabled = no
	EOF
	pv_up
	# (b) A root-only file: the service's user cannot read it.
	$NOBODY ln -s "$T/secret" "$T/app/.env"
	expect_rc 1 ctl start app --wait --timeout=10s
	expect_match "$OUT" "env_file: $T/app/.env: Permission denied"
	[[ "$(ctl logs app 2>&1)" != *hunter2* ]] || fail "the secret leaked"
	# A root service: nobody's link is not followed.
	expect_rc 1 ctl start rootapp --wait --timeout=10s
	expect_match "$OUT" "a symlink on its path is owned by uid 65534"
	[[ "$(ctl logs rootapp 2>&1)" != *hunter2* ]] ||
	    fail "the secret leaked to root's service"
	# (c) Where and what, not what it says.
	expect_rc 1 ctl start esc --wait --timeout=10s
	expect_match "$OUT" "env_file: $T/escape:1:1: not a variable name"
	[[ "$(ctl status esc 2>&1; grep esc: "$T/log")" != *pwned* ]] ||
	    fail "the file's text was repeated: $(ctl status esc)"
	# (a) A FUSE file whose read never answers.
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" \
	    >"$T/fh.log" 2>&1 &
	local fh=$! t0 ms
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	rm "$T/app/.env"
	$NOBODY ln -s "$T/fh/file" "$T/app/.env"
	expect_rc 0 ctl start app
	wait_until 10000 grep -q "read held" "$T/fh.log" ||
	    fail "the read did not reach the file system"
	t0=${EPOCHREALTIME/./}
	expect_rc 0 timeout 8 "$CTL" -s "$T/ctl.sock" status
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo "# status with the env file's read held: $ms ms" >&2
	expect_rc 0 ctl wait app stopping --timeout=20s
	expect_eq "$(field app reason)" "spawn timed out"
	kill -TERM "$fh"
	wait "$fh" 2>/dev/null
	expect_rc 0 ctl wait app failed --timeout=10s
	pv_down
}

# A stop that never ends holds no shutdown: a notify service answering
# SIGTERM with EXTEND_TIMEOUT_USEC of 49 days gets 90 s at most per
# message, and shutdown_timeout ends everything: SIGKILL, and a second
# later pidvisor goes on without what did not die (here a process held
# in D state by a FUSE read that is never answered), saying which.
t_sec_stop_never_ends() {
	pv_dir
	sup_ini <<-EOF
	shutdown_timeout = 2s
	EOF
	svc ext <<-EOF
	exec = $H notify=READY=1 on-term-notify=EXTEND_TIMEOUT_USEC=4294967295000 sleep=forever
	ready = notify
	stop_timeout = 1s
	EOF
	svc stuck <<-EOF
	exec = $T/fh/file
	restart = never
	enabled = no
	EOF
	mkdir -p "$T/fh"
	pv_up
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" exec \
	    >"$T/fh.log" 2>&1 &
	local fh=$! t0 ms
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	expect_rc 0 ctl wait ext ready --timeout=10s
	expect_rc 0 ctl start stuck
	wait_until 10000 grep -q "read held" "$T/fh.log" ||
	    fail "the exec did not reach the file system"
	# Alone, the stop of ext is extended past its stop_timeout.
	expect_rc 0 ctl stop ext
	wait_until 5000 grep -q "ext: stopping" "$T/log" ||
	    fail "ext is not stopping"
	t0=${EPOCHREALTIME/./}
	kill -TERM "$PV_PID"
	# The namespace ends only once the process held by FUSE can die
	# (the kernel's PID 1 of it waits for that): pidvisor's part is
	# to get there.
	wait_until 20000 grep -q "exit status 1" "$T/log" ||
	    fail "shutdown did not end: $(cat "$T/log")"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo "# shutdown took $ms ms" >&2
	grep -q "shutdown_timeout (2.0s) passed" "$T/log" ||
	    fail "no word of the timeout: $(cat "$T/log")"
	grep -q "stuck: left behind: pid [0-9]* did not die" "$T/log" ||
	    fail "the process left behind is not named: $(cat "$T/log")"
	kill -TERM "$fh"
	wait "$fh" 2>/dev/null
	waitpid_ms "$UNSHARE_PID" 20000 || fail "the namespace did not end"
	wait "$UNSHARE_PID" 2>/dev/null
	UNSHARE_PID=
	sanitizer_clean
}

# reexec --binary through a symlink in a sticky directory that another
# user owns and flips between the real binary and a script of theirs:
# never followed, so the script never runs as root.  The binary is
# opened once, and what was checked is what is executed (by its fd);
# a symlink root owns is followed.
t_sec_reexec_symlink() {
	pv_dir
	chmod 0755 "$T"
	mkdir -m 1777 "$T/sticky"
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=5s
	local pid flipper i
	pid=$(field a pid)
	printf '#!/bin/sh\ntouch %s/pwned\n' "$T" >"$T/evil"
	$NOBODY install -m 0755 "$T/evil" "$T/sticky/evil"
	$NOBODY ln -s "$PV" "$T/sticky/pv"
	$NOBODY sh -c "while :; do ln -sfn '$T/sticky/evil' '$T/sticky/t1' &&
	    mv -T '$T/sticky/t1' '$T/sticky/pv'; ln -sfn '$PV' '$T/sticky/t2' &&
	    mv -T '$T/sticky/t2' '$T/sticky/pv'; done" 2>/dev/null &
	flipper=$!
	bg $flipper
	for i in $(seq 12); do
		expect_rc 1 ctl reexec --binary "$T/sticky/pv"
		expect_match "$OUT" "is a symlink owned by uid 65534: not followed"
	done
	kill "$flipper"
	wait "$flipper" 2>/dev/null
	[ ! -e "$T/pwned" ] || fail "the other user's script ran as root"
	expect_eq "$(field a pid)" "$pid" "a after the refusals"
	# A link root owns is followed; the exec is of the file checked.
	ln -s "$PV" "$T/rootlink"
	expect_rc 0 ctl reexec --binary "$T/rootlink"
	expect_match "$OUT" "took over 1 service"
	expect_eq "$(field a pid)" "$pid" "a after the re-exec"
	pv_down
}

# The control socket's directory: another user who made it first (mode
# 0777) or owns it gets neither pidvisor's socket (it exits 2, saying
# which and why) nor root's requests: pidvisorctl uses a socket only in
# a place its owner alone may write, and sends nothing before it knows
# that who answers is root, the caller or that owner.  Each in a mount
# namespace of its own, with an empty /tmp and no /run/pidvisor.
t_sec_socket_dir() {
	pv_dir
	chmod 0755 "$T"
	svc a <<-EOF
	exec = /mnt/bin/svc-helper sleep=forever
	EOF
	chmod -R a+rX "$T/conf"
	mkdir "$T/bin"
	cp "$PV" "$CTL" "$H" "$T/bin/"
	chmod 0755 "$T/bin"/*
	# A fresh /tmp (and /run) in a mount namespace; $T as /mnt; what
	# it leaves running ends with it (a PID namespace).
	fresh() {
		unshare --mount --pid --fork --kill-child --mount-proc sh -c '
		mount --bind "$1" /mnt && mount -t tmpfs -o mode=1777 tmpfs /tmp &&
		mount -t tmpfs -o mode=0755 tmpfs /run && shift && exec "$@"' \
		    sh "$T" "$@"
	}
	# (1) nobody made /tmp/pidvisor-4242 first: uid 4242's pidvisor
	# does not bind there, and says why.
	expect_rc 2 fresh sh -c "$NOBODY mkdir -m 0777 /tmp/pidvisor-4242 &&
	    exec setpriv --reuid=4242 --regid=4242 --clear-groups \
	    env -u XDG_RUNTIME_DIR timeout 10 /mnt/bin/pidvisor -c /mnt/conf"
	expect_match "$OUT" "no safe place for the control socket: \
/tmp/pidvisor-4242/control.sock: /tmp/pidvisor-4242 is owned by uid 65534, \
mode 0777"
	# (2) root's pidvisorctl, with no socket in /run/pidvisor, does not
	# use one in nobody's /tmp/pidvisor-0.
	: >"$T/got"
	chmod 0666 "$T/got"
	expect_rc 6 fresh sh -c "$NOBODY mkdir -m 0755 /tmp/pidvisor-0 &&
	    { $NOBODY /mnt/bin/svc-helper \
	    listen=/tmp/pidvisor-0/control.sock:/mnt/got:65534 >/mnt/l1 2>&1 & } &&
	    for i in \$(seq 200); do grep -q listening /mnt/l1 && break;
	    sleep 0.05; done &&
	    exec timeout 10 /mnt/bin/pidvisorctl reboot"
	expect_match "$OUT" "/tmp/pidvisor-0 is owned by uid 65534.*not used"
	# (3) A socket in root's own directory, answered by nobody (bound
	# by root, listening as nobody): nothing is sent to it.
	expect_rc 6 fresh sh -c "mkdir -m 0755 /run/pidvisor &&
	    { /mnt/bin/svc-helper \
	    listen=/run/pidvisor/control.sock:/mnt/got:65534 >/mnt/l2 2>&1 & } &&
	    for i in \$(seq 200); do grep -q listening /mnt/l2 && break;
	    sleep 0.05; done &&
	    exec timeout 10 /mnt/bin/pidvisorctl reboot"
	expect_match "$OUT" "answered by uid 65534, neither root, you, nor \
uid 0: nothing sent"
	[ ! -s "$T/got" ] || fail "a request reached the impostor: $(cat "$T/got")"
}

# Fds passed to a notify socket on a kernel without SO_PASSRIGHTS
# (PIDVISOR_NO_PASSRIGHTS=1 makes this kernel one): a FUSE file whose
# FLUSH is never answered, then thousands more.  PID 1 never holds them:
# a drainer of that service's socket takes them, and stays stuck in the
# close; the other services' sockets are read as ever (a watchdog = 2s
# service keeps its pings), PID 1's fds stay few, and re-exec works.
t_sec_notify_drainer() {
	pv_dir
	chmod 0755 "$T"
	mkdir "$T/fh"
	svc victim <<-EOF
	exec = $H notify=READY=1 notify-every=200:WATCHDOG=1\\\\nSTATUS=%n
	ready = notify
	watchdog = 2s
	user = nobody
	EOF
	svc evil <<-EOF
	exec = $H notify=READY=1 send-fds=$T/fh/file:1 send-fds=/dev/null:17000 sleep=forever
	ready = notify
	user = nobody
	enabled = no
	EOF
	PIDVISOR_NO_PASSRIGHTS=1 pv_up
	grep -q "no SO_PASSRIGHTS" "$T/log" || fail "not the peek path"
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" flush \
	    >"$T/fh.log" 2>&1 &
	local fh=$! n fds fds0
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	expect_rc 0 ctl wait victim ready --timeout=10s
	fds0=$(ls /proc/"$PV_PID"/fd | wc -l)
	expect_rc 0 ctl start evil --wait --timeout=10s
	wait_until 10000 grep -q "flush held" "$T/fh.log" ||
	    fail "no close reached the file system: $(cat "$T/log")"
	wait_until 10000 eval '[[ "$(ctl logs evil)" == *"sent "*" of 17000"* ]]' ||
	    fail "evil did not send: $(ctl logs evil)"
	echo "# evil: $(ctl logs evil | grep sent)" >&2
	# Ten more pings (2 s) of the victim, read while the drainer is stuck.
	n=$(field victim status_text)
	wait_until 10000 eval '[ "$(field victim status_text)" -ge $((n + 10)) ]' ||
	    fail "victim's pings stopped at $(field victim status_text)"
	expect_eq "$(field victim restarts)" 0 "victim's restarts"
	fds=$(ls /proc/"$PV_PID"/fd | wc -l)
	echo "# pidvisor holds $fds fds (was $fds0)" >&2
	[ "$fds" -lt $((fds0 + 16)) ] || fail "pidvisor holds $fds fds"
	local i
	for i in 1 2 3; do
		expect_rc 0 ctl reexec
		expect_match "$OUT" "took over 2 services"
	done
	n=$(field victim status_text)
	wait_until 10000 eval '[ "$(field victim status_text)" -ge $((n + 15)) ]' ||
	    fail "victim's pings stopped after the re-exec"
	expect_eq "$(field victim restarts)" 0 "victim's restarts"
	grep -q "evil: a notify datagram with file descriptors: a drainer" \
	    "$T/log" || fail "no drainer: $(cat "$T/log")"
	kill -TERM "$fh"
	wait "$fh" 2>/dev/null
	pv_down
}

# A root service's notify socket is 0666 (its daemon may drop its
# privileges first): any user may send there.  On a kernel without
# SO_PASSRIGHTS (PIDVISOR_NO_PASSRIGHTS=1), another user's datagrams
# with a FUSE file whose FLUSH is never answered pin a drainer each: at
# most 8 for all users but root and the services' own, then that socket
# waits (said once) while the others are read as ever, and PID 1's fds
# stay few; once the flushes end, the drainers go and the socket is read
# again.
t_sec_notify_root_socket() {
	pv_dir
	chmod 0755 "$T"
	mkdir "$T/fh"
	svc a <<-EOF
	exec = $H notify=READY=1 notify-every=300:STATUS=%n
	ready = notify
	EOF
	svc b <<-EOF
	exec = $H notify=READY=1 notify-every=200:WATCHDOG=1\\nSTATUS=%n
	ready = notify
	watchdog = 2s
	EOF
	PIDVISOR_NO_PASSRIGHTS=1 pv_up
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" flush \
	    >"$T/fh.log" 2>&1 &
	local fh=$! n fds fds0 comm
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	expect_rc 0 ctl wait a ready --timeout=10s
	expect_rc 0 ctl wait b ready --timeout=10s
	fds0=$(ls /proc/"$PV_PID"/fd | wc -l)
	comm=$(ps -o comm= -p "$PV_PID")
	# (Its own exit waits for a FLUSH too, until the file system goes.)
	nsenter -t "$PV_PID" -m -- env NOTIFY_SOCKET="$T/notify/a.sock" \
	    setpriv --reuid=4242 --regid=4242 --clear-groups \
	    "$H" send-fds="$T/fh/file:30" >"$T/attack.out" 2>&1 &
	local attacker=$!
	bg $attacker
	wait_until 10000 grep -q sent "$T/attack.out" ||
	    fail "the attack did not run: $(cat "$T/attack.out")"
	echo "# the attacker: $(cat "$T/attack.out")" >&2
	wait_until 10000 grep -q "a: notify: 8 drainers of other users' datagrams stuck" \
	    "$T/log" || fail "not held: $(grep notify "$T/log")"
	expect_eq "$(ps --ppid "$PV_PID" -o comm= | grep -cxF "$comm")" 8 \
	    "drainers alive"
	n=$(field b status_text)
	wait_until 10000 eval '[ "$(field b status_text)" -ge $((n + 10)) ]' ||
	    fail "b's pings stopped at $(field b status_text)"
	expect_eq "$(field b restarts)" 0 "b's restarts"
	# Two fds for each drainer alive (its pidfd, the spawn's pipe).
	fds=$(ls /proc/"$PV_PID"/fd | wc -l)
	[ "$fds" -le $((fds0 + 16)) ] ||
	    fail "pidvisor holds $fds fds (was $fds0): $(ls -l /proc/"$PV_PID"/fd)"
	expect_eq "$(grep -c "of other users' datagrams stuck" "$T/log")" 1 \
	    "said once"
	# The file system goes: the flushes end, so do the drainers.
	kill -TERM "$fh"
	wait "$fh" "$attacker" 2>/dev/null
	wait_until 10000 eval '[ "$(ps --ppid "$PV_PID" -o comm= |
	    grep -cxF "$comm")" = 0 ]' || fail "drainers left: $(ps --ppid "$PV_PID")"
	n=$(field a status_text)
	wait_until 10000 eval '[ "$(field a status_text)" -ge $((n + 3)) ]' ||
	    fail "a's socket not read again: $(field a status_text)"
	expect_eq "$(field a state)" ready
	pv_down
}

# An fd store takes only fds whose close cannot wait: a FUSE file whose
# flush never ends is refused in the drainer, which alone waits, while
# PID 1 serves every other service and re-executes; the pipe the same
# service stored is kept.
t_sec_fdstore_fuse() {
	pv_dir
	chmod 0755 "$T"
	mkdir "$T/fh"
	svc victim <<-EOF
	exec = $H notify=READY=1 notify-every=200:WATCHDOG=1\\\\nSTATUS=%n
	ready = notify
	watchdog = 2s
	user = nobody
	EOF
	svc evil <<-EOF
	exec = $H notify=READY=1 fdstore=pipe:p fdstore=$T/fh/file:f sleep=forever
	ready = notify
	fdstore_max = 4
	user = nobody
	enabled = no
	EOF
	pv_up
	nsenter -t "$PV_PID" -m -- "$ROOT/build/test/fuse-hang" "$T/fh" flush \
	    >"$T/fh.log" 2>&1 &
	local fh=$! n i
	bg $fh
	wait_until 5000 grep -q ready "$T/fh.log" || fail "no FUSE mount"
	expect_rc 0 ctl wait victim ready --timeout=10s
	expect_rc 0 ctl start evil --wait --timeout=10s
	wait_until 10000 grep -q "flush held" "$T/fh.log" ||
	    fail "no close reached the file system: $(cat "$T/log")"
	wait_until 10000 grep -q "evil: fd store: 1 fd refused" "$T/log" ||
	    fail "not refused: $(cat "$T/log")"
	n=$(field victim status_text)
	wait_until 10000 eval '[ "$(field victim status_text)" -ge $((n + 10)) ]' ||
	    fail "victim's pings stopped at $(field victim status_text)"
	for i in 1 2; do
		expect_rc 0 ctl reexec
		expect_match "$OUT" "took over 2 services"
	done
	# The pipe it stored before is kept.
	wait_until 10000 grep -q "evil: fd store: 1 fd kept (1 held)" \
	    "$T/log" || fail "the pipe not kept: $(cat "$T/log")"
	expect_eq "$(field victim restarts)" 0 "victim's restarts"
	kill -TERM "$fh"
	wait "$fh" 2>/dev/null
	pv_down
}

# Instance names: %i goes into command lines and paths, so an instance
# is not an option (ls@-la), a path component (ls@.., ls@a/b) or a
# control byte; from a command and in `instances` alike.
t_sec_instance_names() {
	pv_dir
	svc 'ls@' <<-EOF
	exec = /bin/ls %i
	restart = never
	EOF
	pv_up
	local bad
	for bad in 'ls@-la' 'ls@..' 'ls@.hidden' 'ls@a/b' 'ls@-'; do
		expect_rc 1 ctl start "$bad"
		expect_match "$OUT" "not a valid instance name" "ctl start $bad"
	done
	expect_rc 2 ctl start $'ls@a\033]0;x'
	expect_match "$OUT" "not printable" "a control byte"
	[ -z "$(ctl status 2>/dev/null | grep '^ls@')" ] ||
	    fail "an instance was made: $(ctl status)"
	expect_rc 0 ctl start ls@tmp --wait --timeout=5s
	printf 'instances = -la\n' >>"$T/conf/services/ls@.ini"
	expect_rc 1 ctl reload
	expect_match "$OUT" "ls@.ini:4: instances: '-la' is not a valid instance"
	pv_down
}

# MAINPID= from a service that floods it: the PID refused last is not
# looked at again, at most ten a second are, and a warning is said at
# most once a second (with how many were let go).
t_sec_mainpid_flood() {
	pv_dir
	chmod 0755 "$T"
	svc same <<-EOF
	exec = $H notify=READY=1 notify-every=1:MAINPID=1\\\\nSTATUS=%n
	ready = notify
	user = nobody
	EOF
	svc many <<-EOF
	exec = $H notify=READY=1 notify-every=1:MAINPID=%n\\\\nSTATUS=%n
	ready = notify
	user = nobody
	EOF
	pv_up
	expect_rc 0 ctl wait same ready --timeout=5s
	expect_rc 0 ctl wait many ready --timeout=5s
	local t0 s
	t0=${EPOCHREALTIME/./}
	# Three thousand messages each (about 3 s).
	flooded() {
		local a b
		a=$(field same status_text)
		b=$(field many status_text)
		[[ "$a" =~ ^[0-9]+$ && "$b" =~ ^[0-9]+$ ]] &&
		    [ "$a" -ge 3000 ] && [ "$b" -ge 3000 ]
	}
	wait_until 60000 flooded ||
	    fail "the floods did not arrive: $(ctl status)"
	s=$(((${EPOCHREALTIME/./} - t0) / 1000000 + 2))
	local a b
	a=$(grep -c "same: MAINPID=1 ignored" "$T/log")
	b=$(grep -c "many: MAINPID=[0-9]* ignored" "$T/log")
	echo "# $a and $b warnings for 3,000 messages each in about $s s" >&2
	[ "$a" -le 2 ] || fail "$a warnings for the same PID"
	[ "$b" -le "$s" ] || fail "$b warnings in $s s"
	expect_eq "$(field same restarts)" 0 "same's restarts"
	pv_down
}

# MAINPID= may not name a process of another user (here a child that a
# setuid binary made root): stop would send it a signal that the
# service itself could not.  The main process it replaces, while it
# lives, is still the service's: a stop ends it too.
t_sec_mainpid_other_user() {
	pv_dir
	chmod 0755 "$T"
	install -m 4755 -o root "$H" "$T/suid-helper"
	svc root <<-EOF
	exec = $T/suid-helper setuid=0 notify=READY=1 handoff=X=1 sleep=forever
	ready = notify
	user = nobody
	ready_timeout = 5s
	EOF
	svc kept <<-EOF
	exec = $H notify=READY=1 handoff=X=1 sleep=forever
	ready = notify
	user = nobody
	EOF
	pv_up
	expect_rc 0 ctl wait root ready --timeout=10s
	expect_rc 0 ctl wait kept ready --timeout=10s
	wait_until 5000 grep -q "root: MAINPID=[0-9]* ignored: not the service's user" \
	    "$T/log" || fail "root's child was taken: $(cat "$T/log")"
	grep -q "root: main process" "$T/log" && fail "root's child was taken"
	# kept: the handoff is taken; its old main stays, then goes with it.
	wait_until 5000 grep -q "kept: main process [0-9]* -> [0-9]* (MAINPID)" \
	    "$T/log" || fail "kept's handoff: $(cat "$T/log")"
	local old new
	old=$(sed -n 's/.*kept: main process \([0-9]*\) -> .*/\1/p' "$T/log")
	new=$(field kept pid)
	old=$(ns sh -c "cat /proc/$old/status" | awk '/^NSpid/ { print $2 }')
	[ -n "$old" ] || fail "kept's old main is gone already"
	expect_rc 0 ctl stop kept --wait --timeout=10s
	ns test -d "/proc/$new" && fail "kept's main outlived the stop"
	wait_until 5000 eval '! ns test -d "/proc/'"$old"'"' ||
	    fail "kept's old main outlived the stop"
	pv_down
}

# A main process named by MAINPID is not our child: once it is gone and
# reaped by its parent, its PID may be another's before our loop hears
# of the death.  Here pidvisor is stopped meanwhile, the PID is taken
# by a decoy, and a `reload` waits in the queue (read before the death,
# as libev takes the last ready first): reload_exec's $MAINPID must not
# be the decoy's.  The pidfd is checked alive right before the command.
t_sec_mainpid_reused() {
	pv_dir
	svc kept <<-EOF
	exec = $H notify=READY=1 handoff=X=1 sleep=forever
	ready = notify
	reload_exec = /bin/kill -HUP \$MAINPID
	EOF
	pv_up
	expect_rc 0 ctl wait kept ready --timeout=10s
	wait_until 5000 grep -q "kept: main process [0-9]* -> [0-9]* (MAINPID)" \
	    "$T/log" || fail "no handoff: $(cat "$T/log")"
	local main line
	main=$(field kept pid)
	coproc LATER { "$CTLRAW" "$T/ctl.sock" later reload kept; }
	read -r -t 10 line <&"${LATER[0]}" || fail "ctlraw did not connect"
	kill -STOP "$PV_PID"
	ns kill -KILL "$main"
	wait_until 5000 eval '! ns test -d /proc/'"$main" ||
	    fail "the main process stays"
	coproc GRAB { ns "$PIDGRAB" "$main"; }
	read -r -t 10 line <&"${GRAB[0]}" || fail "pidgrab said nothing"
	expect_eq "$line" "grabbed $main" "pidgrab"
	echo go >&"${LATER[1]}"
	kill -CONT "$PV_PID"
	read -r -t 20 line <&"${LATER[0]}" || fail "no answer to reload"
	echo "# reload: $line" >&2
	exec {GRAB[1]}>&-
	read -r -t 10 line <&"${GRAB[0]}" || fail "pidgrab said nothing more"
	expect_eq "$line" alive "the decoy that took the PID"
	pv_down
}

# attack_setup: $T open to nobody, an attacker's directory $T/atk that
# nobody owns, and a directory only root may enter, $T/root.
attack_setup() {
	chmod 0755 "$T"
	mkdir -p "$T/atk" "$T/root"
	chmod 0700 "$T/root"
}

# attack_checked: wait for a health check that started after the
# attacker's namespace was armed ($T/atk/armed), or for proof of harm
# (the file $1 exists, or differs from its copy $1.orig).
attack_checked() {
	wait_until 10000 test -e "$T/atk/armed" ||
	    fail "the attacker never armed: $(ctl logs victim)"
	ATTACK_BEFORE=0 ATTACK_PROOF=$1
	[ -e "$T/atk/checks" ] && ATTACK_BEFORE=$(wc -l <"$T/atk/checks")
	wait_until 10000 attack_ran ||
	    fail "no health check ran after the attack was armed"
}

attack_ran() {
	local p=$ATTACK_PROOF
	[ "$(wc -l <"$T/atk/checks")" -gt "$ATTACK_BEFORE" ] ||
	    { [ -e "$p.orig" ] && ! cmp -s "$p" "$p.orig"; } ||
	    { [ ! -e "$p.orig" ] && [ -e "$p" ]; }
} 2>/dev/null

# A service's user who makes a mount namespace of its own (unshare -Urm)
# cannot have its health check run there: a set-user-ID program bound
# over the check's binary, with the user's /etc/ld.so.preload, would
# run the user's code as root.  The check runs in the namespace
# pidvisor made for the service.
t_sec_hook_userns_setuid() {
	pv_dir
	attack_setup
	local suid=/usr/bin/passwd
	[ -u "$suid" ] || suid=$(find /usr/bin -perm -4000 -user root \
	    -type f | head -1)
	[ -n "$suid" ] || fail "no set-user-ID program to attack with"
	mkdir -p "$T/atk/etc"
	cp "$ROOT/build/test/preload.so" "$T/atk/pre.so"
	echo "$T/atk/pre.so" >"$T/atk/etc/ld.so.preload"
	cat >"$T/atk/attack.sh" <<-EOF
	exec unshare -Urm /bin/sh -c 'mount --bind $T/atk/etc /etc &&
	    mount --bind $suid /usr/bin/env && touch $T/atk/armed &&
	    exec sleep 1000'
	EOF
	chown -R 65534:65534 "$T/atk"
	svc victim <<-EOF
	exec = /bin/sh $T/atk/attack.sh
	user = nobody
	protect_system = yes
	env = PV_PWN=$T/root/pwned
	health_exec = /usr/bin/env sh -c "echo x >>$T/atk/checks"
	health_interval = 100ms
	EOF
	pv_up
	attack_checked "$T/root/pwned"
	[ -e "$T/root/pwned" ] && fail "the check ran as root: $(cat \
	    "$T/root/pwned")"
	expect_eq "$(field victim health)" healthy "its health"
	pv_down
}

# Nor does pidvisor work by path as root in such a namespace: a /proc
# of the user's, with self/oom_score_adj a symlink to a file only root
# may write, does not get that file written.
t_sec_hook_userns_proc() {
	pv_dir
	attack_setup
	echo precious >"$T/root/secret"
	cp "$T/root/secret" "$T/root/secret.orig"
	chmod 0600 "$T/root/secret"
	cat >"$T/atk/attack.sh" <<-EOF
	exec unshare -Urm /bin/sh -c 'mount -t tmpfs none /proc &&
	    mkdir /proc/self &&
	    ln -s $T/root/secret /proc/self/oom_score_adj &&
	    touch $T/atk/armed && exec sleep 1000'
	EOF
	chown -R 65534:65534 "$T/atk"
	svc victim <<-EOF
	exec = /bin/sh $T/atk/attack.sh
	user = nobody
	protect_system = yes
	no_new_privs = yes
	oom_score_adj = 987
	health_exec = /bin/sh -c "echo x >>$T/atk/checks"
	health_interval = 100ms
	EOF
	pv_up
	attack_checked "$T/root/secret"
	expect_eq "$(cat "$T/root/secret")" precious "the root-only file"
	expect_eq "$(field victim health)" healthy "its health"
	pv_down
}

# A symlink another user put on a path key's way does not redirect the
# mount: read_write_paths through a directory nobody writes in, under
# protect_system = strict, is not made a writable copy of what the link
# names (a root-only directory here); the start fails, saying why.
t_sec_plan_symlink() {
	pv_dir
	attack_setup
	mkdir -p "$T/guarded/data"
	echo orig >"$T/guarded/data/file"
	chown 65534:65534 "$T/atk"
	$NOBODY ln -s "$T/guarded" "$T/atk/d" || fail "nobody cannot link"
	svc victim <<-EOF
	exec = /bin/sh -c "echo pwned >$T/guarded/data/file; echo wrote"
	protect_system = strict
	read_write_paths = $T/atk/d/data
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait victim failed --timeout=10s
	expect_eq "$(cat "$T/guarded/data/file")" orig "the guarded file"
	expect_eq "$(field victim reason)" "read_write_paths $T/atk/d/data: \
a symlink on its path is owned by uid 65534; not followed"
	# One root owns is followed, as a link of the system's layout.
	rm "$T/atk/d"
	ln -s "$T/guarded" "$T/atk/d"
	expect_rc 0 ctl restart victim
	expect_rc 0 ctl wait victim stopped --timeout=10s
	expect_eq "$(cat "$T/guarded/data/file")" pwned "through root's link"
	pv_down
}

# root_directory's paths are looked up once, inside it: a user who owns
# a directory in the jail and swaps a path key's directory with a
# symlink to a host directory, as fast as it can, never has the host
# directory mounted in the jail.  Under the race a start may fail (the
# path changed); none sees the host's file.
t_sec_plan_root_race() {
	pv_dir
	attack_setup
	local bb jail=$T/jail
	bb=$(command -v busybox) || fail "no busybox (make deps)"
	mkdir -p "$jail/bin" "$jail/data/db" "$T/host"
	cp "$bb" "$jail/bin/busybox"
	echo host >"$T/host/marker"
	ln -s "$T/host" "$jail/data/ln"
	chown -h 65534:65534 "$jail/data" "$jail/data/db" "$jail/data/ln"
	svc victim <<-EOF
	exec = /bin/busybox sh -c "test -e /data/db/marker && echo ESCAPED; exit 0"
	root_directory = $jail
	user = nobody
	read_write_paths = /data/db
	restart = always
	restart_delay = 1ms
	restart_delay_max = 5ms
	start_limit_burst = 0
	EOF
	$NOBODY "$H" swap="$jail/data/db:$jail/data/ln" &
	bg $!
	pv_up
	wait_until 60000 eval '[ "$(field victim restarts)" -ge 300 ]' ||
	    fail "fewer than 300 starts in 60 s: $(ctl status victim)"
	ctl stop victim >/dev/null
	grep -q ESCAPED <<<"$(ctl logs victim -n 100000)" &&
	    fail "a start saw the host's file: $(ctl logs victim -n 100000 |
	    grep -c ESCAPED) times"
	pv_down
}

# A client that goes on sending once answered does not keep PID 1
# reading: an HTTP scraper's connection, and an events stream (which has
# no deadline), are dropped past a few KiB.  Silent connections do not
# keep a scraper out, and scrapes, however many, build the body at most
# once a second.
t_sec_reply_junk() {
	local p
	pv_dir
	sup_ini <<-EOF
	metrics_listen = 127.0.0.1:0
	client_timeout = 60s
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	p=$(metrics_port)
	[ -n "$p" ] || fail "no metrics port: $(cat "$T/log")"
	expect_eq "$("$CTLRAW" "$p" httpjunk 10000)" dropped \
	    "an HTTP client sending after its answer"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" junk 10000)" dropped \
	    "an events client sending after its request"
	expect_eq "$("$CTLRAW" "$T/ctl.sock" junk 10000 logs a -f)" dropped \
	    "a logs -f client sending after its request"
	# Silent connections from one address hold at most four places; a
	# scraper's takes the place of the oldest.
	local i
	for i in $(seq 10 25); do
		eval "exec $i<>/dev/tcp/127.0.0.1/$p" || fail "connect"
	done
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200 "a scrape beside silent ones"
	timeout 10 cat <&10 >/dev/null || fail "the oldest silent one was kept"
	for i in $(seq 10 25); do
		eval "exec $i<&-"
	done
	wait_until 10000 scrape_cached "$p" ||
	    fail "every scrape built the body anew"
	pv_down
}

# Two scrapes in a row that show the same count of scrapes: the second
# was served the first's body.
scrape_cached() {
	local a b
	a=$(curl -s -m 10 "http://127.0.0.1:$1/metrics" |
	    sed -n 's/^pidvisor_scrapes_total //p')
	b=$(curl -s -m 10 "http://127.0.0.1:$1/metrics" |
	    sed -n 's/^pidvisor_scrapes_total //p')
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# A unix listen socket in a directory its user owns: that user cannot
# have another file chowned to it by swapping the socket's name for a
# hard link between bind() and the chown (the swap is made in that
# window by a library preloaded into pidvisor).  It is born aside, in a
# directory of pidvisor's, and renamed into place, never over a file.
t_sec_listen_chown() {
	pv_dir
	attack_setup
	echo keep >"$T/target"
	chmod 0666 "$T/target"
	chown 65534:65534 "$T/atk"
	svc web <<-EOF
	exec = $H serve
	user = nobody
	listen = unix:$T/atk/web.sock
	listen_owner = nobody
	listen_mode = 0600
	restart = never
	EOF
	ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 \
	    LD_PRELOAD=$ROOT/build/test/chownswap.so \
	    PV_SWAP_AT=$T/atk/web.sock PV_SWAP_TO=$T/target pv_up
	wait_until 10000 eval '[[ "$(field web state)" =~ ^(failed|ready|backoff)$ ]]' ||
	    fail "web never got past its start: $(ctl status web)"
	expect_eq "$(stat -c %U "$T/target")" root "the file swapped in"
	pv_down
	rm -f "$T/atk/web.sock" "$T/atk/web.sock.moved"
	# Without the attacker, it is there, its user's, and answers.
	pv_up
	expect_rc 0 ctl wait web ready --timeout=10s
	expect_eq "$(stat -c '%U %a %F' "$T/atk/web.sock")" "nobody 600 socket"
	expect_eq "$(ask "UNIX-CONNECT:$T/atk/web.sock")" "pid $(field web pid)"
	pv_down
	[ -z "$(ls -A "$T/atk" | grep -v '^web.sock$')" ] ||
	    fail "left in its directory: $(ls -A "$T/atk")"
}

# One user's connect-and-close loop at an accept listener: past
# trigger_limit_burst clients in trigger_limit_interval the listener
# fails and closes its sockets, as systemd's socket unit does, and the
# instances' lines are logged at most ten a second.
t_sec_accept_storm() {
	local p n
	pv_dir
	p=$(free_port)
	cat >"$T/conf/services/echo@.ini" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:$p
	accept = yes
	trigger_limit_burst = 50
	trigger_limit_interval = 1h
	EOF
	pv_up
	expect_rc 0 ctl wait echo listening --timeout=10s
	$NOBODY bash -c "for i in \$(seq 300); do
	    exec 3<>/dev/tcp/127.0.0.1/$p || exit 0; exec 3<&-; done" \
	    2>/dev/null
	expect_rc 0 ctl wait echo failed --timeout=10s
	expect_eq "$(field echo reason)" "trigger limit hit"
	grep -q "echo: trigger limit hit: more than 50 clients in 1h" \
	    "$T/log" || fail "not said: $(tail "$T/log")"
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
	    fail "it still accepts"
	n=$(grep -c "echo@[0-9]*:" "$T/log")
	[ "$n" -le 100 ] || fail "$n lines of 50 instances"
	expect_rc 0 ctl start echo
	expect_rc 0 ctl wait echo listening --timeout=10s
	(exec 3<>"/dev/tcp/127.0.0.1/$p") || fail "not accepting again"
	pv_down
	# The defaults are systemd's: 200 in 2 s with accept, 20 on demand.
	sed -i '/^trigger_limit/d' "$T/conf/services/echo@.ini"
	svc od <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$(free_port)
	on_demand = yes
	EOF
	pv_up
	expect_match "$(ctl show echo)" $'\ntrigger_limit_interval = 2s +# default\n'
	expect_match "$(ctl show echo)" $'\ntrigger_limit_burst = 200 +# default\n'
	expect_match "$(ctl show od)" $'\ntrigger_limit_burst = 20 +# default\n'
	pv_down
}

# max_connections_per_source: a third client from the same address is
# closed at once; once one of the two ends, the next is served.
t_sec_accept_per_source() {
	local p
	pv_dir
	p=$(free_port)
	cat >"$T/conf/services/echo@.ini" <<-EOF
	[service]
	exec = $H reply
	listen = tcp:127.0.0.1:$p
	accept = yes
	max_connections_per_source = 2
	EOF
	pv_up
	expect_rc 0 ctl wait echo listening --timeout=10s
	exec 4<>"/dev/tcp/127.0.0.1/$p" 5<>"/dev/tcp/127.0.0.1/$p"
	wait_until 10000 eval '[ "$(ctl status --json | jq "[.[] |
	    select(.name | startswith(\"echo@\"))] | length")" = 2 ]' ||
	    fail "not two instances: $(ctl status)"
	exec 6<>"/dev/tcp/127.0.0.1/$p"
	expect_eq "$(timeout 10 cat <&6)" "" "the third client"
	wait_until 10000 grep -q "echo: 1 client refused: \
max_connections_per_source (2) from one address" "$T/log" ||
	    fail "not said: $(tail "$T/log")"
	echo one >&4
	expect_match "$(timeout 10 head -1 <&4)" "^pid [0-9]+ one"
	wait_until 10000 eval '[ "$(ctl status --json | jq "[.[] |
	    select(.name | startswith(\"echo@\"))] | length")" = 1 ]' ||
	    fail "the first instance stayed: $(ctl status)"
	exec 7<>"/dev/tcp/127.0.0.1/$p"
	echo four >&7
	expect_match "$(timeout 10 head -1 <&7)" "^pid [0-9]+ four"
	exec 4<&- 5<&- 6<&- 7<&-
	pv_down
}

# metrics_listen answers every local user unless metrics_users says
# whose connections it takes (the kernel names the user of the other
# end of a loopback connection).
t_sec_metrics_users() {
	local p
	pv_dir
	sup_ini <<-EOF
	metrics_listen = 127.0.0.1:0
	metrics_users = root
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	p=$(metrics_port)
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200 "root"
	expect_eq "$($NOBODY curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 403 "nobody"
	sed -i 's/^metrics_users = .*/metrics_users = nobody/' \
	    "$T/conf/pidvisor.ini"
	expect_rc 0 ctl reload
	expect_match "$OUT" "metrics_users = nobody"
	expect_eq "$($NOBODY curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200 "nobody, listed"
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 403 "root, not listed"
	sed -i 's/^metrics_users = .*/metrics_users = nosuchuser/' \
	    "$T/conf/pidvisor.ini"
	expect_rc 1 ctl reload
	expect_match "$OUT" "pidvisor.ini:3: metrics_users: no user 'nosuchuser'"
	pv_down
}
