#!/bin/bash
# qemu/boot.sh - boot the guest with the console on this terminal.
# `pidvisorctl poweroff` in the guest ends QEMU; so does Ctrl-A X.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/qemu.sh"
echo "booting the pidvisor guest; Ctrl-A X quits QEMU, 'pidvisorctl poweroff' powers off"
qemu_run "$top/build/kernel/bzImage" "$top/build/qemu/initramfs.cpio.gz" \
    "quiet" -serial mon:stdio
