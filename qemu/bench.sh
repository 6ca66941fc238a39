#!/bin/bash
# qemu/bench.sh RUNS RESTRICT[,RESTRICT] SIZE_MB... - the reclaim
# benchmark (bench/reclaim.c) in the guest, on our kernel; prints the
# guest's result lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/qemu.sh"
out=$top/build/qemu
runs=$1
restricts=$2
shift 2
sizes=$(IFS=,; echo "$*")
rm -f "$out/results-bench.txt"
QEMU_MEM=2G timeout -k 5 3600 bash -c ". '$top/qemu/qemu.sh'; qemu_run \
    '$top/build/kernel/bzImage' '$out/initramfs-bench.cpio.gz' \
    'quiet pidvisor.bench=$runs:$restricts:$sizes' \
    -serial file:'$out/console-bench.log' \
    -serial file:'$out/results-bench.txt'" </dev/null
# A serial line ends in CR LF: the CR would end up in bench.json.
tr -d '\r' <"$out/results-bench.txt"
grep -q '^# done' "$out/results-bench.txt"
