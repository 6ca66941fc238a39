#!/bin/bash
# tests/guest/torture.sh - make torture: the full PID-reuse torture (100,000
# restarts, see t_torture in tests/guest/in-guest.sh) in the guest,
# as TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/qemu/qemu.sh"
out=$top/build/qemu
rm -f "$out/console-torture.log" "$out/results-torture.tap"
timeout -k 5 3500 bash -c ". '$top/qemu/qemu.sh'; qemu_run \
    '$top/build/kernel/bzImage' '$out/initramfs-test.cpio.gz' \
    'pidvisor.test=torture' -serial file:'$out/console-torture.log' \
    -serial file:'$out/results-torture.tap'" </dev/null
rc=$?
cat "$out/results-torture.tap"
[ "$rc" = 0 ] || echo "not ok - QEMU exited $rc (console: $out/console-torture.log)"
[ "$rc" = 0 ] && grep -q '^ok ' "$out/results-torture.tap" &&
    ! grep -q '^not ok' "$out/results-torture.tap"
