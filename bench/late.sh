# bench/late.sh - sourced by bench/timers.sh and qemu/debian/bench.sh:
# how late jobs due at :00 of each minute started, from their own
# CLOCK_REALTIME stamps (bench-svc stamp=FILE: one line of ns per run).

# late_stats FILE: per minute (stamps grouped by the minute they
# follow), "p50 p99 max" in ms of the lateness after :00.
late_stats() {
	awk '{ ns = $1; m = int(ns / 60e9); late = (ns - m * 60e9) / 1e6;
	    print m, late }' "$1" | sort -k1,1n -k2,2n | awk '
	function flush() {
		if (n == 0) return
		printf "%.1f %.1f %.1f\n", v[int((n - 1) * 0.5) + 1],
		    v[int((n - 1) * 0.99) + 1], v[n]
		n = 0
	}
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
	printf '%-30s %6s %22s %22s %22s\n' CONTENDER RUNS P50 P99 MAX
}

# late_line NAME MINUTES JOBS FILE: the table's row of a contender from
# its stamps: the first minute's runs are dropped (it may have started
# within it), then MINUTES minutes of JOBS runs each; per minute p50,
# p99 and max, and of those the median [min-max].
late_line() {
	local per
	per=$(sort -n "$4" | head -n "$((($2 + 1) * $3))" |
	    tail -n "$(($2 * $3))" >"$4.kept" && late_stats "$4.kept")
	printf '%-30s %6s %22s %22s %22s\n' "$1" "$2" \
	    "$(cut -d' ' -f1 <<<"$per" | late_med)" \
	    "$(cut -d' ' -f2 <<<"$per" | late_med)" \
	    "$(cut -d' ' -f3 <<<"$per" | late_med)"
	rm -f "$4.kept"
}
