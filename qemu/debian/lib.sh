# qemu/debian/lib.sh - sourced by test.sh and bench.sh: boot the Debian
# image under QEMU in the background and reach it by ssh with the test's
# key (user networking, restrict=on: a host-forward from 127.0.0.1 is the
# only way in).  Sets qpid (QEMU's PID), port (to its sshd) and serial
# (its console log).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$top/build/debian
key=$dir/id_ed25519
qpid=

# A TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
	done
	echo "$p"
}

# A command in the guest, as root; 120 s at most, whatever the guest does.
gssh() {
	timeout -k 5 120 ssh -i "$key" -p "$port" -o BatchMode=yes \
	    -o ConnectTimeout=5 -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR root@127.0.0.1 "$@"
}

# The units pidvisor refuses, by design: what only systemd itself can do
# (the utmp records of its own runlevels: pidvisor writes utmp).
refused_ok='systemd-update-utmp systemd-update-utmp-runlevel'

# pidvisor's every service ready (or listening for its clients) and
# every boot task done, but those timers run (their timer armed), those
# a condition skips (as systemd does) and those of $refused_ok; else
# those that are not (or why status failed) in $bad.
pidvisor_ready() {
	local out
	out=$(gssh pidvisorctl status --json 2>&1) || { bad=$out; return 1; }
	bad=$(printf '%s' "$out" | jq -r --arg ok " $refused_ok " '.[] |
	    .name as $n | select(.state != "ready" and .state != "done" and
	    .state != "listening" and .state != "skipped" and
	    .next_run == null and (.state != "refused" or
	    ($ok | contains(" \($n) ") | not))) |
	    "\(.name): \(.state) (\(.reason))"' 2>&1)
	[ -z "$bad" ] && printf '%s' "$out" | jq -e 'length >= 10' >/dev/null
}

# Wait (deadline in s) until a command succeeds.
until_ok() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}

qemu_gone() {
	! kill -0 "$qpid" 2>/dev/null
}

# guest_start IMAGE TAG [KERNEL ARGS]: start QEMU.
guest_start() {
	local img=$1 tag=$2
	shift 2
	port=$(free_port)
	serial=$dir/serial-$tag.log
	PV_SSH_PORT=$port PV_SERIAL=file:$serial \
	    "$top/qemu/debian/boot.sh" "$img" -- "$@" </dev/null \
	    >"$dir/qemu-$tag.log" 2>&1 &
	qpid=$!
}

# guest_boot IMAGE TAG [KERNEL ARGS]: start QEMU, wait (180 s) for ssh.
guest_boot() {
	guest_start "$@"
	until_ok 180 gssh true 2>/dev/null
}

# guest_end: wait (60 s) for QEMU to exit after a power-off, then make
# sure it is gone either way.
guest_end() {
	local rc=0
	until_ok 60 qemu_gone || rc=1
	kill -KILL "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qpid=
	return $rc
}

# Nothing left behind, whatever happens.
guest_kill() {
	[ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null
	qpid=
}
