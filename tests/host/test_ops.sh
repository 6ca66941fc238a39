# tests/host/test_ops.sh - logs, reload, installation, manuals, completion.

# 100,000 lines printed as fast as possible: every one in the file sink,
# once, in order; the last ones in the ring buffer.
t_logs_complete() {
	pv_dir
	sup_ini <<-EOF
	log_dir = $T/logs
	EOF
	svc counter <<-EOF
	exec = seq 1 100000
	log = file
	log_file_max = 100M
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait counter stopped --timeout=60s
	local lines
	lines=$(wc -l <"$T/logs/counter.log")
	expect_eq "$lines" 100000 "lines in the file"
	awk '$2 !~ /^counter\[[0-9]+\]$/ || $3 != "stdout:" || $4 != NR { bad = NR; exit }
	    END { exit bad ? 1 : 0 }' "$T/logs/counter.log" ||
	    fail "line out of order: $(sed -n "$(awk '$4 != NR {print NR; exit}' \
	    "$T/logs/counter.log")p" "$T/logs/counter.log")"
	expect_eq "$(ctl logs counter -n 3 | awk '{print $4}' | tr '\n' ' ')" \
	    "99998 99999 100000 " "logs -n 3"
	pv_down
}

# A service that floods its output delays neither another service's
# restarts nor the control socket.
t_logs_flood() {
	pv_dir
	svc flood <<-EOF
	exec = yes flooding the supervisor with lines
	log = none
	EOF
	svc crash <<-EOF
	exec = $H stamp=$T/s:S exit=1
	restart_delay = 200ms
	restart_delay_max = 200ms
	start_limit_burst = 0
	EOF
	pv_up
	expect_rc 0 ctl wait flood ready --timeout=5s
	"$H" waitfile="$T/s:6:10000" ||
	    fail "crash did not restart 5 times in 10 s next to the flood"
	local i
	for i in 1 2 3 4 5; do
		expect_rc 0 ctl status flood
	done
	[ "$(ctl logs flood -n 1 | cut -d' ' -f4-)" = \
	    "flooding the supervisor with lines" ] || fail "flood not read"
	pv_down
}

# Size-based rotation keeps log_file_keep old files, and nothing is lost
# between them.
t_logs_rotation() {
	pv_dir
	sup_ini <<-EOF
	log_dir = $T/logs
	EOF
	svc rot <<-EOF
	exec = seq 1 2000
	log = file
	log_file_max = 8k
	log_file_keep = 3
	restart = never
	EOF
	pv_up
	expect_rc 0 ctl wait rot stopped --timeout=30s
	expect_eq "$(cd "$T/logs" && ls | tr '\n' ' ')" \
	    "rot.log rot.log.1 rot.log.2 rot.log.3 " "files"
	local f
	for f in "$T"/logs/*; do
		[ "$(stat -c %s "$f")" -le 8192 ] || fail "$f is too big"
	done
	# Oldest to newest, the kept lines are consecutive and end at 2000.
	cat "$T/logs/rot.log.3" "$T/logs/rot.log.2" "$T/logs/rot.log.1" \
	    "$T/logs/rot.log" | awk '{print $4}' >"$T/kept"
	expect_eq "$(tail -1 "$T/kept")" 2000 "last line"
	awk 'NR > 1 && $1 != prev + 1 { exit 1 } { prev = $1 }' "$T/kept" ||
	    fail "a gap in the rotated files"
	pv_down
}

# logs -f sees new lines as they come; --json is valid JSON.
t_logs_follow() {
	pv_dir
	svc tick <<-EOF
	exec = /bin/sh -c "i=0; while :; do echo tick \$i; i=\$((i+1)); \
	    sleep 0.1; done"
	EOF
	pv_up
	local line first
	coproc FOLLOW { ctl logs tick -f -n 0; }
	read -r -t 5 line <&"${FOLLOW[0]}" || fail "no line from logs -f"
	first=$(echo "$line" | awk '{print $5}')
	read -r -t 5 line <&"${FOLLOW[0]}" || fail "no second line"
	expect_eq "$(echo "$line" | awk '{print $5}')" $((first + 1)) "next tick"
	for i in 1 2 3; do
		read -r -t 5 line <&"${FOLLOW[0]}" || fail "no line $((i + 2))"
	done
	kill "$FOLLOW_PID"
	wait "$FOLLOW_PID" 2>/dev/null
	ctl logs tick -n 5 --json | jq -e 'length == 5 and
	    all(.[]; .service == "tick" and .stream == "stdout" and
	        (.line | startswith("tick ")) and (.pid | type) == "number" and
	        (.time | test("^[0-9-]+T[0-9:.]+Z$")))' >/dev/null ||
	    fail "logs --json: $(ctl logs tick -n 5 --json)"
	coproc JFOLLOW { ctl logs tick -f -n 2 --json; }
	read -r -t 5 line <&"${JFOLLOW[0]}" || fail "no JSON line"
	echo "$line" | jq -e '.service == "tick"' >/dev/null ||
	    fail "logs -f --json: $line"
	kill "$JFOLLOW_PID"
	wait "$JFOLLOW_PID" 2>/dev/null
	pv_down
}

# A follower that stops reading is dropped; the others go on.
t_logs_follower_dropped() {
	pv_dir
	sup_ini <<-EOF
	client_timeout = 1s
	EOF
	svc flood <<-EOF
	exec = yes a line that the follower never reads
	log = none
	EOF
	pv_up
	local line
	coproc SLOW { "$CTLRAW" "$T/ctl.sock" noread 20000 logs flood -f; }
	read -r -t 10 line <&"${SLOW[0]}"
	expect_eq "$line" sent
	read -r -t 25 line <&"${SLOW[0]}"
	expect_eq "$line" dropped "a follower that does not read"
	wait "$SLOW_PID"
	expect_rc 0 ctl logs flood -n 1
	pv_down
}

# reload: add, remove, change; unchanged keeps its process and uptime;
# an invalid tree changes nothing at all.
t_reload() {
	pv_dir
	svc keep <<-EOF
	exec = $H sleep=forever
	EOF
	svc change <<-EOF
	exec = $H sleep=forever
	EOF
	svc gone <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	local keep change gone up1 up2
	for s in keep change gone; do ctl wait $s ready --timeout=5s; done
	keep=$(field keep pid)
	change=$(field change pid)

	# An invalid tree, with a valid change in it: nothing happens.
	svc broken <<-EOF
	exec = $H sleep=forever
	restart = sometimes
	EOF
	svc change <<-EOF
	exec = $H stamp=$T/s:NEW sleep=forever
	EOF
	up1=$(field keep uptime_ms)
	expect_rc 1 ctl reload
	expect_match "$OUT" "services/broken.ini:3: restart: expected always"
	expect_match "$OUT" "configuration refused; nothing changed"
	expect_eq "$(field keep pid)" "$keep" "keep after a refused reload"
	expect_eq "$(field change pid)" "$change" "change after a refused reload"
	expect_eq "$(ctl status --json | jq length)" 3 "services"
	grep -q "services/broken.ini:3: restart" "$T/log" ||
	    fail "the errors were not logged"

	# A valid one: broken fixed (added), change changed, gone removed.
	svc broken <<-EOF
	exec = $H sleep=forever
	EOF
	rm "$T/conf/services/gone.ini"
	expect_rc 0 ctl reload
	expect_eq "$OUT" "added broken
changed (restarted) change
removed gone
unchanged keep"
	expect_rc 0 ctl wait change ready --timeout=5s
	expect_rc 0 ctl wait broken ready --timeout=5s
	[ "$(field change pid)" != "$change" ] || fail "change kept its process"
	"$H" waitfile="$T/s:1:5000" || fail "change does not run the new exec"
	expect_eq "$(field keep pid)" "$keep" "keep's pid"
	expect_eq "$(field keep restarts)" 0 "keep's restarts"
	up2=$(field keep uptime_ms)
	[ "$up2" -gt "$up1" ] || fail "keep's uptime went from $up1 to $up2"
	wait_until 5000 eval '! ctl status gone >/dev/null 2>&1'
	expect_rc 4 ctl status gone

	# What pidvisor.ini cannot change live, reload says.
	sup_ini <<-EOF
	control_mode = 0660
	EOF
	expect_rc 0 ctl reload
	expect_match "$OUT" "pidvisor.ini: control_mode takes effect when \
pidvisor restarts"

	# SIGHUP reloads too.
	svc late <<-EOF
	exec = $H sleep=forever
	EOF
	kill -HUP "$PV_PID"
	wait_until 5000 eval 'ctl status late >/dev/null 2>&1'
	expect_rc 0 ctl wait late ready --timeout=5s
	expect_eq "$(field keep pid)" "$keep" "keep after SIGHUP"
	pv_down
}

# make install DESTDIR=... PREFIX=...: the expected files; uninstall
# removes them.
t_install() {
	pv_dir
	make -s -C "$ROOT" install DESTDIR="$T/root" PREFIX=/usr >"$T/out" 2>&1 ||
	    fail "make install: $(cat "$T/out")"
	local f
	for f in usr/sbin/pidvisor usr/bin/pidvisorctl usr/bin/pidvisor-notify \
	    usr/share/man/man8/pidvisor.8 usr/share/man/man8/pidvisorctl.8 \
	    usr/share/man/man5/pidvisor.ini.5 \
	    usr/share/bash-completion/completions/pidvisorctl \
	    usr/share/zsh/vendor-completions/_pidvisorctl \
	    usr/share/fish/vendor_completions.d/pidvisorctl.fish \
	    usr/share/doc/pidvisor/examples/pidvisor.ini \
	    usr/share/doc/pidvisor/examples/services/notifier.ini; do
		[ -f "$T/root/$f" ] || fail "$f was not installed"
	done
	[ -x "$T/root/usr/sbin/pidvisor" ] || fail "pidvisor not executable"
	expect_match "$("$T/root/usr/sbin/pidvisor" -V)" "^pidvisor " \
	    "the installed pidvisor's version"
	make -s -C "$ROOT" uninstall DESTDIR="$T/root" PREFIX=/usr >/dev/null ||
	    fail "make uninstall"
	expect_eq "$(find "$T/root" -type f | wc -l)" 0 "files left"
}

# The manuals render without a warning.
t_manuals() {
	local out page keys key verbs verb
	out=$(mandoc -T lint -W warning "$ROOT"/man/*.[0-9] 2>&1) ||
	    fail "mandoc: $out"
	[ -z "$out" ] || fail "mandoc: $out"
	for page in pidvisor.8 pidvisorctl.8 pidvisor.ini.5; do
		# Not "| grep -q": under pipefail, mandoc's SIGPIPE fails it.
		[ -n "$(mandoc -T ascii "$ROOT/man/$page")" ] ||
		    fail "$page is empty"
	done
	# Every key and every verb is documented.
	keys=$(grep -o '\[K_[A-Z_]*\] = S[UV][PC]N\?("[a-z_]*"' \
	    "$ROOT/supervisor/conf/conf_parse.c" | sed 's/.*"\(.*\)"/\1/'
	    sed -n 's/^	LIM([A-Z]*, "\([a-z]*\)".*/limit_\1/p' \
	    "$ROOT/supervisor/conf/conf_parse.c" | sort -u)
	[ "$(echo "$keys" | wc -l)" -gt 40 ] || fail "key table not found"
	for key in $keys; do
		grep -q "^\.It Cm $key " "$ROOT/man/pidvisor.ini.5" ||
		    fail "pidvisor.ini(5) does not document $key"
	done
	verbs=$(sed -n 's/^	X([A-Z_]*, [a-z_]*, "\([a-z-]*\)".*/\1/p' \
	    "$ROOT/supervisor/ctl/verbs.h")
	[ "$(echo "$verbs" | wc -l)" -gt 15 ] || fail "verb list not found"
	for verb in $verbs; do
		grep -q "^\.It Cm $verb" "$ROOT/man/pidvisorctl.8" ||
		    fail "pidvisorctl(8) does not document $verb"
	done
}

# docs/HACKING.md's module map names every file of supervisor/, in its
# directory, and no file that is gone; each directory of supervisor/ is
# a section of the map; no source file grows past 1,200 lines; every
# file begins with a comment that names it ("NAME - what it is").
t_module_map() {
	local f d n listed
	listed=$(sed -n 's/^| `\([a-z]*\/[a-z0-9_-]*\.[ch]\)` |.*/\1/p' \
	    "$ROOT/docs/HACKING.md" | sort)
	[ "$(grep -c . <<<"$listed")" -gt 60 ] || fail "no module map"
	for f in "$ROOT"/supervisor/*.[ch]; do
		[ -e "$f" ] && fail "${f##*/} is not in a directory of supervisor/"
	done
	for d in "$ROOT"/supervisor/*/; do
		d=$(basename "$d")
		grep -q "^### .*: \`supervisor/$d/\`$" "$ROOT/docs/HACKING.md" ||
		    fail "docs/HACKING.md has no section for supervisor/$d/"
	done
	for f in "$ROOT"/supervisor/*/*.c; do
		d=$(basename "$(dirname "$f")")/${f##*/}
		grep -qx "$d" <<<"$listed" ||
		    fail "docs/HACKING.md does not map $d"
		n=$(wc -l <"$f")
		[ "$n" -le 1200 ] || fail "$d has $n lines (split it)"
	done
	for f in $listed; do
		[ -f "$ROOT/supervisor/$f" ] ||
		    fail "docs/HACKING.md maps $f, which is gone"
	done
	for f in "$ROOT"/supervisor/*/*.[ch]; do
		sed -n 1,2p "$f" | grep -q "^\(/\*\| \*\) ${f##*/} - " ||
		    fail "${f##*/} does not begin by naming itself"
	done
}

# Completion, made from the verb table: verbs, options and the service
# names of the running supervisor, in bash and fish; zsh's parses.
t_completion() {
	pv_dir
	svc alpha <<-EOF
	exec = $H sleep=forever
	EOF
	svc beta <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	local got comp=$ROOT/build/completion
	got=$(PATH=$(dirname "$CTL"):$PATH PIDVISOR_SOCKET=$T/ctl.sock bash -c '
		source "'"$comp"'/pidvisorctl.bash"
		COMP_WORDS=(pidvisorctl st); COMP_CWORD=1; _pidvisorctl
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(pidvisorctl restart ""); COMP_CWORD=2; _pidvisorctl
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(pidvisorctl restart alpha ""); COMP_CWORD=3
		_pidvisorctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(pidvisorctl wait alpha ""); COMP_CWORD=3; _pidvisorctl
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(pidvisorctl pr); COMP_CWORD=1; _pidvisorctl
		echo "${COMPREPLY[*]}"
		COMP_WORDS=(pidvisorctl --json status ""); COMP_CWORD=3
		_pidvisorctl; echo "${COMPREPLY[*]}"')
	expect_eq "$got" "status start stop
alpha beta
alpha beta
backoff done failed listening ready starting stopped stopping
pressure
alpha beta"
	got=$(PATH=$(dirname "$CTL"):$PATH PIDVISOR_SOCKET=$T/ctl.sock \
	    fish -c "source $comp/pidvisorctl.fish
		complete -C 'pidvisorctl sho' | cut -f1
		complete -C 'pidvisorctl show ' | cut -f1
		complete -C 'pidvisorctl logs --' | cut -f1 |
		    grep -x -e --json -e --wait")
	expect_eq "$got" "show
alpha
beta
--json"
	zsh -n "$comp/_pidvisorctl" || fail "zsh completion does not parse"
	pv_down
}

# The CLI as a user reaches for it: help, versions, options anywhere,
# several names, notes on stderr, show and cat.
t_cli() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	stop_timeout = 2s
	EOF
	svc b <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	local v
	for v in --help -h help "help status" "status --help"; do
		# shellcheck disable=SC2086
		expect_rc 0 "$CTL" $v
		expect_match "$OUT" "usage: pidvisorctl" "pidvisorctl $v"
	done
	expect_rc 0 "$CTL" help
	for v in status start stop restart signal wait version shutdown \
	    reboot poweroff logs reload pressure show cat; do
		expect_match "$OUT" "  $v " "help lists $v"
	done
	expect_rc 0 "$CTL" help start
	expect_match "$OUT" "start NAME\.\.\. \[--wait\]" "help start"
	expect_rc 2 "$CTL" help frobnicate
	expect_rc 0 "$CTL" --version
	expect_match "$OUT" "^pidvisorctl [0-9.]+ \(protocol 2\)$"
	expect_rc 0 "$PV" --help
	expect_match "$OUT" "--check" "pidvisor --help"
	expect_rc 0 "$PV" --version
	expect_match "$OUT" "^pidvisor [0-9.]+"
	pv_up
	ctl wait a ready --timeout=5s >/dev/null || fail "a is not ready"
	# Options before the verb, and several names.
	expect_rc 0 ctl --json status a
	expect_eq "$(echo "$OUT" | jq -r '.[0].name')" a "--json status a"
	expect_rc 0 "$CTL" --socket="$T/ctl.sock" start b --wait \
	    --timeout=5s
	expect_rc 0 ctl status a b --json
	expect_eq "$(echo "$OUT" | jq -r '[.[].state] | join(" ")')" \
	    "ready ready" "status a b"
	expect_rc 4 ctl stop a nosuch
	expect_eq "$(field a state)" ready "a after a refused stop"
	expect_rc 0 ctl restart a b --wait --timeout=10s
	expect_rc 0 ctl stop --wait a b
	expect_rc 3 ctl status a b
	expect_rc 0 ctl start a b --wait
	# Notes are not output: stdout is the table alone.
	ctl status >"$T/out" 2>"$T/err" || fail "status"
	expect_eq "$(grep -c . "$T/out")" 3 "lines of status"
	if [ -s "$T/err" ]; then
		expect_match "$(cat "$T/err")" \
		    "^pidvisorctl: [a-z]+: .*: nothing without cgroups" "the note"
	fi
	# show: every key in effect, and whence; cat: the file.
	expect_rc 0 ctl show a
	expect_match "$OUT" "stop_timeout = 2s +# $T/conf/services/a.ini:3"$'\n' \
	    "show: a key of the file"
	expect_match "$OUT" "restart = always +# default" "show: a default"
	expect_eq "$(echo "$OUT" | grep -c ' = ')" \
	    "$(grep -c '^	\[K_.*\] = SVCN\?(\|^	LIM(' "$ROOT/supervisor/conf/conf_parse.c")" \
	    "keys shown"
	expect_rc 0 ctl cat b
	expect_eq "$OUT" "# $T/conf/services/b.ini
$(cat "$T/conf/services/b.ini")" "cat b"
	expect_rc 4 ctl show nosuch
	pv_down
}

# pidvisor --check: every error, exit 1; a good tree, exit 0; nothing
# runs.
t_check() {
	pv_dir
	svc good <<-EOF
	exec = /bin/true
	EOF
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "1 service, no errors"
	svc bad <<-EOF
	exec = /bin/true
	restrat = never
	requires = nosuch
	EOF
	sup_ini <<-EOF
	max_clients = 8
	max_clients = 9
	EOF
	expect_rc 1 "$PV" -n -c "$T/conf"
	expect_match "$OUT" "bad.ini:3: unknown key 'restrat' \(did you mean \
'restart'\?\)" "the typo"
	expect_match "$OUT" "bad.ini:4: requires: unknown service 'nosuch'"
	expect_match "$OUT" "pidvisor.ini:3: 'max_clients' given twice"
	expect_match "$OUT" "3 errors in"
	[ ! -e "$T/ctl.sock" ] || fail "--check made a control socket"
	# Env files: a syntax error is one (where, not what the line says);
	# a required file missing now is a warning.
	rm "$T/conf/services/bad.ini" "$T/conf/pidvisor.ini"
	printf 'A=1\n  top secret\n' >"$T/env"
	svc env <<-EOF
	exec = /bin/true
	env_file = $T/env
	env_file = $T/later
	EOF
	expect_rc 1 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "env.ini: env_file: $T/env:2:3: expected KEY=VALUE"
	expect_match "$OUT" "env.ini: warning: env_file: $T/later: No such file"
	[[ "$OUT" != *secret* ]] || fail "--check repeated the line: $OUT"
	echo "A=2" >"$T/env"
	expect_rc 0 "$PV" --check -c "$T/conf"
}

# reload: every key of pidvisor.ini that changed is either applied or
# said to need a restart; none is forgotten.
t_reload_settings() {
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	local keys
	cp "$T/conf/pidvisor.ini" "$T/before.ini" 2>/dev/null || :
	# The [supervisor] keys of the table, and a value each.
	sup_ini <<-EOF
	control_socket = $T/other.sock
	notify_dir = $T/other-notify
	control_mode = 0660
	max_clients = 8
	client_timeout = 3s
	shutdown_timeout = 1m
	log = none
	log_buffer = 8k
	log_file_max = 2M
	log_file_keep = 2
	log_dir = $T/logs
	log_level = debug
	cgroup_root = none
	cgroup_memory_high = 1G
	pressure = some 100000 1000000
	pressure_file = /proc/pressure/memory
	pressure_reclaim = kill
	pressure_kill_timeout = 500ms
	pressure_critical = some 200ms 2s
	pressure_min_available = 5%
	pressure_min_priority = 10
	pressure_policy = lmkd
	pressure_calm = 3s
	pressure_calm_max = 60s
	crash_action = poweroff
	mode = system
	control_group = root
	log_format = json
	metrics_listen = 127.0.0.1:0
	metrics_users = root
	syslog_socket = $T/log.sock
	state_dir = $T/state
	systemd_units = yes
	unit_path = $T/units
	watch_units = yes
	EOF
	keys=$(grep -o '\] = SUPN\?("[a-z_]*"' "$ROOT/supervisor/conf/conf_parse.c" |
	    sed 's/.*"\(.*\)"/\1/')
	expect_eq "$(echo "$keys" | wc -l)" \
	    "$(($(grep -c . "$T/conf/pidvisor.ini") - 1))" \
	    "this test gives every key"
	expect_rc 0 ctl reload
	for k in $keys; do
		# pv_up set it already on a cgroup2 host.
		[ "$k" = cgroup_root ] && grep -qs "^cgroup_root = none" \
		    "$T/before.ini" && continue
		# Not "echo | grep -q": under pipefail, echo's SIGPIPE fails it.
		grep -Eq "^pidvisor.ini: $k (= |takes effect when pidvisor \
restarts)" <<<"$OUT" || fail "reload says nothing of $k: $OUT"
	done
	expect_match "$OUT" "pidvisor.ini: max_clients = 8"
	expect_match "$OUT" "pidvisor.ini: pressure takes effect when"
	expect_match "$OUT" "pidvisor.ini: cgroup_memory_high takes effect when"
	expect_match "$OUT" "pidvisor.ini: mode takes effect when"
	expect_match "$OUT" "pidvisor.ini: log_format = json"
	expect_match "$OUT" "pidvisor.ini: metrics_listen = 127.0.0.1:0"
	expect_match "$(cat "$T/log")" "metrics: http://127.0.0.1:[1-9]"
	pv_down
}

# With no socket named, root's pidvisor takes /run/pidvisor; where /run
# is read-only it falls back to /tmp/pidvisor-0, says why in its log, and
# pidvisorctl finds it there.  (A mount namespace of the test's own:
# read-only /run, an empty /tmp, the test's directory at /mnt.)
t_socket_fallback() {
	pv_dir
	# The binaries from the test's directory (/mnt inside): the tree may
	# be under /tmp, which an empty tmpfs hides there.
	mkdir "$T/bin"
	cp "$PV" "$CTL" "$H" "$T/bin/"
	chmod 0755 "$T" "$T/bin"
	svc a <<-EOF
	exec = /mnt/bin/svc-helper sleep=forever
	EOF
	# Root's fallback directory is 0755: a service's user reaches its
	# notify socket.
	svc n <<-EOF
	exec = /mnt/bin/svc-helper notify=READY=1 sleep=forever
	ready = notify
	user = nobody
	EOF
	unshare --pid --fork --mount --mount-proc --kill-child sh -c '
		mount --bind "$1" /mnt && mount -t tmpfs tmpfs /tmp &&
		mount -t tmpfs -o ro tmpfs /run &&
		exec "$2" -v -c /mnt/conf >/mnt/log 2>&1' sh "$T" "/mnt/bin/$(basename "$PV")" &
	UNSHARE_PID=$!
	fallback_answers() {
		# Read again each time: the first child seen may be one that
		# unshare makes on its way, gone since.
		PV_PID=$(cat /proc/"$UNSHARE_PID"/task/"$UNSHARE_PID"/children \
		    2>/dev/null)
		PV_PID=${PV_PID%% *}
		[ -n "$PV_PID" ] && ns /mnt/bin/pidvisorctl status a >/dev/null 2>&1 &&
		    return 0
		kill -0 "$UNSHARE_PID" 2>/dev/null ||
		    fail "pidvisor exited: $(cat "$T/log")"
		return 1
	}
	PV_PID=
	wait_until 10000 fallback_answers ||
	    fail "no answer at the fallback socket: $(cat "$T/log")"
	expect_match "$(cat "$T/log")" "control socket /run/pidvisor/control.sock: \
Read-only file system; using /tmp/pidvisor-0/control.sock" "the log"
	expect_match "$(ns /mnt/bin/pidvisorctl status a 2>/dev/null)" $'\na +(starting|ready) ' "status"
	expect_eq "$(ns stat -c %a /tmp/pidvisor-0)" 755 "the fallback's mode"
	expect_rc 0 ns /mnt/bin/pidvisorctl wait n ready --timeout=10s
	pv_down
}

# SECURITY.md names a test for every attack of the attack tier, and
# every host test it names exists (guest tests are named "guest").
t_security_map() {
	local t
	for t in $(grep -ho '^t_sec_[a-z0-9_]*' "$ROOT"/tests/host/*.sh); do
		grep -q "\`$t\`" "$ROOT/SECURITY.md" ||
		    fail "SECURITY.md does not name $t"
	done
	for t in $(grep -o '`t_[a-z0-9_]*`' "$ROOT/SECURITY.md" | tr -d '`' |
	    sort -u); do
		grep -qh "^$t()" "$ROOT"/tests/host/*.sh "$ROOT"/tests/guest/*.sh \
		    "$ROOT"/tests/container/*.sh ||
		    grep -q "$t" "$ROOT"/tests/guest/*.sh ||
		    fail "SECURITY.md names $t, which no test is"
	done
}

# Touching a header rebuilds what includes it, and nothing else (each
# object's .d file, -MMD -MP): victim.h, pretended new (make -W).
t_header_deps() {
	local rebuilt n total d c
	rebuilt=$(make -C "$ROOT" -n -W supervisor/pressure/victim.h \
	    build/bin/pidvisor 2>/dev/null |
	    grep -o ' -c supervisor/[a-z]*/[a-z_0-9]*\.c' | sed 's|.*/||')
	n=$(grep -c . <<<"$rebuilt")
	total=$(ls "$ROOT"/supervisor/*/*.c | wc -l)
	[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] ||
	    fail "touching victim.h rebuilds $n of $total objects"
	for d in "$ROOT"/build/obj/*.d; do
		c=$(basename "${d%.d}").c
		if grep -q 'supervisor/pressure/victim\.h' "$d"; then
			grep -qx "$c" <<<"$rebuilt" || fail "$c includes victim.h, not rebuilt"
		else
			grep -qx "$c" <<<"$rebuilt" && fail "$c rebuilt, does not include victim.h"
		fi
	done
	return 0
}

# The include graph of supervisor/ (tools/include-graph) has no cycle
# longer than two modules: layers call down, and up through core.h.
t_include_graph() {
	local out
	out=$("$ROOT/tools/include-graph") ||
	    fail "a cycle longer than two: $(grep cycle <<<"$out")"
}
