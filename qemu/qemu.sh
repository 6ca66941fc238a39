# qemu/qemu.sh - sourced: how we start QEMU, shared by boot.sh and test.sh.
#
# TCG unless KVM is really there (QEMU falls back to TCG by itself when
# /dev/kvm exists but cannot be used).  -no-reboot: a guest reboot ends
# QEMU, as poweroff does.

qemu_accel() {
	if [ -c /dev/kvm ] && [ -w /dev/kvm ]; then
		echo "-accel kvm -accel tcg"
	else
		echo "-accel tcg"
	fi
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
