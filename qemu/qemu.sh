# qemu/qemu.sh - sourced: how we start QEMU, shared by boot.sh and test.sh.
#
# TCG unless KVM really runs a guest.  A /dev/kvm that QEMU can open is
# not enough: where nested virtualization is broken, QEMU takes KVM and
# the guest never runs (seen on the build machines).  So, once per
# build tree, a kernel is booted under KVM without an initramfs: it must
# reach its panic (and, with panic=-1 and -no-reboot, QEMU's exit) within
# 20 s.  The answer is kept in build/qemu/accel; QEMU_ACCEL=kvm|tcg
# overrides it.  -no-reboot: a guest reboot ends QEMU, as poweroff does.

qemu_accel() {
	local top cache kernel
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	cache=$top/build/qemu/accel
	kernel=$top/build/kernel/bzImage
	if [ -n "${QEMU_ACCEL:-}" ]; then
		echo "-accel $QEMU_ACCEL"
		return
	fi
	if [ ! -f "$kernel" ]; then
		echo "-accel tcg"
		return
	fi
	if [ ! -s "$cache" ]; then
		mkdir -p "$(dirname "$cache")"
		if [ -c /dev/kvm ] && [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -M pc -m 128M \
		    -nodefaults -no-user-config -display none -no-reboot \
		    -kernel "$kernel" -append "console=ttyS0 panic=-1" \
		    -serial stdio </dev/null 2>/dev/null |
		    grep -q "Kernel panic"; then
			echo kvm >"$cache"
		else
			echo tcg >"$cache"
		fi
	fi
	echo "-accel $(cat "$cache")"
}

# qemu_run KERNEL INITRD APPEND [QEMU ARGS...]
qemu_run() {
	local kernel=$1 initrd=$2 append=$3
	shift 3
	# shellcheck disable=SC2046
	qemu-system-x86_64 $(qemu_accel) -M pc -cpu max -smp 2 \
	    -m "${QEMU_MEM:-512M}" \
	    -nodefaults -no-user-config -display none -no-reboot \
	    -kernel "$kernel" -initrd "$initrd" \
	    -append "console=ttyS0 panic=-1 $append" "$@"
}
