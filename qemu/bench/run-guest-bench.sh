#!/bin/sh
# qemu/bench/run-guest-bench.sh - runs in the guest (the bench profile):
# the reclaim benchmark with the sizes on the kernel command line
# (pidvisor.bench=RUNS:SIZE,SIZE), results on /dev/ttyS1, then power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
spec=$(sed -n 's/.*pidvisor.bench=\([^ ]*\).*/\1/p' /proc/cmdline)
runs=${spec%%:*}
sizes=$(echo "${spec#*:}" | tr , ' ')
{
	echo "# guest: $(uname -r), $(nproc) CPUs, $(sed -n 's/MemTotal: *//p' /proc/meminfo)"
	/bench/reclaim "${runs:-5}" ${sizes:-256 1024}
	echo "# done"
} >/dev/ttyS1 2>&1
pidvisorctl poweroff
