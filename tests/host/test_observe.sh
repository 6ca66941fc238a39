# tests/host/test_observe.sh - watching pidvisor from outside: metrics
# (pidvisorctl and HTTP, scraped by Debian's real Prometheus), the event
# stream, log = syslog, is-ready.

# A service that fails twice, then runs: 2 restarts, 3 starts.
crashy_svc() {
	cat >"$T/crashy.sh" <<-EOF
	n=\$(cat "$T/n" 2>/dev/null || echo 0)
	echo \$((n + 1)) >"$T/n"
	[ "\$n" -ge 2 ] && exec sleep 1000
	exit 1
	EOF
	svc crashy <<-EOF
	exec = /bin/sh $T/crashy.sh
	restart = always
	restart_delay = 10ms
	EOF
}

# The port metrics_listen took, from pidvisor's log.
metrics_port() {
	sed -n 's|.*metrics: http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' \
	    "$T/log" | tail -1
}

t_metrics() {
	pv_dir
	crashy_svc
	svc up <<-EOF
	exec = $H sleep=forever
	EOF
	svc off <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	ctl wait crashy ready --timeout=20s || fail "crashy not ready"
	expect_rc 0 ctl metrics
	local m=$OUT
	expect_eq "$(promtool check metrics <<<"$m" 2>&1)" "" "promtool"
	expect_match "$m" $'\npidvisor_service_restarts_total\\{service="crashy"\\} 2\n'
	expect_match "$m" $'\npidvisor_service_starts_total\\{service="crashy"\\} 3\n'
	expect_match "$m" $'\npidvisor_service_state\\{service="crashy",state="ready"\\} 1\n'
	expect_match "$m" $'\npidvisor_service_state\\{service="crashy",state="failed"\\} 0\n'
	expect_match "$m" $'\npidvisor_service_state\\{service="off",state="stopped"\\} 1\n'
	expect_match "$m" $'\npidvisor_service_ready_seconds\\{service="up"\\} [0-9]+\\.[0-9]{3}\n'
	expect_match "$m" $'\npidvisor_service_uptime_seconds\\{service="off"\\} 0\\.000\n'
	expect_match "$m" $'\npidvisor_build_info\\{version="[0-9.]+[^"]*"\\} 1\n'
	expect_match "$m" $'\npidvisor_services 3\n'
	expect_match "$m" $'\npidvisor_pressure_kills_total\\{reason="request"\\} 0\n'
	# A kill by request is counted as one.
	expect_rc 0 ctl pressure kill up
	expect_match "$(ctl metrics)" \
	    $'\npidvisor_pressure_kills_total\\{reason="request"\\} 1\n'
	# Every family has its HELP and TYPE, once.
	expect_eq "$(grep -c '^# TYPE' <<<"$m")" "$(grep -c '^# HELP' <<<"$m")"
	expect_eq "$(grep '^# TYPE' <<<"$m" | sort | uniq -d)" "" "a TYPE twice"
	pv_down
}

# metrics_listen: the same text over HTTP; every bad request its error,
# the connections bounded, a silent one closed at client_timeout, the
# socket kept across a re-exec.
t_metrics_http() {
	local p i r
	pv_dir
	sup_ini <<-EOF
	metrics_listen = 127.0.0.1:0
	client_timeout = 3s
	EOF
	crashy_svc
	pv_up
	ctl wait crashy ready --timeout=20s || fail "crashy not ready"
	p=$(metrics_port)
	[ -n "$p" ] || fail "no metrics port in the log: $(cat "$T/log")"
	r=$(curl -sS -m 10 -i "http://127.0.0.1:$p/metrics") || fail "curl: $r"
	expect_match "$r" $'^HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4'
	expect_match "$r" $'\npidvisor_service_restarts_total\\{service="crashy"\\} 2\r?\n'
	expect_eq "$(curl -sS -m 10 "http://127.0.0.1:$p/metrics?x=1" |
	    promtool check metrics 2>&1)" "" "promtool over HTTP"
	expect_match "$(curl -sS -m 10 -I "http://127.0.0.1:$p/metrics")" \
	    $'HTTP/1.1 200 OK\r\n.*Content-Length: [1-9][0-9]*\r\n'
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/")" 404
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X POST \
	    "http://127.0.0.1:$p/metrics")" 405
	# By hand: garbage, another version, a head too large, a NUL.
	http_raw() {
		exec 3<>"/dev/tcp/127.0.0.1/$p" || return 1
		printf '%b' "$1" >&3
		timeout 10 head -1 <&3 | tr -d '\r'
		exec 3<&-
	}
	expect_eq "$(http_raw 'GARBAGE\r\n\r\n')" "HTTP/1.1 400 Bad Request"
	expect_eq "$(http_raw 'GET /metrics HTTP/2.0\r\n\r\n')" \
	    "HTTP/1.1 505 HTTP Version Not Supported"
	expect_eq "$(http_raw "GET /metrics HTTP/1.1\r\nX: $(head -c 5000 \
	    /dev/zero | tr '\0' a)\r\n\r\n")" \
	    "HTTP/1.1 431 Request Header Fields Too Large"
	expect_eq "$(http_raw 'GET /metrics HTTP/1.1\r\nX: a\001b\r\n\r\n')" \
	    "HTTP/1.1 400 Bad Request"
	expect_eq "$(http_raw 'GET /metrics HTTP/1.1\nHost: x\n\n')" \
	    "HTTP/1.1 200 OK"
	# Four silent connections take one address's share: a fifth, the
	# scraper's, takes the place of the oldest; the control socket
	# answers, and client_timeout closes the rest.  (The connections
	# before are gone first: each ends once pidvisor reads its peer's
	# close.)
	http_conns() {
		[[ "$(ctl metrics)" =~ $'\n'pidvisor_metrics_connections\ $1$'\n' ]]
	}
	wait_until 10000 http_conns 0 || fail "connections left"
	for i in 4 5 6 7; do
		eval "exec $i<>/dev/tcp/127.0.0.1/$p" || fail "connect"
	done
	wait_until 10000 http_conns 4 || fail "not 4 connections"
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200
	expect_rc 0 ctl status crashy
	timeout 20 cat <&4 >/dev/null || fail "the oldest silent one was kept"
	timeout 20 cat <&5 >/dev/null || fail "a silent client was kept"
	for i in 4 5 6 7; do
		eval "exec $i<&-"
	done
	# A re-exec keeps the socket: the same port, the count kept.
	expect_rc 0 ctl reexec
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200 "after the re-exec"
	# Six 200s at least (GET, a query, HEAD, LF only, again, after).
	r=$(ctl metrics | sed -n 's/^pidvisor_scrapes_total //p')
	[ "$r" -ge 6 ] || fail "scrapes counted: $r"
	pv_down
}

# A reload to an address in use (ours): said, and the old one kept.
t_metrics_listen_busy() {
	local p
	pv_dir
	sup_ini <<-EOF
	metrics_listen = 127.0.0.1:0
	EOF
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	p=$(metrics_port)
	sed -i "s/^metrics_listen = .*/metrics_listen = 127.0.0.1:$p/" \
	    "$T/conf/pidvisor.ini"
	expect_rc 0 ctl reload
	expect_match "$OUT" "pidvisor.ini: metrics_listen: 127.0.0.1:$p: \
Address already in use; not applied"
	expect_eq "$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
	    "http://127.0.0.1:$p/metrics")" 200 "the old socket"
	expect_rc 0 ctl status a
	pv_down
}

# Debian's Prometheus scrapes pidvisor; its HTTP API gives back a
# service's restart count.
t_metrics_prometheus() {
	local p pp pid q
	pv_dir
	sup_ini <<-EOF
	metrics_listen = 127.0.0.1:0
	EOF
	crashy_svc
	pv_up
	ctl wait crashy ready --timeout=20s || fail "crashy not ready"
	p=$(metrics_port)
	cat >"$T/prom.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	scrape_configs:
	  - job_name: pidvisor
	    static_configs:
	      - targets: ['127.0.0.1:$p']
	EOF
	prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
	    --web.listen-address=127.0.0.1:0 >"$T/prom.log" 2>&1 &
	pid=$!
	bg $pid
	prom_port() {
		pp=$(ss -Hltnp 2>/dev/null | grep "pid=$pid," |
		    sed -n 's/.*127.0.0.1:\([0-9]*\) .*/\1/p' | head -1)
		[ -n "$pp" ]
	}
	wait_until 60000 prom_port || fail "prometheus: $(cat "$T/prom.log")"
	q='pidvisor_service_restarts_total{service="crashy"}'
	prom_says() {
		curl -s -m 5 "http://127.0.0.1:$pp/api/v1/query" \
		    --data-urlencode "query=$q" | jq -r '.data.result[0].value[1]'
	}
	wait_until 60000 eval '[ "$(prom_says)" = 2 ]' ||
	    fail "prometheus says '$(prom_says)': $(tail -5 "$T/prom.log")"
	q='up{job="pidvisor"}'
	expect_eq "$(prom_says)" 1 "up"
	pv_down
}

# Every change as it happens; only the services named; a reload, a
# pressure kill; a re-exec, which the stream outlives; pidvisor's end.
t_events() {
	local a b
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	svc b <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	ctl wait a ready --timeout=20s && ctl wait b ready --timeout=20s ||
	    fail "not ready"
	ctl events >"$T/ev.txt" 2>"$T/ev.err" &
	a=$!
	bg $a
	ctl events --json a >"$T/evj.txt" 2>&1 &
	b=$!
	bg $b
	# Both are listening once the metrics count them (and this one).
	wait_until 10000 eval '[[ "$(ctl metrics)" =~ control_clients\ 3 ]]' ||
	    fail "events clients did not come"
	expect_rc 0 ctl restart a --wait --timeout=20s
	expect_rc 0 ctl reload
	expect_rc 0 ctl pressure kill b
	wait_until 10000 grep -q "b: backoff -> starting" "$T/ev.txt" ||
	    fail "no restart of b: $(cat "$T/ev.txt")"
	grep -Eq "^[0-9-]+T[0-9:.]+Z a: ready -> stopping \(stopped\) pid \
[0-9]+$" "$T/ev.txt" || fail "no stop: $(cat "$T/ev.txt")"
	grep -Eq "a: starting -> ready pid [0-9]+$" "$T/ev.txt" ||
	    fail "no ready: $(cat "$T/ev.txt")"
	grep -q "reload: done (unchanged a; unchanged b)" "$T/ev.txt" ||
	    fail "no reload: $(cat "$T/ev.txt")"
	grep -Eq "b: killed for memory \(by request\), [0-9]+ KiB pid" \
	    "$T/ev.txt" || fail "no kill: $(cat "$T/ev.txt")"
	wait_until 10000 grep -q '"to":"ready"' "$T/evj.txt" ||
	    fail "json: $(cat "$T/evj.txt")"
	expect_eq "$(jq -r 'select(.service != "a") | .event' "$T/evj.txt")" \
	    "" "events of others"
	expect_eq "$(jq -r 'select(.from == "ready") | .to' "$T/evj.txt")" \
	    stopping
	# A re-exec: its two events, and the stream goes on in the new
	# binary, for both clients.
	expect_rc 0 ctl reexec
	wait_until 10000 grep -q "reexec: done (pidvisor .* took over 2" \
	    "$T/ev.txt" || fail "no reexec: $(cat "$T/ev.txt")"
	grep -q "reexec: /" "$T/ev.txt" || fail "no begin: $(cat "$T/ev.txt")"
	expect_rc 0 ctl restart a --wait --timeout=20s
	wait_until 10000 eval '[ "$(grep -c "a: starting -> ready" \
	    "$T/ev.txt")" = 2 ]' || fail "after the re-exec: $(cat "$T/ev.txt")"
	wait_until 10000 eval '[ "$(grep -c "\"to\":\"ready\"" \
	    "$T/evj.txt")" = 2 ]' || fail "json after: $(cat "$T/evj.txt")"
	# A binary that crashes taking over: the one before runs on, with
	# the stream, and says so.
	expect_rc 1 ctl reexec --binary "$ROOT/build/test/pidvisor-crash"
	wait_until 10000 grep -q "reexec: failed (.*pidvisor-crash could not \
take over (crashed: signal 11)" "$T/ev.txt" || fail "$(cat "$T/ev.txt")"
	expect_rc 0 ctl restart a --wait --timeout=20s
	wait_until 10000 eval '[ "$(grep -c "a: starting -> ready" \
	    "$T/ev.txt")" = 3 ]' || fail "after the fallback: $(cat "$T/ev.txt")"
	# pidvisor's end ends it: exit 0, said.
	pv_down
	waitpid_ms $a 10000 || fail "events did not end with pidvisor"
	wait $a
	expect_eq "$?" 0 "events' exit"
	expect_eq "$(cat "$T/ev.err")" "pidvisorctl: pidvisor exited"
}

# A client of events that does not read is dropped, never waited for;
# one that reads gets every event meanwhile.
t_events_slow_reader() {
	local i n names=
	pv_dir
	# Only the unread events may drop it: not client_timeout (10 s),
	# which 500 rounds of 30 restarts can outlast on a loaded machine.
	sup_ini <<-EOF
	client_timeout = 5m
	EOF
	for i in $(seq -w 1 30); do
		svc "s$i" <<-EOF
		exec = $H sleep=forever
		EOF
		names="$names s$i"
	done
	pv_up
	for i in $names; do
		ctl wait "$i" ready --timeout=20s || fail "$i not ready"
	done
	"$CTLRAW" "$T/ctl.sock" noread 120000 events >"$T/noread" &
	bg $!
	ctl events >"$T/ev.txt" &
	bg $!
	wait_until 10000 grep -q sent "$T/noread" || fail "ctlraw"
	wait_until 10000 eval '[[ "$(ctl metrics)" =~ control_clients\ 3 ]]' ||
	    fail "events clients did not come"
	# 120 events a round, about 12 KiB: the client is dropped after
	# about a MiB and the socket's buffers.
	n=0
	while ! grep -q dropped "$T/noread" && [ $n -lt 500 ]; do
		# shellcheck disable=SC2086
		ctl restart $names --wait --timeout=20s >/dev/null 2>&1 ||
		    fail "restart $n: $(ctl restart $names 2>&1)"
		n=$((n + 1))
	done
	wait_until 10000 grep -q dropped "$T/noread" ||
	    fail "the silent client was kept"
	grep -q "events: a client that does not read was dropped" "$T/log" ||
	    fail "not said"
	expect_match "$(ctl metrics)" $'\npidvisor_events_dropped_total 1\n'
	# The reader got every round's last ready.
	wait_until 10000 eval '[ "$(grep -c "s30: starting -> ready" \
	    "$T/ev.txt")" = "$n" ]' ||
	    fail "the reader lost events: $(grep -c "s30: starting -> ready" \
	    "$T/ev.txt") of $n"
	pv_down
}

t_is_ready() {
	pv_dir
	svc up <<-EOF
	exec = $H sleep=forever
	EOF
	svc slow <<-EOF
	exec = /bin/sh -c "while [ ! -s $T/go ]; do sleep 0.05; done;
	  exec $H notify=READY=1 sleep=forever"
	ready = notify
	EOF
	svc task <<-EOF
	exec = /bin/true
	ready = exit
	EOF
	svc off <<-EOF
	exec = $H sleep=forever
	enabled = no
	EOF
	pv_up
	ctl wait up ready --timeout=20s && ctl wait task done --timeout=20s ||
	    fail "not up"
	expect_rc 3 ctl is-ready
	expect_eq "$OUT" "pidvisorctl: not ready: slow (starting)"
	expect_rc 0 ctl is-ready up task
	expect_eq "$OUT" ""
	expect_rc 3 ctl is-ready up off
	expect_eq "$OUT" "pidvisorctl: not ready: off (stopped)"
	expect_rc 4 ctl is-ready nosuch
	echo go >"$T/go"
	ctl wait slow ready --timeout=20s || fail "slow not ready"
	expect_rc 0 ctl is-ready
	pv_down
}

# log = syslog: each line a datagram at its facility and level, with
# the service's name and PID; pidvisor's own messages too; a daemon that
# is gone costs lines, said once, never a wait.
t_syslog() {
	local sd pid
	pv_dir
	"$H" syslogd="$T/log.sock:$T/syslog.txt" >"$T/syslogd.out" &
	sd=$!
	bg $sd
	wait_until 10000 grep -q listening "$T/syslogd.out" || fail "syslogd"
	sup_ini <<-EOF
	log = syslog
	syslog_socket = $T/log.sock
	EOF
	svc talker <<-EOF
	exec = /bin/sh -c "echo out-line; echo err-line >&2; exec sleep 1000"
	syslog_facility = local3
	EOF
	svc tagged <<-EOF
	exec = /bin/sh -c "echo tagged-line; exec sleep 1000"
	syslog_identifier = postgresql@15-main
	EOF
	svc quiet <<-EOF
	exec = /bin/sh -c "echo quiet-line; exec sleep 1000"
	log = console
	EOF
	pv_up
	ctl wait talker ready --timeout=20s || fail "talker"
	wait_until 10000 grep -q "err-line" "$T/syslog.txt" ||
	    fail "no line: $(cat "$T/syslog.txt")"
	wait_until 10000 grep -q "quiet-line" "$T/log" || fail "quiet"
	pid=$(field talker pid)
	# local3 is 19: info 158, err 155.
	grep -Eq "^<158>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} talker\[$pid\]: \
out-line$" "$T/syslog.txt" || fail "stdout: $(cat "$T/syslog.txt")"
	grep -Eq "^<155>.* talker\[$pid\]: err-line$" "$T/syslog.txt" ||
	    fail "stderr: $(cat "$T/syslog.txt")"
	# syslog_identifier: its tag in place of its name.
	wait_until 10000 grep -Eq "^<30>.* postgresql@15-main\[$(field tagged pid)\]: tagged-line$" \
	    "$T/syslog.txt" || fail "tagged: $(cat "$T/syslog.txt")"
	# Our own, daemon.info (30).
	grep -Eq "^<30>.* pidvisor\[[0-9]+\]: talker: ready" "$T/syslog.txt" ||
	    fail "our own: $(cat "$T/syslog.txt")"
	grep -q quiet-line "$T/syslog.txt" && fail "log = console went to syslog"
	# The daemon goes: the lines go to the console, said once.
	kill -KILL "$sd"
	waitpid_ms "$sd" 10000 || fail "syslogd lives"
	ctl restart talker --wait --timeout=20s || fail "restart"
	wait_until 10000 grep -q "talker: $T/log.sock takes no lines" "$T/log" ||
	    fail "not said: $(cat "$T/log")"
	wait_until 10000 grep -q "talker\[[0-9]*\]: err-line" "$T/log" ||
	    fail "not on the console: $(cat "$T/log")"
	expect_eq "$(grep -c "takes no lines" "$T/log")" 1 "said once"
	expect_eq "$(field talker log_dropped)" 0 "dropped"
	# It comes back: lines go to it again, and that is said.
	"$H" syslogd="$T/log.sock:$T/syslog2.txt" >"$T/syslogd2.out" &
	bg $!
	wait_until 10000 grep -q listening "$T/syslogd2.out" || fail "syslogd"
	ctl restart talker --wait --timeout=20s || fail "restart"
	wait_until 10000 grep -q "err-line" "$T/syslog2.txt" ||
	    fail "not back: $(cat "$T/log")"
	grep -q "talker: $T/log.sock takes lines again" "$T/log" ||
	    fail "not said: $(cat "$T/log")"
	pv_down
	printf '[service]\nexec = /bin/true\nsyslog_identifier = a:b\n' \
	    >"$T/conf/services/bad.ini"
	expect_rc 1 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "services/bad.ini:3: syslog_identifier: 1 to 48 visible ASCII characters"
}
