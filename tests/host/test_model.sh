# tests/host/test_model.sh - the service model: run-once tasks (ready =
# exit), settle, templates, sd_notify's MAINPID, RELOADING, WATCHDOG_*,
# EXTEND_TIMEOUT_USEC and ERRNO, the reload of a service, env files.
# Each waits for the event it checks; each has a negative case.

# Has the service restarted (at least once)?
restarted() {
	[ "$(field "$1" restarts)" -ge 1 ]
}

# Is the service settling (ready by its kind, not up long enough yet)?
settling() {
	[[ $(field "$1" reason) == "settling, ready in "* ]]
}

# The lines of a stamp file with a tag, in order: "TAG MS PID".
stamps() {
	cat "$1" 2>/dev/null
}

# A task is done at exit 0, and only then does what requires it start;
# status says done, its exit code and when it ran; stop leaves it done;
# start runs it again.  One that fails fails what requires it.
t_task_order() {
	pv_dir
	svc init <<-EOF
	exec = $H stamp=$T/s:init-begin sleep=700 stamp=$T/s:init-end exit=0
	ready = exit
	EOF
	svc web <<-EOF
	exec = $H stamp=$T/s:web sleep=forever
	requires = init
	EOF
	svc late <<-EOF
	exec = $H stamp=$T/s:late sleep=forever
	after = init
	EOF
	pv_up
	ctl wait web ready --timeout=20s || fail "web not ready"
	ctl wait late ready --timeout=20s || fail "late not ready"
	local order
	order=$(awk '{print $1}' "$T/s" | tr '\n' ' ')
	expect_match "$order" '^init-begin init-end (web late|late web) $' \
	    "start order"
	expect_eq "$(field init state)" done
	expect_eq "$(field init exit_code)" 0
	expect_match "$(field init started_at)" '^20[0-9-]+T' "started_at"
	# a task's ready_at is when it was done
	expect_eq "$(field init ready_at)" "$(field init exited_at)"
	expect_match "$(field web ready_at)" '^20[0-9-]+T' "ready_at"
	expect_match "$(ctl status init)" 'done .*exited with code 0; ran at .* for [0-9.]+m?s' \
	    "status text"
	# stop on a finished task: ok, nothing happens
	expect_rc 0 ctl stop init --wait --timeout=5s
	expect_eq "$(field init state)" done
	expect_eq "$(field web state)" ready
	# start runs it again
	expect_rc 0 ctl start init --wait --timeout=20s
	expect_eq "$(grep -c '^init-end' "$T/s")" 2
	expect_eq "$(field web state)" ready
	pv_down
}

t_task_failed() {
	pv_dir
	svc init <<-EOF
	exec = $H exit=3
	ready = exit
	EOF
	svc web <<-EOF
	exec = $H stamp=$T/s:web sleep=forever
	requires = init
	EOF
	pv_up
	ctl wait web failed --timeout=20s || fail "web did not fail"
	expect_eq "$(field init state)" failed
	expect_eq "$(field init reason)" "exited with code 3"
	expect_eq "$(field web reason)" "requires init, which failed"
	[ ! -e "$T/s" ] || fail "web ran: $(stamps "$T/s")"
	expect_rc 1 ctl start web --wait --timeout=20s
	expect_match "$OUT" 'init: failed \(exited with code 3\)|web: failed'
	pv_down
}

# Two tasks with nothing between them run at once: each waits for the
# other's stamp, and exits 0 only if it comes.
t_task_parallel() {
	pv_dir
	svc a <<-EOF
	exec = $H stamp=$T/p:a waitfile=$T/p:2:15000
	ready = exit
	EOF
	svc b <<-EOF
	exec = $H stamp=$T/p:b waitfile=$T/p:2:15000
	ready = exit
	EOF
	svc c <<-EOF
	exec = $H sleep=forever
	requires = a b
	EOF
	pv_up
	ctl wait c ready --timeout=30s || fail "c not ready: $(ctl status)"
	expect_eq "$(field a state)/$(field b state)" done/done
	pv_down
}

# settle: ready only after it stayed up that long; a death within it is a
# failed start, and start --wait says so (ready = exec crashing at 0.2 s
# used to be "ready").
t_settle() {
	pv_dir
	svc crash <<-EOF
	exec = $H sleep=200 exit=0
	settle = 2s
	restart = on-failure
	start_limit_burst = 2
	enabled = no
	EOF
	svc steady <<-EOF
	exec = $H sleep=forever
	settle = 5s
	enabled = no
	EOF
	pv_up
	expect_rc 1 ctl start crash --wait --timeout=20s
	expect_match "$OUT" 'crash: backoff \(exited with code 0 before it settled'
	ctl wait crash failed --timeout=20s || fail "crash did not fail"
	expect_match "$(field crash reason)" 'start limit hit .*before it settled'
	ctl start steady
	# once it exec'd, it settles: starting, not ready
	wait_until 5000 settling steady || fail "steady: $(ctl status steady)"
	expect_eq "$(field steady state)" starting
	expect_rc 0 ctl start steady --wait --timeout=20s
	expect_eq "$(field steady state)" ready
	pv_down
}

# Templates: instances from the list, and from a command; %i, %n, %p;
# a reload keeps a command's instance running; bad names refused.
t_template() {
	pv_dir
	cat >"$T/conf/services/tty@.ini" <<-EOF
	[service]
	exec = $H stamp=$T/t:%i-%n-%p sleep=forever
	instances = one
	  two
	EOF
	pv_up
	ctl wait tty@one ready --timeout=20s || fail "tty@one"
	ctl wait tty@two ready --timeout=20s || fail "tty@two"
	grep -q '^one-tty@one-tty ' "$T/t" || fail "no %i %n %p: $(stamps "$T/t")"
	expect_rc 0 ctl start tty@three --wait --timeout=20s
	grep -q '^three-tty@three-tty ' "$T/t" || fail "tty@three did not run"
	local pid
	pid=$(field tty@three pid)
	expect_rc 0 ctl reload
	expect_eq "$(field tty@three pid)" "$pid" "tty@three across reload"
	expect_match "$(ctl show tty@three)" 'exec = .*stamp=[^ ]*:three-tty@three-tty'
	# no template, a bad instance
	expect_rc 4 ctl start nope@x
	expect_match "$OUT" "no such service 'nope@x' \(nor a template"
	expect_rc 1 ctl start 'tty@a@b'
	expect_match "$OUT" "not a valid instance name"
	# the template gone: its instances go on reload
	rm "$T/conf/services/tty@.ini"
	expect_rc 0 ctl reload
	ctl wait tty@three stopped --timeout=20s 2>/dev/null
	wait_until 10000 bash -c "! $CTL -s $T/ctl.sock status tty@three \
	    >/dev/null 2>&1" || fail "tty@three not removed"
	pv_down
}

# WATCHDOG_USEC and WATCHDOG_PID reach a watchdog service; the PID is
# its main process's; WATCHDOG=trigger kills it with its reason.
t_watchdog_env() {
	pv_dir
	cat >"$T/wd.sh" <<-EOF
	echo "\$WATCHDOG_USEC \$WATCHDOG_PID \$\$" >$T/wd
	exec $H notify=READY=1 sleep=forever
	EOF
	svc wd <<-EOF
	exec = /bin/sh $T/wd.sh
	ready = notify
	watchdog = 30s
	EOF
	svc plain <<-EOF
	exec = /bin/sh -c "echo x\${WATCHDOG_USEC}x >$T/plain; exec sleep 1000"
	EOF
	svc trig <<-EOF
	exec = $H notify=READY=1 sleep=300 notify=WATCHDOG=trigger sleep=forever
	ready = notify
	restart = never
	EOF
	pv_up
	ctl wait wd ready --timeout=20s || fail "wd not ready"
	local usec wpid pid
	read -r usec wpid pid <"$T/wd"
	expect_eq "$usec" 30000000 WATCHDOG_USEC
	expect_eq "$wpid" "$pid" WATCHDOG_PID
	expect_eq "$(ns cat /proc/"$pid"/status | awk '/^NSpid/ {print $NF}')" \
	    "$(field wd pid)" "main pid"
	ctl wait plain ready --timeout=20s || fail "plain"
	wait_until 5000 test -s "$T/plain" || fail "plain wrote nothing"
	expect_eq "$(cat "$T/plain")" xx "no watchdog, no WATCHDOG_USEC"
	ctl wait trig failed --timeout=20s || fail "trig not failed"
	expect_eq "$(field trig reason)" "watchdog triggered by the service"
	pv_down
}

# MAINPID: a forking daemon names its child, then exits; the child is
# the service from then on (its PID, its stop, its death).  A process
# that is neither its child nor in its cgroup is refused.
t_mainpid() {
	pv_dir
	svc d <<-EOF
	exec = $H daemonize=READY=1 stamp=$T/m:child on-term=$T/m:term sleep=forever
	ready = notify
	restart = on-failure
	EOF
	svc liar <<-EOF
	exec = $H notify=MAINPID=1 notify=READY=1 sleep=forever
	ready = notify
	EOF
	pv_up
	ctl wait d ready --timeout=20s || fail "d not ready"
	wait_until 5000 test -s "$T/m" || fail "no child stamp"
	local child
	child=$(awk '/^child/ {print $3}' "$T/m")
	expect_eq "$(field d pid)" "$child" "main pid after MAINPID"
	expect_eq "$(field d state)" ready
	grep -q "d: main process [0-9]* -> $child (MAINPID)" "$T/log" ||
	    fail "no handover in the log"
	expect_rc 0 ctl stop d --wait --timeout=20s
	grep -q '^term ' "$T/m" || fail "the new main process got no TERM"
	# its death is the service's
	expect_rc 0 ctl start d --wait --timeout=20s
	child=$(field d pid)
	ns kill -KILL "$child"
	wait_until 20000 restarted d ||
	    fail "its death was not seen"
	# it was ours (reparented): its exit status is known
	expect_eq "$(field d exit_signal)" KILL
	# A grandchild in a session of its own: without cgroups nothing
	# proves it is the service's (the guest's t_boot_task takes it,
	# by its cgroup).
	svc dbl <<-EOF
	exec = $H double-fork=READY=1 sleep=forever
	ready = notify
	restart = never
	EOF
	expect_rc 0 ctl reload
	wait_until 20000 grep -q "dbl: MAINPID=[0-9]* ignored: not in its session, nor a child of its main process" "$T/log" ||
	    fail "the grandchild was taken: $(ctl status dbl)"
	ctl wait liar ready --timeout=20s || fail "liar not ready"
	[ "$(field liar pid)" != 1 ] || fail "MAINPID=1 was taken"
	grep -q "liar: MAINPID=1 ignored" "$T/log" || fail "no refusal logged"
	pv_down
}

# reload NAME: the signal, then (notify) READY=1 after RELOADING=1;
# reload_exec with $MAINPID; failures and time-outs said.
t_reload_service() {
	pv_dir
	svc n <<-EOF
	exec = $H reload-on-hup=$T/r:hup notify=READY=1 sleep=forever
	ready = notify
	EOF
	svc x <<-EOF
	exec = $H sleep=forever
	reload_exec = $H stamp=$T/x:\$MAINPID
	EOF
	# Given more than once: in order, each once the one before exited
	# 0 (or failed after '-'); a failure ends the chain.
	svc chain <<-EOF
	exec = $H sleep=forever
	reload_exec = $H stamp=$T/chain:one
	reload_exec = -$H exit=4
	reload_exec = $H stamp=$T/chain:two
	EOF
	svc bad <<-EOF
	exec = $H sleep=forever
	reload_exec = $H stamp=$T/bad:first
	reload_exec = $H exit=3
	reload_exec = $H stamp=$T/bad:never
	EOF
	svc deaf <<-EOF
	exec = $H ignore=1 notify=READY=1 sleep=forever
	ready = notify
	EOF
	svc off <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	for s in n x chain bad deaf; do
		ctl wait $s ready --timeout=20s || fail "$s not ready"
	done
	expect_rc 0 ctl reload n --timeout=20s
	grep -q '^hup ' "$T/r" || fail "reload returned before READY=1"
	expect_eq "$(field n reloading)" false
	expect_rc 0 ctl reload x --timeout=20s
	expect_eq "$(awk '{print $1}' "$T/x")" "$(field x pid)" '$MAINPID'
	expect_rc 0 ctl reload chain --timeout=20s
	expect_eq "$(awk '{print $1}' "$T/chain" | tr '\n' ' ')" "one two " \
	    "the chain's commands"
	expect_rc 1 ctl reload bad --timeout=20s
	expect_match "$OUT" 'bad: reload failed: reload_exec exited with code 3'
	expect_eq "$(awk '{print $1}' "$T/bad" | tr '\n' ' ')" "first " \
	    "a chain after a failure"
	expect_rc 1 ctl reload deaf --timeout=1s
	expect_match "$OUT" 'timed out'
	expect_rc 1 ctl reload off
	expect_match "$OUT" 'off is stopped, not ready'
	expect_eq "$(field n state)/$(field deaf state)" ready/ready
	pv_down
}

# EXTEND_TIMEOUT_USEC pushes the ready timeout; ERRNO shows in status.
t_notify_extend_errno() {
	pv_dir
	svc slow <<-EOF
	exec = $H notify=EXTEND_TIMEOUT_USEC=30000000 sleep=4000 notify=ERRNO=5 notify=READY=1 sleep=forever
	ready = notify
	ready_timeout = 2s
	enabled = no
	EOF
	svc short <<-EOF
	exec = $H sleep=4000 notify=READY=1 sleep=forever
	ready = notify
	ready_timeout = 2s
	restart = never
	enabled = no
	EOF
	pv_up
	expect_rc 0 ctl start slow --wait --timeout=20s
	expect_eq "$(field slow errno)" 5
	expect_match "$(ctl status slow)" 'errno 5 \(Input/output error\)'
	expect_rc 1 ctl start short --wait --timeout=20s
	expect_match "$OUT" 'ready timeout'
	pv_down
}

# env_file: systemd's quoting, read at each start, optional with '-';
# a bad line or a missing file is a failed start, with FILE:LINE.
t_env_file() {
	pv_dir
	cat >"$T/e1" <<-'EOF'
	# a comment
	A=one
	B = "two \"quoted\" $x"
	C='three  spaces'
	D=con\
	tinued
	EOF
	cat >"$T/show.sh" <<-EOF
	printf '%s|%s|%s|%s|%s\n' "\$A" "\$B" "\$C" "\$D" "\$E" >$T/env
	exec sleep 1000
	EOF
	svc e <<-EOF
	exec = /bin/sh $T/show.sh
	env = E=key
	env = A=key
	env_file = $T/e1
	env_file = -$T/missing
	EOF
	pv_up
	ctl wait e ready --timeout=20s || fail "e not ready"
	wait_until 5000 test -s "$T/env" || fail "no env"
	expect_eq "$(cat "$T/env")" 'one|two "quoted" $x|three  spaces|continued|key'
	rm "$T/env"
	echo "A=changed" >>"$T/e1"
	expect_rc 0 ctl restart e --wait --timeout=20s
	wait_until 5000 test -s "$T/env" || fail "no env after restart"
	expect_match "$(cat "$T/env")" '^changed\|'
	printf 'A=1\noops\n' >"$T/e1"
	expect_rc 1 ctl restart e --wait --timeout=20s
	expect_match "$OUT" "env_file: $T/e1:2:1: expected KEY=VALUE"
	rm "$T/e1"
	expect_rc 1 ctl restart e --wait --timeout=20s
	expect_match "$OUT" "env_file: $T/e1: No such file or directory"
	pv_down
}

# after: at boot, a service waits for one it comes after whatever their
# order in the tree (every want is set before any service steps); so it
# does among the names of one start command.
t_after_boot_order() {
	pv_dir
	svc app <<-EOF
	exec = /bin/sh -c 'echo app >>$T/order'
	ready = exit
	after = net
	EOF
	svc net <<-EOF
	exec = /bin/sh -c 'echo net >>$T/order'
	ready = exit
	EOF
	pv_up
	ctl wait app done --timeout=10s || fail "app: $(ctl status)"
	ctl wait net done --timeout=10s || fail "net: $(ctl status)"
	expect_eq "$(tr '\n' ' ' <"$T/order")" "net app " "the boot's order"
	: >"$T/order"
	expect_rc 0 ctl start app net --wait
	expect_eq "$(tr '\n' ' ' <"$T/order")" "net app " "one command's order"
	pv_down
}
