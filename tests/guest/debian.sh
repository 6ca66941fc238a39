#!/bin/bash
# tests/guest/debian.sh - the Debian guest tier, as TAP: boot the image of
# `make debian` (a copy) with pidvisor as init, twice.  Each boot: ssh in
# with the test's key (the only way in: user networking, restrict=on, a
# host-forward from 127.0.0.1), every service ready and every boot task
# done (hostname, sysctl.d), sshd runs with /etc/default/ssh's $SSHD_OPTS,
# rsyslog got a line from logger and, through log = syslog, a new
# service's lines, rsyslog and cron run hardened (and cron runs a job),
# sshd -i serves a client of port 2200 as an instance of its own,
# Debian's own jobs (apt-daily, dpkg-db-backup, logrotate, ...) armed on
# their timers' schedules and one of them run by its timer,
# `pidvisorctl poweroff` ends QEMU,
# e2fsck -n finds the file system clean, its journal empty, and the
# random seed was saved at power-off.  Then once by Debian's systemd, the image's other init
# (make debian-bench compares the two): it must still boot it on our
# kernel with no unit failed.
set -u
. "$(dirname "$0")/../../qemu/debian/lib.sh"
img=$dir/test.img
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

# The boot tasks did their work: the name, and Debian's sysctl.d (its
# 50-pid-max.conf) applied.
tasks_did() {
	[ "$(gssh 'hostname; cat /proc/sys/kernel/pid_max')" = \
	    "$(printf 'pvdebian\n4194304')" ]
}

# The protections of a process of the guest, one line: its status'
# CapBnd, NoNewPrivs and Seccomp, and which of /usr, /etc are read-only
# and whether /tmp is a tmpfs of its own, from its mountinfo.
guarded() {
	gssh "p=\$(pidof -s $1) &&
	    grep -E '^(NoNewPrivs|CapBnd|Seccomp):' /proc/\$p/status |
	    tr -d '\t' | tr '\n' ' ' &&
	    for m in /usr /etc; do
		grep -q \" \$m [^ ]* ro,\" /proc/\$p/mountinfo && echo -n \"\$m:ro \"
	    done &&
	    grep -qE ' /tmp [^ ]+ .*- tmpfs ' /proc/\$p/mountinfo && echo tmp:own"
}

# rsyslog and cron run hardened (the image's rsyslog.ini and cron.ini):
# their protections are in force, and they work: rsyslog wrote logger's
# line (above), cron runs its job of every minute.
hardened() {
	local b=$1 who=$2 out
	out=$(guarded rsyslogd 2>&1)
	# CHOWN DAC_OVERRIDE FOWNER NET_BIND_SERVICE SYSLOG: 0x40000040b
	[ "$out" = "CapBnd:000000040000040b NoNewPrivs:1 Seccomp:2 /usr:ro /etc:ro tmp:own" ]
	ok $? "boot $b ($who): rsyslog runs hardened" "$out"
	out=$(guarded cron 2>&1)
	# No CAP_SYS_ADMIN (21), no CAP_SYS_MODULE (16); its jobs may run
	# setuid programs (no no_new_privs, so no filter)
	[[ "$out" =~ ^CapBnd:([0-9a-f]{16})\ NoNewPrivs:0\ Seccomp:0\ /usr:ro\ /etc:ro\ tmp:own$ ]] &&
	    ((!(0x${BASH_REMATCH[1]} >> 21 & 1) && !(0x${BASH_REMATCH[1]} >> 16 & 1)))
	ok $? "boot $b ($who): cron runs hardened" "$out"
	until_ok 150 gssh test -s /run/cron-ran
	ok $? "boot $b ($who): cron, hardened, ran its job" \
	    "$(gssh 'ls -l /run/cron-ran; grep -a CRON /var/log/syslog | tail -3' 2>&1)"
}

no_instance() {
	! gssh pidvisorctl status 2>&1 | grep -q '^ssh-i@'
}

# sshd -i per client on port 2200 (ssh-i@.ini, accept = yes): a session
# through it is an instance of its own, ssh-i@N, beside the listener,
# and the instance is gone once the session is over.
accepted() {
	local b=$1 who=$2 out
	# The instance's process: Debian's sshd, a child of pidvisor, with
	# its client's socket (it moves it off its standard input, and its
	# title says "sshd: root@notty").
	out=$(SSH_PORT=$port2 gssh 'pidvisorctl status
	    p=$(pidvisorctl status | awk "/^ssh-i@/ { print \$3 }")
	    echo "exe $(readlink /proc/$p/exe)" \
		"sockets $(ls -l /proc/$p/fd | grep -c socket:)" \
		"ppid $(awk "/^PPid/ { print \$2 }" /proc/$p/status)"' 2>&1)
	grep -Eq '^ssh-i +listening .* accepting' <<<"$out" &&
	    grep -Eq '^ssh-i@[0-9]+ +ready ' <<<"$out" &&
	    grep -Eq '^exe /usr/sbin/sshd sockets [1-9][0-9]* ppid 1$' <<<"$out"
	ok $? "boot $b ($who): sshd -i, one per client (accept = yes)" "$out"
	until_ok 30 no_instance
	ok $? "boot $b ($who): its instance is gone with its client" \
	    "$(gssh pidvisorctl status 2>&1)"
}

# Debian's own jobs on their timers (the image's services/*.ini, as
# their .timer files say): listed by `pidvisorctl timers`; then
# dpkg-db-backup's given on_active = 1s for the test (a reload re-arms
# it): it runs, and its backup of dpkg's status is there.
timers() {
	local b=$1 who=$2 out f=/etc/pidvisor/services/dpkg-db-backup.ini
	out=$(gssh pidvisorctl timers 2>&1)
	[ "$(grep -cE ' (apt-daily|apt-daily-upgrade|dpkg-db-backup|e2scrub_all|fstrim|logrotate|man-db)$' <<<"$out")" = 7 ]
	ok $? "boot $b ($who): pidvisorctl timers lists Debian's jobs" "$out"
	gssh "rm -f /var/backups/dpkg.status.0 &&
	    cp $f /run/dpkg-db-backup.ini &&
	    printf 'on_active = 1s\naccuracy = 1ms\n' >>$f &&
	    pidvisorctl reload >/dev/null" >/dev/null 2>&1
	until_ok 60 gssh test -s /var/backups/dpkg.status.0
	ok $? "boot $b ($who): a timer ran dpkg-db-backup" \
	    "$(gssh 'pidvisorctl timers --all; pidvisorctl status dpkg-db-backup' 2>&1)"
	out=$(gssh pidvisorctl timers --json 2>&1)
	[ "$(jq -r '.[] | select(.service == "dpkg-db-backup") | .triggers' \
	    <<<"$out")" = 1 ]
	ok $? "boot $b ($who): counted once" "$out"
	gssh "cp /run/dpkg-db-backup.ini $f && pidvisorctl reload" \
	    >/dev/null 2>&1
}

# boot N [systemd]: one boot by pidvisor, or by Debian's systemd (the
# other init of the image: it still boots it, on our kernel).
boot() {
	local b=$1 who=${2:-pidvisor} out
	if [ "$who" = systemd ]; then
		guest_boot "$img" "$b" init=/lib/systemd/systemd
	else
		guest_boot "$img" "$b"
	fi
	ok $? "boot $b ($who): ssh answers" "$(tail -20 "$serial")"
	if [ "$who" = systemd ]; then
		out=$(gssh timeout 100 systemctl is-system-running --wait 2>&1)
		[ "$out" = running ]
		ok $? "boot $b ($who): every unit started, none failed" \
		    "$out: $(gssh systemctl --failed --no-legend 2>&1)"
	else
		out=$(gssh pidvisorctl status --json 2>&1)
		ok $? "boot $b ($who): pidvisorctl status" "$out"
		# ssh may answer before the last of the others is ready
		until_ok 60 pidvisor_ready
		ok $? "boot $b ($who): every service ready, every boot task done" \
		    "$bad"
	fi
	tasks_did
	ok $? "boot $b ($who): hostname set, sysctl.d applied"
	# sshd got its options from /etc/default/ssh ($SSHD_OPTS).
	out=$(gssh ps -C sshd -o args= 2>&1)
	grep -q "LoginGraceTime=77" <<<"$out"
	ok $? "boot $b ($who): sshd runs with \$SSHD_OPTS" "$out"
	local seed
	seed=$(gssh sha256sum /var/lib/systemd/random-seed 2>&1 | cut -c1-64)
	local tag=pidvisor-test-$b-$RANDOM
	gssh "logger $tag; for i in \$(seq 1 100); do grep -q $tag /var/log/syslog && exit 0; sleep 0.1; done; exit 1"
	ok $? "boot $b ($who): rsyslog wrote logger's line"
	if [ "$who" != systemd ]; then
		# log = syslog (the image's pidvisor.ini): a new service's two
		# streams, and pidvisor's word that it is ready, in rsyslog's
		# file; then it goes again.
		gssh "printf '[service]\\nexec = /bin/sh -c \"echo $tag-out; echo $tag-err >&2; exec sleep 1000\"\\n' >/etc/pidvisor/services/hello.ini &&
		    pidvisorctl reload >/dev/null &&
		    pidvisorctl wait hello ready --timeout=20s &&
		    for i in \$(seq 1 100); do
			grep -q 'hello\[[0-9]*\]: $tag-out\$' /var/log/syslog &&
			grep -q 'hello\[[0-9]*\]: $tag-err\$' /var/log/syslog &&
			grep -q 'pidvisor\[1\]: hello: ready' /var/log/syslog &&
			exit 0; sleep 0.1; done; exit 1"
		ok $? "boot $b ($who): a service's lines in /var/log/syslog" \
		    "$(gssh "grep -a -e hello -e $tag /var/log/syslog | tail -5" 2>&1)"
		gssh "rm /etc/pidvisor/services/hello.ini && pidvisorctl reload" \
		    >/dev/null 2>&1
		hardened "$b" "$who"
		accepted "$b" "$who"
		[ "$b" = 1 ] && timers "$b" "$who"
	fi
	if [ "$who" = systemd ]; then
		gssh systemctl poweroff >/dev/null 2>&1
	else
		gssh pidvisorctl poweroff >/dev/null 2>&1
	fi
	guest_end
	ok $? "boot $b ($who): poweroff ended QEMU" "$(tail -20 "$serial")"
	out=$(e2fsck -n "$img" 2>&1)
	[ $? = 0 ] && ! grep -q "journal recovery" <<<"$out"
	ok $? "boot $b ($who): the file system is clean" "$out"
	# The seed was saved again at power-off (a new one, not the boot's).
	out=$(debugfs -R "cat /var/lib/systemd/random-seed" "$img" 2>/dev/null |
	    sha256sum | cut -c1-64)
	[ ${#seed} = 64 ] && [ "$out" != "$seed" ]
	ok $? "boot $b ($who): the random seed saved at power-off" \
	    "at boot $seed, after $out"
}

if [ ! -s "$dir/rootfs.img" ]; then
	echo "not ok 1 - debian: no image (make debian)"
	exit 1
fi
trap 'guest_kill; rm -f "$img"' EXIT
cp --sparse=always "$dir/rootfs.img" "$img"
boot 1
boot 2
boot 3 systemd
rm -f "$img"
echo "# debian: $n tests, $failed failed"
[ $failed = 0 ]
