# tests/host/test_timers.sh - timers: on_calendar and the on_* spans,
# what an elapse does (a run, or a skip, counted), persistent's stamp,
# timer state across a restart of pidvisor, a re-exec and a reload,
# defer_under_pressure, `pidvisorctl timers` and `pidvisorctl calendar`.

# runs FILE: how many lines (runs) a job wrote there.
runs() {
	[ -f "$1" ] && wc -l <"$1" || echo 0
}

# runs_at_least FILE N: for wait_until.
runs_at_least() {
	[ "$(runs "$1")" -ge "$2" ]
}

# metric NAME: its value (the first row that matches NAME, a regex).
metric() {
	ctl metrics | awk -v re="^$1 " '$0 ~ re { print $2; exit }'
}

metric_at_least() {
	local v
	v=$(metric "$1")
	[ -n "$v" ] && [ "${v%.*}" -ge "$2" ]
}

# timers_field NAME KEY: a field of `timers --all --json` for NAME.
timers_field() {
	ctl timers --all --json | jq -r ".[] | select(.service == \"$1\") | .$2"
}

# A job every second on the wall clock: it runs, again and again, its
# runs are counted and told, and between them it is ready.
t_timer_calendar() {
	pv_dir
	svc job <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs'
	ready = exit
	on_calendar = *:*:*
	accuracy = 1ms
	EOF
	pv_up
	ctl events --json >"$T/events" 2>&1 &
	bg $!
	wait_until 20000 runs_at_least "$T/runs" 3 ||
	    fail "3 runs in 20 s: $(runs "$T/runs"); $(cat "$T/log")"
	wait_until 10000 field_is job state done || fail "not done between runs"
	expect_rc 0 ctl is-ready
	expect_rc 0 ctl is-ready job
	wait_until 10000 metric_at_least \
	    'pidvisor_timer_triggers_total[{]service="job"[}]' 3 ||
	    fail "triggers: $(ctl metrics | grep timer)"
	expect_match "$(ctl metrics)" \
	    'pidvisor_timer_next_seconds[{]service="job"[}] [0-9]+\.[0-9]{3}'
	expect_match "$(field job next_run)" '^20[0-9-]+T'
	wait_until 10000 grep -q '"event":"timer","service":"job","reason":"triggered"' \
	    "$T/events" || fail "no timer event: $(cat "$T/events")"
	expect_match "$(cat "$T/log")" "job: timer: started"
	# The table: a header, the job, the count; sorted by NEXT.
	OUT=$(ctl timers)
	expect_match "$OUT" '^NEXT +LEFT +LAST +PASSED +SERVICE'
	expect_match "$OUT" $'\n[A-Z][a-z]{2} 20[0-9-]+ [0-9:]{8} [^ ]+ +[0-9a-z ]+ +[A-Z][a-z]{2} 20[0-9-]+ [0-9:]{8} [^ ]+ +[0-9a-z ]+ ago +job\n'
	expect_match "$OUT" $'\n\n1 timer listed.\nPass --all to see loaded but inactive timers, too.'
	pv_down
}

# The spans: on_boot (a container boots when pidvisor starts) and then
# on_unit_inactive after each run; on_active elapses once; the order of
# timers is the order of their next elapse.
t_timer_spans() {
	pv_dir
	svc tick <<-EOF
	exec = /bin/sh -c 'echo run >>$T/ticks'
	ready = exit
	on_boot = 1s
	on_unit_inactive = 500ms
	accuracy = 1ms
	EOF
	svc once <<-EOF
	exec = /bin/sh -c 'echo run >>$T/once'
	ready = exit
	on_active = 200ms
	accuracy = 1ms
	EOF
	svc later <<-EOF
	exec = /bin/true
	ready = exit
	on_startup = 1h
	EOF
	svc never <<-EOF
	exec = /bin/true
	ready = exit
	on_calendar = 2199-12-31
	enabled = no
	EOF
	pv_up
	wait_until 20000 runs_at_least "$T/ticks" 3 ||
	    fail "tick ran $(runs "$T/ticks") times in 20 s"
	wait_until 10000 runs_at_least "$T/once" 1 || fail "once never ran"
	expect_eq "$(timers_field once next)" null "once's next, elapsed"
	expect_eq "$(timers_field once triggers)" 1
	expect_eq "$(runs "$T/once")" 1 "on_active runs once"
	# later: in an hour; tick within a second; once: none, last.  tick
	# stopped first: during a run it has no next (its span counts from
	# its end), and would sort last.
	expect_rc 0 ctl stop tick --wait --timeout=10s
	OUT=$(ctl timers)
	expect_match "$OUT" $'tick\n[^\n]+later\n[^\n]+once\n\n3 timers listed'
	expect_match "$OUT" $'later\n' "later is listed"
	# A disabled one only with --all, not armed.
	[[ $OUT == *never* ]] && fail "a disabled timer listed: $OUT"
	expect_eq "$(timers_field never armed)" false
	expect_match "$(ctl timers --all)" $'\n- +- +- +- +never\n'
	expect_match "$(ctl status never)" 'timer off'
	pv_down
}

# An elapse while the run before still runs starts nothing: said in the
# log, counted by reason; the next elapse after the run starts again.
t_timer_overlap() {
	pv_dir
	svc slow <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs; sleep 2.5'
	ready = exit
	on_calendar = *:*:*
	accuracy = 1ms
	EOF
	pv_up
	wait_until 20000 metric_at_least \
	    'pidvisor_timer_skipped_total[{]service="slow",reason="running"[}]' \
	    1 || fail "no skip counted: $(ctl metrics | grep timer)"
	expect_match "$(cat "$T/log")" \
	    "slow: timer: nothing started: the run before still runs"
	wait_until 20000 runs_at_least "$T/runs" 2 || fail "no second run"
	expect_eq "$(timers_field slow skipped.stopped)" 0
	pv_down
}

# A command's stop holds the timer (its elapses start nothing, counted);
# a start runs it now and lets the timer go on.
t_timer_stopped() {
	pv_dir
	svc job <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs'
	ready = exit
	on_calendar = *:*:*
	accuracy = 1ms
	EOF
	pv_up
	wait_until 20000 runs_at_least "$T/runs" 1 || fail "never ran"
	expect_rc 0 ctl stop job
	wait_until 20000 metric_at_least \
	    'pidvisor_timer_skipped_total[{]service="job",reason="stopped"[}]' \
	    2 || fail "no skip counted: $(ctl metrics | grep timer)"
	expect_rc 3 ctl is-ready job
	expect_match "$(cat "$T/log")" \
	    "job: timer: nothing started: a command stopped it"
	n=$(runs "$T/runs")
	expect_rc 0 ctl start job --wait --timeout=10s
	wait_until 10000 runs_at_least "$T/runs" $((n + 2)) ||
	    fail "the timer did not go on after start"
	pv_down
}

# persistent: a run missed while pidvisor was down happens at its start;
# the stamp is the last elapse; a restart with nothing missed runs
# nothing.
t_timer_persistent() {
	local stamp
	pv_dir
	sup_ini <<-EOF
	state_dir = $T/state
	EOF
	svc daily <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs'
	ready = exit
	on_calendar = daily
	persistent = yes
	accuracy = 1ms
	EOF
	svc fresh <<-EOF
	exec = /bin/true
	ready = exit
	on_calendar = daily
	persistent = yes
	EOF
	stamp=$T/state/timers/daily
	mkdir -p "$T/state/timers"
	touch -d '3 days ago' "$stamp"
	pv_up
	wait_until 10000 runs_at_least "$T/runs" 1 ||
	    fail "the missed run did not happen: $(cat "$T/log")"
	# The stamp is now; the next elapse tomorrow's midnight.
	[ $(($(date +%s) - $(stat -c %Y "$stamp"))) -lt 60 ] ||
	    fail "stamp not moved: $(stat -c %y "$stamp")"
	expect_match "$(ctl timers)" \
	    $'\n[A-Z][a-z]{2} [0-9-]+ 00:00:00 [^ ]+ +[0-9a-z ]+ left'
	# No stamp: made at start, and nothing run.
	[ -f "$T/state/timers/fresh" ] || fail "no stamp made for fresh"
	expect_eq "$(timers_field fresh triggers)" 0
	pv_down
	sup_ini <<-EOF
	state_dir = $T/state
	EOF
	pv_up
	wait_until 10000 field_is daily state stopped ||
	    fail "daily: $(field daily state)"
	expect_eq "$(runs "$T/runs")" 1 "runs after a restart with none missed"
	expect_match "$(timers_field daily last)" '^[0-9]{16}$'
	pv_down
}

# A re-exec keeps each timer: next elapse (a randomized delay too), last
# run, counts; a reload keeps an unchanged timer's and re-arms a changed
# one; a bad expression is refused at its line and changes nothing.
t_timer_reexec_reload() {
	local next last next2
	pv_dir
	svc job <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs'
	ready = exit
	on_calendar = *:*:*
	accuracy = 1ms
	EOF
	svc rand <<-EOF
	exec = /bin/true
	ready = exit
	on_calendar = hourly
	randomized_delay = 1h
	EOF
	pv_up
	wait_until 20000 runs_at_least "$T/runs" 1 || fail "never ran"
	next=$(timers_field rand next)
	last=$(timers_field job last)
	expect_rc 0 ctl reexec
	expect_eq "$(timers_field rand next)" "$next" "next after reexec"
	[ "$(timers_field job last)" -ge "$last" ] || fail "job's last lost"
	[ "$(timers_field job triggers)" -ge 1 ] || fail "job's count lost"
	expect_rc 0 ctl reload
	expect_eq "$(timers_field rand next)" "$next" "next after reload"
	sed -i 's/^on_calendar = hourly/on_calendar = 2199-01-01 12:00 UTC/' \
	    "$T/conf/services/rand.ini"
	sed -i '/randomized_delay/d' "$T/conf/services/rand.ini"
	expect_rc 0 ctl reload
	next2=$(timers_field rand next)
	expect_eq "$(date -u -d "@${next2:0:10}" +%F)" 2199-01-01 "re-armed"
	echo 'on_calendar = Mon 25:00' >>"$T/conf/services/rand.ini"
	expect_rc 1 ctl reload
	expect_match "$OUT" "rand.ini:5: on_calendar: 'Mon 25:00' at 5: "
	expect_eq "$(timers_field rand next)" "$next2" "after a bad reload"
	pv_down
}

# A reload that finds the system's zone changed computes each calendar
# timer's next elapse again in the new zone; one that finds it the same
# keeps it.  (The zone is $TZ's file here, as /etc/localtime would be.)
t_timer_zone_reload() {
	local next
	pv_dir
	cp /usr/share/zoneinfo/UTC "$T/localtime"
	export TZ=$T/localtime
	svc job <<-EOF
	exec = /bin/true
	ready = exit
	on_calendar = 03:00
	accuracy = 1ms
	EOF
	pv_up
	next=$(timers_field job next)
	expect_eq "$(date -u -d "@${next:0:10}" +%T)" 03:00:00 "in UTC"
	expect_rc 0 ctl reload
	expect_eq "$(timers_field job next)" "$next" "the same zone"
	cp /usr/share/zoneinfo/Asia/Tokyo "$T/localtime"
	expect_rc 0 ctl reload
	expect_match "$(cat "$T/log")" "time zone changed"
	next=$(timers_field job next)
	expect_eq "$(date -u -d "@${next:0:10}" +%T)" 18:00:00 "in Tokyo"
	pv_down
}

# defer_under_pressure: a due run waits while the pressure is medium or
# worse (the tests' daemon reads it from a file), for at most defer_max.
t_timer_defer() {
	pv_dir
	echo medium >"$T/pressure"
	export PIDVISOR_FAKE_PRESSURE=$T/pressure
	svc job <<-EOF
	exec = /bin/sh -c 'echo run >>$T/runs'
	ready = exit
	on_active = 0
	accuracy = 1ms
	defer_under_pressure = yes
	EOF
	svc capped <<-EOF
	exec = /bin/sh -c 'echo run >>$T/capped'
	ready = exit
	on_active = 0
	accuracy = 1ms
	defer_under_pressure = yes
	defer_max = 1s
	EOF
	pv_up
	wait_until 10000 grep -q "job: timer: deferred: memory pressure" \
	    "$T/log" || fail "not deferred: $(cat "$T/log")"
	expect_eq "$(timers_field job deferred)" true
	expect_match "$(ctl timers)" ' deferred +'
	expect_match "$(ctl status job)" 'deferred for memory pressure'
	wait_until 10000 runs_at_least "$T/capped" 1 ||
	    fail "capped did not run after defer_max"
	expect_match "$(cat "$T/log")" \
	    "capped: timer: runs: memory pressure for longer than defer_max"
	expect_eq "$(runs "$T/runs")" 0 "job ran under pressure"
	echo none >"$T/pressure"
	wait_until 10000 runs_at_least "$T/runs" 1 ||
	    fail "job did not run once the pressure was over"
	expect_match "$(cat "$T/log")" \
	    "job: timer: runs: the memory pressure is over"
	pv_down
}

# Bad timer keys: refused at their line, with what is wrong.
t_timer_bad_keys() {
	pv_dir
	expect_check_error "on_calendar: 'Mon 25:00' at 5: " <<-EOF
	on_calendar = Mon 25:00
	EOF
	expect_check_error "on_boot: invalid time span '5 parsecs'" <<-EOF
	on_boot = 5 parsecs
	EOF
	expect_check_error "wake_system: not supported" <<-EOF
	wake_system = yes
	on_calendar = daily
	EOF
	expect_check_error "randomized_delay: no on_calendar or on_\* key" <<-EOF
	randomized_delay = 1h
	EOF
	expect_check_error "on_calendar: on_demand starts it when a client" <<-EOF
	on_calendar = daily
	listen = tcp:127.0.0.1:1
	on_demand = yes
	EOF
}

# pidvisorctl calendar, without a pidvisor: systemd-analyze calendar's
# lines (its "From now" aside, which moves), and the error's position.
t_calendar_verb() {
	local want
	want="  Original form: *-02~01 03:00
Normalized form: *-02~01 03:00:00
    Next elapse: Sat 2026-02-28 03:00:00 UTC
       Iter. #2: Sun 2027-02-28 03:00:00 UTC
       Iter. #3: Tue 2028-02-29 03:00:00 UTC

  Original form: Mon..Fri 9:30 Europe/Berlin
Normalized form: Mon..Fri *-*-* 09:30:00 Europe/Berlin
    Next elapse: Mon 2026-02-02 08:30:00 UTC
       Iter. #2: Tue 2026-02-03 08:30:00 UTC
       Iter. #3: Wed 2026-02-04 08:30:00 UTC"
	OUT=$(TZ=UTC "$CTL" calendar --base-time='2026-01-30 12:00:00 UTC' \
	    --iterations 3 '*-02~01 03:00' 'Mon..Fri 9:30 Europe/Berlin' |
	    grep -v 'From now')
	expect_eq "$OUT" "$want"
	expect_rc 1 env TZ=UTC "$CTL" calendar 'Mon 25:00'
	expect_match "$OUT" "Failed to parse calendar specification 'Mon 25:00'"
}
