#!/bin/bash
# tests/guest/debian.sh - the Debian guest tier, as TAP: boot the image of
# `make debian` (a copy) with pidvisor as init, from Debian's own unit
# files, twice.  Each boot: ssh in with the test's key (the only way in:
# user networking, restrict=on, a host-forward from 127.0.0.1), every
# service ready and every boot task done (hostname, sysctl.d), sshd runs
# with /etc/default/ssh's $SSHD_OPTS, rsyslog got a line from logger and,
# through log = syslog, a new service's lines; on the first, nginx,
# redis and PostgreSQL answer, redis runs with its unit's hardening, cron
# runs a job, a package installed with dpkg -i whose postinst enables
# its unit runs (and is ready again at the second boot), Debian's own
# jobs (apt-daily, dpkg-db-backup,
# logrotate, ...) are armed on their .timer units and one of them runs by
# its timer; `pidvisorctl poweroff` ends QEMU, e2fsck -n finds the file
# system clean, its journal empty, and the random seed was saved at
# power-off.  Then once by Debian's systemd, the image's other init (make
# debian-bench compares the two): it must still boot it on our kernel
# with no unit failed, the servers answering, redis as hardened as under
# pidvisor.
set -u
. "$(dirname "$0")/../../qemu/debian/lib.sh"
img=$dir/test.img
n=0
failed=0
redis_guard=

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
# CapBnd, NoNewPrivs and Seccomp, and which of /, /usr, /etc are
# read-only and whether /tmp is a mount of its own (PID 1 has none
# there: pidvisor's is a tmpfs, systemd's a directory of /tmp bound),
# from its mountinfo.
guarded() {
	gssh "p=\$(pidof -s $1) &&
	    grep -E '^(NoNewPrivs|CapBnd|Seccomp):' /proc/\$p/status |
	    tr -d '\t' | tr '\n' ' ' &&
	    for m in / /usr /etc; do
		grep -q \" \$m [^ ]* ro,\" /proc/\$p/mountinfo && echo -n \"\$m:ro \"
	    done;
	    grep -qE '^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /tmp ' /proc/\$p/mountinfo &&
	    ! grep -qE '^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /tmp ' /proc/1/mountinfo &&
	    echo tmp:own"
}

# Debian's servers, from their packaged units, answer: nginx an HTTP GET,
# redis a PING, PostgreSQL (postgresql@15-main) a query.
servers() {
	local b=$1 who=$2 out
	out=$(gssh curl -fsS http://127.0.0.1/ 2>&1)
	grep -q "Welcome to nginx" <<<"$out"
	ok $? "boot $b ($who): nginx answers an HTTP GET" "$out"
	out=$(gssh redis-cli ping 2>&1)
	[ "$out" = PONG ]
	ok $? "boot $b ($who): redis answers PING" "$out"
	out=$(gssh "cd / && runuser -u postgres -- psql -tAc 'SELECT 1'" 2>&1)
	[ "$out" = 1 ]
	ok $? "boot $b ($who): PostgreSQL answers SELECT 1" "$out"
}

# redis-server runs with the hardening its unit asks for (no new
# privileges, a system call filter, / read-only, a /tmp of its own, no
# capability): what systemd gives it too (boot 3 compares).
hardened() {
	local b=$1 who=$2 out
	out=$(guarded redis-server 2>&1)
	if [ "$who" = systemd ]; then
		[ -n "$redis_guard" ] && [ "$out" = "$redis_guard" ]
		ok $? "boot $b ($who): redis as hardened as under pidvisor" \
		    "systemd: $out; pidvisor: $redis_guard"
	else
		[[ "$out" =~ ^CapBnd:0{16}\ NoNewPrivs:1\ Seccomp:2\ /:ro\ tmp:own$ ]]
		ok $? "boot $b ($who): redis runs hardened, as its unit says" "$out"
		redis_guard=$out
	fi
	until_ok 150 gssh test -s /run/cron-ran
	ok $? "boot $b ($who): cron ran its job" \
	    "$(gssh 'ls -l /run/cron-ran; grep -a CRON /var/log/syslog | tail -3' 2>&1)"
}

# A package whose postinst enables its unit (deb-systemd-helper, as
# dh_installsystemd's scripts do; systemctl is not called without
# systemd): with watch_units, the links it makes start the service.
installed() {
	local b=$1 who=$2 out pkg=$dir/pvhello
	rm -rf "$pkg"
	mkdir -p "$pkg/DEBIAN" "$pkg/lib/systemd/system"
	printf 'Package: pvhello\nVersion: 1.0\nArchitecture: all\nMaintainer: pidvisor <pidvisor@localhost>\nDescription: the Debian tier'"'"'s package with a unit\n' \
	    >"$pkg/DEBIAN/control"
	printf '#!/bin/sh\nset -e\nif [ "$1" = configure ]; then\n\tdeb-systemd-helper enable pvhello.service\n\tif [ -d /run/systemd/system ]; then\n\t\tsystemctl --system daemon-reload\n\t\tdeb-systemd-invoke start pvhello.service\n\tfi\nfi\n' \
	    >"$pkg/DEBIAN/postinst"
	chmod 0755 "$pkg/DEBIAN/postinst"
	printf '[Unit]\nDescription=pidvisor test\n\n[Service]\nExecStart=/bin/sh -c "echo pvhello up; exec sleep infinity"\n\n[Install]\nWantedBy=multi-user.target\n' \
	    >"$pkg/lib/systemd/system/pvhello.service"
	dpkg-deb --root-owner-group --build "$pkg" "$pkg.deb" >/dev/null
	# (watch_units reloads once the unit path is quiet: then it is
	# there.)
	out=$(gssh 'cat >/tmp/pvhello.deb && dpkg -i /tmp/pvhello.deb &&
	    for i in $(seq 1 600); do
		pidvisorctl status pvhello >/dev/null 2>&1 && break
		sleep 0.1
	    done
	    pidvisorctl wait pvhello ready --timeout=60s &&
	    pidvisorctl status pvhello' <"$pkg.deb" 2>&1)
	[ $? = 0 ] && grep -Eq '^pvhello +ready ' <<<"$out"
	ok $? "boot $b ($who): dpkg -i of a package enabling its unit starts it" \
	    "$out"
	rm -rf "$pkg" "$pkg.deb"
}

# Debian's own jobs on their .timer units: listed by `pidvisorctl
# timers`; then dpkg-db-backup.timer given OnActiveSec=1s by a drop-in
# (a reload re-arms it): it runs, and its backup of dpkg's status is
# there.
timers() {
	local b=$1 who=$2 out d=/etc/systemd/system/dpkg-db-backup.timer.d
	out=$(gssh pidvisorctl timers 2>&1)
	[ "$(grep -cE ' (apt-daily|apt-daily-upgrade|dpkg-db-backup|e2scrub_all|fstrim|logrotate|man-db|systemd-tmpfiles-clean)$' <<<"$out")" = 8 ]
	ok $? "boot $b ($who): pidvisorctl timers lists Debian's jobs" "$out"
	gssh "rm -f /var/backups/dpkg.status.0 && mkdir -p $d &&
	    printf '[Timer]\nOnActiveSec=1s\nAccuracySec=1ms\n' >$d/test.conf &&
	    pidvisorctl reload >/dev/null" >/dev/null 2>&1
	until_ok 60 gssh test -s /var/backups/dpkg.status.0
	ok $? "boot $b ($who): a timer ran dpkg-db-backup" \
	    "$(gssh 'pidvisorctl timers --all; pidvisorctl status dpkg-db-backup' 2>&1)"
	out=$(gssh pidvisorctl timers --json 2>&1)
	[ "$(jq -r '.[] | select(.service == "dpkg-db-backup") | .triggers' \
	    <<<"$out")" = 1 ]
	ok $? "boot $b ($who): counted once" "$out"
	gssh "rm -r $d && pidvisorctl reload" >/dev/null 2>&1
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
		[ "$b" = 1 ] && installed "$b" "$who"
		[ "$b" = 1 ] && timers "$b" "$who"
	fi
	# (The second boot by pidvisor: the boot alone, the package of the
	# first's among what it starts.)
	if [ "$b" != 2 ]; then
		servers "$b" "$who"
		hardened "$b" "$who"
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
