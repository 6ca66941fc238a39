#!/bin/bash
# qemu/debian/test.sh - the Debian guest tier, as TAP: boot the image of
# `make debian` (a copy) with pidvisor as init, twice.  Each boot: ssh in
# with the test's key (the only way in: user networking, restrict=on, a
# host-forward from 127.0.0.1), every service ready and every boot task
# done, rsyslog got a line from logger, `pidvisorctl poweroff` ends QEMU,
# and e2fsck -n finds the file system clean, its journal empty.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/build/debian
img=$dir/test.img
key=$dir/id_ed25519
n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - debian: $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - debian: $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
	fi
}

# A TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
	done
	echo "$p"
}

gssh() {
	ssh -i "$key" -p "$port" -o BatchMode=yes -o ConnectTimeout=5 \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o LogLevel=ERROR root@127.0.0.1 "$@"
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

boot() {
	local b=$1 out
	port=$(free_port)
	serial=$dir/serial-$b.log
	PV_SSH_PORT=$port PV_SERIAL=file:$serial \
	    "$top/qemu/debian/boot.sh" "$img" </dev/null >"$dir/qemu-$b.log" 2>&1 &
	qpid=$!
	until_ok 180 gssh true 2>/dev/null
	ok $? "boot $b: ssh answers" "$(tail -20 "$serial")"
	out=$(gssh pidvisorctl status --json 2>&1)
	ok $? "boot $b: pidvisorctl status" "$out"
	local bad
	bad=$(printf '%s' "$out" | jq -r '.[] | select(.state != "ready" and
	    .state != "done") | "\(.name): \(.state) (\(.reason))"' 2>&1)
	[ -z "$bad" ] && printf '%s' "$out" | jq -e 'length >= 10' >/dev/null
	ok $? "boot $b: every service ready, every boot task done" "$bad"
	local tag=pidvisor-test-$b-$RANDOM
	gssh "logger $tag; for i in \$(seq 1 100); do grep -q $tag /var/log/syslog && exit 0; sleep 0.1; done; exit 1"
	ok $? "boot $b: rsyslog wrote logger's line"
	gssh pidvisorctl poweroff >/dev/null 2>&1
	until_ok 60 qemu_gone
	ok $? "boot $b: poweroff ended QEMU" "$(tail -20 "$serial")"
	kill -KILL "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	out=$(e2fsck -n "$img" 2>&1)
	[ $? = 0 ] && ! grep -q "journal recovery" <<<"$out"
	ok $? "boot $b: the file system is clean" "$out"
}

if [ ! -s "$dir/rootfs.img" ]; then
	echo "not ok 1 - debian: no image (make debian)"
	exit 1
fi
qpid=
trap '[ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null; rm -f "$img"' EXIT
cp --sparse=always "$dir/rootfs.img" "$img"
boot 1
boot 2
rm -f "$img"
echo "# debian: $n tests, $failed failed"
[ $failed = 0 ]
