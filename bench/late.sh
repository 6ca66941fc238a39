# bench/late.sh - sourced by bench/timers.sh and qemu/debian/bench.sh:
# how late jobs due at :00 of each minute started, from their own
# CLOCK_REALTIME stamps (bench-svc stamp=FILE: one line of ns per run).
# A run is counted in the minute its stamp falls in: one that starts a
# minute late or more (none of the contenders measured so far) would
# count in the next.

# late_stats MINUTES FILE: for each minute after the first one seen
# (the contender may have started within it), MINUTES of them, "runs
# p50 p99 max" (ms of the lateness after :00).
late_stats() {
	awk '{ ns = $1; m = int(ns / 60e9); late = (ns - m * 60e9) / 1e6;
	    print m, late }' "$2" | sort -k1,1n -k2,2n | awk -v want="$1" '
	function flush() {
		if (n == 0) return
		printf "%d %.1f %.1f %.1f\n", n, v[int((n - 1) * 0.5) + 1],
		    v[int((n - 1) * 0.99) + 1], v[n]
		n = 0
	}
	NR == 1 { first = $1 }
	$1 == first || $1 > first + want { next }
	$1 != cur { flush(); cur = $1 }
	{ v[++n] = $2 }
	END { flush() }'
}

# late_med: "median [min-max]" of a column of numbers.
late_med() {
	sort -n | awk '{ v[++n] = $1 } END {
	    printf "%s [%s-%s]", v[int((n + 1) / 2)], v[1], v[n] }'
}

late_head() {
	printf '%-30s %18s %22s %22s %22s\n' CONTENDER "RUNS/MIN OF $1" \
	    P50 P99 MAX
}

# late_line NAME MINUTES FILE: the table's row of a contender from its
# stamps (late_stats): per minute the runs that started, p50, p99 and
# max, and of those the median [min-max].
late_line() {
	local per
	per=$(late_stats "$2" "$3")
	printf '%-30s %18s %22s %22s %22s\n' "$1" \
	    "$(cut -d' ' -f1 <<<"$per" | late_med)" \
	    "$(cut -d' ' -f2 <<<"$per" | late_med)" \
	    "$(cut -d' ' -f3 <<<"$per" | late_med)" \
	    "$(cut -d' ' -f4 <<<"$per" | late_med)"
}
