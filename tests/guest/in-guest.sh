#!/bin/sh
# tests/guest/in-guest.sh - the guest tests, run by pidvisor (PID 1)
# as the service "runner".  Results go to /dev/ttyS1 as TAP; the host
# reads them once QEMU has exited.  The last act is `pidvisorctl poweroff`
# (or, with pidvisor.test=cad on the kernel command line, the SIGINT that
# Ctrl-Alt-Del sends to init).
#
#   in-guest.sh            all tests, then power off
#   in-guest.sh --one T    run the test function T (used internally)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
T=/test
CTL=pidvisorctl

fail() {
	echo "FAIL: $*"
	exit 1
}

expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}

# field NAME COLUMN: a column of `pidvisorctl status NAME`.
field() {
	$CTL status "$1" | awk -v c="$2" 'NR == 2 { print $c }'
}

# Every process in the guest as "pid state comm" (comm without spaces).
procs() {
	for s in /proc/[0-9]*/stat; do
		cat "$s" 2>/dev/null
		echo
	done | sed -n 's/^\([0-9]*\) (\([^)]*\)) \(.\).*/\1 \3 \2/p'
}

# PID 1 is pidvisor, and it mounted the API filesystems.
t_pid1() {
	expect_eq "$(cat /proc/1/comm)" init "comm of PID 1"
	for m in "/proc proc" "/sys sysfs" "/dev devtmpfs" "/run tmpfs" \
	    "/sys/fs/cgroup cgroup2"; do
		grep -q " $m " /proc/mounts || fail "$m is not mounted"
	done
	$CTL status | grep -q "^runner  *ready" || fail "runner not listed"
	$CTL wait sysctl done --timeout=10s || fail "the sysctl task"
	expect_eq "$(cat /proc/sys/fs/protected_symlinks)" 1 \
	    "fs.protected_symlinks"
}

# Each kind of readiness, under the real init; a forking daemon is
# found in its cgroup, with or without its pid file.
t_ready_kinds() {
	for s in rdy-fd rdy-notify rdy-fork rdy-forkpid; do
		$CTL start $s --wait --timeout=10s || fail "$s not ready"
		expect_eq "$(field $s 2)" ready "$s state"
	done
	$CTL status rdy-notify | grep -q '\[up\]' || fail "no status text"
	expect_eq "$(field rdy-forkpid 3)" "$(cat /run/rdy-forkpid.pid)" \
	    "the daemon of rdy-forkpid"
	grep -qx "$(field rdy-fork 3)" \
	    /sys/fs/cgroup/pidvisor/rdy-fork/cgroup.procs ||
	    fail "rdy-fork's main is not its cgroup's process"
	for s in rdy-fd rdy-notify rdy-fork rdy-forkpid; do
		$CTL stop $s --wait --timeout=10s || fail "$s did not stop"
	done
}

# The boot task ran before its dependents, once: db (which refuses to
# start without the task's file) started once, and setup is done.  A
# forking daemon's grandchild, named by MAINPID, is taken by its cgroup
# and is the service from then on.
t_boot_task() {
	$CTL wait db ready --timeout=30s || fail "db not ready"
	expect_eq "$(field setup 2)" done "setup's state"
	expect_eq "$(field db 5)" 0 "db's restarts"
	$CTL status setup | grep -q 'exited with code 0; ran at' ||
	    fail "no run time: $($CTL status setup)"
	$CTL start forker --wait --timeout=30s || fail "forker not ready"
	child=$(awk '{ print $3 }' /run/forker)
	expect_eq "$(field forker 3)" "$child" "forker's main process"
	grep -q "^$child\$" /sys/fs/cgroup/pidvisor/forker/cgroup.procs ||
	    fail "the grandchild is not in forker's cgroup"
	$CTL stop forker --wait --timeout=30s || fail "forker did not stop"
	[ ! -d /proc/"$child" ] || fail "the grandchild outlived the stop"
}

# A crashing service keeps coming back.
t_crash_restart() {
	$CTL start crash
	i=0
	while [ $i -lt 3 ]; do
		$CTL wait crash backoff --timeout=10s || fail "no backoff"
		$CTL wait crash ready --timeout=10s || fail "no restart"
		i=$((i + 1))
	done
	r=$(field crash 5)
	[ "$r" -ge 3 ] || fail "restarts: $r"
	$CTL stop crash --wait --timeout=10s || fail "crash did not stop"
}

# 300 double-forked orphans: PID 1 reaps every one; the service's own
# exit status is not stolen.
t_orphan_storm() {
	$CTL start storm --wait --timeout=10s || fail "storm did not start"
	$CTL wait storm failed --timeout=30s || fail "storm did not end"
	$CTL status storm | grep -q "exited with code 5" ||
	    fail "status of storm: $($CTL status storm)"
	i=0
	while [ $i -lt 200 ]; do
		left=$(procs | awk '$3 == "orphan" || $2 == "Z"' | wc -l)
		[ "$left" = 0 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	expect_eq "$left" 0 "orphans or zombies left"
}

# With a small pid_max the kernel itself hands a dead service's PID to
# another process; signal and stop on the service must not touch it.
t_pid_reuse() {
	old_max=$(cat /proc/sys/kernel/pid_max)
	echo 400 >/proc/sys/kernel/pid_max
	$CTL start victim --wait --timeout=10s || fail "victim did not start"
	pid=$(field victim 3)
	$CTL signal victim KILL || fail "signal KILL"
	$CTL wait victim backoff --timeout=10s || fail "no backoff"
	holder=
	i=0
	while [ $i -lt 2000 ] && [ -z "$holder" ]; do
		sleep 100 &
		if [ $! = "$pid" ]; then
			holder=$!
		else
			kill $! 2>/dev/null
			wait $! 2>/dev/null
		fi
		i=$((i + 1))
	done
	echo "$old_max" >/proc/sys/kernel/pid_max
	[ -n "$holder" ] || fail "pid $pid never came back"
	out=$($CTL signal victim TERM 2>&1) && fail "signal reached: $out"
	expect_eq "$out" "pidvisorctl: victim is not running"
	$CTL stop victim --wait --timeout=10s || fail "stop"
	kill -0 "$holder" || fail "the process holding pid $pid is gone"
	kill "$holder"
}

# PID-reuse torture (tests/helpers/torture.c): with pid_max 512, PIDs
# wrap in moments while 8 services crash-loop and are signalled,
# restarted, stopped and pressure-killed at random; decoys that take the
# dead's PIDs must never get a signal from pidvisor, while a naive
# kill(pid) supervisor in the same run must hit some.  A short run here;
# with pidvisor.test=torture (make torture) 100,000 restarts.
t_torture() {
	secs=15
	min=1000
	if grep -q pidvisor.test=torture /proc/cmdline; then
		secs=60
		min=100000
	fi
	old_max=$(cat /proc/sys/kernel/pid_max)
	echo 512 >/proc/sys/kernel/pid_max
	out=$(/test/torture run $secs $min tort1 tort2 tort3 tort4 tort5 \
	    tort6 tort7 tort8)
	rc=$?
	echo "$old_max" >/proc/sys/kernel/pid_max
	echo "# torture: $out" >&3
	echo "$out"
	return $rc
}

# clone3() into a cgroup at its pids.max fails with EAGAIN: the reason
# is shown, the service waits in back-off (the shortage is not its
# failure) however long it lasts, and comes up once the limit is raised.
t_pids_full() {
	cg=/sys/fs/cgroup/pidvisor/pids-full
	$CTL start pids-full --wait --timeout=20s || fail "no start"
	echo 0 >$cg/pids.max
	$CTL restart pids-full
	i=0
	while ! $CTL status pids-full | grep -q "Resource temporarily" &&
	    [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	$CTL status pids-full
	expect_eq "$(field pids-full 2)" backoff "state"
	$CTL status pids-full | grep -q "spawn: Resource temporarily unavailable" ||
	    fail "no reason: $($CTL status pids-full)"
	# More failed starts than start_limit_burst (5) would allow.
	i=0
	while [ "$(field pids-full 5)" -lt 8 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ "$(field pids-full 5)" -ge 8 ] || fail "$($CTL status pids-full)"
	expect_eq "$(field pids-full 2)" backoff "state after 8 tries"
	echo max >$cg/pids.max
	$CTL wait pids-full ready --timeout=10s || fail "did not come back"
	$CTL stop pids-full --wait --timeout=10s || fail "no stop"
}

# log = kmsg: as PID 1, a service's lines land in the kernel's log.
t_kmsg() {
	$CTL start kmsg-talker --wait --timeout=10s || fail "no start"
	i=0
	while [ $i -lt 100 ]; do
		dmesg -s 1048576 | grep -q "kmsg-talker\[[0-9]*\]: hello kernel log" &&
		    return 0
		sleep 0.05
		i=$((i + 1))
	done
	fail "not in dmesg: $(dmesg -s 1048576 | tail -3)"
}

# Each service in its own cgroup from its first instant, with its limits;
# kill_mode = cgroup reaches every process of a service.
t_cgroups() {
	cg=/sys/fs/cgroup/pidvisor
	pid=$(field db 3)
	expect_eq "$(cat /proc/"$pid"/cgroup)" "0::/pidvisor/db" "db's cgroup"
	$CTL start mem-protected --wait --timeout=20s || fail "no start"
	expect_eq "$(cat $cg/mem-protected/memory.max)" 67108864 "memory.max"
	expect_eq "$(cat $cg/mem-protected/memory.high)" 62914560 "memory.high"
	expect_eq "$(cat $cg/mem-protected/pids.max)" 32 "pids.max"
	$CTL status mem-protected |
	    grep -q "(memory [0-9.]*M, oom 0, oom_kill 0)" ||
	    fail "no memory in status: $($CTL status mem-protected)"
	$CTL stop mem-protected --wait --timeout=20s || fail "no stop"

	$CTL start in-cgroup --wait --timeout=20s || fail "in-cgroup"
	i=0
	while [ "$(wc -l <$cg/in-cgroup/cgroup.procs)" -lt 3 ] &&
	    [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	$CTL stop in-cgroup --wait --timeout=20s || fail "in-cgroup stop"
	i=0
	while [ -s $cg/in-cgroup/cgroup.procs ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s $cg/in-cgroup/cgroup.procs ] &&
	    fail "left in the cgroup: $(cat $cg/in-cgroup/cgroup.procs)"

	# cpu_weight, cpu_max, io_weight: the controllers handed down on
	# demand, the values in its cgroup.
	$CTL start cpu-io --wait --timeout=20s || fail "cpu-io"
	expect_eq "$(cat $cg/cpu-io/cpu.weight)" 50 "cpu.weight"
	expect_eq "$(cat $cg/cpu-io/cpu.max)" "20000 100000" "cpu.max"
	expect_eq "$(cat $cg/cpu-io/io.weight)" "default 300" "io.weight"
	$CTL stop cpu-io --wait --timeout=20s || fail "cpu-io stop"
	return 0
}

# Every hardening key at once, under this kernel (6.1): the service runs
# with each protection in force.
t_hardened() {
	$CTL start hardened --wait --timeout=20s || fail "hardened: $($CTL status hardened)"
	pid=$(field hardened 3)
	i=0
	until $CTL logs hardened | grep -q "try bind80" || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	out=$($CTL logs hardened)
	echo "$out" | grep -q "etc-ro" || fail "/etc writable: $out"
	echo "$out" | grep -q "try umount: Operation not permitted" ||
	    fail "umount not filtered: $out"
	echo "$out" | grep -q "try bind80: ok" || fail "no port 80: $out"
	echo "$out" | grep -q "dev: fd full null pts random shm stderr stdin stdout tty urandom zero$" ||
	    fail "its /dev: $out"
	echo "$out" | grep -q "tmp: 0$" || fail "its /tmp: $out"
	st=$(cat /proc/"$pid"/status)
	echo "$st" | grep -q "^NoNewPrivs:.1" || fail "no_new_privs: $st"
	echo "$st" | grep -q "^CapAmb:.0000000000000400" || fail "caps: $st"
	echo "$st" | grep -q "^Seccomp:.2" || fail "seccomp: $st"
	grep -q " /etc .* ro," /proc/"$pid"/mountinfo ||
	    grep -Eq " / / ro[, ]" /proc/"$pid"/mountinfo ||
	    fail "no read-only root: $(cat /proc/"$pid"/mountinfo)"
	$CTL stop hardened --wait --timeout=20s || fail "hardened stop"
}

# Where clone3 is missing (here a seccomp filter, /test/noclone3), a
# second pidvisor spawns with clone(CLONE_PIDFD), and its service joins
# its own cgroup itself before exec.
t_no_clone3() {
	d=/tmp/nc3
	cg=/sys/fs/cgroup/nc3
	mkdir -p $d/conf/services
	printf '[supervisor]\ncgroup_root = %s\n' $cg >$d/conf/pidvisor.ini
	printf '[service]\nexec = /test/svc-helper sleep=forever\n' \
	    >$d/conf/services/nc.ini
	/test/noclone3 /sbin/init -c $d/conf -s $d/ctl.sock >$d/log 2>&1 &
	pv=$!
	i=0
	until $CTL -s $d/ctl.sock wait nc ready --timeout=10s >/dev/null \
	    2>&1 || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -q "clone3 is missing: spawning with clone" $d/log ||
	    fail "no fallback: $(cat $d/log)"
	pid=$($CTL -s $d/ctl.sock status nc | awk 'NR == 2 { print $3 }')
	expect_eq "$(cat /proc/"$pid"/cgroup)" "0::/nc3/nc" "nc's cgroup"
	kill -TERM $pv
	i=0
	while kill -0 $pv 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -0 $pv 2>/dev/null && fail "the second pidvisor did not stop"
	rmdir $cg/nc $cg
	rm -rf $d
	return 0
}

# until SECONDS CMD...: poll CMD until it succeeds, at most SECONDS.
until_ok() {
	_deadline=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	until "$@"; do
		[ "$(cut -d. -f1 /proc/uptime)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}

kills() {
	$CTL pressure | sed -n 's/^kills: //p'
}

waiting_for_memory() {
	$CTL status "$1" | grep -q "killed for memory pressure; waiting for memory"
}

uptime_ms() {
	$CTL status "$1" --json | sed 's/.*"uptime_ms":\([0-9]*\).*/\1/'
}

# Real memory pressure: memory.high on the services' cgroup, a spike held
# until the test ends it.  The killer takes the highest kill_priority,
# then the biggest; never the protected one; reclaims by the
# kill-and-reap flag.  A victim does not come back while the spike holds
# its memory (it would be killed again): it waits for memory, says so,
# and nothing is killed twice.  Once the spike is gone they come back,
# the most important first, one per pressure_calm.
t_pressure() {
	for s in mem-low mem-high-small mem-high-big mem-protected; do
		$CTL start $s --wait --timeout=30s || fail "$s did not start"
	done
	protected=$(field mem-protected 3)
	$CTL start mem-pusher
	until_ok 90 sh -c '[ "$(pidvisorctl pressure | sed -n "s/^kills: //p")" -ge 3 ]' ||
	    fail "fewer than 3 kills: $($CTL pressure)"
	$CTL pressure
	expect_eq "$($CTL pressure | awk '/ priority /{print $2}' | head -3 |
	    tr '\n' ' ')" "mem-high-big mem-high-small mem-low " "victims"
	expect_eq "$($CTL pressure | grep ' priority ' | head -3 |
	    grep -c ', reap, ')" 3 "kills by reap"
	expect_eq "$(field mem-protected 3)" "$protected" "protected pid"
	for s in mem-high-big mem-high-small mem-low; do
		until_ok 30 waiting_for_memory $s ||
		    fail "$s is not waiting for memory: $($CTL status $s)"
	done
	$CTL status
	expect_eq "$(kills)" 3 "kills while the spike holds"
	$CTL stop mem-pusher --wait --timeout=30s || fail "spike not over"
	for s in mem-low mem-high-big mem-high-small; do
		$CTL wait $s ready --timeout=60s || fail "$s did not come back"
		[ "$(field $s 5)" -ge 1 ] || fail "$s: no restart counted"
	done
	expect_eq "$(kills)" 3 "kills in all (no kill/restart thrash)"
	low=$(uptime_ms mem-low)
	big=$(uptime_ms mem-high-big)
	small=$(uptime_ms mem-high-small)
	[ "$low" -gt "$big" ] && [ "$big" -gt "$small" ] ||
	    fail "not back in order: up for $low, $big, $small ms"
	for s in mem-low mem-high-small mem-high-big mem-protected; do
		$CTL stop $s --wait --timeout=20s
	done
	return 0
}

# The kernel's OOM killer may kill a service: PID 1's own oom_score_adj
# is not the services' (a service that sets its own gets it), and one
# that goes over its memory_max is killed by the kernel, says so, and
# comes back by its policy.
t_oom() {
	expect_eq "$(cat /proc/1/oom_score_adj)" 0 "PID 1's oom_score_adj"
	$CTL start oom-adj --wait --timeout=20s || fail "oom-adj"
	expect_eq "$(cat /proc/"$(field oom-adj 3)"/oom_score_adj)" 300 \
	    "oom-adj's"
	expect_eq "$(cat /proc/1/oom_score_adj)" 0 "PID 1's, after"
	$CTL stop oom-adj --wait --timeout=20s || fail "oom-adj stop"
	$CTL start oom-hog
	for i in 1 2; do
		$CTL wait oom-hog backoff --timeout=60s ||
		    fail "not killed: $($CTL status oom-hog)"
		$CTL status oom-hog
		# Held for memory as the killer's victims are, once due.
		$CTL status oom-hog | grep -Eq \
		    "backoff .* killed by the kernel's OOM killer; (waiting for memory, )?restart in" ||
		    fail "reason: $($CTL status oom-hog)"
		$CTL wait oom-hog ready --timeout=60s || fail "no restart"
	done
	n=$($CTL status oom-hog | sed -n 's/.*oom_kill \([0-9]*\)).*/\1/p')
	[ "${n:-0}" -ge 2 ] || fail "oom_kill count: $($CTL status oom-hog)"
	[ "$(field oom-hog 5)" -ge 2 ] || fail "restarts: $(field oom-hog 5)"
	$CTL stop oom-hog --wait --timeout=20s || fail "oom-hog stop"
}

# kill_line NAME: the killer's record of NAME's last kill, in words.
kill_line() {
	$CTL pressure | grep " $1 priority " | tail -1
}

# A victim stuck in D state does not hold the next kill.  locked (32
# MiB, kill_priority 1000) is killed first, its mmap_lock held (as in
# t_reclaim_blocked) so that neither the kernel's reap nor its own exit
# can take its memory; the pressure goes on, and once
# pressure_kill_timeout is over the killer kills mem-high-big, while
# locked is still in D state (before: the one kill in flight held it
# 10 s and then the cool-down).
t_pressure_stuck() {
	rm -f /tmp/locked.addr /tmp/fh.log
	/test/fuse-hang /tmp/fh >/tmp/fh.log 2>&1 &
	fh=$!
	trap 'kill -TERM $fh 2>/dev/null' EXIT
	until_ok 10 grep -q ready /tmp/fh.log || fail "no FUSE mount"
	$CTL start locked --wait --timeout=20s || fail "locked did not start"
	$CTL start mem-high-big --wait --timeout=20s || fail "mem-high-big"
	until_ok 10 test -s /tmp/locked.addr || fail "locked mapped nothing"
	pid=$(field locked 3)
	/test/svc-helper peek="$pid:$(cat /tmp/locked.addr)" &
	peek=$!
	until_ok 10 grep -q "read held" /tmp/fh.log ||
	    fail "the read did not reach the file system"
	/test/svc-helper clear-refs="$pid" &
	writer=$!
	until_ok 10 in_d_state $writer || fail "the writer is not waiting"
	before=$(kills)
	$CTL start mem-pusher
	until_ok 60 sh -c "[ \$(pidvisorctl pressure | sed -n 's/^kills: //p') -ge $((before + 2)) ]" ||
	    fail "fewer than 2 kills: $($CTL pressure)"
	# locked is still stuck: what killed mem-high-big did not wait.
	in_d_state "$pid" || fail "locked is no longer stuck: $(state_of "$pid")"
	$CTL pressure | tail -2
	kill_line locked | grep -q ", not dead, " ||
	    fail "locked's record: $(kill_line locked)"
	kill_line mem-high-big | grep -Eq ", (medium|critical): " ||
	    fail "mem-high-big's: $(kill_line mem-high-big)"
	$CTL pressure | grep ' priority ' | tail -2 | head -1 |
	    grep -q " locked priority " || fail "not locked first"
	$CTL stop mem-pusher --wait --timeout=30s || fail "mem-pusher stop"
	kill -TERM $fh
	wait $peek $writer $fh
	trap - EXIT
	$CTL wait locked failed --timeout=30s || fail "locked: $($CTL status locked)"
	$CTL wait mem-high-big ready --timeout=60s || fail "mem-high-big back"
	$CTL stop mem-high-big --wait --timeout=20s
	return 0
}

# The whole cgroup of a multi-process service dies with it (frozen,
# each process killed and reaped, cgroup.kill for the rest), and is
# sized by all three; with kill_mode = process only the main process
# dies, and the kill is sized by it alone.
t_pressure_cgroup() {
	for s in mem-multi mem-multi-main; do
		$CTL start $s --wait --timeout=20s || fail "$s did not start"
		until_ok 20 sh -c "[ \$(wc -l </sys/fs/cgroup/pidvisor/$s/cgroup.procs) = 3 ]" ||
		    fail "$s: not 3 processes"
	done
	until_ok 20 sh -c 'pidvisorctl status mem-multi --json | grep -q "\"memory\":6[0-9][0-9][0-9]"' || true
	procs=$(cat /sys/fs/cgroup/pidvisor/mem-multi/cgroup.procs)
	$CTL pressure kill mem-multi || fail "pressure kill mem-multi"
	$CTL wait mem-multi failed --timeout=20s || fail "mem-multi not dead"
	for p in $procs; do
		until_ok 10 sh -c "[ ! -e /proc/$p ] || grep -q '^State:.Z' /proc/$p/status" ||
		    fail "mem-multi's $p lives on"
	done
	expect_eq "$(cat /sys/fs/cgroup/pidvisor/mem-multi/cgroup.procs)" "" \
	    "mem-multi's cgroup"
	line=$(kill_line mem-multi)
	echo "$line"
	echo "$line" | grep -q ", 3 processes, request: " || fail "$line"
	mib=$(echo "$line" | sed -n 's/.* priority 900, \([0-9]*\)\.[0-9] MiB.*/\1/p')
	[ "${mib:-0}" -ge 59 ] || fail "sized by $mib MiB, not all three"
	main=$(field mem-multi-main 3)
	$CTL pressure kill mem-multi-main || fail "pressure kill mem-multi-main"
	$CTL wait mem-multi-main failed --timeout=20s || fail "not dead"
	line=$(kill_line mem-multi-main)
	echo "$line"
	echo "$line" | grep -q ", 1 process, request: " || fail "$line"
	mib=$(echo "$line" | sed -n 's/.* priority 900, \([0-9]*\)\.[0-9] MiB.*/\1/p')
	[ "${mib:-99}" -le 30 ] || fail "sized by $mib MiB, not its main's"
	expect_eq "$(wc -l </sys/fs/cgroup/pidvisor/mem-multi-main/cgroup.procs)" \
	    2 "mem-multi-main's children"
	for p in $(cat /sys/fs/cgroup/pidvisor/mem-multi-main/cgroup.procs); do
		kill -KILL "$p"
	done
	return 0
}

# The floor per level, in a pidvisor of its own with a cgroup tree of
# its own (/sys/fs/cgroup/nest, its memory.high 100M): at medium
# pressure only kill_priority >= pressure_min_priority (the default,
# 1) dies, and a service of the default priority 0 lives on through
# the pressure; below the memory floor (pressure_min_available, set by
# a reload) it dies too.
t_pressure_levels() {
	d=/tmp/lv
	rm -rf $d
	mkdir -p $d/conf/services
	cat >$d/conf/pidvisor.ini <<-EOF
	[supervisor]
	cgroup_root = /sys/fs/cgroup/nest
	cgroup_memory_high = 100M
	pressure = some 100ms 1s
	pressure_critical = off
	EOF
	printf '[service]\nexec = /test/svc-helper alloc=30 sleep=forever\nkill_priority = 20\nrestart = never\n' \
	    >$d/conf/services/p20.ini
	printf '[service]\nexec = /test/svc-helper alloc=30 sleep=forever\nrestart = never\n' \
	    >$d/conf/services/p0.ini
	printf '[service]\nexec = /test/svc-helper grow=80:10:150 sleep=forever\nkill_priority = never\nrestart = never\nenabled = no\n' \
	    >$d/conf/services/push.ini
	/sbin/init -c $d/conf -s $d/ctl.sock >$d/log 2>&1 &
	pv=$!
	C="$CTL -s $d/ctl.sock"
	until_ok 10 $C version >/dev/null 2>&1 ||
	    fail "the second pidvisor did not start: $(cat $d/log)"
	$C wait p20 ready --timeout=20s || fail "p20"
	$C wait p0 ready --timeout=20s || fail "p0"
	p0=$($C status p0 | awk 'NR == 2 { print $3 }')
	$C start push
	until_ok 60 grep -q "no service may be killed at that level" $d/log ||
	    fail "no medium pressure left unanswered: $(cat $d/log)"
	$C pressure
	$C pressure | grep ' priority ' | grep -q " p20 priority 20, .*, medium: " ||
	    fail "p20 not killed at medium pressure"
	expect_eq "$($C status p0 | awk 'NR == 2 { print $2 " " $3 }')" \
	    "ready $p0" "p0 through medium pressure"
	echo "pressure_min_available = 100G" >>$d/conf/pidvisor.ini
	$C reload || fail "reload"
	$C wait p0 failed --timeout=20s || fail "p0 not killed at the floor"
	$C pressure | grep ' priority ' | tail -1 |
	    grep -q " p0 priority 0, .*, floor: MemAvailable " ||
	    fail "p0's kill: $($C pressure | tail -1)"
	kill -TERM $pv
	wait $pv
	for c in /sys/fs/cgroup/nest/*/; do
		rmdir "$c" 2>/dev/null
	done
	rmdir /sys/fs/cgroup/nest
	rm -rf $d
}

# The state letter of a process (R, S, D, Z...).
state_of() {
	sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' /proc/"$1"/stat 2>/dev/null
}

in_d_state() {
	[ "$(state_of "$1")" = D ]
}

# Is a thread of process $1 in D state?
thread_in_d() {
	for t in /proc/"$1"/task/*; do
		[ "$(state_of "$1/task/${t##*/}")" = D ] && return 0
	done
	return 1
}

# answers CTL...: the supervisor answers status, ten times running.
# answers CTL...: ten status requests, each answered; the slowest in
# ms (centiseconds of /proc/uptime) in $slowest.
answers() {
	i=0
	slowest=0
	while [ $i -lt 10 ]; do
		t0=$(tr -d . </proc/uptime | cut -d' ' -f1)
		timeout 5 "$@" status >/dev/null ||
		    fail "status did not answer while the reclaim is stuck"
		t=$((($(tr -d . </proc/uptime | cut -d' ' -f1) - t0) * 10))
		[ $t -gt $slowest ] && slowest=$t
		i=$((i + 1))
	done
}

# reclaim_blocked CTL...: kill the service "locked" for memory while its
# mmap_lock is held, and check that the supervisor behind CTL keeps
# answering.  A reader stuck in a FUSE read that never ends holds the
# lock for reading (peek through /proc/PID/mem); a writer queued behind
# it (clear_refs) makes every later reader wait too: process_mrelease(),
# the kernel's reap, and the victim's own exit.  A supervisor that
# reclaimed on its loop would stop answering here until the read ends.
reclaim_blocked() {
	rm -f /tmp/locked.addr /tmp/fh.log
	/test/fuse-hang /tmp/fh >/tmp/fh.log 2>&1 &
	fh=$!
	# Whatever happens, the hung reads end with the test.
	trap 'kill -TERM $fh 2>/dev/null' EXIT
	until_ok 10 grep -q ready /tmp/fh.log || fail "no FUSE mount"
	"$@" start locked --wait --timeout=20s || fail "locked did not start"
	until_ok 10 test -s /tmp/locked.addr || fail "locked mapped nothing"
	pid=$("$@" status locked | awk 'NR == 2 { print $3 }')
	/test/svc-helper peek="$pid:$(cat /tmp/locked.addr)" &
	peek=$!
	until_ok 10 grep -q "read held" /tmp/fh.log ||
	    fail "the read did not reach the file system"
	/test/svc-helper clear-refs="$pid" &
	writer=$!
	until_ok 10 in_d_state $writer || fail "the writer is not waiting"
	answers "$@"
	before=$slowest
	"$@" pressure kill locked || fail "pressure kill"
	answers "$@"
	stuck=$slowest
	# The victim is stuck on its own exit, its memory not reaped.
	until_ok 10 in_d_state "$pid" || fail "the victim is not stuck"
	rss=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\).*/\1/p' \
	    /proc/"$pid"/status)
	[ "${rss:-0}" -ge 30000 ] ||
	    fail "its memory came back ($rss kB): the lock was not held"
	if [ "$reaper" = kernel ]; then
		# The kernel's reap tried the lock, and gave up.
		until_ok 10 sh -c "dmesg | grep -q 'pidfd_reap: gave up on pid $pid '" ||
		    fail "the kernel's reap did not try"
		answers "$@"
	else
		# Our mrelease thread sleeps in process_mrelease().
		until_ok 10 thread_in_d $pv || fail "no thread of $pv is stuck"
		answers "$@"
	fi
	[ $slowest -gt $stuck ] && stuck=$slowest
	echo "#   reclaim by $reaper, the victim's lock held: status took at" \
	    "most $stuck ms (before the kill: $before ms), 10 cs steps" >&3
	"$@" pressure | grep ' locked priority' || true
	kill -TERM $fh
	wait $peek $writer $fh
	trap - EXIT
	"$@" wait locked failed --timeout=30s ||
	    fail "not reaped once the lock was free: $("$@" status locked)"
}

# The killer never waits for a victim's mmap_lock: not PID 1 with our
# kernel's reap (its worker tries the lock and gives up), not a
# second pidvisor that reaps with process_mrelease() (in its thread).
t_reclaim_blocked() {
	reaper=kernel
	reclaim_blocked $CTL
	$CTL pressure | grep -q ' locked priority .*, reap, ' ||
	    fail "PID 1 did not reclaim by reap: $($CTL pressure)"
	d=/tmp/nest
	mkdir -p $d/conf/services
	printf '[supervisor]\ncgroup_root = none\npressure_reclaim = mrelease\n' \
	    >$d/conf/pidvisor.ini
	cp /etc/pidvisor/services/locked.ini $d/conf/services/
	/sbin/init -c $d/conf -s $d/ctl.sock >$d/log 2>&1 &
	pv=$!
	until_ok 10 $CTL -s $d/ctl.sock version >/dev/null 2>&1 ||
	    fail "the second pidvisor did not start: $(cat $d/log)"
	reaper=thread
	reclaim_blocked $CTL -s $d/ctl.sock
	$CTL -s $d/ctl.sock pressure | grep -q ' locked priority .*, mrelease, ' ||
	    fail "no reclaim by mrelease: $($CTL -s $d/ctl.sock pressure)"
	kill -TERM $pv
	wait $pv
	rm -rf $d
}

# A datagram to a notify socket carrying the last reference to a TCP
# socket that lingers 20 s with unsent data.  6.1 has no SO_PASSRIGHTS:
# the datagram reaches the socket, and a drainer takes it off, drops the
# linger and closes; PID 1 never holds the fd and keeps answering.
t_notify_fds() {
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	$CTL start rdy-notify --wait --timeout=10s || fail "rdy-notify not ready"
	/test/svc-helper linger=/run/pidvisor/notify/rdy-notify.sock:20 \
	    >/tmp/linger.out 2>&1 &
	att=$!
	until_ok 10 grep -q "sent\|refused" /tmp/linger.out ||
	    fail "the attack did not run: $(cat /tmp/linger.out)"
	grep -q sent /tmp/linger.out ||
	    fail "the kernel refused the fd: $(cat /tmp/linger.out)"
	answers $CTL
	# The linger is 20 s; each status has 5 s (answers), so a close on
	# the loop fails above; this bound only says so plainly.
	[ $slowest -lt 10000 ] || fail "status took $slowest ms"
	echo "#   a socket lingering 20 s passed to a notify socket:" \
	    "status took at most $slowest ms" >&3
	kill $att
	wait $att || :		# killed: 143
	$CTL stop rdy-notify --wait --timeout=10s || fail "rdy-notify stays"
}

# A FUSE file whose FLUSH is never answered passed to a notify socket,
# then as many fds as the sender can: its drainer stays stuck in the
# close, PID 1 holds none of them, another service's watchdog pings are
# all read (6.1: no SO_PASSRIGHTS), and re-exec works meanwhile.
t_notify_drainer() {
	mkdir -p /tmp/ff
	/test/fuse-hang /tmp/ff flush >/tmp/ff.log 2>&1 &
	fh=$!
	# Even when a check fails: nothing held, nothing left running.
	trap 'kill -TERM $fh 2>/dev/null; wait $fh;
	    $CTL stop fd-sender --wait --timeout=20s >/dev/null 2>&1;
	    $CTL stop wd-victim --wait --timeout=20s >/dev/null 2>&1' EXIT
	until_ok 10 grep -q ready /tmp/ff.log || fail "no FUSE mount"
	$CTL start wd-victim --wait --timeout=10s || fail "wd-victim not ready"
	fds0=$(ls /proc/1/fd | wc -l)
	$CTL start fd-sender --wait --timeout=10s || fail "fd-sender not ready"
	until_ok 20 grep -q "flush held" /tmp/ff.log ||
	    fail "no close reached the file system"
	until_ok 20 sh -c "$CTL logs fd-sender | grep -q 'of 17000'" ||
	    fail "fd-sender did not send: $($CTL logs fd-sender)"
	n=$($CTL status wd-victim --json | sed -n 's/.*"status_text":"\([0-9]*\)".*/\1/p')
	until_ok 20 sh -c "[ \$($CTL status wd-victim --json | sed -n \
	    's/.*\"status_text\":\"\([0-9]*\)\".*/\1/p') -ge $((n + 10)) ]" ||
	    fail "wd-victim's pings stopped: $($CTL status wd-victim)"
	expect_eq "$(field wd-victim 5)" 0 "wd-victim's restarts"
	# fd-sender's pidfd, pipes and socket; the drainer's pidfd and
	# pipe: a handful more, not thousands.
	fds=$(ls /proc/1/fd | wc -l)
	[ "$fds" -lt $((fds0 + 16)) ] || fail "PID 1 holds $fds fds (was $fds0)"
	rx=$($CTL reexec 2>&1) || fail "reexec: $rx"
	echo "#   $($CTL logs fd-sender | grep -o 'sent .*' | tr '\n' ' ')" \
	    "PID 1 holds $fds fds (was $fds0); $rx" >&3
	trap - EXIT
	kill -TERM $fh
	wait $fh
	$CTL stop fd-sender --wait --timeout=20s ||
	    fail "fd-sender did not stop: $($CTL status fd-sender)"
	$CTL stop wd-victim --wait --timeout=20s ||
	    fail "wd-victim did not stop: $($CTL status wd-victim)"
	[ "$(field wd-victim 5)" = 0 ] || fail "wd-victim restarted"
}

# A spawn's child shares PID 1's memory until exec.  Once it has a
# service's user, that user must not be able to read it (nor trace it):
# the kernel makes the memory non-dumpable when the credentials change,
# unless fs.suid_dumpable = 1, where pidvisor spawns such a service with
# memory of its own.  The children are held before exec by a FUSE mount
# that never answers; the spawn deadline kills them.
t_spawn_user_trace() {
	/test/fuse-hang /tmp/fx exec >/tmp/fx.log 2>&1 &
	fx=$!
	trap 'kill -TERM $fx 2>/dev/null' EXIT
	until_ok 10 grep -q ready /tmp/fx.log || fail "no FUSE mount"
	old=$(cat /proc/sys/fs/suid_dumpable)
	for d in 0 1; do
		echo $d >/proc/sys/fs/suid_dumpable
		$CTL start usertrace$d || fail "start usertrace$d"
		# Its user taken, it waits in exec (the second on the page
		# the first one's read holds).
		until_ok 10 sh -c "grep -q '^Uid:.*65534' /proc/\$($CTL status \
		    usertrace$d | awk 'NR == 2 { print \$3 }')/status" ||
		    fail "usertrace$d has not taken nobody's user"
		child=$($CTL status usertrace$d | awk 'NR == 2 { print $3 }')
		if /test/svc-helper same-vm=1:"$child"; then
			[ $d = 0 ] || fail "suid_dumpable 1, and memory shared"
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			    sh -c "exec 3</proc/$child/mem" 2>/dev/null &&
			    fail "nobody opened the memory PID 1 shares"
		else
			[ $d = 1 ] || fail "suid_dumpable 0, and no memory shared"
		fi
	done
	echo "$old" >/proc/sys/fs/suid_dumpable
	$CTL wait usertrace0 stopping --timeout=20s || fail "no spawn deadline"
	kill -TERM $fx
	wait $fx
	trap - EXIT
	$CTL wait usertrace0 failed --timeout=10s || fail "usertrace0 lives"
	$CTL wait usertrace1 failed --timeout=10s || fail "usertrace1 lives"
	$CTL status usertrace0 | grep -q "spawn timed out" ||
	    fail "$($CTL status usertrace0)"
}

# stop_timeout: SIGKILL for what ignores SIGTERM.
t_stop_timeout() {
	$CTL start sturdy --wait --timeout=10s || fail "sturdy did not start"
	$CTL stop sturdy --wait --timeout=10s || fail "sturdy did not stop"
	$CTL status sturdy | grep -q "killed after stop_timeout" ||
	    fail "$($CTL status sturdy)"
}

# name state pid restarts of every service but crash (it crash-loops).
reexec_snap() {
	$CTL status | awk 'NR > 1 && $1 != "crash" { print $1, $2, $3, $5 }'
}

# reexec as PID 1, with crash looping meanwhile: into itself, into a
# pidvisor of another build (-O0, another version: the state is read,
# not shared), back; /bin/false and a missing binary are refused, and a
# binary that crashes while reading the state goes back to the one
# before.  Every service keeps its PID, state and restart count, and
# spawns go on into their cgroups.
t_reexec() {
	$CTL start crash || fail "crash did not start"
	before=$(reexec_snap)
	for i in 1 2 3; do
		out=$($CTL reexec 2>&1) || fail "reexec $i: $out"
		echo "$out" | grep -q "took over" || fail "reexec $i: $out"
	done
	out=$($CTL reexec --binary /test/pidvisor-other 2>&1) ||
	    fail "reexec into another build: $out"
	echo "$out" | grep -q "pidvisor 0.1.0+other (was 0.1.0) took over" ||
	    fail "another build: $out"
	$CTL version | grep -q "pidvisor 0.1.0+other" ||
	    fail "version: $($CTL version)"
	expect_eq "$(cat /proc/1/comm)" init "comm of PID 1"
	$CTL reexec --binary /bin/false >/tmp/rx 2>&1 &&
	    fail "/bin/false was taken"
	grep -q "not a pidvisor that can take over" /tmp/rx || fail "$(cat /tmp/rx)"
	$CTL reexec --binary /test/none >/tmp/rx 2>&1 && fail "a missing binary"
	$CTL reexec --binary /test/pidvisor-crash >/tmp/rx 2>&1 &&
	    fail "a crashing binary was taken"
	grep -q "could not take over (crashed: signal 11); pidvisor 0.1.0+other runs on" \
	    /tmp/rx || fail "crash: $(cat /tmp/rx)"
	expect_eq "$(cat /proc/1/comm)" init "comm of PID 1 after the fallback"
	out=$($CTL reexec --binary /sbin/init 2>&1) || fail "back: $out"
	echo "$out" | grep -q "pidvisor 0.1.0 (was 0.1.0+other) took over" ||
	    fail "back: $out"
	after=$(reexec_snap)
	[ "$before" = "$after" ] || fail "changed: $before // $after"
	# It goes on: crash is still restarted, into its cgroup, and db
	# restarts by command.
	r=$($CTL status crash | awk 'NR == 2 { print $5 }')
	until_ok 10 sh -c "[ \$($CTL status crash | awk 'NR == 2 { print \$5 }') -gt $r ]" ||
	    fail "crash is not restarted after the re-execs"
	$CTL stop crash --wait --timeout=10s || fail "crash did not stop"
	$CTL restart db --wait --timeout=20s || fail "db did not restart"
	grep -q "/pidvisor/db$" /proc/"$(field db 3)"/cgroup ||
	    fail "db not in its cgroup: $(cat /proc/"$(field db 3)"/cgroup)"
	$CTL status db | grep -q "memory [0-9]" || fail "$($CTL status db)"
}

n=0
failed=0

# tap NAME CMD...: one TAP line for a command, its output as comments.
tap() {
	name=$1
	shift
	"$@" >/tmp/out 2>&1
	rc=$?
	n=$((n + 1))
	if [ $rc = 0 ] || [ $rc = 4 ]; then
		[ $rc = 4 ] && skip=" # SKIP" || skip=
		echo "ok $n - $name$skip" >&3
	else
		failed=$((failed + 1))
		echo "not ok $n - $name (exit $rc)" >&3
		sed 's/^/# /' /tmp/out >&3
	fi
}

# The pidfd selftests of our tree (upstream's and the series'), and
# upstream's process_mrelease() test, which the series must not break;
# or only the ones named.
run_selftests() {
	cd "$T" || return
	for t in ${*:-pidfd_test pidfd_fdinfo_test pidfd_open_test \
	    pidfd_poll_test pidfd_wait pidfd_getfd_test pidfd_setns_test \
	    pidfd_reaped_test pidfd_pgrp_test pidfd_reap_test mrelease_test}; do
		if [ -x "$T/$t" ]; then
			tap "selftest $t" timeout 300 "$T/$t"
			# The series' own tests: their log too, pass, skip or
			# fail (a failure's is there already).
			case $t in pidfd_reaped_test|pidfd_pgrp_test|pidfd_reap_test)
				{ [ $rc = 0 ] || [ $rc = 4 ]; } && grep -vE '^(TAP|1\.\.|# Starting)' \
				    /tmp/out | sed 's/^/#   /' >&3
			esac
		else
			tap "selftest $t" sh -c "echo $t was not built; exit 1"
		fi
	done
	cd /
}

if [ "${1:-}" = --one ]; then
	"$2"
	exit $?
fi

exec 3>/dev/ttyS1
echo "# guest: $(uname -r), $(nproc) CPUs" >&3

if grep -q pidvisor.test=cad /proc/cmdline; then
	echo "# Ctrl-Alt-Del: SIGINT to init" >&3
	$CTL wait web ready --timeout=30s
	kill -INT 1
	exit 0
fi

# pidvisor.test=dstate: a service held in D state (its exec reads a FUSE
# file whose server never answers), then poweroff.  shutdown_timeout
# (3 s here) ends the wait: SIGKILL, and a second later pidvisor powers
# off without it; the host checks the time from our mark in the kernel
# log to the power-off.
if grep -q pidvisor.test=dstate /proc/cmdline; then
	$CTL wait web ready --timeout=30s >/dev/null
	echo "shutdown_timeout = 3s" >>/etc/pidvisor/pidvisor.ini
	$CTL reload >/dev/null
	mkdir -p /tmp/fd
	/test/fuse-hang /tmp/fd exec >/tmp/fd.log 2>&1 &
	until_ok 10 grep -q ready /tmp/fd.log
	$CTL start dstate
	if until_ok 10 grep -q "read held" /tmp/fd.log; then
		echo "ok 1 - guest dstate: a service in D state" >&3
	else
		echo "not ok 1 - guest dstate: no read held" >&3
	fi
	echo "# guest: 1 tests" >&3
	echo "<6>guest: poweroff, dstate held" >/dev/kmsg
	$CTL poweroff
	exit 0
fi

# pidvisor.test=crash: PID 1, re-executed first (the crash handler is
# crash_action's again once the state is taken, not the re-exec's),
# crashes (a SIGSEGV, which takes the same handler as a fault) and
# freezes: it says so, the services go on, a new orphan is still
# reaped, the control socket no longer answers.  Then we power off
# ourselves: PID 1 can no more.
if grep -q pidvisor.test=crash /proc/cmdline; then
	$CTL wait web ready --timeout=30s >/dev/null
	web=$($CTL status web | awk 'NR == 2 { print $3 }')
	rx=$($CTL reexec 2>&1)
	kill -SEGV 1
	if echo "$rx" | grep -q "took over" &&
	    until_ok 10 sh -c "dmesg | grep -q 'PID 1 crashed: signal 11'" &&
	    dmesg | grep -q "PID 1 crashed.*frozen" &&
	    kill -0 "$web" && /test/svc-helper orphans=3 &&
	    until_ok 10 sh -c "! cat /proc/[0-9]*/stat | awk '\$3 == \"Z\"' |
	    grep -q ." && ! timeout 3 $CTL status >/dev/null 2>&1; then
		echo "ok 1 - guest crash: frozen, services up, orphans reaped" >&3
	else
		echo "not ok 1 - guest crash: $rx; $(dmesg | grep 'PID 1 crashed')" >&3
	fi
	echo "# guest: 1 tests" >&3
	poweroff -f
	exit 0
fi

# pidvisor.only=t_a,t_b: only these (tests/guest/run.sh --only), then
# power off; "selftests" is all of them, "selftest:NAME" one.
only=$(sed -n 's/.*pidvisor\.only=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$only" ]; then
	for t in $(echo "$only" | tr , ' '); do
		if [ "$t" = selftests ]; then
			run_selftests
		elif [ "${t#selftest:}" != "$t" ]; then
			run_selftests "${t#selftest:}"
		else
			tap "guest $t" timeout 120 "$0" --one "$t"
		fi
	done
	echo "# guest: $n tests, $failed failed" >&3
	$CTL poweroff
	exit 0
fi

if grep -q pidvisor.test=torture /proc/cmdline; then
	tap "guest t_torture (full)" timeout 3300 "$0" --one t_torture
	echo "# guest: $n tests, $failed failed" >&3
	$CTL poweroff
	exit 0
fi

for s in db web stubborn; do
	$CTL wait $s ready --timeout=30s >/dev/null
done
echo "# boot: services ready at $(cut -d' ' -f1 /proc/uptime) s of" \
    "guest uptime" >&3

for t in t_pid1 t_boot_task t_ready_kinds t_crash_restart t_orphan_storm \
    t_pid_reuse t_stop_timeout t_kmsg t_cgroups t_hardened t_no_clone3 \
    t_pids_full \
    t_pressure t_pressure_stuck t_pressure_cgroup t_pressure_levels \
    t_oom t_reclaim_blocked t_notify_fds t_notify_drainer \
    t_spawn_user_trace t_reexec t_torture; do
	tap "guest $t" timeout 120 "$0" --one $t
done

# The selftests are the kernel tier's (tests/guest/kernel-matrix.sh).
echo "# guest: $n tests, $failed failed" >&3
$CTL poweroff
