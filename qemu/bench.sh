#!/bin/bash
# qemu/bench.sh RUNS SIZE_MB... - the reclaim benchmark in the guest, on
# our kernel; prints the guest's result lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/qemu.sh"
out=$top/build/qemu
runs=$1
shift
sizes=$(IFS=,; echo "$*")
rm -f "$out/results-bench.txt"
QEMU_MEM=2G timeout -k 5 900 bash -c ". '$top/qemu/qemu.sh'; qemu_run \
    '$top/build/kernel/bzImage' '$out/initramfs-bench.cpio.gz' \
    'quiet pidvisor.bench=$runs:$sizes' \
    -serial file:'$out/console-bench.log' \
    -serial file:'$out/results-bench.txt'" </dev/null
cat "$out/results-bench.txt"
grep -q '^# done' "$out/results-bench.txt"
