# tests/host/test_socks.sh - the fds pidvisor holds for a service: listen
# sockets kept across restarts, reloads and a re-exec; on_demand; accept
# = yes; the fd store; and bad input, at check, start and reload.

# free_port: a port nothing on this machine uses now (TCP and UDP).
free_port() {
	local p i
	for i in $(seq 100); do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Htuln "sport = :$p")" ] && { echo "$p"; return; }
	done
	fail "no free port"
}

# ask ADDRESS: what a client of ADDRESS (socat's) reads, or the error.
ask() {
	timeout 15 socat -t 10 - "$1" </dev/null 2>&1
}

# ask_udp PORT: the answer to a datagram to 127.0.0.1:PORT.
ask_udp() {
	local line
	exec 3<>"/dev/udp/127.0.0.1/$1"
	echo x >&3
	# One read(2) takes the whole datagram.
	line=$(timeout 10 dd bs=512 count=1 status=none <&3)
	exec 3>&-
	echo "$line"
}

# inode NAME FD: the socket inode of fd FD of service NAME's process.
sock_inode() {
	ns readlink "/proc/$(field "$1" pid)/fd/$2"
}

t_listen_held() {
	pv_dir
	local p u pid1 pid2 ans
	p=$(free_port)
	u=$(free_port)
	svc web <<-EOF
	exec = $H fds=$T/fds serve
	listen = unix:$T/web.sock
	listen = tcp:127.0.0.1:$p
	listen = udp:127.0.0.1:$u
	restart_delay = 2s
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	wait_until 5000 grep -q "^fd 5" "$T/fds" || fail "no fds: $(cat "$T/fds")"
	expect_eq "$(head -1 "$T/fds")" "fds 3 names web:web:web pid ok"
	expect_eq "$(grep -c '^fd . stream$' "$T/fds")" 2 "stream fds"
	grep -q "^fd 5 dgram$" "$T/fds" || fail "fd 5: $(cat "$T/fds")"
	pid1=$(field web pid)
	expect_eq "$(ask "UNIX-CONNECT:$T/web.sock")" "pid $pid1"
	expect_eq "$(ask "TCP:127.0.0.1:$p")" "pid $pid1"
	expect_eq "$(ask_udp "$u")" "pid $pid1"
	# Down for 2 s: a client meanwhile waits, and the next one answers.
	ctl kill web KILL >/dev/null
	wait_until 10000 field_is web state backoff || fail "not in backoff"
	ans=$(ask "TCP:127.0.0.1:$p")
	pid2=$(field web pid)
	[ "$pid2" != "$pid1" ] || fail "the same process"
	expect_eq "$ans" "pid $pid2" "a client during the restart"
	expect_eq "$(ask "UNIX-CONNECT:$T/web.sock")" "pid $pid2"
	pv_down
	[ ! -e "$T/web.sock" ] || fail "the socket file stayed"
}

# A daemon written for systemd takes its sockets through Debian's
# libsystemd (sd_listen_fds_with_names, sd_is_socket_*), unchanged.
t_listen_libsystemd() {
	pv_dir
	local p
	p=$(free_port)
	svc web <<-EOF
	exec = $ROOT/build/test/sdlisten
	listen = tcp:127.0.0.1:$p
	listen = unix:$T/web.sock
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	wait_until 10000 logs_of web "env " || fail "no output: $(ctl logs web)"
	expect_match "$(ctl logs web)" "stdout: listen 2"
	expect_match "$(ctl logs web)" "stdout: fd 3 web inet-stream"
	expect_match "$(ctl logs web)" "stdout: fd 4 web unix-stream"
	expect_match "$(ctl logs web)" "stdout: env unset"
	expect_eq "$(ask "TCP:127.0.0.1:$p")" "sd $(field web pid)"
}

t_listen_kept_across() {
	pv_dir
	local p q a b
	p=$(free_port)
	q=$(free_port)
	svc web <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$p
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	a=$(sock_inode web 3)
	# A re-exec, then a restart: the same socket.
	ctl reexec >/dev/null || fail "reexec"
	ctl restart web --wait --timeout=10s >/dev/null || fail "restart"
	b=$(sock_inode web 3)
	expect_eq "$b" "$a" "the socket after a re-exec and a restart"
	# A reload that adds one keeps the first and binds the second.
	svc web <<-EOF
	exec = $H fds=$T/fds serve
	listen = tcp:127.0.0.1:$p
	listen = tcp:127.0.0.1:$q
	EOF
	ctl reload >/dev/null || fail "reload"
	wait_until 10000 grep -q "^fd 4" "$T/fds" || fail "no second fd"
	ctl wait web ready --timeout=10s || fail "web not ready"
	expect_eq "$(sock_inode web 3)" "$a" "the kept socket"
	expect_eq "$(ask "TCP:127.0.0.1:$q")" "pid $(field web pid)"
	# One that goes is closed.
	svc web <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$q
	EOF
	ctl reload >/dev/null || fail "reload"
	ctl wait web ready --timeout=10s || fail "web not ready"
	wait_until 10000 bash -c "! socat -u TCP:127.0.0.1:$p - </dev/null \
	    2>/dev/null" || fail "port $p still held"
}

t_listen_bad_reload() {
	pv_dir
	local p q pid
	p=$(free_port)
	q=$(free_port)
	svc web <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$p
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	pid=$(field web pid)
	# Another process holds q: the reload that wants it is refused.
	socat TCP-LISTEN:$q,bind=127.0.0.1,reuseaddr - </dev/null \
	    >/dev/null 2>&1 &
	bg $!
	wait_until 5000 bash -c "[ -n \"\$(ss -Htln 'sport = :$q')\" ]" ||
	    fail "no listener on $q"
	svc web <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$p
	listen = tcp:127.0.0.1:$q
	EOF
	expect_rc 1 ctl reload
	expect_match "$OUT" "services/web.ini:4: listen tcp:127.0.0.1:$q: Address already in use"
	expect_match "$OUT" "reload refused, nothing changed"
	expect_eq "$(field web pid)" "$pid" "web's process"
	expect_eq "$(ask "TCP:127.0.0.1:$p")" "pid $pid"
}

t_listen_start_errors() {
	pv_dir
	local q
	q=$(free_port)
	svc nodir <<-EOF
	exec = $H serve
	listen = unix:$T/missing/x.sock
	EOF
	svc taken <<-EOF
	exec = $H serve
	listen = tcp:127.0.0.1:$q
	restart_delay_max = 1s
	EOF
	svc ok <<-EOF
	exec = $H sleep=forever
	EOF
	# An address not on this machine.
	svc away <<-EOF
	exec = $H serve
	listen = tcp:192.0.2.1:80
	EOF
	socat TCP-LISTEN:$q,bind=127.0.0.1,reuseaddr - </dev/null \
	    >/dev/null 2>&1 &
	bg $!
	wait_until 5000 bash -c "[ -n \"\$(ss -Htln 'sport = :$q')\" ]" ||
	    fail "no listener on $q"
	pv_up
	ctl wait ok ready --timeout=10s || fail "ok not ready"
	# Each tries again with its back-off, saying why.
	wait_until 10000 field_is nodir state backoff || fail "nodir: $(ctl status nodir)"
	expect_match "$(ctl status nodir)" "listen unix:$T/missing/x.sock: No such file or directory \(its directory is missing\); restart in"
	wait_until 10000 field_is taken state backoff || fail "taken: $(ctl status taken)"
	expect_match "$(ctl status taken)" "listen tcp:127.0.0.1:$q: Address already in use; restart in"
	wait_until 10000 field_is away state backoff || fail "away: $(ctl status away)"
	expect_match "$(ctl status away)" "listen tcp:192.0.2.1:80: Cannot assign requested address"
	# Once the address is free, it starts.
	kill $BG_PIDS
	wait_until 15000 field_is taken state ready || fail "taken: $(ctl status taken)"
}

t_listen_check_errors() {
	pv_dir
	local d=$T/chk
	mkdir -p "$d/services"
	chk() {
		rm -f "$d"/services/*
		cat >"$d/services/$1"
		expect_rc 1 "$PV" --check -c "$d"
		expect_match "$OUT" "$2"
	}
	chk a.ini "services/a.ini:3: listen: 'tcp:host:80': expected HOST:PORT" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:host:80
	EOF
	chk a.ini "services/a.ini:3: listen: 'tcp:127.0.0.1:0': expected HOST:PORT with a port from 1 to 65535" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:0
	EOF
	chk a.ini "services/a.ini:3: listen: 'unix:run/x': expected unix:/PATH" <<-EOF
	[service]
	exec = /bin/true
	listen = unix:run/x
	EOF
	chk a.ini "services/a.ini:3: listen_backlog: no listen socket to apply it to" <<-EOF
	[service]
	exec = /bin/true
	listen_backlog = 10
	EOF
	chk a.ini "services/a.ini:4: accept: only a template" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:1
	accept = yes
	EOF
	chk a@.ini "services/a@.ini:4: accept: a datagram socket has no connections" <<-EOF
	[service]
	exec = /bin/true
	listen = udp:127.0.0.1:1
	accept = yes
	EOF
	chk a.ini "services/a.ini:5: ready: fd:4 is among the fds it is given" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:1
	listen = tcp:127.0.0.1:2
	ready = fd:4
	EOF
	chk a.ini "services/a.ini:3: fdstore_max: needs ready = notify" <<-EOF
	[service]
	exec = /bin/true
	fdstore_max = 2
	EOF
	chk a.ini "services/a.ini:4: listen_mode: only a unix socket" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:1
	listen_mode = 0600
	EOF
	# The options after the address.
	chk a.ini "services/a.ini:3: listen: 'unix:/run/x name=a:b': 'name=a:b' is not an option of a socket" <<-EOF
	[service]
	exec = /bin/true
	listen = unix:/run/x name=a:b
	EOF
	chk a.ini "services/a.ini:3: listen: 'tcp:127.0.0.1:1 symlink=/run/y': only a unix socket has a symlink=" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:1 symlink=/run/y
	EOF
	chk a.ini "services/a.ini:3: listen: 'udp:127.0.0.1:1 dual_stack': dual_stack is for a tcp6: or udp6: socket" <<-EOF
	[service]
	exec = /bin/true
	listen = udp:127.0.0.1:1 dual_stack
	EOF
	chk a.ini "services/a.ini:3: listen: 'tcp:127.0.0.1:1 pass_credentials': pass_credentials and pass_security are for unix and netlink sockets" <<-EOF
	[service]
	exec = /bin/true
	listen = tcp:127.0.0.1:1 pass_credentials
	EOF
	chk a.ini "services/a.ini:3: listen: 'netlink:nosuch:1': expected netlink:FAMILY:GROUP" <<-EOF
	[service]
	exec = /bin/true
	listen = netlink:nosuch:1
	EOF
	chk a.ini "services/a.ini:3: listen: 'unix:/run/x directory_mode=0789': 'directory_mode=0789' is not an option" <<-EOF
	[service]
	exec = /bin/true
	listen = unix:/run/x directory_mode=0789
	EOF
	# One path, two types: one file.
	chk a.ini "services/a.ini:4: listen: unix-dgram:/run/x is given twice \\(line 3\\)" <<-EOF
	[service]
	exec = /bin/true
	listen = unix:/run/x
	listen = unix-dgram:/run/x
	EOF
	rm -f "$d"/services/*
	printf '[service]\nexec = /bin/true\nlisten = tcp:127.0.0.1:7\n' \
	    >"$d/services/a.ini"
	printf '[service]\nexec = /bin/true\n\nlisten = tcp:127.0.0.1:7\n' \
	    >"$d/services/b.ini"
	expect_rc 1 "$PV" --check -c "$d"
	expect_match "$OUT" "services/b.ini:4: listen: tcp:127.0.0.1:7 is a's too \(.*services/a.ini:3\)"
}

t_listen_unix_owner() {
	pv_dir
	svc web <<-EOF
	exec = $H serve
	user = nobody
	listen = unix:$T/web.sock
	listen_owner = nobody
	listen_mode = 0600
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	expect_eq "$(stat -c '%U %a %F' "$T/web.sock")" "nobody 600 socket"
	expect_eq "$(ask "UNIX-CONNECT:$T/web.sock")" "pid $(field web pid)"
	# Not for another user.
	expect_match "$(setpriv --reuid=daemon --regid=daemon --clear-groups \
	    socat -u "UNIX-CONNECT:$T/web.sock" - 2>&1)" "Permission denied"
}

t_listen_privileged_port() {
	pv_dir
	local p
	for p in $(seq 900 1000); do
		[ -z "$(ss -Htln "sport = :$p")" ] && break
	done
	svc web <<-EOF
	exec = $H serve
	user = nobody
	listen = tcp:127.0.0.1:$p
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready"
	expect_eq "$(ask "TCP:127.0.0.1:$p")" "pid $(field web pid)"
}

t_listen_full_backlog() {
	pv_dir
	local p i
	p=$(free_port)
	# It never accepts: its backlog of 2 fills, and we go on.
	svc deaf <<-EOF
	exec = $H sleep=forever
	listen = tcp:127.0.0.1:$p
	listen_backlog = 2
	EOF
	svc od <<-EOF
	exec = $H sleep=forever
	listen = unix:$T/od.sock
	listen_backlog = 2
	on_demand = yes
	EOF
	pv_up
	ctl wait deaf ready --timeout=10s || fail "deaf not ready"
	for i in $(seq 20); do
		timeout 30 socat -u "TCP:127.0.0.1:$p,connect-timeout=20" - \
		    </dev/null >/dev/null 2>&1 &
		bg $!
		timeout 30 socat -u "UNIX-CONNECT:$T/od.sock" - </dev/null \
		    >/dev/null 2>&1 &
		bg $!
	done
	ctl wait od ready --timeout=10s || fail "od not started"
	for i in $(seq 20); do
		ctl status deaf >/dev/null || fail "no answer"
	done
	expect_eq "$(field deaf state)" ready
}

t_on_demand() {
	pv_dir
	local p pid
	p=$(free_port)
	svc od <<-EOF
	exec = $H fds=$T/fds serve=1
	listen = tcp:127.0.0.1:$p
	on_demand = yes
	EOF
	pv_up
	ctl wait od listening --timeout=10s || fail "od not listening"
	expect_match "$(ctl status od)" "listening .* until a client comes"
	[ ! -e "$T/fds" ] || fail "started before a client came"
	# The first client starts it; it answers one and exits 0.
	expect_match "$(ask "TCP:127.0.0.1:$p")" "^pid [0-9]+$"
	expect_eq "$(head -1 "$T/fds")" "fds 1 names od pid ok"
	wait_until 10000 field_is od state listening || fail "not listening again"
	expect_match "$(ctl status od)" "exited with code 0"
	expect_match "$(ask "TCP:127.0.0.1:$p")" "^pid [0-9]+$"
	expect_eq "$(grep -c '^fds' "$T/fds")" 2 "starts"
	# Stopped: not listening; started: listening again.
	ctl stop od --wait --timeout=10s >/dev/null || fail "stop"
	expect_match "$(ask "TCP:127.0.0.1:$p")" "Connection refused"
	ctl start od --wait --timeout=10s >/dev/null || fail "start --wait"
	expect_eq "$(field od state)" listening
	# A re-exec keeps it listening, its socket watched.
	ctl reexec >/dev/null || fail "reexec"
	expect_eq "$(field od state)" listening
	expect_match "$(ask "TCP:127.0.0.1:$p")" "^pid [0-9]+$"
	expect_eq "$(grep -c '^fds' "$T/fds")" 3 "starts"
}

t_accept() {
	pv_dir
	local p first
	p=$(free_port)
	cat >"$T/conf/services/echo@.ini" <<-EOF
	[service]
	exec = $H reply
	listen = tcp:127.0.0.1:$p
	accept = yes
	max_connections = 1
	EOF
	pv_up
	ctl wait echo listening --timeout=10s || fail "echo not listening"
	expect_match "$(ctl status echo)" "listening .* accepting"
	ctl reexec >/dev/null || fail "reexec"
	expect_match "$(echo hello | timeout 15 socat -t 10 - \
	    "TCP:127.0.0.1:$p" 2>&1)" "^pid [0-9]+ hello
fds 1$"
	# One at a time: the second waits in the backlog for the first.
	exec 7> >(timeout 30 socat -t 20 - "TCP:127.0.0.1:$p" \
	    >"$T/first" 2>&1)
	wait_until 10000 field_is echo@2 state ready ||
	    fail "no second instance: $(ctl status)"
	(echo second | timeout 30 socat -t 20 - "TCP:127.0.0.1:$p" \
	    >"$T/second" 2>&1) &
	bg $!
	! wait_until 1000 field_is echo@3 state ready ||
	    fail "a third instance over max_connections"
	# A reload leaves the running instance alone.
	first=$(field echo@2 pid)
	expect_rc 0 ctl reload
	expect_match "$OUT" "unchanged echo@2"
	expect_eq "$(field echo@2 pid)" "$first" "echo@2 after a reload"
	echo first >&7
	exec 7>&-
	wait_until 15000 grep -q "second" "$T/second" ||
	    fail "the second client: $(cat "$T/second")"
	first=$(cat "$T/first")
	expect_match "$first" "^pid [0-9]+ first"
	wait_until 10000 bash -c "! $CTL -s $T/ctl.sock status echo@3 \
	    >/dev/null 2>&1" || fail "echo@3 stayed"
}

t_fdstore() {
	pv_dir
	svc st <<-EOF
	exec = $H fds=$T/fds notify=READY=1 fdstore=memfd:host sleep=forever
	ready = notify
	fdstore_max = 2
	EOF
	pv_up
	ctl wait st ready --timeout=10s || fail "st not ready"
	wait_until 10000 logs_of st stored || fail "not stored"
	expect_eq "$(head -1 "$T/fds")" "fds - names - pid -"
	ctl restart st --wait --timeout=10s >/dev/null || fail "restart"
	wait_until 10000 grep -q "^fd 3 file /memfd:pvstore" "$T/fds" ||
	    fail "not passed back: $(cat "$T/fds")"
	expect_eq "$(sed -n 2p "$T/fds")" "fds 1 names host pid ok"
	# Over fdstore_max: dropped, said; kept across a re-exec.
	ctl reexec >/dev/null || fail "reexec"
	ctl restart st --wait --timeout=10s >/dev/null || fail "restart"
	ctl restart st --wait --timeout=10s >/dev/null || fail "restart"
	wait_until 10000 grep -q "fds 2 names host:host pid ok" "$T/fds" ||
	    fail "two: $(cat "$T/fds")"
	wait_until 10000 grep -q "fd store: 1 fd over fdstore_max (2) dropped" \
	    "$T/log" || fail "not said: $(cat "$T/log")"
	# FDSTOREREMOVE=1 drops them by name.
	svc st <<-EOF
	exec = $H fds=$T/fds notify=READY=1 fdstore-remove=host sleep=forever
	ready = notify
	fdstore_max = 2
	EOF
	ctl reload >/dev/null || fail "reload"
	wait_until 10000 grep -q "st: fd store: 2 fds dropped" "$T/log" ||
	    fail "not removed: $(cat "$T/log")"
	ctl restart st --wait --timeout=10s >/dev/null || fail "restart"
	wait_until 10000 bash -c "[ \"\$(tail -1 $T/fds)\" = 'fds - names - pid -' ]" ||
	    fail "passed after removal: $(cat "$T/fds")"
	# Stopped by a command: gone.
	svc st <<-EOF
	exec = $H fds=$T/fds notify=READY=1 fdstore=memfd:host sleep=forever
	ready = notify
	fdstore_max = 2
	EOF
	ctl reload >/dev/null || fail "reload"
	wait_until 10000 bash -c "grep 'st: fd store' $T/log | tail -1 |
	    grep -q 'kept (1 held)'" || fail "not kept: $(cat "$T/log")"
	ctl stop st --wait --timeout=10s >/dev/null || fail "stop"
	ctl start st --wait --timeout=10s >/dev/null || fail "start"
	wait_until 10000 bash -c "[ \"\$(tail -1 $T/fds)\" = 'fds - names - pid -' ]" ||
	    fail "kept across a stop: $(cat "$T/fds")"
}

t_fdstore_refused() {
	pv_dir
	# Without fdstore_max nothing is kept.
	svc plain <<-EOF
	exec = $H notify=READY=1 fdstore=memfd:host sleep=forever
	ready = notify
	EOF
	# A file of a disk, a directory: their close could wait (a flush).
	svc st <<-EOF
	exec = $H fds=$T/fds notify=READY=1 fdstore=/etc/hostname:f fdstore=/:d fdstore=pipe:p sleep=forever
	ready = notify
	fdstore_max = 4
	EOF
	pv_up
	ctl wait plain ready --timeout=10s || fail "plain not ready"
	ctl wait st ready --timeout=10s || fail "st not ready"
	wait_until 10000 logs_of plain "stored|fdstore:" || fail "nothing sent"
	wait_until 10000 bash -c "[ \$(grep -c 'st: fd store: 1 fd refused' \
	    $T/log) = 2 ]" || fail "not refused: $(cat "$T/log")"
	wait_until 10000 grep -q "st: fd store: 1 fd kept" "$T/log" ||
	    fail "the pipe not kept: $(cat "$T/log")"
	ctl restart plain st --wait --timeout=10s >/dev/null || fail "restart"
	! grep -q "plain: fd store" "$T/log" || fail "kept: $(cat "$T/log")"
	wait_until 10000 grep -q "^fds 1 names p pid ok" "$T/fds" ||
	    fail "st: $(cat "$T/fds")"
	grep -q "^fd 3 file pipe:" "$T/fds" || fail "st: $(cat "$T/fds")"
}

# logs_of NAME REGEX: a line of NAME's output matches.
logs_of() {
	ctl logs "$1" -n 1000 2>/dev/null | grep -qE "$2"
}

# The options after a listen address: a name, a symlink, a missing
# directory made, credentials; a reload that changes them keeps the
# socket (one inode) and sets them anew.  A link that cannot be made
# (something else is there: rsyslog's socket at /dev/log) is said and
# the socket bound without it, at a start and at a reload, as systemd's
# Symlinks=.
t_listen_options() {
	pv_dir
	local ino
	svc o <<-EOF
	exec = $H fds=$T/fds sockopts=$T/opts sleep=forever
	listen = unix-dgram:$T/d/o.sock name=logs symlink=$T/o.link directory_mode=0770 pass_credentials
	EOF
	# An IPv6 socket kept across the reload too (where the kernel has
	# IPv6): its options set anew, IPV6_V6ONLY not (refused once bound).
	if [ -e /proc/net/if_inet6 ]; then
		svc six <<-EOF
		exec = $H sleep=forever
		listen = tcp6:[::1]:$(free_port)
		EOF
	fi
	pv_up
	# What it was given, once it has written it.
	wait_until 10000 test -s "$T/opts" || fail "o did not start"
	expect_eq "$(cat "$T/fds")" "$(printf 'fds 1 names logs pid ok\nfd 3 dgram')"
	expect_match "$(cat "$T/opts")" "^fd 3 passcred 1 passsec 0 "
	# Its mode exactly, whatever pidvisor's umask.
	expect_eq "$(stat -c '%a %F' "$T/d")" "770 directory"
	expect_eq "$(readlink "$T/o.link")" "$T/d/o.sock"
	ino=$(stat -c %i "$T/d/o.sock")
	rm -f "$T/fds" "$T/opts"
	svc o <<-EOF
	exec = $H fds=$T/fds sockopts=$T/opts sleep=forever
	listen = unix-dgram:$T/d/o.sock name=other symlink=$T/o2.link symlink=$T/o3.link pass_security
	EOF
	ctl reload >/dev/null || fail "reload: $OUT"
	wait_until 10000 test -s "$T/opts" || fail "not started again"
	expect_eq "$(head -1 "$T/fds")" "fds 1 names other pid ok"
	expect_match "$(cat "$T/opts")" "^fd 3 passcred 0 passsec 1 "
	expect_eq "$(stat -c %i "$T/d/o.sock")" "$ino" "the socket's inode"
	expect_eq "$(readlink "$T/o2.link")" "$T/d/o.sock"
	[ ! -L "$T/o.link" ] || fail "the link it no longer names is left"
	# Another's file where its link would be: a reload goes through.
	rm "$T/o2.link"
	echo theirs >"$T/o2.link"
	expect_rc 0 ctl reload
	grep -q "listen unix-dgram:$T/d/o.sock .*symlink=$T/o2.link: something that is not a link is there; not made" \
	    "$T/log" || fail "not said: $(cat "$T/log")"
	expect_eq "$(cat "$T/o2.link")" theirs "their file"
	ctl stop o --wait --timeout=10s >/dev/null || fail "stop"
	[ ! -e "$T/d/o.sock" ] || fail "left: $(ls -l "$T" "$T/d")"
	expect_eq "$(cat "$T/o2.link")" theirs "their file, at the stop"
	# At a start too: bound without it, the next link made.
	expect_rc 0 ctl start o --wait --timeout=10s
	[ -S "$T/d/o.sock" ] || fail "not bound"
	expect_eq "$(cat "$T/o2.link")" theirs "their file, at a start"
	expect_eq "$(readlink "$T/o3.link")" "$T/d/o.sock" "the link after it"
}
