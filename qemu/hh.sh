#!/bin/bash
# qemu/hh.sh RUNS SECONDS CONTENDER... - the head-to-head of low-memory
# killers (qemu/bench/hh-run.sh), RUNS boots of the bench guest per
# contender, on our kernel, with 512 MiB; each figure is the median of
# the runs.  Contenders: kernel (its OOM killer alone),
# earlyoom (Debian's, its defaults), earlyoom-prefer (--prefer and
# --avoid set as the kill priorities say), reap, mrelease, kill
# (pidvisor's killer with that reclaim path).  Prints one line each:
#   contender=C pings=N rtt_p50_ms=X rtt_p99_ms=X rtt_max_ms=X
#   episodes=N back_median_ms=X back_max_ms=X full_stall_ms=X
#   oom_kills=N kills=N wrong=N
# kills and wrong victims are read from the console, where pidvisor logs
# every death of a service between the measurement's marks: a victim is
# wrong if it is the protected one, or if a service with a higher
# kill_priority (more expendable) was alive.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/qemu/qemu.sh"
out=$top/build/qemu
runs=$1
secs=$2
shift 2

# median_line LINE...: one key=value line, each key's median of the lines.
median_line() {
	printf '%s\n' "$@" | tr ' ' '\n' | grep = | awk -F= '
		{ v[$1] = v[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1;
		    order[++n] = $1 } }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]; m = split(substr(v[k], 2), a, " ")
				for (x = 1; x <= m; x++)	# insertion sort
					for (y = x; y > 1 && a[y - 1] + 0 > a[y] + 0; y--) {
						t = a[y]; a[y] = a[y - 1]; a[y - 1] = t
					}
				printf "%s=%s ", k, a[int((m + 1) / 2)]
			}
			printf "\n"
		}'
}

# one CONTENDER RUN: a boot; its line, or "missing".
one() {
	local c=$1 r=$2 res con deaths
	res=$out/results-hh-$c-$r.txt
	con=$out/console-hh-$c-$r.log
	rm -f "$res" "$con"
	QEMU_MEM=512M timeout -k 5 $((secs + 300)) bash -c ". '$top/qemu/qemu.sh'; \
	    qemu_run '$top/build/kernel/bzImage' \
	    '$out/initramfs-bench.cpio.gz' \
	    'quiet pidvisor.hh=$c pidvisor.hhsecs=$secs -- -c /etc/pidvisor-hh/$c' \
	    -serial file:'$con' -serial file:'$res'" </dev/null || true
	if ! grep -q '^# done' "$res" 2>/dev/null; then
		echo missing
		return
	fi
	deaths=$(awk '
		BEGIN {
			prio["lat"] = -1; prio["bg80"] = 80; prio["bg60"] = 60
			prio["bg40"] = 40; prio["workload"] = 10
			alive["lat"] = alive["bg80"] = alive["bg60"] = 1
			alive["bg40"] = 1
		}
		/hh: the measurement starts/ { on = 1; next }
		/hh: the measurement ends/ { on = 0 }
		!on { next }
		match($0, /pidvisor: [a-z0-9]+: ready/) {
			split(substr($0, RSTART), f, /[: ]+/)
			alive[f[2]] = 1
		}
		match($0, /pidvisor: [a-z0-9]+: (backoff|failed) \(/) {
			split(substr($0, RSTART), f, /[: ]+/)
			n = f[2]
			if (!(n in prio)) next
			kills++
			bad = n == "lat"
			for (o in alive)
				if (alive[o] && o != n && prio[o] > prio[n])
					bad = 1
			wrong += bad
			alive[n] = 0
		}
		END { printf "kills=%d wrong=%d\n", kills, wrong }
	' "$con")
	echo "$(grep -v '^#' "$res" | tr '\n' ' ')$deaths"
}

for c in "$@"; do
	lines=()
	for r in $(seq 1 "$runs"); do
		l=$(one "$c" "$r")
		[ "$l" = missing ] && continue
		lines+=("$l")
	done
	if [ ${#lines[@]} -eq 0 ]; then
		echo "contender=$c missing"
		continue
	fi
	echo "contender=$c runs=${#lines[@]} $(median_line "${lines[@]}")"
done
