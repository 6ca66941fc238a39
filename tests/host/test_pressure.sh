# tests/host/test_pressure.sh - the low-memory killer's parts that need no
# pressure; the real thing runs in the guest (tests/guest).

# A kill by the killer's path (the best the kernel has, probed), on a
# service: the reason says so and the policy restarts it; a service
# with kill_priority = never is refused.
t_pressure_kill_path() {
	pv_dir
	svc hog <<-EOF
	exec = $H alloc=32 sleep=forever
	kill_priority = 5
	restart_delay = 1s
	EOF
	svc keep <<-EOF
	exec = $H sleep=forever
	kill_priority = never
	EOF
	pv_up
	expect_rc 0 ctl wait hog ready --timeout=5s
	local path pid
	path=$(ctl pressure --json | jq -r .reclaim)
	expect_match "$path" "^(reap|mrelease|kill)$" "reclaim path"
	pid=$(field hog pid)
	expect_rc 1 ctl pressure kill keep
	expect_match "$OUT" "keep: kill_priority = never"
	expect_rc 0 ctl pressure kill hog
	expect_rc 0 ctl wait hog backoff --timeout=5s
	# Read within the restart delay: a sanitized pidvisorctl takes
	# 100 ms to start on a busy machine.
	expect_match "$(field hog reason)" "^killed for memory pressure"
	expect_rc 0 ctl wait hog ready --timeout=5s
	[ "$(field hog pid)" != "$pid" ] || fail "hog was not restarted"
	ctl pressure --json | jq -e --arg p "$path" '.kills_total == 1 and
	    .kills[0].service == "hog" and .kills[0].path == $p and
	    .kills[0].memory > 30000000 and .kills[0].death_us >= 0 and
	    .kills[0].level == "request" and .kills[0].reason == "by request"
	    and .kills[0].procs == 1 and .kills[0].mem_available > 0 and
	    .kills[0].back_us >= 0 and .kills[0].back_us <= .kills[0].death_us' \
	    >/dev/null || fail "kill record: $(ctl pressure --json)"
	grep -Eq "pressure: killed hog \(kill_priority 5, [0-9.]+ MiB, 1 process\) by request; some avg10=[0-9.]+ full avg10=[0-9.?]+; MemAvailable [0-9.]+ MiB, SwapFree [0-9.]+ MiB; reclaim by $path$" \
	    "$T/log" || fail "the kill was not logged: $(grep killed "$T/log")"
	grep -Eq "pressure: hog: dead after [0-9.]+ ms, memory back after [0-9.]+ ms" \
	    "$T/log" || fail "its end was not logged"
	expect_eq "$(field keep restarts)" 0 "keep"
	pv_down
}

# kill_mode: a stop reaches the whole process group (through the pidfd)
# with group, only the main process with process.
t_kill_mode() {
	pv_dir
	svc grp <<-EOF
	exec = /bin/sh -c "$H ignore=15 stamp=$T/g:child sleep=forever & \
	    exec $H sleep=forever"
	kill_mode = group
	EOF
	svc proc <<-EOF
	exec = /bin/sh -c "$H ignore=15 stamp=$T/p:child sleep=forever & \
	    exec $H sleep=forever"
	kill_mode = process
	EOF
	pv_up
	"$H" waitfile="$T/g:1:5000" && "$H" waitfile="$T/p:1:5000" ||
	    fail "children did not start"
	local gchild pchild
	gchild=$(awk '{print $3}' "$T/g")
	pchild=$(awk '{print $3}' "$T/p")
	expect_rc 0 ctl stop grp --wait --timeout=10s
	expect_rc 0 ctl stop proc --wait --timeout=10s
	expect_eq "$(field grp reason)" stopped "grp"
	ns sh -c "[ ! -e /proc/$gchild ] || grep -q '^State:.Z' /proc/$gchild/status" ||
	    fail "kill_mode = group left $gchild"
	ns sh -c "grep -q '^State:.[SR]' /proc/$pchild/status" ||
	    fail "kill_mode = process killed the child too"
	pv_down
}

# Without cgroup v2 services run without cgroups, and status says so
# where it matters (a service's keys that do nothing then), on stderr:
# the table on stdout stays the table.
t_no_cgroups() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	memory_max = 64M
	EOF
	pv_up
	expect_rc 0 ctl wait a ready --timeout=5s
	expect_match "$(ctl status 2>&1 >/dev/null)" \
	    "^pidvisorctl: a: memory_max: nothing without cgroups \(.+\)$"
	expect_eq "$(ctl status 2>/dev/null | tail -1 | awk '{ print $1 }')" a \
	    "the last line of stdout"
	expect_eq "$(field a memory)" null "memory without a cgroup"
	expect_match "$(ctl pressure | sed -n 's/^cgroups: //p')" "." "cgroups"
	pv_down
}

# oom_score_adj: a service gets its own value, else pidvisor's (which
# pidvisor never changes).  Here pidvisor is not the global init, and
# the kernel writes a process's oom_score_adj into every process that
# shares its memory: the value of a service must never become ours.
# Lowering it takes CAP_SYS_RESOURCE; without, the reason says so.
t_oom_score_adj() {
	pv_dir
	svc adj <<-EOF
	exec = $H sleep=forever
	oom_score_adj = 500
	EOF
	svc plain <<-EOF
	exec = $H sleep=forever
	EOF
	svc low <<-EOF
	exec = $H sleep=forever
	oom_score_adj = -1
	restart = never
	EOF
	pv_up
	local own pid
	own=$(cat /proc/"$PV_PID"/oom_score_adj)
	expect_eq "$own" "$(cat /proc/self/oom_score_adj)" "pidvisor's own"
	expect_rc 0 ctl wait adj ready --timeout=5s
	expect_rc 0 ctl wait plain ready --timeout=5s
	pid=$(field adj pid)
	expect_eq "$(ns cat /proc/"$pid"/oom_score_adj)" 500 "adj's"
	expect_eq "$(ns cat /proc/"$(field plain pid)"/oom_score_adj)" \
	    "$own" "plain's"
	expect_rc 0 ctl restart adj --wait --timeout=5s
	[ "$(field adj pid)" != "$pid" ] || fail "adj did not restart"
	expect_eq "$(ns cat /proc/"$(field adj pid)"/oom_score_adj)" 500 \
	    "adj's, restarted"
	expect_eq "$(cat /proc/"$PV_PID"/oom_score_adj)" "$own" \
	    "pidvisor's own, after two spawns with 500"
	if (echo -1 >/proc/self/oom_score_adj) 2>/dev/null; then
		expect_rc 0 ctl wait low ready --timeout=5s
		expect_eq "$(ns cat /proc/"$(field low pid)"/oom_score_adj)" -1
	else
		expect_rc 0 ctl wait low failed --timeout=5s
		expect_eq "$(field low reason)" \
		    "oom_score_adj: Permission denied" "low's reason"
	fi
	pv_down
}

# MEMORY_PRESSURE_WATCH and MEMORY_PRESSURE_WRITE, as systemd sets them:
# without cgroups (this host) only memory_pressure_watch = on sets them,
# to the system's file; the trigger they name is one the kernel takes
# (the service writes it there itself).  Our own are never passed on.
t_memory_pressure_env() {
	pv_dir
	svc on <<-EOF
	exec = /bin/sh -c 'env >$T/on.env;
	    printf %s "\$MEMORY_PRESSURE_WRITE" | base64 -d
	    >>"\$MEMORY_PRESSURE_WATCH" && echo took >$T/on.took;
	    exec $H sleep=forever'
	memory_pressure_watch = on
	memory_pressure_threshold = 150ms
	EOF
	svc auto <<-EOF
	exec = /bin/sh -c 'env >$T/auto.env; exec $H sleep=forever'
	EOF
	MEMORY_PRESSURE_WATCH=/ours pv_up
	expect_rc 0 ctl wait on ready --timeout=5s
	expect_rc 0 ctl wait auto ready --timeout=5s
	"$H" waitfile="$T/on.took:1:5000" || fail "the trigger was refused"
	expect_eq "$(grep ^MEMORY_PRESSURE_WATCH= "$T/on.env")" \
	    "MEMORY_PRESSURE_WATCH=/proc/pressure/memory" "on's watch"
	expect_eq "$(sed -n 's/^MEMORY_PRESSURE_WRITE=//p' "$T/on.env" |
	    base64 -d | tr '\0' '@')" "some 150000 2000000@" "on's trigger"
	expect_eq "$(grep -c ^MEMORY_PRESSURE "$T/auto.env")" 0 \
	    "auto without cgroups"
	expect_match "$(ctl show on)" "memory_pressure_threshold = 150ms"
	pv_down
}
