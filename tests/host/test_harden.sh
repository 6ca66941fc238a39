# tests/host/test_harden.sh - what a service may not do: each hardening
# key in force (seen from /proc, from what the service itself can and
# cannot do) and one bad input each.  As root, in the test's namespaces.

# A directory outside /tmp (which private_tmp hides) for probe scripts.
probe_dir() {
	P=$(mktemp -d /run/pvprobe.XXXXXX)
	chmod 755 "$P"
	scratch "$P"
}

# logs_have NAME REGEX: a line of NAME's output matches (for wait_until).
logs_have() {
	ctl logs "$1" -n 1000 2>/dev/null | grep -qE "$2"
}

# out_of NAME: its output, once it printed probe-done.
out_of() {
	wait_until 15000 logs_have "$1" "probe-done|try [a-z0-9]+: " ||
	    fail "$1 printed nothing: $(ctl status "$1")"
	ctl logs "$1" -n 1000
}

# The /proc/PID/status of a service's main process, in our namespace.
status_of() {
	ns cat "/proc/$(field "$1" pid)/status"
}

# expect_check_error REGEX [LINE] <<<FILE-BODY: pidvisor --check refuses
# a service file with this body, at its line (3: the body's first),
# saying so.
expect_check_error() {
	local d
	d=$(mktemp -d "$T/check.XXXXXX")
	mkdir -p "$d/services"
	{ echo "[service]"; echo "exec = /bin/true"; cat; } \
	    >"$d/services/bad.ini"
	expect_rc 1 "$PV" --check -c "$d"
	expect_match "$OUT" "services/bad.ini:${2:-3}: $1"
}

t_harden_caps() {
	pv_dir
	svc root <<-EOF
	exec = $H sleep=forever
	capabilities = CAP_CHOWN cap_net_bind_service
	no_new_privs = yes
	EOF
	svc web <<-EOF
	exec = $H try=bind80 sleep=forever
	user = nobody
	capabilities = CAP_NET_BIND_SERVICE
	private_network = yes
	EOF
	svc plain <<-EOF
	exec = $H try=bind80 sleep=forever
	user = nobody
	private_network = yes
	EOF
	pv_up
	ctl wait root ready --timeout=10s || fail "root not ready"
	local st
	st=$(status_of root)
	# CAP_CHOWN (0) and CAP_NET_BIND_SERVICE (10): 0x401, nothing else.
	expect_match "$st" $'CapBnd:\t0000000000000401'
	expect_match "$st" $'CapEff:\t0000000000000401'
	expect_match "$st" $'NoNewPrivs:\t1'
	# user = nobody keeps CAP_NET_BIND_SERVICE as an ambient one: it
	# binds port 80; without it, it cannot.
	expect_match "$(out_of web)" "try bind80: ok"
	st=$(status_of web)
	expect_match "$st" $'Uid:\t65534'
	expect_match "$st" $'CapAmb:\t0000000000000400'
	expect_match "$(out_of plain)" "try bind80: Permission denied"
	expect_match "$(status_of plain)" $'CapEff:\t0000000000000000'
	pv_down
	expect_check_error "capabilities: unknown capability 'CAP_NET_BIND_SERVIC' \(did you mean 'CAP_NET_BIND_SERVICE'\?\)" <<-EOF
	capabilities = CAP_NET_BIND_SERVIC
	EOF
	expect_check_error "no_new_privs: expected yes or no, not 'maybe'" <<-EOF
	no_new_privs = maybe
	EOF
}

# protect_kernel_tunables: /proc/sys and /sys read-only in the service's
# mount namespace (its mount table says so; nothing is written to try),
# and not in ours.
t_harden_kernel_tunables() {
	pv_dir
	svc knobs <<-EOF
	exec = /bin/sh -c "grep -E ' /(proc/sys|sys) ' /proc/self/mountinfo | awk '{ print \\\$5, \\\$6 }'; exec sleep 100000"
	protect_kernel_tunables = yes
	EOF
	pv_up
	wait_until 10000 grep -q "knobs\[[0-9]*\]: /proc/sys " "$T/log" ||
	    fail "no mount table: $(cat "$T/log")"
	# The last mount of each path is what the service sees.
	[[ $(grep "knobs\[[0-9]*\]: /proc/sys " "$T/log" | tail -1) == *" ro,"* ]] ||
	    fail "/proc/sys is not read-only: $(grep knobs "$T/log")"
	[[ $(grep "knobs\[[0-9]*\]: /sys " "$T/log" | tail -1) == *" ro,"* ]] ||
	    fail "/sys is not read-only: $(grep knobs "$T/log")"
	[[ $(grep -E ' /proc/sys ' /proc/self/mountinfo | tail -1) == *" ro,"* ]] &&
	    fail "our /proc/sys became read-only"
	expect_match "$(ctl security knobs)" "ProtectKernelTunables="
	pv_down
}

# private_tmp, private_devices, private_network: what the service sees.
t_harden_private() {
	pv_dir
	probe_dir
	local mine
	mine=$(basename "$T")-mine
	cat >"$P/probe.sh" <<-EOF
	echo "tmp: \$(ls -A /tmp /var/tmp | tr '\n' ' ')"
	echo hello >/tmp/$mine && echo wrote-tmp
	echo "dev: \$(ls /dev | tr '\n' ' ')"
	echo x >/dev/null && echo null-ok
	echo "net: \$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
	echo "lo: \$(ip -o link show lo)"
	grep CapBnd /proc/self/status
	echo probe-done
	exec sleep 100000
	EOF
	svc box <<-EOF
	exec = /bin/sh $P/probe.sh
	private_tmp = yes
	private_devices = yes
	private_network = yes
	EOF
	# Its check runs in its namespaces: it sees its /tmp.
	svc checked <<-EOF
	exec = /bin/sh -c "echo here >/tmp/mark; exec sleep 100000"
	private_tmp = yes
	private_network = yes
	ready = health
	health_exec = /bin/sh -c "test -e /tmp/mark"
	health_interval = 100ms
	EOF
	pv_up
	ctl wait checked ready --timeout=15s ||
	    fail "its check did not see its /tmp: $(ctl status checked)"
	local o
	o=$(out_of box)
	# Its /tmp and /var/tmp are empty and its own.
	expect_match "$o" "box\[[0-9]+\] stdout: tmp: /tmp:  /var/tmp: "$'\n'
	expect_match "$o" "wrote-tmp"
	[ ! -e "/tmp/$mine" ] || fail "its /tmp file is in ours"
	# Only the harmless device nodes, no disk, no kmsg, no mem.
	expect_match "$o" "stdout: dev: fd full (log )?null pts random shm stderr stdin stdout tty urandom zero "$'\n'
	grep 'stdout: dev:' <<<"$o" | grep -qE 'kmsg|mem|sda|vda|loop' &&
	    fail "a device node it should not see: $o"
	expect_match "$o" "null-ok"
	# Only a loopback, and it is up.
	expect_match "$o" "net: lo "$'\n'
	expect_match "$o" "lo: 1: lo: <LOOPBACK,UP"
	# private_devices takes CAP_MKNOD (27) and CAP_SYS_RAWIO (17).
	local bnd
	bnd=$(sed -n 's/.*CapBnd:\t*//p' <<<"$o" | head -1)
	((0x$bnd >> 27 & 1)) && fail "CAP_MKNOD kept: $bnd"
	((0x$bnd >> 17 & 1)) && fail "CAP_SYS_RAWIO kept: $bnd"
	# Stopped, its /tmp is gone: the next run finds it empty again.
	expect_rc 0 ctl restart box --wait --timeout=10s
	wait_until 10000 bash -c "[ \$($CTL -s $T/ctl.sock logs box -n 1000 |
	    grep -c 'tmp: /tmp:  /var/tmp: $') = 2 ]" ||
	    fail "the second run's /tmp was not empty: $(ctl logs box)"
	pv_down
	expect_check_error "private_tmp: expected yes or no, not 'sometimes'" <<-EOF
	private_tmp = sometimes
	EOF
	expect_check_error "private_network: expected yes or no, not '2'" <<-EOF
	private_network = 2
	EOF
	expect_check_error "private_devices: expected yes or no, not 'some'" <<-EOF
	private_devices = some
	EOF
}

# protect_system = yes, full, strict (with read_write_paths): what it
# can write, and its mounts.
t_harden_protect_system() {
	pv_dir
	probe_dir
	mkdir -p "$P/rw"
	cat >"$P/probe.sh" <<-'EOF'
	for d in /usr /etc /var "$1" /dev/shm; do
		f=$(mktemp "$d/.pvtest.XXXXXX" 2>/dev/null) &&
		    { rm -f "$f"; echo "$d: rw"; } || echo "$d: ro"
	done
	grep -q ' /usr [^ ]* ro,' /proc/self/mountinfo && echo usr-mount-ro
	echo probe-done
	exec sleep 100000
	EOF
	local level
	for level in yes full strict; do
		svc "$level" <<-EOF
		exec = /bin/sh $P/probe.sh $P/rw
		protect_system = $level
		read_write_paths = $P/rw
		EOF
	done
	pv_up
	local o
	o=$(out_of yes)
	expect_match "$o" "/usr: ro"
	expect_match "$o" "/etc: rw"
	expect_match "$o" "/var: rw"
	expect_match "$o" "usr-mount-ro"
	o=$(out_of full)
	expect_match "$o" "/usr: ro"
	expect_match "$o" "/etc: ro"
	expect_match "$o" "/var: rw"
	o=$(out_of strict)
	expect_match "$o" "/usr: ro"
	expect_match "$o" "/etc: ro"
	expect_match "$o" "/var: ro"
	expect_match "$o" "$P/rw: rw"
	expect_match "$o" "/dev/shm: rw"
	pv_down
	expect_check_error "protect_system: expected no, yes, full or strict, not 'ful'" <<-EOF
	protect_system = ful
	EOF
}

# read_only_paths, inaccessible_paths (a file and a directory; '-' for
# one that may be missing), protect_home; one that is missing and not
# optional fails the start, and says which.
t_harden_paths() {
	pv_dir
	probe_dir
	mkdir -p "$P/ro/rw" "$P/hidedir"
	echo secret >"$P/secret"
	echo inside >"$P/hidedir/x"
	cat >"$P/probe.sh" <<-EOF
	touch $P/ro/x 2>/dev/null && echo ro-writable || echo ro-ro
	touch $P/ro/rw/x 2>/dev/null && echo rw-rw && rm -f $P/ro/rw/x
	echo "secret: [\$(cat $P/secret 2>&1)]"
	echo "hidedir: [\$(ls -A $P/hidedir 2>&1)]"
	echo "root: [\$(ls -A /root 2>&1)]"
	echo probe-done
	exec sleep 100000
	EOF
	svc paths <<-EOF
	exec = /bin/sh $P/probe.sh
	read_only_paths = $P/ro
	read_write_paths = $P/ro/rw
	inaccessible_paths = $P/secret $P/hidedir -$P/nothere
	protect_home = yes
	EOF
	svc missing <<-EOF
	exec = $H sleep=forever
	read_only_paths = $P/nothere
	restart = never
	EOF
	pv_up
	local o
	o=$(out_of paths)
	expect_match "$o" "ro-ro"
	expect_match "$o" "rw-rw"
	expect_match "$o" "secret: \[\]"
	expect_match "$o" "hidedir: \[\]"
	expect_match "$o" "root: \[\]"
	# Ours are as they were.
	expect_eq "$(cat "$P/secret")" "secret"
	ctl wait missing failed --timeout=10s || fail "missing: $(ctl status)"
	expect_eq "$(field missing reason)" \
	    "read_only_paths $P/nothere: No such file or directory"
	pv_down
	expect_check_error "inaccessible_paths: 'relative' is not an absolute path" <<-EOF
	inaccessible_paths = relative
	EOF
	expect_check_error "read_only_paths: '/srv/../etc' has '..' in it" <<-EOF
	read_only_paths = /srv/../etc
	EOF
	expect_check_error "read_write_paths: 'var/lib' is not an absolute path" <<-EOF
	read_write_paths = var/lib
	EOF
	expect_check_error "protect_home: expected no, yes or read-only, not 'maybe'" <<-EOF
	protect_home = maybe
	EOF
}

# no_exec_paths and exec_paths (redis's unit: NoExecPaths=/ with its
# program and libraries in ExecPaths=): a copy of a program runs where
# the deeper path is exec_paths', nowhere else, a private /tmp included;
# protect_proc = invisible hides the processes of other users (PID 1,
# root's), proc_subset = pid all but the processes' directories; the
# mounts of the host are as they were.
t_harden_noexec_proc() {
	pv_dir
	probe_dir
	mkdir -p "$P/run"
	cp /bin/true "$P/true"
	cp /bin/true "$P/run/true"
	cat >"$P/probe.sh" <<-EOF
	$P/true; echo "noexec: \$?"
	$P/run/true; echo "exec: \$?"
	cp /bin/true /tmp/t && /tmp/t; echo "tmp: \$?"
	echo "pid1: [\$(ls -d /proc/1 2>&1)]"
	echo "self: [\$(ls -d /proc/\$\$ 2>&1)]"
	echo "meminfo: [\$(ls /proc/meminfo 2>&1)]"
	echo probe-done
	exec sleep 100000
	EOF
	svc noexec <<-EOF
	exec = /bin/sh $P/probe.sh
	user = nobody
	no_exec_paths = /
	exec_paths = /usr /bin /lib -/lib64 -/lib32 $P/probe.sh $P/run
	private_tmp = yes
	protect_proc = invisible
	proc_subset = pid
	EOF
	pv_up
	local o
	o=$(out_of noexec)
	expect_match "$o" "noexec: 126"
	expect_match "$o" "exec: 0"
	expect_match "$o" "tmp: 126"
	expect_match "$o" "pid1: \[ls: cannot access '/proc/1': No such file or directory\]"
	expect_match "$o" "self: \[/proc/[0-9]+\]"
	expect_match "$o" "meminfo: \[ls: cannot access '/proc/meminfo': No such file or directory\]"
	expect_rc 0 "$P/true"
	expect_rc 0 ctl show noexec
	expect_match "$OUT" $'\n''protect_proc = invisible +#'
	expect_match "$OUT" $'\n''exec_paths = /usr /bin /lib'
	pv_down
	expect_check_error "protect_proc: expected default, noaccess, invisible or ptraceable, not 'yes'" <<-EOF
	protect_proc = yes
	EOF
	expect_check_error "no_exec_paths: 'tmp' is not an absolute path" <<-EOF
	no_exec_paths = tmp
	EOF
}

# remove_ipc (RemoveIPC=): the System V and POSIX IPC objects of its
# user go when the last service of that user stops, not while another
# runs; another user's stay, and so does a runtime_directory that
# runtime_directory_preserve keeps.  (pidvisor in an IPC namespace of its
# own, /dev/shm and /run directories of the test's.)
t_harden_remove_ipc() {
	pv_dir
	mkdir -m 1777 "$T/shm"
	mkdir -m 0755 "$T/run"
	local s
	for s in a:47113 b:47113 c:47114; do
		svc "${s%%:*}" <<-EOF
		exec = /bin/sh -c 'ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1 && mkdir /dev/shm/${s%%:*} && touch /dev/shm/${s%%:*}/x /dev/shm/${s%%:*}.f && echo made; exec sleep 100000'
		user = ${s#*:}
		group = ${s#*:}
		remove_ipc = yes
		restart = never
		runtime_directory = ipc-${s%%:*}
		runtime_directory_preserve = yes
		EOF
	done
	PV_UNSHARE=--ipc PV_BINDS="$T/shm:/dev/shm $T/run:/run" pv_up
	for s in a b c; do
		wait_until 10000 logs_have "$s" made || fail "$s: $(ctl logs "$s")"
	done
	ipc_of() {
		nsenter -t "$PV_PID" -i -- cat /proc/sysvipc/shm \
		    /proc/sysvipc/msg /proc/sysvipc/sem |
		    awk -v u="$1" '$1 != "key" && $0 ~ " " u " "' | wc -l
	}
	expect_eq "$(ipc_of 47113)" 6 "47113's objects"
	expect_rc 0 ctl stop a --wait --timeout=10s
	expect_eq "$(ipc_of 47113)" 6 "47113's objects while b runs"
	[ -e "$T/shm/a.f" ] || fail "a's file went while b runs"
	expect_rc 0 ctl stop b --wait --timeout=10s
	wait_until 10000 eval '[ "$(ipc_of 47113)" = 0 ]' ||
	    fail "47113's objects left: $(ipc_of 47113); $(cat "$T/log")"
	expect_eq "$(ls "$T/shm")" "$(printf 'c\nc.f')" "what is left in /dev/shm"
	expect_eq "$(ipc_of 47114)" 3 "c's objects"
	[ -d "$T/run/ipc-a" ] && [ -d "$T/run/ipc-b" ] ||
	    fail "a kept runtime_directory went: $(ls "$T/run")"
	expect_match "$(ctl show a)" $'\n''remove_ipc = yes +#'
	pv_down
}

# root_directory: the service sees only its root; a missing one fails
# the start, said.
t_harden_root_directory() {
	pv_dir
	local bb
	bb=$(command -v busybox) || fail "no busybox (make deps)"
	mkdir -p "$T/root/bin"
	cp "$bb" "$T/root/bin/busybox"
	svc jail <<-EOF
	exec = /bin/busybox sh -c "echo \$(/bin/busybox ls /); echo probe-done; exec /bin/busybox sleep 100000"
	root_directory = $T/root
	EOF
	svc nojail <<-EOF
	exec = $H sleep=forever
	root_directory = $T/nothere
	restart = never
	EOF
	pv_up
	expect_match "$(out_of jail)" "jail\[[0-9]+\] stdout: bin"$'\n'
	ctl wait nojail failed --timeout=10s || fail "nojail: $(ctl status)"
	expect_eq "$(field nojail reason)" \
	    "root_directory: No such file or directory"
	pv_down
	expect_check_error "root_directory: '/' is not an absolute path other than /" <<-EOF
	root_directory = /
	EOF
}

# syscall_filter: a deny list with syscall_errno, an allow list, kill.
t_harden_syscall_filter() {
	pv_dir
	svc deny <<-EOF
	exec = $H try=umount try=ptrace try=chroot sleep=forever
	syscall_filter = ~@mount @debug
	syscall_errno = ENOSYS
	EOF
	svc allow <<-EOF
	exec = $H try=umount try=bind80 sleep=forever
	syscall_filter = @system-service
	user = nobody
	EOF
	svc open <<-EOF
	exec = $H try=umount sleep=forever
	EOF
	svc joined <<-EOF
	exec = $H try=umount try=bind80 sleep=forever
	syscall_filter = @default @system-service
	syscall_filter = ~@timer
	  @network-io
	user = nobody
	EOF
	svc killed <<-EOF
	exec = $H try=umount sleep=forever
	syscall_filter = ~@mount
	syscall_errno = kill
	restart = never
	EOF
	pv_up
	local o
	wait_until 10000 logs_have deny "try chroot" || fail "deny: $(ctl logs deny)"
	o=$(ctl logs deny)
	expect_match "$o" "try umount: Function not implemented"
	expect_match "$o" "try ptrace: Function not implemented"
	expect_match "$o" "try chroot: Function not implemented"
	expect_match "$(status_of deny)" $'Seccomp:\t2'
	# The allow list: the rest fails with EPERM; a user's filter takes
	# no_new_privs, as systemd's does.
	wait_until 10000 logs_have allow "try bind80" || fail "allow: $(ctl logs allow)"
	o=$(ctl logs allow)
	expect_match "$o" "try umount: Operation not permitted"
	expect_match "$o" "try bind80: Permission denied"
	expect_match "$(status_of allow)" $'NoNewPrivs:\t1'
	# A '~' line after an allow list takes its calls out of it.
	wait_until 10000 logs_have joined "try bind80" || fail "joined: $(ctl logs joined)"
	expect_match "$(ctl logs joined)" "try bind80: Operation not permitted"
	expect_match "$(ctl show joined)" "syscall_filter = @default @system-service ~@timer ~@network-io +#"
	# Unfiltered, the same call gets through to the kernel.
	expect_match "$(out_of open)" "try umount: No such file or directory"
	ctl wait killed failed --timeout=10s || fail "killed: $(ctl status)"
	expect_eq "$(field killed reason)" "killed by signal SYS"
	pv_down
	expect_check_error "syscall_filter: unknown system call 'mout' \(did you mean 'mount'\?\)" <<-EOF
	syscall_filter = mout
	EOF
	expect_check_error "syscall_filter: denying execve would stop the service before it starts" <<-EOF
	syscall_filter = ~execve
	EOF
	expect_check_error "syscall_filter: a deny list \('~'\) takes no allow list after it" 4 <<-EOF
	syscall_filter = ~@mount
	syscall_filter = @clock
	EOF
	expect_check_error "syscall_filter: denying execve would stop the service" 4 <<-EOF
	syscall_filter = @system-service
	syscall_filter = ~execve
	EOF
	expect_check_error "syscall_errno: expected an errno name" <<-EOF
	syscall_errno = EFOO
	EOF
}

# The protections of calls (systemd's LockPersonality= and the like):
# each call they take away fails in the service as systemd's filter
# fails it, and gets through to the kernel in one without them; the
# capabilities that would undo them are gone, their files hidden or
# read-only; an i386 call kills a native-only service; the hostname is
# the service's own to change, and it may not.
t_harden_protect() {
	local calls="personality wx mprotect-x suid unshare-net packet syslog"
	pv_dir
	svc prot <<-EOF
	exec = $H $(printf 'try=%s ' $calls) try=fifo try=sethostname try=modules try=settime sleep=forever
	lock_personality = yes
	memory_deny_write_execute = yes
	restrict_realtime = yes
	restrict_suid_sgid = yes
	restrict_namespaces = yes
	restrict_address_families = AF_UNIX AF_INET
	protect_kernel_modules = yes
	protect_kernel_logs = yes
	protect_clock = yes
	protect_control_groups = yes
	protect_hostname = yes
	EOF
	svc open <<-EOF
	exec = $H $(printf 'try=%s ' $calls) sleep=forever
	EOF
	svc some <<-EOF
	exec = $H try=unshare-net try=packet try=bind80 sleep=forever
	restrict_namespaces = net
	restrict_address_families = ~AF_PACKET AF_INET
	restrict_address_families = AF_INET
	EOF
	svc arch <<-EOF
	exec = $H try=int80 sleep=forever
	system_call_architectures = native
	restart = never
	EOF
	svc i386 <<-EOF
	exec = $H try=int80
	restart = never
	EOF
	pv_up
	local o c
	wait_until 10000 logs_have prot "try settime" ||
	    fail "prot: $(ctl status prot; ctl logs prot; tail -5 "$T/log")"
	o=$(ctl logs prot)
	for c in personality wx mprotect-x suid unshare-net fifo sethostname modules settime syslog; do
		expect_match "$o" "try $c: Operation not permitted"
	done
	expect_match "$o" "try packet: Address family not supported by protocol"
	wait_until 10000 logs_have open "try syslog" || fail "open: $(ctl logs open)"
	o=$(ctl logs open)
	for c in $calls; do
		expect_match "$o" "try $c: ok"
	done
	# The bounding set: no SYS_MODULE (16), SYSLOG (34), SYS_TIME (25),
	# WAKE_ALARM (35); a filter, no_new_privs with it.
	local st bnd
	st=$(status_of prot)
	bnd=$(sed -n 's/^CapBnd:\t//p' <<<"$st")
	(( !(0x$bnd >> 16 & 1) && !(0x$bnd >> 34 & 1) && !(0x$bnd >> 25 & 1) &&
	    !(0x$bnd >> 35 & 1) )) || fail "CapBnd $bnd"
	expect_match "$st" $'Seccomp:\t2'
	local mi
	mi=$(ns cat "/proc/$(field prot pid)/mountinfo")
	expect_match "$mi" " /sys/fs/cgroup ro[, ]"
	expect_match "$mi" " /proc/kmsg "
	[ "$(ns readlink "/proc/$(field prot pid)/ns/uts")" != \
	    "$(ns readlink "/proc/$(field open pid)/ns/uts")" ] ||
	    fail "protect_hostname: no UTS namespace of its own"
	# Lists: net allowed but the rest; AF_PACKET taken off, AF_INET in.
	wait_until 10000 logs_have some "try bind80" || fail "some: $(ctl logs some)"
	o=$(ctl logs some)
	expect_match "$o" "try unshare-net: ok"
	expect_match "$o" "try packet: Address family not supported by protocol"
	expect_match "$o" "try bind80: (ok|Address already in use)"
	expect_match "$(ctl show some)" "restrict_namespaces = ~cgroup ipc mnt pid user uts"
	expect_match "$(ctl show some)" "restrict_address_families = ~AF_PACKET +#"
	# Where the kernel takes i386 calls (a control says), one kills it;
	# where it does not, the call faults the same with or without.
	ctl wait arch failed --timeout=10s || fail "arch: $(ctl status arch)"
	wait_until 10000 eval '[[ "$(field i386 state)" =~ ^(failed|stopped)$ ]]' ||
	    fail "i386: $(ctl status i386)"
	if logs_have i386 "try int80: ok"; then
		expect_eq "$(field arch reason)" "killed by signal SYS"
	else
		expect_eq "$(field i386 reason)" "killed by signal SEGV"
		expect_eq "$(field arch reason)" "killed by signal SEGV"
	fi
	pv_down
	expect_check_error "restrict_namespaces: 'nett' is not a namespace" <<-EOF
	restrict_namespaces = nett
	EOF
	expect_check_error "restrict_address_families: 'AF_FOO' is not an address family" <<-EOF
	restrict_address_families = AF_FOO
	EOF
	expect_check_error "system_call_architectures: only native is supported, not 'x86'" <<-EOF
	system_call_architectures = x86
	EOF
}

# limit_*, nice, cpu_affinity, io_class/io_priority: in /proc.
t_harden_limits() {
	pv_dir
	svc lim <<-EOF
	exec = $H sleep=forever
	limit_core = 0
	limit_nproc = 50:60
	limit_stack = 4M:8M
	limit_cpu = 30:5m
	limit_memlock = 64k
	limit_as = 4G
	limit_data = 2G
	limit_fsize = 1G
	limit_locks = 1000
	limit_msgqueue = 400k
	limit_nice = 0
	limit_rss = 1G
	limit_rtprio = 0
	limit_rttime = 200ms:1s
	limit_sigpending = 1000
	nice = 7
	cpu_affinity = 0
	io_class = idle
	EOF
	svc be <<-EOF
	exec = $H sleep=forever
	io_class = best-effort
	io_priority = 6
	EOF
	pv_up
	ctl wait lim ready --timeout=10s || fail "lim not ready: $(ctl status lim)"
	local pid lim
	pid=$(field lim pid)
	lim=$(ns cat /proc/$pid/limits)
	expect_match "$lim" "Max core file size +0 +0 +bytes"
	expect_match "$lim" "Max processes +50 +60 +processes"
	expect_match "$lim" "Max stack size +4194304 +8388608 +bytes"
	expect_match "$lim" "Max cpu time +30 +300 +seconds"
	expect_match "$lim" "Max locked memory +65536 +65536 +bytes"
	expect_match "$lim" "Max address space +4294967296 +4294967296 +bytes"
	expect_match "$lim" "Max data size +2147483648 +2147483648 +bytes"
	expect_match "$lim" "Max file size +1073741824 +1073741824 +bytes"
	expect_match "$lim" "Max file locks +1000 +1000 +locks"
	expect_match "$lim" "Max msgqueue size +409600 +409600 +bytes"
	expect_match "$lim" "Max nice priority +0 +0"
	expect_match "$lim" "Max resident set +1073741824 +1073741824 +bytes"
	expect_match "$lim" "Max realtime priority +0 +0"
	expect_match "$lim" "Max realtime timeout +200000 +1000000 +us"
	expect_match "$lim" "Max pending signals +1000 +1000 +signals"
	expect_eq "$(ns cut -d' ' -f19 /proc/$pid/stat)" 7 "nice"
	expect_match "$(ns cat /proc/$pid/status)" $'Cpus_allowed_list:\t0\n'
	expect_eq "$(ns ionice -p "$pid")" "idle"
	ctl wait be ready --timeout=10s || fail "be not ready"
	expect_eq "$(ns ionice -p "$(field be pid)")" "best-effort: prio 6"
	pv_down
	expect_check_error "limit_core: the soft limit is above the hard one in '1:0'" <<-EOF
	limit_core = 1:0
	EOF
	expect_check_error "nice: expected a number from -20 to 19, not '20'" <<-EOF
	nice = 20
	EOF
	expect_check_error "cpu_affinity: expected CPU numbers and ranges" <<-EOF
	cpu_affinity = 3-1
	EOF
	expect_check_error "io_class: expected none, realtime, best-effort or idle, not 'fast'" <<-EOF
	io_class = fast
	EOF
	expect_check_error "io_priority: expected a number from 0 to 7, not '8'" <<-EOF
	io_priority = 8
	EOF
	# The cgroup keys (in force: the guest's t_cgroups).
	expect_check_error "cpu_weight: expected a number from 1 to 10000" <<-EOF
	cpu_weight = 0
	EOF
	expect_check_error "io_weight: expected a number from 1 to 10000" <<-EOF
	io_weight = 10001
	EOF
	expect_check_error "cpu_max: expected a share of one CPU such as 50% or QUOTA PERIOD" <<-EOF
	cpu_max = 0%
	EOF
}

# pidvisorctl security: each protection and an exposure; JSON; and
# pidvisor --check's warnings of protections that undo each other.
t_harden_security() {
	pv_dir
	svc bare <<-EOF
	exec = $H sleep=forever
	EOF
	svc tight <<-EOF
	exec = $H sleep=forever
	user = nobody
	no_new_privs = yes
	capabilities =
	protect_system = strict
	protect_home = yes
	private_tmp = yes
	private_devices = yes
	private_network = yes
	protect_kernel_tunables = yes
	syscall_filter = @system-service
	limit_core = 0
	restrict_namespaces = yes
	restrict_address_families = AF_UNIX AF_INET
	memory_deny_write_execute = yes
	protect_kernel_modules = yes
	protect_kernel_logs = yes
	protect_clock = yes
	protect_control_groups = yes
	protect_hostname = yes
	restrict_suid_sgid = yes
	restrict_realtime = yes
	lock_personality = yes
	system_call_architectures = native
	EOF
	pv_up
	expect_rc 0 ctl security bare
	expect_match "$OUT" "^bare: exposure 10\.0 of 10 \(unsafe\)"
	expect_match "$OUT" $'\noff +no_new_privs +no +NoNewPrivileges= '
	expect_rc 0 ctl security tight
	expect_match "$OUT" "^tight: exposure 0\.3 of 10 \(safe\)"
	expect_match "$OUT" $'\non +private_network +yes +PrivateNetwork= '
	expect_rc 0 ctl security tight --json
	expect_eq "$(jq -r '.checks | length' <<<"$OUT")" 24 "checks"
	expect_eq "$(jq -r '.exposure' <<<"$OUT")" 0.3 "exposure"
	expect_eq "$(jq -r '.checks[] | select(.key == "syscall_filter") |
	    .systemd' <<<"$OUT")" SystemCallFilter "systemd name"
	expect_rc 4 ctl security nosuch
	expect_match "$OUT" "no such service 'nosuch'"
	pv_down
	# Protections that undo each other: warned of, not refused.
	svc undone <<-EOF
	exec = /bin/true
	protect_system = full
	read_write_paths = /srv
	EOF
	svc useless <<-EOF
	exec = /bin/true
	read_write_paths = /srv
	EOF
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: [^ ]*undone.ini: undone: it keeps CAP_SYS_ADMIN and may call mount"
	expect_match "$OUT" "warning: [^ ]*useless.ini: useless: read_write_paths has nothing to undo"
}

# A hook or check runs in the namespaces its main process was given at
# its spawn, held by fd: after a re-exec too, and not after the main is
# gone (a stop_post_exec then has namespaces of its own, as it had).
t_harden_hook_namespaces() {
	pv_dir
	probe_dir
	svc boxed <<-EOF
	exec = /bin/sh -c "echo here >/tmp/mark; exec sleep 100000"
	private_tmp = yes
	private_network = yes
	health_exec = /bin/sh -c "test -e /tmp/mark && echo ok >>$P/checks || echo bad >>$P/checks"
	health_interval = 100ms
	stop_post_exec = /bin/sh -c "test -e /tmp/mark && echo post-saw >>$P/post || echo post-fresh >>$P/post"
	EOF
	pv_up
	wait_until 10000 test -s "$P/checks" || fail "no check ran"
	expect_rc 0 ctl reexec
	local n
	n=$(wc -l <"$P/checks")
	wait_until 10000 eval '[ "$(wc -l <"$P/checks")" -gt "$n" ]' ||
	    fail "no check after the re-exec"
	grep -q bad "$P/checks" && fail "a check did not see its /tmp: \
$(cat "$P/checks")"
	expect_eq "$(field boxed health)" healthy "its health"
	expect_rc 0 ctl stop boxed --wait --timeout=10s
	wait_until 10000 test -s "$P/post" || fail "no stop_post_exec"
	expect_eq "$(cat "$P/post")" post-fresh "stop_post_exec's /tmp"
	pv_down
}

# runtime_directory and the like (systemd's RuntimeDirectory=...): made
# before the first command, each name and the names above it, owned by
# the service's user with their mode, their paths in its environment;
# the runtime one removed at the stop (kept across a restart with
# runtime_directory_preserve = restart), the state one kept.  The
# service's user cannot make pidvisor follow a link: a state directory
# that is the user's symlink is refused (root's would be followed), and
# the removal removes a symlink in the tree, not what it points at.  /run and /var/lib are $T's, bound in
# pidvisor's mount namespace.
t_directories() {
	pv_dir
	mkdir -p "$T/run" "$T/lib" "$T/keep" "$T/target"
	touch "$T/keep/file"
	ln -s "$T/target" "$T/lib/evil"
	chown -h nobody "$T/lib/evil"	# the service's user's link
	# root's link in the user's directory (hard-linked or renamed
	# there): not followed either; root's in root's /var/lib: followed.
	mkdir -p "$T/lib/own" "$T/target2" "$T/moved"
	chown nobody "$T/lib/own"
	ln -s "$T/target2" "$T/lib/own/sub"
	ln -s "$T/moved" "$T/lib/relocated"
	svc web <<-EOF
	user = nobody
	runtime_directory = web web/sub
	runtime_directory_mode = 0750
	state_directory = web
	start_pre_exec = /bin/sh -c 'touch /run/web/pre'
	exec = /bin/sh -c 'echo "\$RUNTIME_DIRECTORY|\$STATE_DIRECTORY" >/run/web/env; ln -s $T/keep /run/web/sub/link; exec sleep 1000'
	EOF
	svc kept <<-EOF
	runtime_directory = kept
	runtime_directory_preserve = restart
	exec = /bin/sh -c 'echo \$\$ >>/run/kept/pids; exec sleep 1000'
	EOF
	svc evil <<-EOF
	user = nobody
	state_directory = evil
	exec = /bin/sleep 1000
	restart = never
	EOF
	svc nested <<-EOF
	user = nobody
	state_directory = own own/sub
	exec = /bin/sleep 1000
	restart = never
	EOF
	svc relocated <<-EOF
	user = nobody
	state_directory = relocated
	exec = /bin/sleep 1000
	EOF
	PV_BINDS="$T/run:/run $T/lib:/var/lib" pv_up
	expect_rc 0 ctl wait web ready --timeout=20s
	wait_until 10000 test -s "$T/run/web/env" || fail "web wrote no env"
	expect_eq "$(cat "$T/run/web/env")" "/run/web:/run/web/sub|/var/lib/web" \
	    "its variables"
	expect_eq "$(stat -c '%U %a' "$T/run/web" "$T/run/web/sub" "$T/lib/web" |
	    tr '\n' ' ')" "nobody 750 nobody 750 nobody 755 " "owners and modes"
	[ -e "$T/run/web/pre" ] || fail "start_pre_exec ran before the directory"
	expect_rc 0 ctl wait evil failed --timeout=20s
	expect_match "$(field evil reason)" "state_directory"
	expect_eq "$(stat -c %U "$T/target")" root "the link's target"
	expect_rc 0 ctl wait nested failed --timeout=20s
	expect_match "$(field nested reason)" "state_directory"
	expect_eq "$(stat -c %U "$T/target2")" root "root's link in the user's directory"
	expect_rc 0 ctl wait relocated ready --timeout=20s
	expect_eq "$(stat -c %U "$T/moved")" nobody "root's link in /var/lib"
	expect_rc 0 ctl wait kept ready --timeout=20s
	expect_rc 0 ctl restart kept --wait
	expect_eq "$(wc -l <"$T/run/kept/pids")" 2 "kept across a restart"
	expect_rc 0 ctl stop web kept --wait
	wait_until 10000 test ! -e "$T/run/web" ||
	    fail "web's runtime_directory is left: $(ls -la "$T/run/web")"
	wait_until 10000 test ! -e "$T/run/kept" || fail "kept's is left"
	[ -d "$T/lib/web" ] || fail "the state directory went"
	[ -e "$T/keep/file" ] || fail "the removal followed a link"
	pv_down
}

# Their keys' errors: FILE:LINE at --check.
t_directories_bad() {
	pv_dir
	expect_check_error "runtime_directory: '/run/x': not a name beneath it" <<-EOF
	runtime_directory = /run/x
	EOF
	expect_check_error "state_directory: 'a/../b': '.' or '..' in it" <<-EOF
	state_directory = a/../b
	EOF
	expect_check_error "logs_directory_mode: expected an octal mode" <<-EOF
	logs_directory_mode = rwx
	EOF
	expect_check_error "runtime_directory_preserve: " <<-EOF
	runtime_directory_preserve = sometimes
	EOF
}
