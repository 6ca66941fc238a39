#!/bin/sh
# qemu/bench/run-guest-bench.sh - runs in the guest (the bench profile):
# the reclaim benchmark (bench/reclaim.c) with the runs, CPU restrictions
# and sizes on the kernel command line, results on /dev/ttyS1, then power
# off.  (A head-to-head boot runs qemu/bench/hh-run.sh instead.)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# pidvisor.bench=RUNS:RESTRICT,RESTRICT:SIZE,SIZE
spec=$(sed -n 's/.*pidvisor.bench=\([^ ]*\).*/\1/p' /proc/cmdline)
runs=$(echo "$spec" | cut -d: -f1)
restricts=$(echo "$spec" | cut -d: -f2 | tr , ' ')
sizes=$(echo "$spec" | cut -d: -f3 | tr , ' ')
{
	echo "# guest: $(uname -r), $(nproc) CPUs, $(sed -n 's/MemTotal: *//p' /proc/meminfo)"
	for r in ${restricts:-weight max}; do
		/bench/reclaim "${runs:-5}" "$r" ${sizes:-256 1024}
	done
	echo "# done"
} >/dev/ttyS1 2>&1
pidvisorctl poweroff
