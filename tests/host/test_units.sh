# tests/host/test_units.sh - systemd's unit files as services
# ([supervisor] systemd_units = yes): what default.target pulls in runs,
# in the order its After=/Before= and its targets give; /etc over /lib,
# drop-ins, masks, aliases, templates and their instances, specifiers,
# a .timer's schedule, an ini file of the same name winning; what cannot
# be honoured named at FILE:LINE by --check.

# units_tree: $T/etc and $T/lib as /etc/systemd/system and
# /lib/systemd/system, default.target a link to multi-user.target.
units_tree() {
	mkdir -p "$T/etc/multi-user.target.wants" "$T/lib"
	sup_ini <<-EOF
	systemd_units = yes
	unit_path = $T/etc:$T/lib
	EOF
	printf '[Unit]\nDescription=Multi-User\nRequires=basic.target\n' \
	    >"$T/lib/multi-user.target"
	printf '[Unit]\nDescription=Basic\n' >"$T/lib/basic.target"
	printf '[Unit]\nDescription=Sysinit\n' >"$T/lib/sysinit.target"
	ln -s "$T/lib/multi-user.target" "$T/etc/default.target"
}

# unit NAME [DIR]: a unit file from stdin in $T/lib (or DIR).
unit() {
	cat >"${2:-$T/lib}/$1"
}

# wanted NAME: linked into multi-user.target.wants, as systemctl enable.
wanted() {
	ln -s "$T/lib/${2:-$1}" "$T/etc/multi-user.target.wants/$1"
}

# What runs: enabled units, an instance of a template, a timer's
# service, in their order; a masked one does not, an alias is the unit
# (pidvisorctl takes its name),
# drop-ins apply in name order, the ini file wins.
t_units_boot() {
	pv_dir
	units_tree
	unit db.service <<-EOF
	[Unit]
	Description=the database
	Before=web.service
	[Service]
	Type=notify
	ExecStart=$H notify=READY=1 sleep=forever
	[Install]
	WantedBy=multi-user.target
	EOF
	wanted db.service
	unit web.service <<-EOF
	[Unit]
	Requires=db.service
	[Service]
	ExecStart=/bin/sh -c 'echo "web \$GREETING \$LEVEL %n %N %p" >>$T/web.out; exec sleep 1000'
	Environment=LEVEL=lib
	Environment="GREETING=hello there" SECOND=2
	EOF
	ln -s "$T/lib/web.service" "$T/etc/multi-user.target.wants/www.service"
	ln -s "$T/lib/web.service" "$T/etc/www.service"
	mkdir -p "$T/etc/web.service.d" "$T/lib/web.service.d"
	printf '[Service]\nEnvironment=LEVEL=etc\n' \
	    >"$T/etc/web.service.d/20-level.conf"
	printf '[Service]\nEnvironment=LEVEL=lost\n' \
	    >"$T/lib/web.service.d/20-level.conf"
	printf '[Service]\nEnvironment=LEVEL=first\n' \
	    >"$T/lib/web.service.d/10-level.conf"
	unit getty@.service <<-EOF
	[Service]
	ExecStart=/bin/sh -c 'echo "tty %i %I" >>$T/getty.out; exec sleep 1000'
	EOF
	wanted getty@tty1.service getty@.service
	unit masked.service <<-EOF
	[Service]
	ExecStart=/bin/sh -c 'echo ran >>$T/masked.out'
	EOF
	wanted masked.service
	ln -s /dev/null "$T/etc/masked.service"
	unit empty.service <<-EOF
	[Service]
	ExecStart=/bin/sh -c 'echo ran >>$T/masked.out'
	EOF
	wanted empty.service
	: >"$T/etc/empty.service"	# an empty file masks, as in systemd
	unit job.timer <<-EOF
	[Timer]
	OnActiveSec=0
	AccuracySec=1ms
	EOF
	unit job.service <<-EOF
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo job >>$T/job.out'
	EOF
	mkdir -p "$T/etc/timers.target.wants"
	ln -s "$T/lib/job.timer" "$T/etc/timers.target.wants/job.timer"
	printf '[Unit]\nDescription=Timers\n' >"$T/lib/timers.target"
	printf '[Unit]\nWants=timers.target\n' >>"$T/lib/basic.target"
	unit own.service <<-EOF
	[Service]
	ExecStart=/bin/false
	EOF
	wanted own.service
	svc own <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	ctl wait web ready --timeout=10s || fail "web not ready: $(ctl status)"
	ctl wait db ready --timeout=10s || fail "db not ready"
	ctl wait getty@tty1 ready --timeout=10s || fail "getty@tty1: $(ctl status)"
	wait_until 10000 test -s "$T/job.out" || fail "the timer's job: $(cat "$T/log")"
	expect_eq "$(cat "$T/web.out")" \
	    "web hello there etc web.service web web" "web's line"
	expect_eq "$(cat "$T/getty.out")" "tty tty1 tty1" "getty's line"
	expect_rc 0 ctl show web
	expect_match "$OUT" "after = db +# $T/lib/web.service"
	expect_match "$OUT" "requires = db +# $T/lib/web.service"$'\n'
	# Each value where it was given, a drop-in's too, by FILE:LINE;
	# the same after a re-exec.
	expect_match "$OUT" "exec = .* # $T/lib/web.service:4"$'\n'
	expect_match "$OUT" "env = LEVEL=etc +# $T/etc/web.service.d/20-level.conf:2"$'\n'
	expect_match "$OUT" "env = GREETING=hello there +# $T/lib/web.service:6"$'\n'
	local shown=$OUT
	# cat: the unit, then its drop-ins in the order they apply.
	expect_rc 0 ctl cat web.service
	expect_eq "$(grep '^# ' <<<"$OUT")" "# $T/lib/web.service
# $T/lib/web.service.d/10-level.conf
# $T/etc/web.service.d/20-level.conf"
	expect_match "$OUT" $'\n\n# '"$T/etc/web.service.d/20-level.conf"$'\n\\[Service\\]\nEnvironment=LEVEL=etc$'
	local catted=$OUT
	expect_rc 0 ctl reexec
	expect_rc 0 ctl show web
	expect_eq "$OUT" "$shown" "show after a re-exec"
	expect_rc 0 ctl cat web
	expect_eq "$OUT" "$catted" "cat after a re-exec"
	expect_rc 4 ctl status masked
	expect_rc 4 ctl status empty
	expect_rc 0 ctl restart web.service --wait
	expect_rc 0 ctl status web.service
	expect_match "$OUT" $'\nweb +ready'""
	expect_rc 0 ctl status www.service	# an alias of it
	expect_match "$OUT" $'\nweb +ready'""
	expect_rc 4 ctl status www
	[ ! -e "$T/masked.out" ] || fail "a masked unit ran"
	expect_eq "$(field own state)" ready "the ini file's own"
	expect_match "$(cat "$T/log")" "own.service: services/own.ini is run instead"
	expect_match "$(ctl timers --all)" "job"
	pv_down
}

# dbus-daemon's --systemd-activation is dropped, said: without systemd
# to answer, each name dbus would hand it waits 25 s (a login, for
# logind's call to systemd); its own helper activates instead.
t_units_dbus_activation() {
	pv_dir
	units_tree
	mkdir "$T/bin"
	printf '#!/bin/sh\necho "$@" >%s/args\nexec sleep 1000\n' "$T" \
	    >"$T/bin/dbus-daemon"
	chmod 0755 "$T/bin/dbus-daemon"
	unit dbus.service <<-EOF
	[Service]
	ExecStart=$T/bin/dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only
	EOF
	wanted dbus.service
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: $T/lib/dbus.service:2: ExecStart=: --systemd-activation: dropped: pidvisor does not answer systemd's activation requests"
	pv_up
	wait_until 10000 test -s "$T/args" || fail "dbus: $(ctl status dbus)"
	expect_eq "$(cat "$T/args")" \
	    "--system --address=systemd: --nofork --nopidfile --syslog-only"
	pv_down
}

# systemd's start limit for units (DefaultStartLimitBurst=5 in
# DefaultStartLimitIntervalSec=10s): a unit restarted at once for ever
# fails at its fifth start, one that sets StartLimitBurst= at that one,
# and StartLimitIntervalSec=0 has none.
t_units_start_limit() {
	pv_dir
	units_tree
	unit five.service <<-EOF
	[Service]
	ExecStart=/bin/false
	Restart=always
	RestartSec=0
	EOF
	wanted five.service
	unit two.service <<-EOF
	[Unit]
	StartLimitBurst=2
	[Service]
	ExecStart=/bin/false
	Restart=always
	RestartSec=0
	EOF
	wanted two.service
	unit free.service <<-EOF
	[Unit]
	StartLimitIntervalSec=0
	[Service]
	ExecStart=/bin/false
	Restart=always
	RestartSec=100ms
	EOF
	wanted free.service
	pv_up
	ctl wait five failed --timeout=10s || fail "five: $(ctl status five)"
	ctl wait two failed --timeout=10s || fail "two: $(ctl status two)"
	expect_eq "$(field five restarts)" 4 "five's restarts"
	expect_eq "$(field two restarts)" 1 "two's restarts"
	expect_match "$(field five reason)" "start limit"
	wait_until 10000 eval '[ "$(field free restarts)" -ge 8 ]' ||
	    fail "free stopped: $(ctl status free)"
	pv_down
}

# Directives pidvisor cannot honour: named at FILE:LINE with what is
# done; a unit with an error, or a refused directive, is not run and a
# unit that requires it neither, the rest run.
t_units_check() {
	pv_dir
	units_tree
	unit odd.service <<-EOF
	[Unit]
	ConditionOSRelease=ID=debian
	[Service]
	ExecStart=$H sleep=forever
	KeyringMode=private
	KillMode=mixed
	Type=dbus
	[Socket]
	ListenStream=1
	[Service]
	ExecReload=/bin/true
	ExecReload=/bin/kill -HUP \$MAINPID
	StandardOutput=append:/var/log/odd.log
	EOF
	wanted odd.service
	unit once.service <<-EOF
	[Unit]
	Conflicts=shutdown.target rescue.service emergency.target
	Conflicts=odd.service
	[Service]
	Type=oneshot
	RemainAfterExit=no
	ExecStart=/bin/true
	ExecStop=/bin/true
	EOF
	wanted once.service
	# PIDFile= of a service that is not Type=forking, ExecReload= of a
	# oneshot (redis-server's, postgresql's): said, ignored.
	unit pidf.service <<-EOF
	[Service]
	Type=notify
	PIDFile=/run/pidf.pid
	ExecStart=$H notify=READY=1 sleep=forever
	EOF
	wanted pidf.service
	unit group.service <<-EOF
	[Service]
	Type=oneshot
	RemainAfterExit=yes
	ExecStart=/bin/true
	ExecReload=/bin/true
	EOF
	wanted group.service
	unit dyn.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	DynamicUser=yes
	EOF
	wanted dyn.service
	unit needs-dyn.service <<-EOF
	[Unit]
	Requires=dyn.service
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted needs-dyn.service
	# systemd's own, talking to it as process 1 over D-Bus.
	unit systemd-update-utmp.service <<-EOF
	[Service]
	Type=oneshot
	ExecStart=$H sleep=forever
	EOF
	wanted systemd-update-utmp.service
	unit bad.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	Restart=sometimes
	Nice=%z
	EOF
	wanted bad.service
	unit plus.service <<-EOF
	[Service]
	ExecStart=+$H sleep
	EOF
	wanted plus.service
	unit minus.service <<-EOF
	[Service]
	Type=notify
	ExecStart=-$H notify=READY=1 sleep=forever
	FileDescriptorStoreMax=4224
	NotifyAccess=all
	EOF
	wanted minus.service
	unit amb.service <<-EOF
	[Service]
	ExecStart=!!$H try=bind80 sleep=forever
	User=nobody
	CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_SYS_ADMIN
	AmbientCapabilities=CAP_NET_BIND_SERVICE
	EOF
	wanted amb.service
	unit bus.service <<-EOF
	[Service]
	Type=dbus
	ExecStart=$H sleep=forever
	WatchdogSec=3min
	FileDescriptorStoreMax=4224
	SystemCallFilter=@system-service
	SystemCallFilter=~@privileged @resources
	RestrictAddressFamilies=AF_UNIX AF_INET
	RestrictNamespaces=true
	ReadWriteDirectories=-/var/lib/nosuch
	CapabilityBoundingSet=
	ProtectProc=invisible
	ProcSubset=pid
	NoExecPaths=-/var/lib/nosuch
	ExecPaths=-/var/lib/nosuch/bin
	NotifyAccess=main
	SyslogIdentifier=bus-%N
	SendSIGHUP=yes
	EOF
	wanted bus.service
	expect_rc 0 "$PV" --check -c "$T/conf"
	local L=$T/lib
	expect_match "$OUT" "warning: $L/odd.service:2: ConditionOSRelease=: not supported: ignored \\(the unit runs as if it held\\)"
	expect_match "$OUT" "warning: $L/odd.service:5: KeyringMode=: not supported yet: ignored"
	expect_match "$OUT" "warning: $L/odd.service:6: KillMode=: mixed: "
	expect_match "$OUT" "warning: $L/odd.service:7: Type=: dbus: run as simple"
	expect_match "$OUT" "warning: $L/odd.service:9: \\[Socket\\] is not a section of a service: ignored"
	expect_match "$OUT" "warning: $L/pidf.service:3: PIDFile=: only a Type=forking service's is read \\(its main process is known otherwise\\): ignored"
	expect_match "$OUT" "warning: $L/group.service:5: ExecReload=: a Type=oneshot service has nothing running to reload: ignored"
	expect_match "$OUT" "warning: $L/odd.service:13: StandardOutput=: not supported: pidvisor's log takes both streams to one sink"
	expect_match "$OUT" "warning: $L/once.service:3: Conflicts=: not supported yet: ignored \\(both run\\)"
	expect_match "$OUT" "warning: $L/once.service:6: RemainAfterExit=: no: its ExecStop= runs when it is stopped"
	[[ $OUT != *once.service:2:* ]] || fail "Conflicts= with units that do not boot: said"
	expect_match "$OUT" "warning: $L/dyn.service:3: DynamicUser=: not supported: pidvisor makes no users .*\\(the unit is not run\\)"
	expect_match "$OUT" "warning: $L/needs-dyn.service: requires dyn, which is not run: not run either"
	expect_match "$OUT" "warning: $L/systemd-update-utmp.service: it asks systemd, as process 1, over D-Bus, which pidvisor is not: the unit is not run"
	expect_match "$OUT" "warning: $L/bad.service:3: restart: "
	expect_match "$OUT" "warning: $L/bad.service:4: Nice=: unknown specifier '%z'"
	expect_match "$OUT" "warning: $L/plus.service:2: ExecStart=: the prefixes '@', '\\+' and '!' are not supported yet"
	expect_match "$OUT" "warning: $L/amb.service:5: AmbientCapabilities=: the bounding set is narrowed to them too"
	expect_match "$OUT" "warning: $L/bus.service:4: WatchdogSec=: ignored: pidvisor gives a notify socket, where this comes, only to a Type=notify service"
	expect_match "$OUT" "warning: $L/minus.service:4: FileDescriptorStoreMax=: more than pidvisor keeps: its most kept"
	expect_match "$OUT" "warning: $L/bus.service:5: FileDescriptorStoreMax=: ignored: pidvisor gives a notify socket"
	expect_match "$OUT" "warning: $L/minus.service:5: NotifyAccess=: only the main process's datagrams count here"
	! grep -q "bus.service:\([6-9]\|16\):" <<<"$OUT" || fail "bus: $OUT"
	pv_up
	ctl wait odd ready --timeout=10s || fail "odd not running: $(ctl status)"
	expect_rc 0 ctl show odd	# ExecReload= twice: a chain
	# a line per value, each at its own line of the unit
	expect_match "$OUT" $'\n''reload_exec = /bin/true +# '"$L/odd.service:11"$'\n'
	expect_match "$OUT" $'\n''reload_exec = /bin/kill -HUP \$MAINPID +# '"$L/odd.service:12"$'\n'
	ctl wait minus ready --timeout=10s	# ExecStart=-: exec = -
	ctl wait bus ready --timeout=10s || fail "bus: $(ctl status bus)"
	# !!: nothing on this kernel; nobody binds port 80 by its ambient
	# capability.
	wait_until 10000 eval 'ctl logs amb | grep -q "try bind80"' ||
	    fail "amb: $(ctl status amb)"
	expect_match "$(ctl logs amb)" "try bind80: (ok|Address already in use)"
	# Held: only what both name (not SYS_ADMIN, which systemd would
	# leave in the bounding set and this user could not hold).
	expect_match "$(ctl show amb)" "capabilities = (CAP_)?NET_BIND_SERVICE +#"
	expect_rc 0 ctl show bus
	expect_match "$OUT" "syscall_filter = @system-service ~@privileged ~@resources +# $L/bus.service:6, $L/bus.service:7"
	expect_match "$OUT" "restrict_namespaces = yes +#"
	# An empty CapabilityBoundingSet= is the empty set, not a reset.
	expect_match "$OUT" $'\n''capabilities = +# '"$L/bus.service:11"$'\n'
	expect_eq "$(ns awk '/^CapBnd/ { print $2 }' /proc/"$(field bus pid)"/status)" \
	    0000000000000000 "bus's bounding set"
	expect_match "$OUT" $'\n''protect_proc = invisible +# '"$L/bus.service:12"$'\n'
	expect_match "$OUT" $'\n''proc_subset = pid +# '"$L/bus.service:13"$'\n'
	expect_match "$OUT" $'\n''no_exec_paths = -/var/lib/nosuch +# '"$L/bus.service:14"$'\n'
	expect_match "$OUT" $'\n''exec_paths = -/var/lib/nosuch/bin +# '"$L/bus.service:15"$'\n'
	expect_match "$OUT" $'\n''syslog_identifier = bus-bus +# '"$L/bus.service:17"$'\n'
	expect_match "$OUT" $'\n''send_sighup = yes +# '"$L/bus.service:18"$'\n'
	expect_match "$(ctl show minus)" "exec = -$H notify=READY=1 sleep=forever"
	expect_match "$(ctl show minus)" "fdstore_max = 100 +#"
	# Not run, and said so by status: every one, and by name.
	for s in dyn needs-dyn bad plus; do
		expect_rc 3 ctl status "$s"
		expect_match "$OUT" $'\n'"$s +refused .*not run: "
	done
	expect_match "$(ctl status dyn.service)" "DynamicUser=: not supported"
	expect_match "$(ctl status needs-dyn)" "not run: requires dyn, which is not run"
	expect_match "$(ctl status systemd-update-utmp)" "refused .*it asks systemd \\(process 1\\) over D-Bus"
	expect_eq "$(ctl status plus --json | jq -r '.[0].state')" refused \
	    "refused in JSON"
	expect_match "$(ctl status)" $'\n'"bad +refused "
	expect_rc 4 ctl status nosuch
	pv_down
}

# A getty's unit: StandardInput=tty with TTYPath= (its specifiers put
# in: /dev/%I of getty@) and the TTY*= steps,
# ExecStart=- ; its terminal is its 0, 1, 2 and controlling terminal,
# SIGPIPE as IgnoreSIGPIPE= says (systemd's default: ignored); what
# pidvisor leaves to the getty (UtmpIdentifier=) and a tty step without
# a tty are said.
t_units_tty() {
	pv_dir
	units_tree
	unit pty.service <<-EOF
	[Service]
	Type=notify
	ExecStart=$H pty=$T/tty:$T/ttyout
	EOF
	wanted pty.service
	unit getty@.service <<-EOF
	[Unit]
	Requires=pty.service
	After=pty.service
	[Service]
	ExecStart=-$H ttyinfo=$T/info sleep=forever
	StandardInput=tty
	StandardOutput=tty
	TTYPath=$T/%I
	TTYReset=yes
	TTYVHangup=yes
	TTYVTDisallocate=yes
	IgnoreSIGPIPE=no
	UtmpIdentifier=tty9
	EOF
	wanted getty@tty.service getty@.service
	unit plain.service <<-EOF
	[Service]
	ExecStart=$H ttyinfo=$T/plain sleep=forever
	TTYReset=yes
	EOF
	wanted plain.service
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: $T/lib/getty@.service:13: UtmpIdentifier=: ignored: pidvisor writes no utmp record"
	expect_match "$OUT" "warning: $T/lib/plain.service:3: TTYReset=: ignored: StandardInput= is not a tty"
	! grep -q "getty@.service:[0-9]*: Standard" <<<"$OUT" ||
	    fail "StandardInput=tty said: $OUT"
	pv_up
	ctl wait getty@tty ready --timeout=10s || fail "getty@tty: $(ctl status)"
	"$H" waitfile="$T/info:1:5000" || fail "getty: no info"
	expect_match "$(cat "$T/info")" "^tty /dev/pts/[0-9]+ ctty 1 out 1 err 1 canon 1 sigpipe dfl term vt220$"
	wait_until 5000 grep -q "hello tty" "$T/ttyout" || fail "nothing on the tty"
	expect_rc 0 ctl show getty@tty
	expect_match "$OUT" "tty = $T/tty +# $T/lib/getty@.service:[0-9]+"
	expect_match "$OUT" "tty_vt_disallocate = yes"
	"$H" waitfile="$T/plain:1:5000" || fail "plain: no info"
	expect_match "$(cat "$T/plain")" "^tty none .* sigpipe ign term "
	pv_down
}

# Condition*=, Assert*= and ExecCondition= as the keys condition, assert
# and condition_exec: a unit whose condition fails is skipped and what
# comes after it runs; an empty one resets those before it; one whose
# argument systemd would ignore is ignored, said; an assertion fails.
t_units_conditions() {
	pv_dir
	units_tree
	touch "$T/there"
	unit first.service <<-EOF
	[Unit]
	Before=second.service
	ConditionPathExists=$T/absent
	[Service]
	ExecStart=$H stamp=$T/first:main sleep=forever
	EOF
	wanted first.service
	unit second.service <<-EOF
	[Unit]
	ConditionDirectoryNotEmpty=$T/absent
	ConditionDirectoryNotEmpty=
	ConditionPathExists=!$T/absent
	ConditionFileNotEmpty=|$T/absent
	ConditionPathExists=|$T/there
	ConditionPathExists=relative
	ConditionCapability=CAP_SYS_ADMIN
	[Service]
	ExecCondition=/bin/true
	ExecStart=$H sleep=forever
	RestartPreventExitStatus=255 SIGABRT
	StandardOutput=null
	SuccessExitStatus=DATAERR 3
	TasksMax=infinity
	Environment=KERNEL=%v SHORT=%l
	EOF
	wanted second.service
	unit third.service <<-EOF
	[Service]
	ExecCondition=/bin/sh -c 'exit 1'
	ExecStart=$H stamp=$T/third:main sleep=forever
	EOF
	wanted third.service
	unit fourth.service <<-EOF
	[Unit]
	AssertPathIsDirectory=$T/there
	[Service]
	ExecStart=$H stamp=$T/fourth:main sleep=forever
	EOF
	wanted fourth.service
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: $T/lib/second.service:7: ConditionPathExists=: path_exists: 'relative' is not an absolute path: ignored"
	pv_up
	expect_rc 0 ctl wait second ready --timeout=20s
	expect_rc 0 ctl wait first skipped --timeout=20s
	expect_eq "$(field first reason)" \
	    "condition not met: path_exists $T/absent" "first"
	expect_rc 0 ctl wait third skipped --timeout=20s
	expect_rc 0 ctl wait fourth failed --timeout=20s
	expect_eq "$(field fourth reason)" \
	    "assertion not met: path_is_directory $T/there" "fourth"
	expect_rc 0 ctl show second
	expect_match "$OUT" "condition = path_exists !$T/absent"
	expect_match "$OUT" "restart_prevent_exit_status = 255 SIGABRT"
	expect_match "$OUT" "log = none"
	expect_match "$OUT" "success_exit_status = 65 3"
	expect_match "$OUT" "pids_max = max"
	expect_match "$OUT" "KERNEL=$(uname -r)"
	[ ! -e "$T/first" ] && [ ! -e "$T/third" ] && [ ! -e "$T/fourth" ] ||
	    fail "a unit ran past its condition"
	pv_down
}

# RuntimeDirectory= and the like as runtime_directory and the others:
# made, owned and moded as the unit says, removed at its stop but with
# RuntimeDirectoryPreserve=yes.  /run and /var/lib are $T's.
t_units_dirs() {
	pv_dir
	units_tree
	mkdir -p "$T/run" "$T/varlib"
	unit web.service <<-EOF
	[Service]
	User=nobody
	RuntimeDirectory=web
	RuntimeDirectoryMode=0700
	StateDirectory=web/data
	ExecStart=/bin/sh -c 'echo "\$RUNTIME_DIRECTORY \$STATE_DIRECTORY" >/run/web/env; exec sleep 1000'
	EOF
	wanted web.service
	unit keep.service <<-EOF
	[Service]
	RuntimeDirectory=keep
	RuntimeDirectoryPreserve=true
	ExecStart=$H sleep=forever
	EOF
	wanted keep.service
	# As Debian's ssh.service: hooks, a runtime directory, no namespace.
	unit sshlike.service <<-EOF
	[Service]
	Type=notify
	ExecStartPre=/bin/true
	ExecStart=$H notify=READY=1 sleep=forever
	ExecReload=/bin/true
	KillMode=process
	RuntimeDirectory=sshlike
	RuntimeDirectoryMode=0755
	EOF
	wanted sshlike.service
	PV_BINDS="$T/run:/run $T/varlib:/var/lib" pv_up
	expect_rc 0 ctl wait web ready --timeout=20s
	expect_rc 0 ctl wait keep ready --timeout=20s
	expect_rc 0 ctl wait sshlike ready --timeout=20s
	wait_until 10000 test -s "$T/run/web/env" || fail "web wrote no env"
	expect_eq "$(cat "$T/run/web/env")" "/run/web /var/lib/web/data" "env"
	expect_eq "$(stat -c '%U %a' "$T/run/web" "$T/varlib/web" \
	    "$T/varlib/web/data" | tr '\n' ' ')" \
	    "nobody 700 root 755 nobody 755 " "owners and modes"
	expect_rc 0 ctl reload sshlike
	expect_rc 0 ctl stop web keep --wait
	[ ! -e "$T/run/web" ] || fail "web's runtime directory is left"
	[ -d "$T/run/keep" ] || fail "keep's went, though preserved"
	pv_down
}

# Ordering through targets: a service After= a target comes after what
# the target pulls in, and one Before= it before; a cycle of units is
# refused as any cycle is.
t_units_order() {
	pv_dir
	units_tree
	printf '[Unit]\nDescription=Network\n' >"$T/lib/network.target"
	unit net.service <<-EOF
	[Unit]
	Before=network.target
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo net >>$T/order'
	EOF
	mkdir -p "$T/lib/network.target.wants"
	ln -s "$T/lib/net.service" "$T/lib/network.target.wants/net.service"
	unit app.service <<-EOF
	[Unit]
	Wants=network.target
	After=network.target
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo app >>$T/order'
	EOF
	wanted app.service
	# A target is after what it pulls in, as systemd's default
	# dependencies make it: not after a unit with none, nor after one
	# after it (a service is after sysinit.target): Debian's
	# systemd-pcrphase-sysinit and systemd-pcrphase, no cycle.
	mkdir -p "$T/lib/sysinit.target.wants"
	printf 'Requires=sysinit.target\n' >>"$T/lib/basic.target"
	unit early.service <<-EOF
	[Unit]
	DefaultDependencies=no
	After=sysinit.target
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo early >>$T/early'
	EOF
	unit phase.service <<-EOF
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo phase >>$T/early'
	EOF
	ln -s "$T/lib/early.service" "$T/lib/phase.service" \
	    "$T/lib/sysinit.target.wants/"
	# After= a service of an ini file that no unit file is (Debian's
	# After=systemd-remount-fs.service, a generator's unit elsewhere).
	svc first <<-EOF
	exec = /bin/sh -c 'echo first >>$T/ini-order'
	ready = exit
	EOF
	unit second.service <<-EOF
	[Unit]
	After=first.service
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'echo second >>$T/ini-order'
	EOF
	wanted second.service
	# After= a socket: after the service that binds it (udev's
	# trigger after udevd); an order that would close a cycle dropped
	# (journald after syslog.socket, rsyslog after journald).
	unit udevd.service <<-EOF
	[Service]
	Type=notify
	ExecStart=$H notify=READY=1 sleep=forever
	EOF
	unit udevd.socket <<-EOF
	[Socket]
	ListenStream=$T/udevd.sock
	EOF
	wanted udevd.service
	wanted udevd.socket
	unit trigger.service <<-EOF
	[Unit]
	After=udevd.socket
	[Service]
	Type=oneshot
	ExecStart=/bin/true
	EOF
	wanted trigger.service
	# After the socket of a service started on demand: bound already.
	unit od.socket <<-EOF
	[Socket]
	ListenStream=$T/od.sock
	EOF
	unit od.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted od.socket
	unit client.service <<-EOF
	[Unit]
	After=od.socket
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted client.service
	# Through a target, a socket is only a socket (sockets.target does
	# not wait for dbus to be ready).
	printf '[Unit]\nWants=udevd.socket\n' >"$T/lib/socks.target"
	unit late.service <<-EOF
	[Unit]
	Wants=socks.target
	After=socks.target
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted late.service
	unit jd.service <<-EOF
	[Unit]
	After=sl.socket
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted jd.service
	unit sl.socket <<-EOF
	[Socket]
	ListenDatagram=$T/sl.sock
	EOF
	unit sl.service <<-EOF
	[Unit]
	After=jd.service
	Requires=sl.socket
	[Service]
	ExecStart=$H sleep=forever
	EOF
	wanted sl.service
	expect_rc 0 "$PV" --check -c "$T/conf"
	pv_up
	ctl wait second done --timeout=10s || fail "second: $(ctl status)"
	expect_rc 0 ctl show second
	expect_match "$OUT" "after = first +#"
	expect_rc 0 ctl show trigger
	expect_match "$OUT" "after = udevd +# $T/lib/trigger.service"
	expect_rc 0 ctl show client
	grep -Eq '^after = ([^#]* )?od( |$)' <<<"$OUT" && fail "client waits for od"
	expect_rc 0 ctl show late
	grep -Eq '^after = ([^#]* )?udevd( |$)' <<<"$OUT" && fail "late waits for udevd"
	expect_rc 0 ctl show jd
	grep -Eq '^after = ([^#]* )?sl( |$)' <<<"$OUT" && fail "jd after sl: a cycle"
	expect_rc 0 ctl show sl
	expect_match "$OUT" "after = jd +#"
	expect_eq "$(tr '\n' ' ' <"$T/ini-order")" "first second " "ini, then unit"
	ctl wait app done --timeout=10s || fail "app: $(ctl status)"
	expect_rc 0 ctl show app
	expect_match "$OUT" "after = net +#"
	expect_eq "$(tr '\n' ' ' <"$T/order")" "net app " "the order"
	expect_rc 0 ctl wait early done --timeout=10s
	expect_rc 0 ctl wait phase done --timeout=10s
	pv_down
}

# enable, disable, mask, unmask: the links deb-systemd-helper writes
# (its own run on a copy of the same tree is the oracle), each said as
# systemctl says it; with --now a reload starts or stops what changed;
# a template by its DefaultInstance=, or refused without one; a unit
# without [Install] said; a masked, missing or own-file unit refused.
t_units_install() {
	pv_dir
	units_tree
	unit web.service <<-EOF
	[Service]
	ExecStart=$H stamp=$T/web:UP sleep=forever
	[Install]
	WantedBy=multi-user.target
	Alias=www.service
	Also=helper.service
	EOF
	unit helper.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	[Install]
	RequiredBy=multi-user.target
	EOF
	unit getty@.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	[Install]
	WantedBy=multi-user.target
	DefaultInstance=tty1
	EOF
	unit tmpl@.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	[Install]
	WantedBy=multi-user.target
	EOF
	unit bare.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	EOF
	# The oracle: deb-systemd-helper on a copy, as a package's postinst
	# runs it ($DPKG_ROOT: links to the paths the booted system sees).
	local R=$T/root links
	mkdir -p "$R/etc/systemd/system" "$R/lib/systemd/system" "$R/var/lib/systemd"
	cp "$T"/lib/*.service "$R/lib/systemd/system/"
	for u in web.service getty@.service; do
		DPKG_MAINTSCRIPT_PACKAGE=pvtest DPKG_ROOT=$R \
		    deb-systemd-helper enable "$u" >/dev/null 2>&1 ||
		    fail "deb-systemd-helper enable $u"
	done
	links=$(cd "$R/etc/systemd/system" && find . -type l -printf '%p %l\n' | sort)
	pv_up
	expect_rc 4 ctl status web
	expect_rc 0 ctl enable web getty@.service
	expect_match "$OUT" "^Created symlink $T/etc/multi-user.target.wants/web.service → $T/lib/web.service."$'\n'
	expect_match "$OUT" $'\n'"Created symlink $T/etc/www.service → $T/lib/web.service."$'\n'
	expect_match "$OUT" $'\n'"Created symlink $T/etc/multi-user.target.requires/helper.service → $T/lib/helper.service."$'\n'
	expect_match "$OUT" $'\n'"Created symlink $T/etc/multi-user.target.wants/getty@tty1.service → $T/lib/getty@.service.$"
	expect_eq "$(cd "$T/etc" && find . -type l ! -name default.target -printf '%p %l\n' |
	    sed "s|$T/lib/|/lib/systemd/system/|" | sort)" "$links" \
	    "the links deb-systemd-helper writes"
	expect_rc 0 ctl enable web	# again: nothing to do
	expect_eq "$OUT" ""
	expect_rc 4 ctl status web	# not before a reload
	expect_rc 0 ctl enable bare --now
	expect_match "$OUT" "bare.service has no \\[Install\\] WantedBy=, RequiredBy=, Alias= or Also=: nothing to enable."
	ctl wait web ready --timeout=10s || fail "web: $(ctl status)"
	ctl wait helper ready --timeout=10s || fail "helper: $(ctl status)"
	ctl wait getty@tty1 ready --timeout=10s || fail "getty@tty1: $(ctl status)"
	expect_rc 1 ctl enable tmpl@.service
	expect_match "$OUT" "tmpl@.service: a template, and no DefaultInstance=: name an instance \\(tmpl@INSTANCE.service\\)"
	expect_rc 0 ctl enable tmpl@x.service
	expect_match "$OUT" "Created symlink $T/etc/multi-user.target.wants/tmpl@x.service → $T/lib/tmpl@.service."
	expect_rc 1 ctl enable nosuch
	expect_match "$OUT" "nosuch.service: no such unit in $T/etc"
	unit sly.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	[Install]
	Also=../../tmp/x.service
	EOF
	expect_rc 1 ctl enable sly
	expect_match "$OUT" "Also=: '../../tmp/x.service': not a unit name"
	expect_rc 0 ctl disable web.service --now
	expect_eq "$(grep -v '^[a-z]' <<<"$OUT")" "Removed $T/etc/multi-user.target.wants/web.service.
Removed $T/etc/www.service.
Removed $T/etc/multi-user.target.requires/helper.service."
	grep -qx "removed web" <<<"$OUT" || fail "no reload's report: $OUT"
	[ ! -e "$T/etc/multi-user.target.requires" ] || fail "an empty .requires left"
	wait_until 10000 eval '! ctl status web >/dev/null 2>&1' ||
	    fail "web still known: $(ctl status)"
	expect_rc 4 ctl status helper
	expect_rc 0 ctl mask getty@tty1.service --now
	expect_match "$OUT" "^Created symlink $T/etc/getty@tty1.service → /dev/null."$'\n'
	wait_until 10000 eval '! ctl status getty@tty1 >/dev/null 2>&1' ||
	    fail "a masked unit runs: $(ctl status)"
	expect_rc 1 ctl enable getty@tty1.service
	expect_match "$OUT" "getty@tty1.service: masked \\($T/etc/getty@tty1.service\\); unmask it first"
	expect_rc 0 ctl unmask getty@tty1 --now
	expect_match "$OUT" "^Removed $T/etc/getty@tty1.service."$'\n'
	ctl wait getty@tty1 ready --timeout=10s || fail "unmasked: $(ctl status)"
	expect_rc 0 ctl unmask getty@tty1	# not masked: nothing
	expect_eq "$OUT" ""
	cp "$T/lib/bare.service" "$T/etc/bare.service"
	expect_rc 1 ctl mask bare
	expect_match "$OUT" "$T/etc/bare.service: the unit's own file is there; it is not masked"
	pv_down
	pv_dir
	svc a <<-EOF
	exec = $H sleep=forever
	EOF
	pv_up
	expect_rc 1 ctl enable a
	expect_match "$OUT" "pidvisor reads no unit files \\(\\[supervisor\\] systemd_units = no\\)"
	pv_down
}

# watch_units: a link made or removed in the unit path by someone else
# (a package's postinst, deb-systemd-helper's ln -s) is run or stopped by
# the reload that follows, a .wants directory made since the start too;
# a mask stops what it masks.
t_units_watch() {
	pv_dir
	units_tree
	sup_ini <<-EOF
	systemd_units = yes
	unit_path = $T/etc:$T/lib
	watch_units = yes
	EOF
	unit pkg.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	EOF
	unit late.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	EOF
	pv_up
	expect_rc 4 ctl status pkg
	ln -s "$T/lib/pkg.service" "$T/etc/multi-user.target.wants/pkg.service"
	wait_until 10000 eval "ctl status pkg >/dev/null 2>&1" ||
	    fail "pkg not started: $(tail -5 "$T/log")"
	ctl wait pkg ready --timeout=10s || fail "pkg: $(ctl status)"
	mkdir "$T/etc/basic.target.wants"
	ln -s "$T/lib/late.service" "$T/etc/basic.target.wants/late.service"
	wait_until 10000 eval "ctl status late >/dev/null 2>&1" ||
	    fail "late not started: $(tail -5 "$T/log")"
	ctl wait late ready --timeout=10s || fail "late: $(ctl status)"
	wait_until 5000 grep -q "watch_units: the unit files changed: reloaded" \
	    "$T/log" || fail "not said: $(tail -5 "$T/log")"
	rm "$T/etc/multi-user.target.wants/pkg.service"
	wait_until 10000 eval '! ctl status pkg >/dev/null 2>&1' ||
	    fail "pkg still runs: $(ctl status)"
	ln -s /dev/null "$T/etc/late.service"
	wait_until 10000 eval '! ctl status late >/dev/null 2>&1' ||
	    fail "a masked unit runs: $(ctl status)"
	pv_down
}

# .socket units: each Listen*= a socket of its service with the socket's
# options (name, mode, a missing directory made, a symlink, credentials,
# a receive buffer); a service only a socket pulls in is listening until
# its first client (on_demand), one pulled in by a target too starts at
# boot with them (Sockets=); a socket with a condition, with Accept=yes,
# or whose service is not run is not bound, and that is said, as each
# directive left out is.
t_units_socket() {
	pv_dir
	units_tree
	local p o L="$T/lib"
	p=$(free_port)
	o=$(free_port)
	unit echo.socket <<-EOF
	[Unit]
	Description=echo's sockets
	[Socket]
	ListenStream=$T/run/sub/echo.sock
	ListenStream=127.0.0.1:$p
	ListenNetlink=route 1
	ListenStream=@abstract
	SocketMode=0600
	DirectoryMode=0750
	Symlinks=$T/echo.link
	FileDescriptorName=echo-fd
	PassCredentials=yes
	ReceiveBuffer=1M
	Timestamping=us
	[Install]
	WantedBy=sockets.target
	EOF
	wanted echo.socket
	# More of its sockets, in a socket of its (Service=).
	unit more.socket <<-EOF
	[Socket]
	Service=echo.service
	ListenDatagram=$T/run/sub/echo.dgram
	ListenSequentialPacket=$T/run/sub/echo.seq
	ListenFIFO=$T/fifo
	Symlinks=$T/more.link
	PassSecurity=yes
	EOF
	wanted more.socket
	unit echo.service <<-EOF
	[Service]
	ExecStart=$H fds=$T/fds sockopts=$T/opts serve=1
	EOF
	unit web.service <<-EOF
	[Service]
	Type=notify
	Sockets=front.socket
	ExecStart=$H fds=$T/web.fds notify=READY=1 serve
	EOF
	wanted web.service
	unit front.socket <<-EOF
	[Socket]
	Service=other.service
	ListenStream=127.0.0.1:$o
	Backlog=17
	EOF
	# A socket of an alias's name: its unit's (rsyslog's syslog.socket).
	unit rlog.service <<-EOF
	[Service]
	ExecStart=$H fds=$T/rlog.fds sleep=forever
	EOF
	wanted rlog.service
	ln -s "$T/lib/rlog.service" "$T/etc/syslog.service"
	unit syslog.socket <<-EOF
	[Socket]
	ListenDatagram=$T/syslog.sock
	EOF
	wanted syslog.socket
	unit cond.socket <<-EOF
	[Unit]
	ConditionPathExists=/nonexistent
	[Socket]
	ListenStream=$T/cond.sock
	Service=web.service
	EOF
	wanted cond.socket
	unit per.socket <<-EOF
	[Socket]
	ListenStream=$T/per.sock
	Accept=yes
	EOF
	wanted per.socket
	unit lone.socket <<-EOF
	[Socket]
	ListenStream=$T/lone.sock
	EOF
	wanted lone.socket
	# A service only a socket pulls in, the socket not bound: not run.
	unit fifo.socket <<-EOF
	[Socket]
	ListenFIFO=$T/fifo
	EOF
	wanted fifo.socket
	unit fifo.service <<-EOF
	[Service]
	ExecStart=$H sleep=forever
	EOF
	expect_rc 0 "$PV" --check -c "$T/conf"
	expect_match "$OUT" "warning: $L/more.socket:5: ListenFIFO=: not supported yet: left out"
	expect_match "$OUT" "warning: $L/echo.socket:7: ListenStream=: an abstract socket: not supported yet"
	expect_match "$OUT" "warning: $L/echo.socket:14: Timestamping=: not supported yet: ignored"
	expect_match "$OUT" "warning: $L/more.socket:6: Symlinks=: needs one socket in the file system, not more or none: ignored"
	expect_match "$OUT" "warning: $L/cond.socket:2: ConditionPathExists=: the conditions of a socket unit are not checked yet: the socket is not bound"
	expect_match "$OUT" "warning: $L/per.socket: Accept=yes \\(a service per client\\) is not supported for units yet: the socket is not bound"
	expect_match "$OUT" "warning: $L/lone.socket: its service lone.service is not run: the socket is not bound"
	expect_match "$OUT" "warning: $L/fifo.service: only its sockets would start it, and none is bound: the unit is not run"
	pv_up
	# show: a line per socket, each at its socket's line.
	expect_rc 0 ctl show echo
	expect_match "$OUT" $'\n'"listen = unix:$T/run/sub/echo.sock name=echo-fd [^#]*# $L/echo.socket:4"$'\n'
	expect_match "$OUT" $'\n'"listen = unix-dgram:$T/run/sub/echo.dgram name=more.socket [^#]*# $L/more.socket:3"$'\n'
	# echo: bound at boot, its service not started before a client.
	ctl wait echo listening --timeout=10s || fail "echo not listening"
	ctl wait web ready --timeout=10s || fail "web not ready"
	[ ! -e "$T/fds" ] || fail "echo started before a client came"
	expect_eq "$(stat -c '%a %F' "$T/run/sub" "$T/run/sub/echo.sock")" \
	    "$(printf '750 directory\n600 socket')"
	expect_eq "$(readlink "$T/echo.link")" "$T/run/sub/echo.sock"
	# A client through the symlink starts it, with every socket.
	expect_match "$(ask "UNIX-CONNECT:$T/echo.link")" "^pid [0-9]+$"
	expect_eq "$(cat "$T/fds")" "$(printf '%s\n' \
	    "fds 5 names echo-fd:echo-fd:echo-fd:more.socket:more.socket pid ok" \
	    "fd 3 stream" "fd 4 stream" "fd 5 raw" "fd 6 dgram" \
	    "fd 7 seqpacket")"
	# Credentials passed on its unix and netlink ones, not tcp; the
	# buffer (the kernel doubles it) past the sysctl's cap; the other
	# socket's own options.
	expect_match "$(sed -n 1p "$T/opts")" "^fd 3 passcred 1 passsec 0 rcvbuf 2097152 "
	expect_match "$(sed -n 2p "$T/opts")" "^fd 4 passcred (0|-1) passsec (0|-1) rcvbuf 2097152 "
	expect_match "$(sed -n 3p "$T/opts")" "^fd 5 passcred 1 passsec 0 rcvbuf 2097152 "
	expect_match "$(sed -n 4p "$T/opts")" "^fd 6 passcred 0 passsec 1 "
	[ ! -e "$T/more.link" ] || fail "a symlink of two sockets made"
	wait_until 10000 field_is echo state listening || fail "not listening again"
	# web: started at boot with front.socket (its Sockets=), named so.
	expect_eq "$(head -1 "$T/web.fds")" "fds 1 names front.socket pid ok"
	expect_match "$(ask "TCP:127.0.0.1:$o")" "^pid [0-9]+$"
	expect_match "$(ss -ltn "sport = :$o")" " 17 +127\\.0\\.0\\.1:$o "
	wait_until 10000 test -s "$T/rlog.fds" || fail "rlog did not start"
	expect_eq "$(cat "$T/rlog.fds")" "$(printf 'fds 1 names syslog.socket pid ok\nfd 3 dgram')"
	[ ! -e "$T/cond.sock" ] && [ ! -e "$T/per.sock" ] &&
	    [ ! -e "$T/lone.sock" ] || fail "a socket not to bind was bound"
	expect_rc 4 ctl status fifo
	# Stopped for good: its files and its symlink go.
	ctl stop echo --wait --timeout=10s >/dev/null || fail "stop echo"
	[ ! -e "$T/run/sub/echo.sock" ] && [ ! -L "$T/echo.link" ] ||
	    fail "echo's files left: $(ls -l "$T/run/sub" "$T")"
	pv_down
}
