# tests/host/test_reliability.sh - broken input of every kind, hostile
# clients, storms: the supervisor keeps serving and loses nothing.

# The open fds of pidvisor.
pv_fds() {
	ls "/proc/$PV_PID/fd" | wc -l
}

# Every case of tests/conf-broken (at least 50) is refused on reload
# with its FILE:LINE message, and the running service is untouched.
# All of them at once at start-up: every error, and nothing starts.
t_broken_configs() {
	pv_dir
	svc keep <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	ctl wait keep ready --timeout=5s >/dev/null
	local corpus=$ROOT/tests/conf-broken name rx n=0 keep
	keep=$(field keep pid)
	while IFS=$'\t' read -r name rx; do
		[[ -z $name || $name == \#* ]] && continue
		n=$((n + 1))
		if [ -d "$corpus/$name" ]; then
			cp "$corpus/$name"/*.ini "$T/conf/services/"
		else
			cp -- "$corpus/$name.ini" "$T/conf/services/"
		fi
		expect_rc 1 ctl reload
		expect_match "$OUT" "services/$rx" "$name"
		expect_match "$OUT" "configuration refused; nothing changed" "$name"
		find "$T/conf/services" -name '*.ini' ! -name keep.ini -delete
	done <"$corpus/EXPECT"
	[ "$n" -ge 50 ] || fail "only $n broken configurations"
	expect_eq "$(field keep pid)" "$keep" "keep after $n refused reloads"
	expect_eq "$(field keep restarts)" 0 "keep's restarts"
	expect_eq "$(ctl status --json | jq length)" 1 "services"
	sanitizer_clean
	pv_down

	# At start-up, all at once.
	local all=$T/all
	mkdir -p "$all/services"
	cp -r -- "$corpus"/*.ini "$all/services/"
	cp -- "$corpus"/*/*.ini "$all/services/"
	expect_rc 1 "$PV" -c "$all" -s "$T/all.sock"
	while IFS=$'\t' read -r name rx; do
		[[ -z $name || $name == \#* ]] && continue
		expect_match "$OUT" "services/$rx" "$name at start-up"
	done <"$corpus/EXPECT"
	[ ! -e "$T/all.sock" ] || fail "a socket was created"
}

# Hostile clients while a service crash-loops: 1,000 clients at once,
# clients that hang up mid-reply, empty words, bytes that are not UTF-8.
# Everyone gets an answer or is dropped, restarts stay on time, and no
# fd is left behind.
t_hostile_clients() {
	pv_dir
	sup_ini <<-EOF
	max_clients = 1100
	client_timeout = 2s
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc crash <<-EOF
	exec = $H sleep=100 exit=1
	restart_delay = 0
	start_limit_burst = 0
	EOF
	pv_up
	ctl wait a ready --timeout=5s >/dev/null
	local fds0 r i pid crashes
	fds0=$(pv_fds)
	crashes=$(field crash restarts)

	# NULs split words: "stop" and three empty ones is a usage error.
	expect_match "$("$CTLRAW" "$T/ctl.sock" nul)" "^2 too many arguments" \
	    "empty words"
	r=$("$CTLRAW" "$T/ctl.sock" utf8)
	expect_eq "$r" "2 word 2 is not printable UTF-8" "a name that is not UTF-8"
	# The message names it printably (JSON and terminals stay whole).
	LC_ALL=C expect_match "$r" "^[[:print:]]+$" "the reply"

	# A thousand at once, with hang-ups mid-reply in between; a restart
	# of a is asked for and must happen meanwhile.
	"$CTLRAW" "$T/ctl.sock" many 1000 20000 >"$T/many.out" &
	local many=$!
	for i in $(seq 1 50); do "$CTLRAW" "$T/ctl.sock" midreply; done
	pid=$(field a pid)
	expect_rc 0 ctl restart a --wait --timeout=5s
	[ "$(field a pid)" != "$pid" ] || fail "a was not restarted"
	waitpid_ms "$many" 30000 || fail "1,000 clients not served in 30 s"
	wait "$many"
	expect_eq "$(cat "$T/many.out")" "ok 1000 other 0 none 0" "1,000 clients"
	[ "$(field crash restarts)" -gt $((crashes + 1)) ] ||
	    fail "crash stopped restarting"

	# Everything is closed again.
	for i in $(seq 1 100); do
		[ "$(pv_fds)" -le "$fds0" ] && break
		sleep 0.05
	done
	expect_eq "$(pv_fds)" "$fds0" "open fds after the storm"
	expect_rc 0 ctl status a
	pv_down
}

# A short crash storm (make storm is the full one): 200 services that
# crash, then 200 that leave orphans, 5 s each.  pidvisor's fds are the
# same at the end, its RSS within 1%, and once they are removed no
# zombie and no process is left.  The figures are printed, not timed.
t_storm() {
	local out
	out=$("$ROOT/tests/storm.sh" crash 200 5) || fail "crash storm: $out"
	echo "$out"
	out=$("$ROOT/tests/storm.sh" orphans 200 5) ||
	    fail "orphan storm: $out"
	echo "$out"
}
