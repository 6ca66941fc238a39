# tests/host/test_reexec.sh - reexec: a new binary in place, nothing lost.

# The services of every kind that t_reexec_load runs, N in all.
reexec_services() {
	local i
	for i in $(seq -w 1 60); do
		svc "exec$i" <<-EOF
		exec = $H sleep=forever
		EOF
	done
	for i in $(seq -w 1 40); do
		svc "fd$i" <<-EOF
		exec = $H ready-fd=3 sleep=forever
		ready = fd:3
		EOF
	done
	for i in $(seq -w 1 40); do
		svc "notify$i" <<-EOF
		exec = $H notify=READY=1 sleep=forever
		ready = notify
		EOF
	done
	for i in $(seq -w 1 38); do
		svc "task$i" <<-EOF
		exec = $H exit=0
		ready = exit
		EOF
	done
	for i in $(seq -w 1 18); do
		svc "crash$i" <<-EOF
		exec = $H sleep=150 exit=1
		restart_delay = 50ms
		restart_delay_max = 200ms
		start_limit_burst = 0
		EOF
	done
	# Exits at once; restarts 6 s after, then 12 s after.
	svc backoff <<-EOF
	exec = $H stamp=$T/backoff:run exit=1
	restart_delay = 6s
	restart_delay_max = 60s
	start_limit_burst = 0
	EOF
	# Never ready: in its ready timeout all along.
	svc unready <<-EOF
	exec = $H sleep=forever
	ready = notify
	ready_timeout = 90s
	EOF
	# Ignores SIGTERM: once stopped, stopping until stop_timeout.
	svc stubborn <<-EOF
	exec = $H ignore=TERM sleep=forever
	stop_timeout = 90s
	EOF
	svc printer <<-EOF
	exec = /bin/sh -c "i=0; while echo \$i; do i=\$((i+1)); sleep 0.005; done"
	log_buffer = 4M
	EOF
}

# At least N services ready or done.
reexec_up() {
	[ "$(ctl status --json | jq '[.[] | select(.state == "ready" or
	    .state == "done")] | length')" -ge "$1" ]
}

# NAME has restarted twice at least.
reexec_looping() {
	[ "$(field "$1" restarts)" -ge 2 ]
}

# The fds of pidvisor but its pidfds; and its pidfds.
pv_fds() {
	ls -l /proc/"$PV_PID"/fd | grep -vc 'anon_inode:\[pidfd\]'
}
pv_pidfds() {
	ls -l /proc/"$PV_PID"/fd | grep -c 'anon_inode:\[pidfd\]'
}

# The sockets pidvisor holds (its listening ones, its clients).
pv_sockets() {
	ls -l /proc/"$PV_PID"/fd | grep -c 'socket:'
}

pv_sockets_more() {
	[ "$(pv_sockets)" -gt "$1" ]
}

# name state pid restarts, one service a line (apart: the crash-loopers,
# and backoff, whose restart is checked by its time).
reexec_snapshot() {
	ctl status --json | jq -r '.[] | select(.name | test("^crash|^backoff$")
	    | not) | "\(.name) \(.state) \(.pid) \(.restarts)"'
}

# Every line the printer printed, in its ring: 0, 1, 2... without a gap
# or a repeat, seq and number alike; and the same in pidvisor's log.
reexec_lines_check() {
	ctl logs printer --json | jq -r '.[] | "\(.seq) \(.line)"' |
	    awk 'NR == 1 && ($1 != 0 || $2 != 0) { print "starts at", $0;
	        bad = 1 } NR > 1 && ($1 != ps + 1 || $2 != pl + 1) {
	        print "after", ps, pl, "came", $0; bad = 1 } { ps = $1;
	        pl = $2 } END { if (NR < 100) print "only", NR, "lines";
	        exit bad || NR < 100 }' || fail "printer's ring"
	reexec_console printer
}

# 200 services of every kind, some crash-looping, one in back-off, one
# in its ready timeout, one stopping, a follower, one printing on and
# on: reexec 20 times.  Nothing is restarted or signalled, every PID,
# state and count stays, the back-off expires on time, no line is lost
# or repeated, no fd is left over.
t_reexec_load() {
	pv_dir
	reexec_services
	pv_up
	local before after fd0 fd1 i t1 t2 tl out crashes
	wait_until 30000 reexec_up 180 || fail "not all ready: $(ctl status)"
	expect_rc 1 ctl stop --wait stubborn --timeout=1s
	expect_match "$OUT" "timed out waiting for stubborn \(stopping\)"
	expect_eq "$(field stubborn state)" stopping
	wait_until 10000 test -s "$T/backoff" || fail "backoff never ran"
	wait_until 10000 field_is backoff state backoff || fail "not in back-off"
	# fds with the crash-loopers stopped (no spawn in flight), no
	# client, after a first re-exec: what pidvisor inherited when it
	# started (the test shell's) was close-on-exec, and is gone.
	ctl stop --wait $(cd "$T/conf/services" && ls crash*.ini |
	    sed 's/\.ini$//') >/dev/null || fail "stop crash*"
	out=$(ctl reexec 2>&1) || fail "reexec 0: $out"
	fd0=$(pv_fds)
	ctl start $(cd "$T/conf/services" && ls crash*.ini |
	    sed 's/\.ini$//') >/dev/null || fail "start crash*"
	wait_until 10000 reexec_looping crash01 || fail "crash01 not looping"
	before=$(reexec_snapshot)
	crashes=$(ctl status --json | jq '[.[] | select(.name |
	    startswith("crash")) | .restarts] | add')
	{ ctl logs printer -f -n 0; echo "exit $?"; } >"$T/follow" 2>&1 &
	wait_until 5000 test -s "$T/follow" || fail "no line from logs -f"
	for i in $(seq 1 20); do
		# When the last began, in the clock of the back-off's stamps.
		[ "$i" = 20 ] && "$H" stamp="$T/last:reexec"
		out=$(ctl reexec 2>&1) || fail "reexec $i: $out"
		expect_match "$out" "took over 200 services" "reexec $i"
	done
	# The follower was told, with the code to try again.
	wait_until 5000 grep -q "^exit" "$T/follow" || fail "follower not told"
	expect_eq "$(tail -1 "$T/follow")" "exit 7" "the follower"
	grep -q "re-executing; follow again" "$T/follow" ||
	    fail "follower: $(tail -3 "$T/follow")"
	after=$(reexec_snapshot)
	[ "$before" = "$after" ] ||
	    fail "changed: $(diff <(echo "$before") <(echo "$after"))"
	expect_match "$(ctl status --json | jq '[.[] | select(.name |
	    startswith("crash")) | .restarts] | add')" '^[0-9]+$'
	(( $(ctl status --json | jq '[.[] | select(.name |
	    startswith("crash")) | .restarts] | add') >= crashes )) ||
	    fail "crash-loopers' restarts went back"
	expect_eq "$(grep -c 'reexec: pidvisor .* took over 200 services' \
	    "$T/log")" 21 "took-over lines"
	# The back-off, armed before the re-execs, expires on time.
	"$H" waitfile="$T/backoff:2:15000" || fail "no restart after back-off"
	t1=$(awk 'NR == 1 { print $2 }' "$T/backoff")
	t2=$(awk 'NR == 2 { print $2 }' "$T/backoff")
	tl=$(awk '{ print $2 }' "$T/last")
	# Never early; and not armed again by a re-exec (then it would come
	# 6 s after the last one at the soonest), however loaded the host.
	(( tl - t1 > 500 )) || fail "the re-execs began too soon to tell"
	(( t2 - t1 >= 6000 && t2 < tl + 6000 )) ||
	    fail "back-off of 6 s took $((t2 - t1)) ms; the last re-exec" \
	    "began $((tl - t1)) ms after the exit"
	reexec_lines_check
	ctl stop --wait $(cd "$T/conf/services" && ls crash*.ini |
	    sed 's/\.ini$//') >/dev/null || fail "stop crash*"
	wait_until 10000 field_is backoff state backoff || fail "not in back-off"
	fd1=$(pv_fds)
	expect_eq "$fd1" "$fd0" "fds but pidfds, before and after"
	expect_eq "$(pv_pidfds)" "$(ctl status --json |
	    jq '[.[] | select(.pid != null)] | length')" "pidfds"
	expect_rc 0 ctl signal stubborn KILL
	pv_down
}

# What must be refused leaves pidvisor as it was: not there, not
# executable, not a pidvisor, another state version; a binary that
# crashes while reading the state goes back to the one before.
t_reexec_refused() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc b <<-EOF
	exec = /bin/sh -c "i=0; while echo \$i; do i=\$((i+1)); sleep 0.01; done"
	EOF
	pv_up
	ctl wait a ready >/dev/null || fail "a not ready"
	local pid before
	pid=$(field a pid)
	before=$(ctl status --json | jq -c '[.[] | [.name, .pid, .restarts]]')
	cp "$H" "$T/noexec"
	chmod -x "$T/noexec"
	expect_rc 1 ctl reexec --binary "$T/none"
	expect_match "$OUT" "none: No such file or directory"
	expect_rc 1 ctl reexec --binary "$T/noexec"
	expect_match "$OUT" "noexec: Permission denied"
	expect_rc 1 ctl reexec --binary /bin/false
	expect_match "$OUT" "not a pidvisor that can take over"
	expect_rc 1 ctl reexec --binary "$ROOT/build/test/pidvisor-vx"
	expect_match "$OUT" "it reads state versions 99 99\\+; this pidvisor writes version [0-9]+"
	# One that another user could swap between the check and the exec.
	install -m 0777 "$PV" "$T/open"
	expect_rc 1 ctl reexec --binary "$T/open"
	expect_match "$OUT" "open may be changed by another user \(owner 0, mode 0777\)"
	mkdir -m 0777 "$T/opendir"
	install -m 0755 "$PV" "$T/opendir/pv"
	expect_rc 1 ctl reexec --binary "$T/opendir/pv"
	expect_match "$OUT" "opendir may be changed by another user"
	expect_rc 2 ctl reexec --binary relative/path
	expect_match "$OUT" "absolute path"
	expect_rc 1 ctl reexec --binary "$ROOT/build/test/pidvisor-crash"
	expect_match "$OUT" "could not take over \(crashed: signal 11\); pidvisor .* runs on, every service kept"
	expect_eq "$(ctl status --json | jq -c '[.[] | [.name, .pid,
	    .restarts]]')" "$before" "services after the refusals"
	# A state that is not a sealed memfd (a file, which could change
	# while it is read) is not taken.
	head -c 4096 /dev/zero >"$T/state"
	expect_rc 1 timeout 10 "$PV" --restore 3 3<"$T/state"
	expect_match "$OUT" "state fd 3: not a sealed memfd"
	# And it still re-executes well, by its signal this time.
	kill -s RTMIN+1 "$PV_PID"
	wait_until 10000 grep -q "reexec: pidvisor .* took over 2 services" \
	    "$T/log" || fail "no re-exec by signal: $(tail "$T/log")"
	expect_eq "$(field a pid)" "$pid" "a's PID"
	reexec_console b
	pv_down
}

# NAME's counter on pidvisor's console (its log): 0, 1, 2... no gap, no
# repeat.
reexec_console() {
	grep -a "^$1\\[" "$T/log" | awk '{ n = $2 } NR - 1 != n {
	    print "line", NR, "is", n; exit 1 } END { if (NR < 10) {
	    print "only", NR, "lines"; exit 1 } }' || fail "$1's lines"
}

# Clients: one that waits is told to try again (code 7); one that
# connects while the new binary reads the state is served by it; a
# service that dies meanwhile is reaped and restarted after.  The new
# binary (a test build) holds in its restore while $T/hold is there.
t_reexec_clients() {
	pv_dir
	svc slow <<-EOF
	exec = $H sleep=forever
	ready = notify
	ready_timeout = 60s
	EOF
	svc dies <<-EOF
	exec = $H sleep=forever
	restart_delay = 10ms
	EOF
	export PIDVISOR_TEST_HOLD=$T/hold
	pv_up
	ctl wait dies ready >/dev/null || fail "dies not ready"
	local pid rx st
	pid=$(field dies pid)
	local socks
	socks=$(pv_sockets)
	{ ctl wait slow ready --timeout=60s; echo "exit $?"; } >"$T/waiter" 2>&1 &
	wait_until 5000 pv_sockets_more "$socks" ||
	    fail "the waiter did not connect"
	touch "$T/hold"
	ctl reexec --binary "$ROOT/build/test/pidvisor-hold" >"$T/rx.out" 2>&1 &
	rx=$!
	wait_until 20000 grep -q "reexec: .*state [0-9]* bytes" "$T/log" ||
	    fail "no exec: $(tail "$T/log")"
	ns kill -KILL "$pid"
	ctl status dies --json >"$T/st.out" 2>&1 &
	st=$!
	wait_until 10000 grep -q "^exit" "$T/waiter" ||
	    fail "the waiter heard nothing"
	expect_eq "$(tail -1 "$T/waiter")" "exit 7" "the waiting client"
	expect_match "$(cat "$T/waiter")" "re-executing; try again"
	rm "$T/hold"
	wait "$rx" || fail "reexec: $(cat "$T/rx.out")"
	expect_match "$(cat "$T/rx.out")" "took over 2 services"
	wait "$st"	# 3 if it is not ready: the JSON says what it is
	jq -e '.[0].name == "dies"' "$T/st.out" >/dev/null ||
	    fail "status during the re-exec: $(cat "$T/st.out")"
	wait_until 10000 field_is dies restarts 1 ||
	    fail "dies not restarted: $(ctl status dies)"
	ctl wait dies ready >/dev/null || fail "dies not ready again"
	[ "$(field dies pid)" != "$pid" ] || fail "dies kept its PID"
	expect_eq "$(field dies exit_signal)" KILL "how the first dies died"
	pv_down
}

# Across releases: the landed release before this one (its state is
# version 6, read in order) hands over to this one; this one to a
# release one ahead (a field added, with its default where the state
# has none; a field dropped, left where it is), and that one back to
# this one (a downgrade): every PID, state and line kept each time.
t_reexec_releases() {
	local prev=$ROOT/build/test/pidvisor-prev
	local ahead=$ROOT/build/test/pidvisor-field before fds
	pv_dir
	svc plain <<-EOF
	exec = $H sleep=forever
	EOF
	svc fd <<-EOF
	exec = $H ready-fd=3 sleep=forever
	ready = fd:3
	EOF
	svc notify <<-EOF
	exec = $H notify=READY=1 sleep=forever
	ready = notify
	EOF
	svc task <<-EOF
	exec = $H exit=0
	ready = exit
	EOF
	svc printer <<-EOF
	exec = /bin/sh -c "i=0; while echo \$i; do i=\$((i+1)); sleep 0.01; done"
	EOF
	svc web <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$(free_port)
	EOF
	PV=$prev pv_up
	wait_until 20000 reexec_up 5 || fail "not all ready: $(ctl status)"
	wait_until 20000 eval '[ "$(ctl logs printer -n 1000 | wc -l)" -ge 100 ]' ||
	    fail "printer printed nothing"
	before=$(reexec_snapshot)
	expect_rc 0 ctl reexec --binary "$ROOT/build/asan/pidvisor"
	expect_match "$OUT" "took over 6 services"
	expect_eq "$(reexec_snapshot)" "$before" "after 0.x (state 6) -> this"
	# (Each release keeps fds of its own; from here on they must stay.)
	fds=$(pv_fds)
	reexec_lines_check
	# A release ahead: reloads it does not keep, a field it adds.
	expect_rc 0 ctl reexec --binary "$ahead"
	expect_match "$OUT" "took over 6 services"
	expect_eq "$(reexec_snapshot)" "$before" "after this -> a release ahead"
	grep -q "plain: test_field 42" "$T/log" ||
	    fail "the field it added has no default: $(tail "$T/log")"
	# ... and back: what it wrote that we do not know is left.
	expect_rc 0 ctl reexec --binary "$ROOT/build/asan/pidvisor"
	expect_match "$OUT" "took over 6 services"
	expect_eq "$(reexec_snapshot)" "$before" "after a release ahead -> this"
	expect_eq "$(pv_fds)" "$fds" "its fds"
	reexec_lines_check
	expect_rc 0 ctl restart plain --wait --timeout=10s
	pv_down
}

# The names of the state's records (st.h), as the writers in supervisor/
# give them: the list of STATE_VERSION in tests/unit/state_fields.txt.
# A record added, renamed or dropped without a new version fails here.
state_names() {
	local v=$1
	{
		grep -ho 'st_\(u8\|u32\|u64\|i64\|str\|strv\|bytes\|fd\|fd_kept\|begin\|rec_parts\)(w, "[a-z0-9_]*"' \
		    "$ROOT"/supervisor/*/*.c | sed 's/.*"\(.*\)"/\1/'
		grep -ho 'X([a-z_]*, [A-Z0-9]*, [0-9]*)' \
		    "$ROOT/supervisor/machine/svc.h" "$ROOT/supervisor/service/service.h" |
		    awk -F'[(, )]+' -v v="$v" '$4 <= v { print $2 }'
	} | sort -u | tr '\n' ' ' | sed 's/ $//'
}

t_state_fields() {
	local v want have
	v=$(sed -n 's/^#define STATE_VERSION	\([0-9]*\).*/\1/p' \
	    "$ROOT/supervisor/lib/st.h")
	[ -n "$v" ] || fail "no STATE_VERSION in st.h"
	want=$(sed -n "s/^$v: //p" "$ROOT/tests/unit/state_fields.txt")
	[ -n "$want" ] || fail "tests/unit/state_fields.txt has no version $v"
	have=$(state_names "$v")
	[ "$have" = "$want" ] || fail "the state's records changed without a \
new STATE_VERSION: $(diff <(tr ' ' '\n' <<<"$want") <(tr ' ' '\n' <<<"$have") |
	    grep '^[<>]' | tr '\n' ' ')"
}

# A forking service whose daemon has not written its pid file when the
# re-exec comes: the next binary goes on with the search, and takes the
# daemon once the file names it.
t_reexec_forking() {
	local pid
	pv_dir
	svc late <<-EOF
	exec = $H daemon=- stamp=$T/d:UP sleep=forever
	ready = forking
	pid_file = $T/late.pid
	EOF
	pv_up
	"$H" waitfile="$T/d:1:10000" || fail "no daemon"
	wait_until 10000 grep -q "late: its first process exited 0" "$T/log" ||
	    fail "no search: $(tail -3 "$T/log")"
	out=$(ctl reexec 2>&1) || fail "reexec: $out"
	expect_eq "$(field late state)" starting
	pid=$(cut -d' ' -f3 "$T/d")
	echo "$pid" >"$T/late.pid"
	expect_rc 0 ctl wait late ready --timeout=10s
	expect_eq "$(field late pid)" "$pid"
	pv_down
}
