#!/bin/bash
# qemu/bench-pressure.sh [--scen S1,S2...] [--again] RUNS SECONDS
#     CONTENDER... - the
# pressure benchmark (`make bench-pressure`): one boot of the bench guest
# (our kernel, 512 MiB, 256 MiB of zram swap) per contender, which runs
# every scenario RUNS times for SECONDS each (qemu/bench/bp-run.sh; the
# scenarios and their ground truth are there).  Contenders: the
# directories of qemu/bench/bp but common.  Prints a table per
# scenario, median [min-max] of the runs, and writes every run and every
# cell's medians to build/bench-pressure.json (one JSON object a line).
# --again: no boot, the table again from the contenders' last results
# (build/qemu/results-bp-CONTENDER.txt).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/qemu
json=$top/build/bench-pressure.json
scens=fast-leak,slow-leak,file-thrash,spike,multi-process,starved,stuck
again=0
while [ $# -gt 0 ]; do
	case $1 in
	--scen) scens=$2; shift 2 ;;
	--again) again=1; shift ;;
	*) break ;;
	esac
done
runs=$1
secs=$2
shift 2
nscen=$(echo "$scens" | tr , '\n' | grep -c .)
lines=$out/bench-pressure.lines
: >"$lines"

# Each contender's configuration, checked here first: a guest whose
# pidvisor refuses it would only wait for its deadline.
chk=$(mktemp -d)
trap 'rm -rf "$chk"' EXIT
for c in "$@"; do
	[ $again = 1 ] && break
	d=$top/qemu/bench/bp/$c
	[ -f "$d/pidvisor.ini" ] || { echo "no contender $c" >&2; exit 2; }
	rm -rf "${chk:?}"/*
	mkdir -p "$chk/services"
	cp "$d/pidvisor.ini" "$chk/"
	cp "$top"/qemu/bench/bp/common/*.ini "$chk/services/"
	find "$d" -name '*.ini' ! -name pidvisor.ini -exec cp {} "$chk/services/" \;
	"$top/build/bin/pidvisor" --check -c "$chk" 2>&1 | grep -v warning |
	    grep -q ", no errors" || {
		"$top/build/bin/pidvisor" --check -c "$chk" >&2
		exit 1
	}
done

for c in "$@"; do
	res=$out/results-bp-$c.txt
	con=$out/console-bp-$c.log
	if [ $again = 1 ]; then
		grep '^scenario=' "$res" >>"$lines" || true
		continue
	fi
	rm -f "$res" "$con"
	echo "# $c: $nscen scenarios x $runs runs x ${secs}s" >&2
	QEMU_MEM=512M timeout -k 5 $((nscen * runs * (secs + 60) + 300)) \
	    bash -c ". '$top/qemu/qemu.sh'; qemu_run \
	    '$top/build/kernel/bzImage' '$out/initramfs-bench.cpio.gz' \
	    'quiet pidvisor.bp=$c pidvisor.bpruns=$runs pidvisor.bpsecs=$secs pidvisor.bpscen=$scens -- -c /etc/pidvisor-bp/$c' \
	    -serial file:'$con' -serial file:'$res'" </dev/null || true
	grep '^#' "$res" >&2 || true
	grep -q '^# done' "$res" || echo "# $c: no end (see $con)" >&2
	grep '^scenario=' "$res" >>"$lines" || true
done

# The cells: each figure's median, min and max over the runs.
awk -v secs="$secs" -v json="$json" '
function med(k,   m, a, x, y, t) {
	m = split(substr(v[k], 2), a, " ")
	for (x = 1; x <= m; x++)
		for (y = x; y > 1 && a[y - 1] + 0 > a[y] + 0; y--) {
			t = a[y]; a[y] = a[y - 1]; a[y - 1] = t
		}
	lo[k] = a[1]; hi[k] = a[m]
	return a[int((m + 1) / 2)]
}
{
	delete f
	for (i = 1; i <= NF; i++) {
		split($i, kv, "="); f[kv[1]] = kv[2]
	}
	cell = f["scenario"] " " f["contender"]
	if (!(f["scenario"] in sseen)) { sseen[f["scenario"]] = 1
	    sorder[++nscen] = f["scenario"] }
	if (!(f["contender"] in cseen)) { cseen[f["contender"]] = 1
	    corder[++ncont] = f["contender"] }
	seen[cell] = 1
	n[cell]++
	f["progress"] = f["pings"] / (secs * 100)
	f["killed_per_needed"] = f["need_mib"] > 0 ? \
	    f["killed_mib"] / f["need_mib"] : (f["killed_mib"] > 0 ? 99 : 0)
	split("rtt_p99_ms rtt_p999_ms rtt_max_ms over_slo_ms stall_max_ms " \
	    "onset_to_kill_ms kills wrong unneeded killed_per_needed progress",
	    keys, " ")
	for (i in keys)
		v[cell, keys[i]] = v[cell, keys[i]] " " f[keys[i]]
	raw = sprintf("{\"scenario\":\"%s\",\"contender\":\"%s\",\"run\":%d", \
	    f["scenario"], f["contender"], f["run"])
	for (i = 1; i <= 11; i++)
		raw = raw sprintf(",\"%s\":%s", keys[i], f[keys[i]] + 0)
	print raw ",\"victims\":\"" f["victims"] "\"}" >json
}
END {
	hdr = "%-18s %4s %16s %16s %18s %16s %18s %17s %5s %5s %5s %6s %5s\n"
	last = ""
	for (i = 1; i <= nscen * ncont; i++) {
		c = sorder[int((i - 1) / ncont) + 1] " " \
		    corder[(i - 1) % ncont + 1]
		if (!(c in seen))
			continue
		split(c, cs, " ")
		if (cs[1] != last) {
			printf "\n%s: median [min-max] of the runs\n", cs[1]
			printf hdr, "CONTENDER", "RUNS", "P99 MS", "P99.9 MS",
			    "MAX MS", "OVER SLO MS", "LONGEST STALL MS",
			    "ONSET-KILL MS",
			    "KILLS", "WRONG", "UNNEED", "MIB/N", "PROGR"
			last = cs[1]
		}
		line = sprintf("{\"scenario\":\"%s\",\"contender\":\"%s\"," \
		    "\"runs\":%d", cs[1], cs[2], n[c])
		for (k = 1; k <= 11; k++) {
			m = med(c SUBSEP keys[k])
			fig[k] = m; flo[k] = lo[c SUBSEP keys[k]]
			fhi[k] = hi[c SUBSEP keys[k]]
			line = line sprintf(",\"%s\":{\"median\":%s,\"min\":%s," \
			    "\"max\":%s}", keys[k], m + 0, flo[k] + 0, fhi[k] + 0)
		}
		print line "}" >json
		printf "%-18s %4d %16s %16s %18s %16s %18s %17s %5s %5s %5s %6.2f %5.2f\n",
		    cs[2], n[c],
		    sprintf("%.1f [%.0f-%.0f]", fig[1], flo[1], fhi[1]),
		    sprintf("%.1f [%.0f-%.0f]", fig[2], flo[2], fhi[2]),
		    sprintf("%.0f [%.0f-%.0f]", fig[3], flo[3], fhi[3]),
		    sprintf("%.0f [%.0f-%.0f]", fig[4], flo[4], fhi[4]),
		    sprintf("%.0f [%.0f-%.0f]", fig[5], flo[5], fhi[5]),
		    sprintf("%d [%d-%d]", fig[6], flo[6], fhi[6]),
		    fig[7], fig[8], fig[9], fig[10], fig[11]
	}
}' "$lines"
