# tests/host/test_operator.sh - an operator's day (issue 30): reloads
# that end, stops that leave nothing, reports that say what happened,
# command lines as systemd reads them, hooks, health checks, verbs.

# A reload ends: done, or failed at its deadline (ready_timeout), and
# leaves nothing pending; a reload_exec that hangs is killed.
t_reload_ends() {
	pv_dir
	svc web <<-EOF
	exec = $H ignore=1 notify=READY=1 sleep=forever
	ready = notify
	ready_timeout = 2s
	EOF
	svc hang <<-EOF
	exec = $H sleep=forever
	reload_exec = $H stamp=$T/rx:hung sleep=forever
	ready_timeout = 2s
	EOF
	pv_up
	ctl wait web ready --timeout=20s || fail "web not ready"
	ctl wait hang ready --timeout=20s || fail "hang not ready"
	expect_rc 1 ctl reload web --timeout=30s
	expect_match "$OUT" "web: reload failed: not over after 2.0s \(no READY=1 came\)"
	expect_eq "$(field web reloading)" false
	# Nothing is left pending: the next reload runs, and ends the same.
	expect_rc 1 ctl reload web --timeout=30s
	expect_match "$OUT" "not over after 2.0s"
	# The client's own time-out: the reload goes on, and says so.
	expect_rc 1 ctl reload web --timeout 200ms
	expect_match "$OUT" "timed out waiting for the reload of web; it goes on"
	expect_rc 1 ctl reload hang --timeout=30s
	expect_match "$OUT" "hang: reload failed: not over after 2.0s \(reload_exec did not exit; killed\)"
	wait_until 10000 eval '! ns pgrep -f "rx:hung" >/dev/null' ||
	    fail "the reload_exec outlived its reload"
	expect_eq "$(field web state)/$(field hang state)" ready/ready
	pv_down
}

# Every option takes its value either way; --help is an answer.
t_cli_options() {
	local n=$ROOT/build/bin/pidvisor-notify
	expect_rc 0 "$n" --help
	expect_match "$OUT" "usage: pidvisor-notify"
	expect_rc 2 "$n" --frob
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 0 "$CTL" --socket "$T/ctl.sock" start a --wait --timeout 20s
	expect_rc 0 "$CTL" "-s$T/ctl.sock" wait a ready --timeout 1m
	expect_rc 0 ctl logs a -n0
	expect_rc 2 ctl start a --wait --timeout
	expect_match "$OUT" "invalid timeout"
	pv_down
}

# helpers: how many processes inside the namespace match a pattern.
ns_count() {
	ns pgrep -fc "$1" || true
}

ns_count_is() {
	[ "$(ns_count "$1")" = "$2" ]
}

# By default nothing a service forked outlives its stop, restart, a
# reload's restart or the shutdown (kill_mode cgroup, else group).
t_stop_leaves_nothing() {
	pv_dir
	# The helper says "up" once it would stamp a TERM.
	svc leaky <<-EOF
	exec = /bin/sh -c "$H on-term=$T/term:helper
	  stamp=$T/up:helper sleep=forever & exec $H sleep=forever"
	EOF
	pv_up
	ctl wait leaky ready --timeout=20s || fail "leaky not ready"
	"$H" waitfile="$T/up:1:10000" || fail "no helper"
	expect_rc 0 ctl stop leaky --wait --timeout=20s
	wait_until 10000 ns_count_is "term helper" 0 ||
	    fail "stop left the helper: $(ns ps -ef)"
	expect_rc 0 ctl start leaky --wait --timeout=20s
	"$H" waitfile="$T/up:2:10000" || fail "no helper"
	expect_rc 0 ctl restart leaky --wait --timeout=20s
	"$H" waitfile="$T/up:3:10000" || fail "no helper"
	wait_until 10000 ns_count_is "term helper" 1 ||
	    fail "restart left the helper: $(ns ps -ef)"
	echo "env = X=1" >>"$T/conf/services/leaky.ini"
	expect_rc 0 ctl reload
	"$H" waitfile="$T/up:4:10000" || fail "no helper"
	wait_until 10000 ns_count_is "term helper" 1 ||
	    fail "a reload's restart left the helper: $(ns ps -ef)"
	pv_down
	# The end of a pidvisor that is not PID 1 (a user's, which nothing
	# reaps after): its service's helper does not outlive it.  Run
	# beside the namespace's PID 1, which reaps what it leaves.
	pv_dir
	svc idle <<-EOF
	exec = $H sleep=forever
	EOF
	mkdir -p "$T/c2/services"
	cat >"$T/c2/services/leaky2.ini" <<-EOF
	[service]
	exec = /bin/sh -c "$H on-term=$T/term2:helper
	  stamp=$T/up2:helper2 sleep=forever & exec $H sleep=forever"
	EOF
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] &&
	    printf '[supervisor]\ncgroup_root = none\n' >"$T/c2/pidvisor.ini"
	pv_up
	ns sh -c "exec $PV -c $T/c2 -s $T/c2.sock >$T/log2 2>&1" &
	bg $!
	"$H" waitfile="$T/up2:1:20000" || fail "no helper: $(cat "$T/log2")"
	local pid2
	pid2=$(ns pgrep -f "$T/c2.sock" | head -1)
	[ -n "$pid2" ] || fail "no second pidvisor"
	ns kill -TERM "$pid2"
	wait_until 20000 eval '! ns pgrep -f "$T/c2.sock" >/dev/null' ||
	    fail "the second pidvisor did not end: $(cat "$T/log2")"
	wait_until 10000 ns_count_is "helper2" 0 ||
	    fail "the helper outlived its pidvisor: $(ns ps -ef)"
	pv_down
}

# What a command or a reload takes along is said: stop db stops web
# (which requires it), a change to db restarts web.
t_cascade_said() {
	pv_dir
	svc db <<-EOF
	exec = $H sleep=forever
	EOF
	svc web <<-EOF
	exec = $H sleep=forever
	requires = db
	EOF
	svc api <<-EOF
	exec = $H sleep=forever
	requires = web
	EOF
	svc other <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	ctl wait api ready --timeout=20s || fail "api not ready"
	local pid
	pid=$(field web pid)
	echo "env = X=1" >>"$T/conf/services/db.ini"
	expect_rc 0 ctl reload
	expect_match "$OUT" "changed \(restarted\) db"
	expect_match "$OUT" "restarted web \(requires db\)"
	expect_match "$OUT" "restarted api \(requires web\)"
	expect_match "$OUT" "unchanged other"
	ctl wait web ready --timeout=20s || fail "web not back"
	[ "$(field web pid)" != "$pid" ] || fail "web was not restarted"
	ctl wait api ready --timeout=20s || fail "api not back"
	ctl stop db --wait --timeout=20s >"$T/out" 2>"$T/err" || fail "stop db"
	expect_eq "$(cat "$T/out")" "" "stdout of stop"
	expect_eq "$(cat "$T/err")" "pidvisorctl: also stopped: web (requires db), api (requires web)"
	expect_eq "$(field web state)/$(field api state)" stopped/stopped
	expect_rc 0 ctl start api --wait --timeout=20s
	expect_rc 0 ctl restart web --json --wait --timeout=20s
	expect_eq "$(echo "$OUT" | grep "^{" | jq -c .)" \
	    '{"restarted":["web"],"also":[{"name":"api","requires":"web"}]}'
	expect_rc 0 ctl stop other --json
	expect_eq "$(echo "$OUT" | grep "^{" | jq -c .)" '{"stopped":["other"],"also":[]}'
	pv_down
}

# Every verb's usage, as `pidvisorctl help VERB` prints it, is the line
# pidvisorctl(8) lists the verb under (lower case, as mandoc sets it);
# what shutdown does is said alike in both.
t_help_matches_manual() {
	local man verb usage part n=0
	man=$(mandoc -T ascii "$ROOT/man/pidvisorctl.8" | col -b)
	for verb in $(sed -n 's/^	X([A-Z_]*, [a-z_]*, "\([a-z-]*\)".*/\1/p' \
	    "$ROOT/supervisor/ctl/verbs.h"); do
		usage=$("$CTL" help "$verb" | sed -n 's/^usage: pidvisorctl //p')
		[ -n "$usage" ] || fail "no usage for $verb"
		while IFS= read -r part; do
			part=$(echo "$part" | tr 'A-Z' 'a-z' |
			    sed 's/\([^ ]\)\.\.\./\1 .../g')
			# Not "echo | grep -q": under pipefail, echo's SIGPIPE
			# would fail it.
			grep -qxF "     $part" <<<"$man" ||
			    grep -qF "     $part  " <<<"$man" ||
			    fail "$verb: '$part' is not a line of pidvisorctl(8)"
			n=$((n + 1))
		done < <(echo "$usage" | sed 's/ | /\n/g')
	done
	[ "$n" -ge 17 ] || fail "only $n usage lines"
	# shutdown: power off as process 1, both say.
	expect_match "$("$CTL" help shutdown)" "as PID 1: power off"
	expect_match "$(echo "$man" | grep -A2 '^     shutdown')" "power off"
}

# show says what a service gets of what it does not set: pidvisor's
# umask, limit of open files and oom_score_adj, each "# inherited".
t_show_inherited() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc b <<-EOF
	exec = $H sleep=forever
	umask = 0077
	EOF
	umask 0027
	ulimit -Sn 3000
	echo 100 >/proc/self/oom_score_adj
	pv_up
	ctl wait a ready --timeout=20s || fail "a not ready"
	local pid
	pid=$(field a pid)
	expect_eq "$(ns awk '/^Umask/ { print $2 }' /proc/"$pid"/status)" 0027 "a's umask"
	expect_rc 0 ctl show a
	expect_match "$OUT" "umask = 0027 +# inherited: pidvisor's"
	expect_match "$OUT" "limit_nofile = 3000 +# inherited: pidvisor's \(hard limit [0-9]+\)"
	expect_eq "$(ns awk '/^Max open files/ { print $4 }' /proc/"$pid"/limits)" \
	    3000 "a's limit of open files"
	expect_eq "$(ns cat /proc/"$pid"/oom_score_adj)" 100 "a's oom_score_adj"
	expect_match "$OUT" "oom_score_adj = 100 +# inherited: pidvisor's"
	expect_rc 0 ctl show b
	expect_match "$OUT" "umask = 0077 +# $T/conf/services/b.ini"
	pv_down
}

# A word where silence would mislead: files services/ ignores, programs
# that are not there, a socket of another user's pidvisor; and no
# note on status where no service's key needs cgroups.
t_warnings() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc typo <<-EOF
	exec = /usr/bin/sleeep 1
	enabled = no
	EOF
	svc nopath <<-EOF
	exec = sleeep 1
	enabled = no
	EOF
	svc noexec <<-EOF
	exec = /etc/passwd
	enabled = no
	EOF
	svc fine <<-EOF
	exec = sleep 1
	enabled = no
	EOF
	echo "[service]" >"$T/conf/services/web.ini~"
	echo "read me" >"$T/conf/services/README"
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: $T/conf/services/README: ignored: not a NAME.ini file"
	expect_match "$OUT" "warning: $T/conf/services/web.ini~: ignored"
	expect_match "$OUT" "typo.ini: warning: exec: /usr/bin/sleeep does not exist"
	expect_match "$OUT" "nopath.ini: warning: exec: sleeep is not found in PATH"
	expect_match "$OUT" "noexec.ini: warning: exec: /etc/passwd is not a file its user may execute"
	[[ "$OUT" != *fine.ini* ]] || fail "a warning on a program that is there"
	expect_match "$OUT" "5 services, no errors"
	pv_up
	ctl wait a ready --timeout=20s || fail "a not ready"
	grep -q "services/web.ini~: ignored: not a NAME.ini file" "$T/log" ||
	    fail "no warning at load: $(cat "$T/log")"
	expect_eq "$(ctl status 2>&1 >/dev/null)" "" "notes on status"
	echo "x" >"$T/conf/services/b.ini.bak"
	expect_rc 0 ctl reload
	expect_match "$OUT" "warning: $T/conf/services/b.ini.bak: ignored"
	pv_down
	# Root's pidvisorctl, with no pidvisor in root's places, names the
	# sockets it found in the others'.
	local d=/tmp/pidvisor-t$$
	mkdir -m 700 "$d"
	scratch "$d"
	"$H" listen="$d/control.sock:$T/l:0" >"$T/listen" &
	bg $!
	wait_until 10000 test -S "$d/control.sock" || fail "no socket"
	expect_rc 6 env -u PIDVISOR_SOCKET unshare -m sh -c \
	    "mount -t tmpfs none /run && exec $CTL status"
	expect_match "$OUT" "sockets found elsewhere \(pidvisorctl -s PATH\): .*$d/control.sock \(uid 0\)"
}

# A crashing service is retried for ever by default, its wait growing
# (runit, s6); start_limit_burst gives up instead (systemd).
t_crash_loop_default() {
	pv_dir
	svc crash <<-EOF
	exec = $H exit=1
	restart_delay = 10ms
	EOF
	svc giveup <<-EOF
	exec = $H exit=1
	restart_delay = 10ms
	start_limit_burst = 5
	EOF
	pv_up
	restarts_at_least() {
		[ "$(field crash restarts)" -ge "$1" ]
	}
	wait_until 60000 restarts_at_least 8 || fail "$(ctl status crash)"
	[ "$(field crash state)" != failed ] || fail "crash failed"
	expect_rc 0 ctl wait giveup failed --timeout=30s
	expect_match "$(field giveup reason)" "start limit hit \(5 starts in 10.0s\)"
	pv_down
}

# reset-failed: a service that gave up is stopped again, its start limit
# afresh (as many quick starts as the first time); the others stay.
t_reset_failed() {
	pv_dir
	svc giveup <<-EOF
	exec = $H stamp=$T/g:UP exit=1
	restart_delay = 10ms
	start_limit_burst = 3
	EOF
	svc other <<-EOF
	exec = $H exit=1
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait giveup failed --timeout=30s
	expect_rc 0 ctl wait other failed --timeout=30s
	expect_rc 0 ctl reset-failed giveup
	expect_eq "$(field giveup state)" stopped
	expect_eq "$(field other state)" failed
	expect_rc 0 ctl start giveup
	expect_rc 0 ctl wait giveup failed --timeout=30s
	expect_eq "$(grep -c UP "$T/g")" 6
	expect_rc 0 ctl reset-failed
	expect_eq "$(field other state)" stopped
	expect_eq "$(field giveup state)" stopped
	pv_down
}

# Command lines by systemd's rules: quotes of both kinds, a " ;" inside
# them, escapes, and $VAR / ${VAR} / $$ from the service's environment,
# its env_file's too.
t_command_lines() {
	pv_dir
	printf 'OPTS="-a  -b"\nWORD=one two\n' >"$T/env"
	svc q <<-EOF
	exec = /bin/sh -c 'echo a; echo b ; printf "%s|" "\$@" >$T/q' sh "x ;y" \$OPTS \${WORD} \$\$ \${OPTS} --w=\${WORD}\\s
	env_file = $T/env
	ready = exit
	EOF
	pv_up
	ctl wait q done --timeout=20s || fail "q: $(ctl status q)"
	expect_eq "$(cat "$T/q")" 'x ;y|-a|-b|one two|$|-a  -b|--w=one two |' "argv"
	expect_rc 0 ctl logs q
	expect_match "$OUT" "a"
	pv_down
}

# logs A B: both, interleaved by time, -n over them together, -f too.
t_logs_several() {
	pv_dir
	cat >"$T/a.sh" <<-EOF
	echo a1; $H waitfile=$T/go1:1:20000; echo a2
	$H waitfile=$T/go2:1:20000; echo a3; exec sleep 1000
	EOF
	cat >"$T/b.sh" <<-EOF
	$H waitfile=$T/b1:1:20000; echo b1; $H waitfile=$T/b2:1:20000
	echo b2; $H waitfile=$T/b3:1:20000; echo b3; exec sleep 1000
	EOF
	svc a <<-EOF
	exec = /bin/sh $T/a.sh
	EOF
	svc b <<-EOF
	exec = /bin/sh $T/b.sh
	EOF
	pv_up
	# a1, then b1, then a2, then b2: each waits for the one before.
	line_in() {
		ctl logs "$1" | grep -q "$2"
	}
	wait_until 20000 line_in a a1 || fail "no a1"
	echo >"$T/b1"
	wait_until 20000 line_in b b1 || fail "no b1"
	echo >"$T/go1"
	wait_until 20000 line_in a a2 || fail "no a2"
	echo >"$T/b2"
	wait_until 20000 line_in b b2 || fail "no b2"
	expect_rc 0 ctl logs a b
	expect_eq "$(echo "$OUT" | sed 's/.*: //' | tr '\n' ' ')" "a1 b1 a2 b2 " "merged"
	expect_rc 0 ctl logs b a -n 3
	expect_eq "$(echo "$OUT" | sed 's/.*: //' | tr '\n' ' ')" "b1 a2 b2 " "last 3"
	expect_rc 0 ctl logs a b --json
	expect_eq "$(echo "$OUT" | jq -r '[.[].service] | join(" ")')" "a b a b"
	# -f: what there is, then the new lines of both (in one turn of
	# the loop: none is lost between).
	ctl logs a b -f >"$T/follow" 2>&1 &
	bg $!
	echo >"$T/go2"
	echo >"$T/b3"
	"$H" waitfile="$T/follow:6:20000" || fail "follow: $(cat "$T/follow")"
	expect_eq "$(tail -n 2 "$T/follow" | sed 's/.*: //' | sort | tr '\n' ' ')" \
	    "a3 b3 " "followed"
	pv_down
}

# kill NAME [SIGNAL] [--all]: the main process, or every process.
t_kill_verb() {
	pv_dir
	# Each says "up" once it would stamp a TERM.
	cat >"$T/k.sh" <<-EOF
	$H on-term=$T/helper:term stamp=$T/up:helper sleep=forever &
	exec $H on-term=$T/main:term stamp=$T/up:main sleep=forever
	EOF
	svc k <<-EOF
	exec = /bin/sh $T/k.sh
	restart = never
	EOF
	# --all: a main that ignores TERM (were it to exit, what it leaves
	# would be killed at once, before its TERM handler ran).
	cat >"$T/a.sh" <<-EOF
	$H on-term=$T/ahelper:term stamp=$T/aup:helper sleep=forever &
	exec $H ignore=15 stamp=$T/aup:main sleep=forever
	EOF
	svc a <<-EOF
	exec = /bin/sh $T/a.sh
	restart = never
	stop_timeout = 500ms
	EOF
	svc u <<-EOF
	exec = $H on-term=$T/usr1:term stamp=$T/uup:u sleep=forever
	restart = never
	EOF
	pv_up
	"$H" waitfile="$T/up:2:20000" || fail "k not up"
	"$H" waitfile="$T/aup:2:20000" || fail "a not up"
	"$H" waitfile="$T/uup:1:20000" || fail "u not up"
	expect_rc 0 ctl kill k
	"$H" waitfile="$T/main:1:20000" || fail "main not told"
	ctl wait k stopped --timeout=20s || fail "k did not end: $(ctl status k)"
	[ ! -e "$T/helper" ] || fail "the helper got the TERM meant for main"
	# The first helper went with its main process (kill_mode).
	# (a's helper is the one left.)
	wait_until 10000 ns_count_is "helper term" 1 || fail "the helper lives on"
	expect_rc 0 ctl kill a TERM --all
	"$H" waitfile="$T/ahelper:1:20000" || fail "--all did not reach the helper"
	expect_rc 0 ctl status a
	expect_rc 2 ctl kill u FROB
	expect_match "$OUT" "unknown signal 'FROB'"
	expect_rc 0 ctl kill u USR1
	ctl wait u failed --timeout=20s || fail "u did not end on USR1"
	[ ! -e "$T/usr1" ] || fail "u got TERM, not USR1"
	expect_rc 1 ctl kill u
	expect_match "$OUT" "u is not running"
	pv_down
}

# Hooks: start_pre_exec (in order, before the main process),
# start_post_exec (before ready), stop_exec with $MAINPID in place of
# stop_signal, stop_post_exec once the main process is gone; their
# output in the service's log.
t_hooks_order() {
	pv_dir
	svc web <<-EOF
	start_pre_exec = $H stamp=$T/h:pre1
	start_pre_exec = /bin/sh -c 'echo from-pre; $H stamp=$T/h:pre2'
	exec = $H stamp=$T/h:main on-term=$T/h:term notify=READY=1 sleep=forever
	ready = notify
	start_post_exec = $H stamp=$T/h:post
	stop_exec = /bin/sh -c 'echo "stop \$MAINPID" >>$T/h; kill -TERM \$MAINPID'
	stop_post_exec = $H stamp=$T/h:stoppost
	EOF
	pv_up
	ctl wait web ready --timeout=20s || fail "web: $(ctl status web)"
	expect_eq "$(awk '{ print $1 }' "$T/h" | tr '\n' ' ')" "pre1 pre2 main post " "start"
	local pid
	pid=$(field web pid)
	expect_eq "$(awk '$1 == "main" { print $3 }' "$T/h")" "$pid" "main's pid"
	expect_rc 0 ctl logs web
	expect_match "$OUT" "from-pre"
	expect_rc 0 ctl stop web --wait --timeout=20s
	expect_eq "$(awk '{ print $1 }' "$T/h" | tr '\n' ' ')" \
	    "pre1 pre2 main post stop term stoppost " "stop"
	expect_eq "$(awk '$1 == "stop" { print $2 }' "$T/h")" "$pid" '$MAINPID'
	expect_match "$(field web reason)" "^stopped"
	pv_down
}

# A start_pre_exec that fails fails the start (the main process never
# runs); one that hangs is killed at ready_timeout; a stop_post_exec
# runs after a crash too, before the restart.
t_hooks_failures() {
	pv_dir
	svc bad <<-EOF
	start_pre_exec = $H exit=3
	exec = $H stamp=$T/bad:main sleep=forever
	restart = never
	EOF
	svc hang <<-EOF
	start_pre_exec = $H stamp=$T/hang:pre sleep=forever
	exec = $H sleep=forever
	ready_timeout = 1s
	restart = never
	EOF
	svc crash <<-EOF
	exec = $H stamp=$T/c:main exit=1
	stop_post_exec = $H stamp=$T/c:post
	restart_delay = 10ms
	EOF
	svc slow <<-EOF
	start_pre_exec = $H waitfile=$T/go:1:20000
	exec = $H sleep=forever
	EOF
	# '-': a failure, or a program that is not there, is no failure;
	# a time-out still is.
	svc minus <<-EOF
	start_pre_exec = -$H exit=3
	start_pre_exec = -/nonexistent/program
	start_pre_exec = $H stamp=$T/minus:pre
	exec = $H sleep=forever
	EOF
	svc minus_hang <<-EOF
	start_pre_exec = -$H sleep=forever
	exec = $H sleep=forever
	ready_timeout = 1s
	restart = never
	EOF
	pv_up
	wait_until 10000 field_is slow reason "running start_pre_exec" ||
	    fail "slow: $(ctl status slow)"
	expect_eq "$(field slow state)/$(field slow pid)" starting/null "slow"
	echo >"$T/go"
	expect_rc 0 ctl wait slow ready --timeout=20s
	expect_rc 0 ctl wait bad failed --timeout=20s
	expect_match "$(field bad reason)" "start_pre_exec exited with code 3"
	[ ! -e "$T/bad" ] || fail "the main process ran after a failed start_pre_exec"
	expect_rc 0 ctl wait hang failed --timeout=20s
	expect_match "$(field hang reason)" "start_pre_exec timed out"
	expect_rc 0 ctl wait minus ready --timeout=20s
	[ -s "$T/minus" ] || fail "minus: the hook after the ignored ones"
	expect_match "$(cat "$T/log")" "minus: start_pre_exec exited with code 3 \(ignored: its command begins with '-'\)"
	expect_rc 0 ctl wait minus_hang failed --timeout=20s
	expect_match "$(field minus_hang reason)" "start_pre_exec timed out"
	wait_until 10000 ns_count_is "hang pre" 0 || fail "the hung hook lives on"
	"$H" waitfile="$T/c:4:20000" || fail "crash: $(cat "$T/c")"
	expect_eq "$(head -4 "$T/c" | awk '{ print $1 }' | tr '\n' ' ')" \
	    "main post main post " "crash, stop_post_exec, restart"
	pv_down
}

# on_failure_exec: when a service enters failed, with its name, reason
# and exit status in its environment.
t_hooks_on_failure() {
	pv_dir
	svc crash <<-EOF
	exec = $H exit=7
	restart = never
	on_failure_exec = /bin/sh -c 'echo "\$PIDVISOR_SERVICE|\$PIDVISOR_REASON|\$EXIT_CODE|\$EXIT_STATUS" >$T/of'
	EOF
	pv_up
	expect_rc 0 ctl wait crash failed --timeout=20s
	"$H" waitfile="$T/of:1:20000" || fail "no on_failure_exec"
	expect_eq "$(cat "$T/of")" "crash|exited with code 7|exited|7"
	pv_down
}

# Conditions (systemd's Condition*=, checked by pidvisor itself off the
# loop before start_pre_exec): one that does not hold skips the start
# (state skipped, the one that failed named, the main process never
# run) and what requires it or comes after it goes on; '!' negates;
# of those with '|' one must hold; an assertion fails the start;
# condition_exec's 1-254 skip, its 255 fails; a start asked again tests
# them again; is-ready counts a skipped service as done.
t_conditions() {
	pv_dir
	mkdir -p "$T/full" "$T/empty"
	touch "$T/full/a" "$T/empty/.hidden" "$T/file"
	svc skip <<-EOF
	condition = path_exists $T/flag
	exec = $H stamp=$T/skip:main sleep=forever
	restart = never
	essential = yes
	EOF
	svc after_skip <<-EOF
	requires = skip
	after = skip
	exec = $H sleep=forever
	EOF
	svc held <<-EOF
	condition = path_exists !$T/absent
	condition = directory_not_empty $T/full
	condition = path_is_directory $T/full
	condition = file_not_empty !$T/file
	condition = kernel_command_line !pidvisor.no.such.word
	condition = user root
	exec = $H sleep=forever
	EOF
	svc empty <<-EOF
	condition = directory_not_empty $T/empty
	exec = $H sleep=forever
	EOF
	svc trig <<-EOF
	condition = path_exists |$T/absent
	condition = path_exists |$T/file
	exec = $H sleep=forever
	EOF
	svc trig_none <<-EOF
	condition = path_exists |$T/absent
	condition = path_is_symbolic_link |$T/file
	exec = $H sleep=forever
	EOF
	svc asserted <<-EOF
	assert = path_is_directory $T/file
	exec = $H stamp=$T/asserted:main sleep=forever
	EOF
	svc cexec <<-EOF
	condition_exec = $H exit=0
	condition_exec = $H exit=1
	start_pre_exec = $H stamp=$T/cexec:pre
	exec = $H sleep=forever
	EOF
	svc cexec_fail <<-EOF
	condition_exec = $H exit=255
	exec = $H sleep=forever
	restart = never
	EOF
	svc cexec_ok <<-EOF
	condition_exec = $H stamp=$T/ok:cond
	start_pre_exec = $H stamp=$T/ok:pre
	exec = $H stamp=$T/ok:main sleep=forever
	EOF
	pv_up
	for s in after_skip held trig cexec_ok; do
		expect_rc 0 ctl wait "$s" ready --timeout=20s
	done
	for s in skip empty trig_none cexec; do
		expect_rc 0 ctl wait "$s" skipped --timeout=20s
	done
	expect_eq "$(field skip reason)" "condition not met: path_exists $T/flag" \
	    "skip"
	expect_eq "$(field empty reason)" \
	    "condition not met: directory_not_empty $T/empty" "empty"
	expect_eq "$(field trig_none reason)" "no condition with '|' held" \
	    "trig_none"
	expect_eq "$(field cexec reason)" "condition_exec exited with code 1" \
	    "cexec"
	expect_rc 0 ctl wait asserted failed --timeout=20s
	expect_eq "$(field asserted reason)" \
	    "assertion not met: path_is_directory $T/file" "asserted"
	expect_rc 0 ctl wait cexec_fail failed --timeout=20s
	expect_match "$(field cexec_fail reason)" "exited with code 255"
	[ ! -e "$T/skip" ] && [ ! -e "$T/asserted" ] && [ ! -e "$T/cexec" ] ||
	    fail "a main process or start_pre_exec ran past a condition"
	expect_eq "$(awk '{ print $1 }' "$T/ok" | tr '\n' ' ')" "cond pre main " \
	    "condition_exec, start_pre_exec, exec"
	expect_match "$(cat "$T/log")" "skip: skipped \(condition not met"
	expect_rc 0 ctl is-ready skip empty trig_none cexec after_skip
	# Asked again, the conditions are tested again.
	touch "$T/flag"
	expect_rc 0 ctl start skip --wait
	expect_eq "$(field skip state)" ready "skip, its flag there"
	[ -s "$T/skip" ] || fail "skip: its main process did not run"
	expect_rc 0 ctl is-ready skip	# an essential one started again
	pv_down
}

# restart_prevent_exit_status: an end with one of its statuses is not
# restarted though restart = always says so; restart_force_exit_status:
# one is, though restart = never says not.
t_restart_exit_status() {
	pv_dir
	svc prevent <<-EOF
	exec = /bin/sh -c 'echo run >>$T/prevent; exit 255'
	restart = always
	restart_delay = 10ms
	restart_prevent_exit_status = 3 255
	EOF
	svc force <<-EOF
	exec = /bin/sh -c 'echo run >>$T/force; [ \$(wc -l <$T/force) -ge 2 ] && exec sleep 1000; exit 75'
	restart = never
	restart_delay = 10ms
	restart_force_exit_status = 75
	EOF
	pv_up
	expect_rc 0 ctl wait prevent failed --timeout=20s
	expect_eq "$(field prevent reason)" "exited with code 255" "prevent"
	expect_eq "$(wc -l <"$T/prevent")" 1 "prevent's runs"
	expect_rc 0 ctl wait force ready --timeout=20s
	expect_eq "$(wc -l <"$T/force")" 2 "force's runs"
	pv_down
}

# Conditions and assertions that cannot be: FILE:LINE at --check.
t_conditions_bad() {
	pv_dir
	expect_check_error "condition: unknown test 'path_exist'" <<-EOF
	condition = path_exist /etc
	EOF
	expect_check_error "condition: path_exists: 'etc' is not an absolute path" <<-EOF
	condition = path_exists etc
	EOF
	expect_check_error "assert: first_boot: 'maybe' is not yes or no" <<-EOF
	assert = first_boot maybe
	EOF
	expect_check_error "condition: capability: unknown capability 'CAP_NOPE'" <<-EOF
	condition = capability CAP_NOPE
	EOF
	expect_check_error "condition: virtualization: no argument" <<-EOF
	condition = virtualization
	EOF
	expect_check_error "condition_exec: the program name is empty" <<-EOF
	condition_exec = ""
	EOF
}

# Health checks: healthy, then unhealthy after health_retries failures
# in a row (restarted by policy, the reason said); ready = health; a
# check that hangs is killed at health_timeout.
t_health() {
	pv_dir
	touch "$T/ok"
	svc web <<-EOF
	exec = $H sleep=forever
	health_exec = /bin/sh -c 'test -e $T/ok'
	health_interval = 100ms
	health_retries = 2
	restart = never
	EOF
	svc again <<-EOF
	exec = $H sleep=forever
	health_exec = /bin/sh -c 'test -e $T/ok'
	health_interval = 100ms
	health_retries = 2
	restart_delay = 10ms
	EOF
	svc db <<-EOF
	exec = $H sleep=forever
	ready = health
	health_exec = /bin/sh -c 'test -e $T/dbok'
	EOF
	svc hang <<-EOF
	exec = $H sleep=forever
	health_exec = $H stamp=$T/hc:check sleep=forever
	health_timeout = 300ms
	health_interval = 100ms
	health_retries = 1
	restart = never
	EOF
	pv_up
	wait_until 20000 field_is web health healthy || fail "web: $(ctl status web)"
	expect_match "$(ctl status web)" "ready; healthy"
	expect_eq "$(field db state)/$(field db health)" starting/starting "db before its check"
	expect_match "$(ctl status db)" "health: starting"
	touch "$T/dbok"
	expect_rc 0 ctl wait db ready --timeout=20s
	expect_eq "$(field db health)" healthy "db"
	rm "$T/ok"
	expect_rc 0 ctl wait web failed --timeout=20s
	expect_eq "$(field web reason)" "unhealthy: health_exec exited with code 1, 2 times in a row"
	again_restarted() {
		[ "$(field again restarts)" -ge 1 ]
	}
	wait_until 20000 again_restarted || fail "again: $(ctl status again)"
	expect_rc 0 ctl wait hang failed --timeout=20s
	expect_eq "$(field hang reason)" "unhealthy: health_exec timed out, 1 time in a row"
	wait_until 10000 ns_count_is "hc check" 0 || fail "the hung check lives on"
	pv_down
}

# A finished task's stop_exec runs at the end (systemd's oneshot with
# RemainAfterExit and ExecStop: a seed loaded at boot, saved at the end).
t_hooks_task_stop() {
	pv_dir
	svc seed <<-EOF
	exec = $H stamp=$T/s:load
	ready = exit
	stop_exec = $H stamp=$T/s:save
	EOF
	pv_up
	expect_rc 0 ctl wait seed done --timeout=20s
	# A stop of a finished task does nothing; the end runs its stop_exec.
	expect_rc 0 ctl stop seed
	expect_eq "$(awk '{ print $1 }' "$T/s" | tr '\n' ' ')" "load " "before the end"
	pv_down
	expect_eq "$(awk '{ print $1 }' "$T/s" | tr '\n' ' ')" "load save " "at the end"
}

# Durations take h and d, and several units at once, in every key and
# option that takes one; the killer's window too.
t_durations() {
	pv_dir
	sup_ini <<-EOF
	pressure = some 150ms 1s
	pressure_calm = 1h30m
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	restart_delay_max = 1h
	start_limit_interval = 1d
	stop_timeout = 1m30s
	EOF
	expect_rc 0 "$PV" --check -c "$T/conf"
	pv_up
	expect_rc 0 ctl wait a ready --timeout 1h
	expect_rc 0 ctl show a
	expect_match "$OUT" "restart_delay_max = 1h"
	expect_match "$OUT" "stop_timeout = 1m30s"
	pv_down
}

# A re-exec while checks run every 50 ms: it finds its quiet (no new
# check meanwhile), and the checks go on in the new binary.
t_health_reexec() {
	pv_dir
	touch "$T/ok"
	svc web <<-EOF
	exec = $H sleep=forever
	health_exec = /bin/sh -c 'test -e $T/ok'
	health_interval = 50ms
	EOF
	pv_up
	wait_until 20000 field_is web health healthy || fail "web: $(ctl status web)"
	local pid
	pid=$(field web pid)
	expect_rc 0 ctl reexec
	expect_eq "$(field web pid)" "$pid" "web across the re-exec"
	rm "$T/ok"
	restarted() {
		[ "$(field web restarts)" -ge 1 ]
	}
	wait_until 20000 restarted ||
	    fail "no check after the re-exec: $(ctl status web)"
	pv_down
}
