#!/bin/sh
# qemu/bench/hh-run.sh - the head-to-head of low-memory killers, in the
# guest, as the service "runner" of /etc/pidvisor-hh/CONTENDER (the
# kernel command line says which: pidvisor.hh=CONTENDER, and
# pidvisor.hhsecs=SECONDS how long).  The protected service and the
# background ones start; the measurement runs while the workload goes
# in bursts past the guest's memory; results go to /dev/ttyS1 (bench/hh.c
# prints the latency and memory figures), the marks of the window to the
# console, whose pidvisor lines the host reads for the kills.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
c=$(sed -n 's/.*pidvisor\.hh=\([^ ]*\).*/\1/p' /proc/cmdline)
secs=$(sed -n 's/.*pidvisor\.hhsecs=\([^ ]*\).*/\1/p' /proc/cmdline)
# Swap on zram, as Android has: pressure stalls before it runs out.
if [ -w /sys/block/zram0/disksize ]; then
	echo 256M >/sys/block/zram0/disksize
	mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
fi
{
	echo "# hh: $c, $(uname -r), $(nproc) CPUs, $(sed -n 's/MemTotal: *//p' /proc/meminfo), swap $(sed -n 's/SwapTotal: *//p' /proc/meminfo)"
	for s in lat bg80 bg60 bg40; do
		pidvisorctl start $s --wait --timeout=60s || echo "# $s did not start"
	done
	case $c in earlyoom*)
		pidvisorctl start earlyoom --wait --timeout=30s ||
		    echo "# earlyoom did not start"
	esac
	full0=$(sed -n 's/^full .*total=\([0-9]*\).*/\1/p' /proc/pressure/memory)
	oom0=$(sed -n 's/^oom_kill //p' /proc/vmstat)
	echo "hh: the measurement starts" >/dev/console
	pidvisorctl start workload
	/bench/hh measure /run/lat.sock "${secs:-40}"
	echo "hh: the measurement ends" >/dev/console
	full1=$(sed -n 's/^full .*total=\([0-9]*\).*/\1/p' /proc/pressure/memory)
	oom1=$(sed -n 's/^oom_kill //p' /proc/vmstat)
	pidvisorctl stop workload --wait --timeout=30s
	echo "full_stall_ms=$(((full1 - full0) / 1000)) oom_kills=$((oom1 - oom0))"
	pidvisorctl pressure | sed -n 's/^kills: /killer_kills=/p'
	echo "# done"
} >/dev/ttyS1 2>&1
pidvisorctl poweroff
