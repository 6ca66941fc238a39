#!/bin/bash
# qemu/debian/boot.sh [IMAGE] [-- KERNEL ARGS] - boot the Debian image
# (make debian) with pidvisor as init, on the serial console.  ssh:
# 127.0.0.1:${PV_SSH_PORT:-2222} -> the guest's 22, nothing else
# reachable (user networking, restrict=on).  Extra kernel arguments, as
# init=/lib/systemd/systemd, after --.  PV_SERIAL2: a second serial
# port (the guest's ttyS1), as QEMU's -serial takes it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/qemu/qemu.sh"
img=${1:-$top/build/debian/rootfs.img}
shift || true
[ "${1:-}" = -- ] && shift
# shellcheck disable=SC2046
exec qemu-system-x86_64 $(qemu_accel) -M pc -cpu max -smp 2 \
    -m "${QEMU_MEM:-1G}" -nodefaults -no-user-config -no-reboot \
    -display none -serial "${PV_SERIAL:-mon:stdio}" \
    ${PV_SERIAL2:+-serial "$PV_SERIAL2"} \
    -kernel "$top/build/kernel/bzImage" \
    -append "console=ttyS0 root=/dev/vda ro rootfstype=ext4 panic=-1 $*" \
    -drive "file=$img,if=virtio,format=raw" \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${PV_SSH_PORT:-2222}-:22" \
    -device virtio-net-pci,netdev=n0
