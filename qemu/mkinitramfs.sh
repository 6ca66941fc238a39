#!/bin/bash
# qemu/mkinitramfs.sh PROFILE OUT.cpio.gz - the guest's root filesystem.
#
# PROFILE run:  busybox-static, static pidvisor as /sbin/init (and /init),
#               pidvisorctl, pidvisor-notify, the configuration from conf/.
# PROFILE test: the same, with tests/guest/conf as the configuration and
#               the guest tests under /test (runner, helpers, selftests).
# PROFILE bench: the same, with the reclaim benchmark under /bench.
#
# The archive is written by the kernel tree's gen_init_cpio from a list,
# so device nodes need no root and the result does not depend on umask.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
profile=$1
out=$2
gen=$top/build/linux-source-6.1/usr/gen_init_cpio
static=$top/build/static
list=$(mktemp)
trap 'rm -f "$list"' EXIT

dirs="/bin /sbin /usr /usr/bin /usr/sbin /etc /etc/pidvisor
    /etc/pidvisor/services /dev /proc /sys /run /tmp /root /var /var/log"
# bench_confs KIND: one configuration per contender of qemu/bench/KIND,
# /etc/pidvisor-KIND/NAME (booted with -c): its pidvisor.ini, and the
# services of common/ and of its own directory.
bench_confs() {
	echo "dir /etc/pidvisor-$1 0755 0 0"
	for d in "$top"/qemu/bench/$1/*/; do
		c=$(basename "$d")
		[ "$c" = common ] && continue
		echo "dir /etc/pidvisor-$1/$c 0755 0 0"
		echo "dir /etc/pidvisor-$1/$c/services 0755 0 0"
		echo "file /etc/pidvisor-$1/$c/pidvisor.ini $d/pidvisor.ini 0644 0 0"
		for f in "$top"/qemu/bench/$1/common/*.ini "$d"/*.ini; do
			[ "$(basename "$f")" = pidvisor.ini ] && continue
			echo "file /etc/pidvisor-$1/$c/services/$(basename "$f") $f 0644 0 0"
		done
	done
}

{
	for d in $dirs; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	# Every applet but those we provide ourselves (init).
	/bin/busybox --list-full | grep -vxE 'bin/busybox|sbin/init|linuxrc' |
	    while read -r applet; do
		echo "slink /$applet /bin/busybox 0777 0 0"
	done
	echo "file /sbin/init $static/pidvisor 0755 0 0"
	echo "slink /init /sbin/init 0777 0 0"
	echo "file /usr/bin/pidvisorctl $static/pidvisorctl 0755 0 0"
	echo "file /usr/bin/pidvisor-notify $static/pidvisor-notify 0755 0 0"
	echo "file /etc/passwd $top/qemu/etc/passwd 0644 0 0"
	echo "file /etc/group $top/qemu/etc/group 0644 0 0"
	echo "file /etc/profile $top/qemu/etc/profile 0644 0 0"

	case $profile in
	run)
		conf=$top/conf
		;;
	test)
		conf=$top/tests/guest/conf
		echo "dir /test 0755 0 0"
		echo "file /test/in-guest.sh $top/tests/guest/in-guest.sh 0755 0 0"
		for f in "$top"/build/guest/*; do
			echo "file /test/$(basename "$f") $f 0755 0 0"
		done
		;;
	bench)
		conf=$top/qemu/bench/conf
		echo "dir /bench 0755 0 0"
		echo "file /bench/run-guest-bench.sh $top/qemu/bench/run-guest-bench.sh 0755 0 0"
		echo "file /bench/reclaim $top/build/bench/reclaim 0755 0 0"
		# The head-to-head (qemu/bench/hh-run.sh): one configuration
		# per contender, /etc/pidvisor-hh/NAME (booted with -c).
		echo "file /bench/hh-run.sh $top/qemu/bench/hh-run.sh 0755 0 0"
		echo "file /bench/hh $top/build/bench/hh 0755 0 0"
		echo "file /bench/svc-helper $top/build/guest/svc-helper 0755 0 0"
		echo "slink /bench/lat /bench/hh 0777 0 0"
		for n in bg80 bg60 bg40 workload; do
			echo "slink /bench/$n /bench/svc-helper 0777 0 0"
		done
		# Debian's earlyoom (make bench-deps unpacks it) and what
		# it is linked with.
		eo=$top/build/earlyoom/usr/bin/earlyoom
		if [ -x "$eo" ]; then
			echo "file /bench/earlyoom $eo 0755 0 0"
			for lib in $(ldd "$eo" | grep -o '/[^ ]*'); do
				d=
				for part in $(dirname "$lib" | tr / ' '); do
					d=$d/$part
					echo "dir $d 0755 0 0"
				done
				echo "file $lib $(readlink -f "$lib") 0755 0 0"
			done
		fi
		# The pressure benchmark (qemu/bench/bp-run.sh): the same, in
		# /etc/pidvisor-bp/NAME; each service named by its binary
		# (earlyoom --prefer goes by the name).
		echo "file /bench/bp-run.sh $top/qemu/bench/bp-run.sh 0755 0 0"
		echo "file /bench/fuse-hang $top/build/guest/fuse-hang 0755 0 0"
		for n in bg40 bg60 bg80 leak slowleak spike multi starved fill \
		    stuckbg; do
			echo "slink /bench/$n /bench/svc-helper 0777 0 0"
		done
		echo "slink /bench/thrash /bench/hh 0777 0 0"
		bench_confs bp
		bench_confs hh
		;;
	*)
		echo "mkinitramfs: unknown profile $profile" >&2
		exit 2
		;;
	esac
	[ -f "$conf/pidvisor.ini" ] &&
	    echo "file /etc/pidvisor/pidvisor.ini $conf/pidvisor.ini 0644 0 0"
	for f in "$conf"/services/*.ini; do
		echo "file /etc/pidvisor/services/$(basename "$f") $f 0644 0 0"
	done
} >"$list"

mkdir -p "$(dirname "$out")"
"$gen" "$list" | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
