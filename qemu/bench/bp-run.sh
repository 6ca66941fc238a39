#!/bin/sh
# qemu/bench/bp-run.sh - the pressure benchmark, in the guest, as the
# service "runner" of /etc/pidvisor-bp/CONTENDER (the kernel command
# line says which: pidvisor.bp=CONTENDER, pidvisor.bpruns=RUNS,
# pidvisor.bpsecs=SECONDS, pidvisor.bpscen=S1,S2...).  Each run of each
# scenario: its background services start (each run an instance of its
# own: a cgroup of its own, whose memory.peak is that run's), the
# protected service "lat" answers pings every 10 ms, the culprit starts,
# and SECONDS later everything stops.  One line per run on /dev/ttyS1.
#
# The ground truth is each scenario's, written here, never derived from
# a killer's choice: RIGHT, the victims that are right to kill (all
# services are given kill_priority and oom_score_adj that agree: the
# culprit is the most expendable); NEED, the kills it takes.  A victim
# is a service that died or lost a process during the run.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
c=$(sed -n 's/.*pidvisor\.bp=\([^ ]*\).*/\1/p' /proc/cmdline)
runs=$(sed -n 's/.*pidvisor\.bpruns=\([^ ]*\).*/\1/p' /proc/cmdline)
secs=$(sed -n 's/.*pidvisor\.bpsecs=\([^ ]*\).*/\1/p' /proc/cmdline)
scens=$(sed -n 's/.*pidvisor\.bpscen=\([^ ]*\).*/\1/p' /proc/cmdline |
    tr , ' ')
CG=/sys/fs/cgroup/pidvisor
exec 3>/dev/ttyS1

# scenario S: BG (started first), CULPRIT (started at the measurement,
# NPROCS processes), RIGHT, NEED; NEEDSVC, the service whose kill ends
# it (MiB killed are counted against its).
scenario() {
	BG="bg80 bg60 bg40"
	NEED=1
	NPROCS=1
	case $1 in
	fast-leak)	CULPRIT=leak; RIGHT=leak ;;
	slow-leak)	CULPRIT=slowleak; RIGHT=slowleak ;;
	file-thrash)	CULPRIT=thrash; RIGHT=thrash ;;
	spike)		CULPRIT=spike; RIGHT=; NEED=0 ;;
	multi-process)	CULPRIT=multi; RIGHT=multi; NPROCS=5 ;;
	# starved holds 150 MiB at a tenth of a CPU, the most expendable;
	# fill, less so, takes 260 MiB: starved's kill is what it takes,
	# and its exit is slow unless its limit is lifted or it is reaped.
	starved)	BG="bg80 bg60 bg40 starved"; CULPRIT=fill
			RIGHT=starved ;;
	# stuckbg is the most expendable, but its kill frees nothing: the
	# leak's is what it takes.
	stuck)		BG="bg80 bg60 bg40 stuckbg"; CULPRIT=leak
			RIGHT="stuckbg leak" ;;
	*)		echo "# unknown scenario $1" >&3; return 1 ;;
	esac
	NEEDSVC=$CULPRIT
	[ $1 = starved ] && NEEDSVC=starved
	[ $1 = spike ] && NEEDSVC=
	return 0
}

# ms of the day (UTC) of an RFC 3339 time, as hh prints its onset.
day_ms() {
	echo "$1" | awk -F'[T:.Z]' '{ printf "%d\n",
	    (($2 * 60 + $3) * 60 + $4) * 1000 + $5 }'
}

count_procs() {
	{ wc -l <"$CG/$1/cgroup.procs"; } 2>/dev/null || echo 0
}

killer_kills() {
	k=$(pidvisorctl pressure | sed -n 's/^kills: //p')
	e=$(pidvisorctl logs earlyoom 2>/dev/null | grep -c "sending SIG")
	o=$(sed -n 's/^oom_kill //p' /proc/vmstat)
	echo $((${k:-0} + ${e:-0} + ${o:-0}))
}

# The FUSE mount that never answers, and stuckbg's lock held on it.
fuse_up() {
	rm -f /tmp/stuck.addr /tmp/fh.log
	/bench/fuse-hang /tmp/fh >/tmp/fh.log 2>&1 &
	fh=$!
	i=0
	until grep -q ready /tmp/fh.log 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
}

hold_lock() {
	i=0
	until [ -s /tmp/stuck.addr ]; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
	pid=$(pidvisorctl status "$1" | awk 'NR == 2 { print $3 }')
	/bench/svc-helper peek="$pid:$(cat /tmp/stuck.addr)" &
	peek=$!
	i=0
	until grep -q "read held" /tmp/fh.log; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
	/bench/svc-helper clear-refs="$pid" &
	writer=$!
}

# one SCENARIO RUN
one() {
	scenario "$1" || return
	r=$2
	pidvisorctl start lat --wait --timeout=30s >/dev/null 2>&1
	all=
	for s in $BG; do
		[ $s = stuckbg ] && { fuse_up || echo "# no FUSE" >&3; }
		pidvisorctl start $s@$r --wait --timeout=60s >/dev/null ||
		    echo "# $s@$r did not start" >&3
		[ $s = stuckbg ] && { hold_lock $s@$r || echo "# no lock" >&3; }
		# A service at a tenth of a CPU takes its time to fill.
		i=0
		while [ $s = starved ] && [ $i -lt 600 ] && [ "$(cat \
		    $CG/$s@$r/memory.current)" -lt $((140 << 20)) ]; do
			i=$((i + 1)); sleep 0.1
		done
		all="$all $s@$r"
	done
	all="$all $CULPRIT@$r"
	for s in lat $all; do
		eval "n0_$(echo $s | tr -c 'a-z0-9\n' _)=$(count_procs $s)"
	done
	k0=$(killer_kills)
	pidvisorctl events --json >/tmp/ev.json 2>/dev/null &
	ev=$!
	pidvisorctl start $CULPRIT@$r >/dev/null
	/bench/hh measure /run/lat.sock "$secs" >/tmp/m.txt
	k1=$(killer_kills)
	kill $ev 2>/dev/null
	# The victims, against the scenario's truth.
	kills=$((k1 - k0))
	hits= wrong=0 right=0 killed=0 need=0
	for s in lat $all; do
		v=$(echo $s | tr -c 'a-z0-9\n' _)
		eval "n0=\$n0_$v"
		name=${s%@*}
		[ "$name" = "$CULPRIT" ] && n0=$NPROCS
		st=$(pidvisorctl status $s | awk 'NR == 2 { print $2 }')
		n1=$(count_procs $s)
		if [ "$st" = failed ] || [ "$n1" -lt "${n0:-0}" ]; then
			hits="$hits $name"
			peak=$(cat "$CG/$s/memory.peak" 2>/dev/null || echo 0)
			killed=$((killed + peak / 1048576))
			case " $RIGHT " in
			*" $name "*) right=$((right + 1)) ;;
			*) wrong=$((wrong + 1)) ;;
			esac
		fi
		[ "$name" = "$NEEDSVC" ] &&
		    need=$(($(cat "$CG/$s/memory.peak" 2>/dev/null || echo 0) / 1048576))
	done
	unneeded=$((kills > NEED ? kills - NEED : 0))
	first=$(grep -E '"event":"pressure_kill"|"to":"failed"' /tmp/ev.json |
	    head -1 | sed -n 's/.*"time":"\([^"]*\)".*/\1/p')
	onset=$(sed -n 's/.*onset_ms=\(-*[0-9]*\).*/\1/p' /tmp/m.txt)
	ok=-1
	if [ -n "$first" ] && [ "${onset:--1}" -ge 0 ]; then
		ok=$(($(day_ms "$first") - onset))
	fi
	echo "scenario=$1 run=$r contender=$c $(grep -v '^#' /tmp/m.txt |
	    tr '\n' ' ')kills=$kills wrong=$wrong right=$right" \
	    "unneeded=$unneeded killed_mib=$killed need_mib=$need" \
	    "onset_to_kill_ms=$ok victims=$(echo $hits | tr ' ' ,)" >&3
	# Put it all away; a stuck victim's lock goes with the FUSE server.
	for s in $all; do
		pidvisorctl stop $s --wait --timeout=30s >/dev/null 2>&1 &
	done
	if [ -n "${fh:-}" ]; then
		kill -TERM $fh 2>/dev/null
		wait $fh $peek $writer 2>/dev/null
		fh=
	fi
	wait
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

{
	echo "# bp: $c, $(uname -r), $(nproc) CPUs, $(sed -n 's/MemTotal: *//p' /proc/meminfo)"
	# Swap on zram, as Android has; a disk for file-thrash's file.
	echo 256M >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
	n=$(cat /sys/class/zram-control/hot_add)
	echo 700M >/sys/block/zram$n/disksize
	mkdir -p /mnt/thrash
	mke2fs -q /dev/zram$n && mount /dev/zram$n /mnt/thrash &&
	    dd if=/dev/zero of=/mnt/thrash/file bs=1M count=600 2>/dev/null ||
	    echo "# no disk for file-thrash"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	case $c in earlyoom*)
		pidvisorctl start earlyoom --wait --timeout=30s >/dev/null ||
		    echo "# earlyoom did not start"
	esac
	# one() has no local variables (s, r, i...): its own names here.
	for scen in $scens; do
		run=1
		while [ $run -le "$runs" ]; do
			one "$scen" "$run"
			run=$((run + 1))
		done
	done
	echo "# done"
} >&3 2>&1
pidvisorctl poweroff
