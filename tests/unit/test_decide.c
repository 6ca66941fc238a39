/*
 * test_decide.c - when the low-memory killer kills (decide.c) and whom
 * (victim.c), driven by traces: rows of what pressure.c reads (PSI
 * totals, /proc/meminfo, /proc/vmstat, the stall of services at their
 * own limits) and the decision each row must bring.  The files' own
 * text goes through the parsers.  Traces recorded in the guest are
 * replayed too (tests/unit/traces).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decide.h"
#include "util.h"
#include "victim.h"

#define MIB	(1ULL << 20)

/* One row of a trace: a look at time t, and what happens. */
struct row {
	int64_t		t_ms;
	uint64_t	some_ms, full_ms;	/* PSI totals */
	uint64_t	avail_mib;
	enum level	event;		/* a trigger fired first */
	enum level	want;		/* the decision */
	int		act;		/* then: */
#define KILLED	1			/* a kill was sent on it */
#define DIED	2			/* the victim died */
	uint64_t	self_ms;	/* stall at their own limits */
};

/* medium some 100ms 1s, critical full 300ms 1s; floor 64 MiB; 300 ms */
static const struct decide_conf conf = {
	.medium = { 100000, 1000000, false },
	.critical = { 300000, 1000000, true },
	.floor = 64 * MIB,
	.kill_timeout = 300,
};

static struct snap
snap_of(const struct row *r)
{
	struct snap	s = {
		.t_us = 1000000 + r->t_ms * 1000,
		.some_us = r->some_ms * 1000, .full_us = r->full_ms * 1000,
		.self_some_us = r->self_ms * 1000,
		.self_full_us = r->self_ms * 1000,
		.avail = r->avail_mib * MIB, .total = 1024 * MIB,
	};

	return s;
}

/* Run a trace; each row's decision must be its want. */
static void
run(struct decide *d, const struct row *rows, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		const struct row	*r = &rows[i];
		struct snap		 s = snap_of(r);
		enum level		 lv;

		if (r->event)
			decide_event(d, r->event, &s);
		lv = decide_tick(d, &s);
		if (lv != r->want)
			fail_msg("row %zu (t=%lld ms): %s, not %s", i,
			    (long long)r->t_ms, level_name(lv),
			    level_name(r->want));
		if (r->act == KILLED)
			decide_killed(d, &s);
		else if (r->act == DIED)
			decide_over(d, &s);
	}
}

/*
 * An event is not a decision: the stall must go on at the trigger's
 * rate for a tenth of its window (100 ms) of fresh looks.  Stall at
 * half time from t=0: the event at 0, the kill at 100 ms.
 */
static void
test_event_then_rate(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 10, 5, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 50, 25, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 90, 45, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 100, 50, 0, 500, 0, LEVEL_MEDIUM, KILLED, 0 },
	};
	struct decide		d;

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
}

/*
 * The kernel reports a window's stall after it: an event that comes
 * after the victim died, for stall from before, kills nothing; the
 * fast path runs out, and the event is counted stale.
 */
static void
test_stale_event(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 100, 60, 0, 500, 0, LEVEL_MEDIUM, KILLED, 0 },
		{ 120, 70, 0, 500, 0, LEVEL_NONE, DIED, 0 },
		/* the stall stopped with the death */
		{ 300, 70, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 600, 71, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 1300, 72, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 2400, 72, 0, 500, 0, LEVEL_NONE, 0, 0 },
	};
	struct decide		d;

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
	assert_int_equal(d.nstale, 1);
	assert_int_equal(decide_next_ms(&d, &(struct snap){ .t_us = 9000000,
	    .avail = UINT64_MAX }), DECIDE_SLOW_MS);
}

/*
 * A victim stuck in D state does not hold the next kill: once
 * pressure_kill_timeout (300 ms) is over, the stall going on kills
 * the next, a tenth of the window later.  No event comes meanwhile
 * (the kernel allows one a window).
 */
static void
test_stuck_victim(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 100, 50, 0, 500, 0, LEVEL_MEDIUM, KILLED, 0 },
		{ 200, 100, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 390, 195, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 400, 200, 0, 500, 0, LEVEL_NONE, 0, 0 },	/* over */
		{ 450, 225, 0, 500, 0, LEVEL_NONE, 0, 0 },
		{ 500, 250, 0, 500, 0, LEVEL_MEDIUM, KILLED, 0 },
	};
	struct decide		d;

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
}

/*
 * Below the floor there is no rate to wait for: a kill at once, none
 * while it is in flight, the next at once when the victim dies and
 * the floor is still breached.  The deficit is what is missing.
 */
static void
test_floor(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 300, 0, LEVEL_NONE, 0, 0 },
		{ 10, 0, 0, 40, 0, LEVEL_FLOOR, KILLED, 0 },
		{ 20, 0, 0, 30, 0, LEVEL_NONE, 0, 0 },
		{ 30, 0, 0, 50, 0, LEVEL_NONE, DIED, 0 },
		{ 30, 0, 0, 50, 0, LEVEL_FLOOR, KILLED, 0 },
		{ 40, 0, 0, 200, 0, LEVEL_NONE, DIED, 0 },
		{ 50, 0, 0, 200, 0, LEVEL_NONE, 0, 0 },
	};
	struct decide		d;
	struct snap		s = { .t_us = 5000000, .avail = 40 * MIB };

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
	assert_int_equal(decide_tick(&d, &s), LEVEL_FLOOR);
	assert_int_equal(d.deficit, 24 * MIB);
	/* Free swap is memory that can be had: no floor kill yet. */
	s.t_us += 1000000;
	s.swap_total = 256 * MIB;
	s.swap_free = 30 * MIB;
	decide_over(&d, &s);
	assert_int_equal(decide_tick(&d, &s), LEVEL_NONE);
	s.swap_free = 20 * MIB;
	assert_int_equal(decide_tick(&d, &s), LEVEL_FLOOR);
	assert_int_equal(d.deficit, 4 * MIB);
}

/* Full stall at 40%: critical, over a medium that also holds. */
static void
test_critical(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 500, LEVEL_CRITICAL, LEVEL_NONE, 0, 0 },
		{ 50, 40, 20, 500, 0, LEVEL_NONE, 0, 0 },
		{ 100, 80, 40, 500, 0, LEVEL_CRITICAL, KILLED, 0 },
	};
	const struct row	mild[] = {
		{ 0, 0, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 100, 80, 10, 500, 0, LEVEL_MEDIUM, 0, 0 },
	};
	struct decide		d;

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
	decide_init(&d, &conf);
	run(&d, mild, ARRAY_SIZE(mild));
}

/*
 * Medium pressure is critical when swap is nearly out, or the file
 * cache refaults a whole LRU a window (thrashing).
 */
static void
test_escalate(void **state)
{
	struct decide	d;
	struct snap	a = { .t_us = 1000000, .avail = UINT64_MAX,
			    .swap_total = 1000 * MIB, .swap_free = 500 * MIB,
			    .refault = 1000, .file_lru = 10000 };
	struct snap	b = a;

	(void)state;
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_MEDIUM, &a);
	b.t_us += 100000;
	b.some_us = 50000;
	b.refault = 1000 + 999;		/* 99.9% a window: not yet */
	assert_int_equal(decide_tick(&d, &b), LEVEL_MEDIUM);
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_MEDIUM, &a);
	b.refault = 1000 + 1000;	/* 100% */
	assert_int_equal(decide_tick(&d, &b), LEVEL_CRITICAL);
	assert_int_equal(d.thrash_pct, 100);
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_MEDIUM, &a);
	b.refault = 1000;
	b.swap_free = 99 * MIB;		/* under a tenth */
	assert_int_equal(decide_tick(&d, &b), LEVEL_CRITICAL);
}

/*
 * The stall is that of services held at their own memory_high: not a
 * reason to kill another.  Counted; and stall of others, on top of it,
 * is.
 */
static void
test_self_limited(void **state)
{
	const struct row	rows[] = {
		{ 0, 0, 0, 500, LEVEL_MEDIUM, LEVEL_NONE, 0, 0 },
		{ 100, 50, 0, 500, 0, LEVEL_NONE, 0, 48 },
		{ 200, 100, 0, 500, 0, LEVEL_NONE, 0, 96 },
		{ 300, 160, 0, 500, 0, LEVEL_MEDIUM, 0, 100 },
	};
	struct decide		d;

	(void)state;
	decide_init(&d, &conf);
	run(&d, rows, ARRAY_SIZE(rows));
	assert_int_equal(d.nself, 2);
}

/*
 * Medium stall while a tenth of the memory is still to be had (as after
 * a kill, when what was swapped out comes back in) kills nothing; the
 * same stall with the memory short does; critical stall always does.
 */
static void
test_ample(void **state)
{
	struct decide	d;
	struct snap	a = { .t_us = 1000000, .avail = UINT64_MAX,
			    .limit = 512 * MIB, .room = 300 * MIB };
	struct snap	b = a;

	(void)state;
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_MEDIUM, &a);
	b.t_us += 100000;
	b.some_us = 60000;
	assert_int_equal(decide_tick(&d, &b), LEVEL_NONE);
	assert_int_equal(d.nample, 1);
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_MEDIUM, &a);
	b.room = 40 * MIB;
	assert_int_equal(decide_tick(&d, &b), LEVEL_MEDIUM);
	decide_init(&d, &conf);
	decide_event(&d, LEVEL_CRITICAL, &a);
	b.room = 300 * MIB;
	b.full_us = 40000;
	assert_int_equal(decide_tick(&d, &b), LEVEL_CRITICAL);
}

/* When to look: the fast path, near the floor, far from it, never. */
static void
test_next_ms(void **state)
{
	struct decide_conf	nofloor = conf;
	struct decide		d;
	struct snap		s = { .t_us = 1000000 };

	(void)state;
	decide_init(&d, &conf);
	s.avail = 64 * MIB + (1ULL << 30);	/* 1 GiB over: 500 ms */
	assert_int_equal(decide_next_ms(&d, &s), 500);
	s.avail = 64 * MIB + 10 * MIB;
	assert_int_equal(decide_next_ms(&d, &s), DECIDE_FAST_MS);
	s.avail = 64 * MIB + (8ULL << 30);
	assert_int_equal(decide_next_ms(&d, &s), DECIDE_SLOW_MS);
	decide_event(&d, LEVEL_MEDIUM, &s);
	assert_int_equal(decide_next_ms(&d, &s), DECIDE_FAST_MS);
	nofloor.floor = 0;
	decide_init(&d, &nofloor);
	assert_int_equal(decide_next_ms(&d, &s), -1);
}

/* The kernel's text, as 6.1 writes it. */
static void
test_parse(void **state)
{
	struct snap	s = { 0 };
	uint64_t	some, full, anon;

	(void)state;
	assert_int_equal(psi_parse("some avg10=1.50 avg60=0.30 avg300=0.06 "
	    "total=123456\nfull avg10=0.70 avg60=0.10 avg300=0.02 "
	    "total=65432\n", &some, &full), 0);
	assert_int_equal(some, 123456);
	assert_int_equal(full, 65432);
	assert_int_equal(psi_parse("bogus", &some, &full), -1);
	assert_int_equal(meminfo_parse("MemTotal:        2000000 kB\n"
	    "MemFree:          100000 kB\nMemAvailable:     300000 kB\n"
	    "Active(file):      20000 kB\nInactive(file):    20000 kB\n"
	    "SwapTotal:        500000 kB\nSwapFree:         400000 kB\n", &s),
	    0);
	assert_int_equal(s.total, 2000000ULL << 10);
	assert_int_equal(s.avail, 300000ULL << 10);
	assert_int_equal(s.swap_free, 400000ULL << 10);
	assert_int_equal(s.file_lru, 40000 / 4);
	assert_int_equal(meminfo_parse("MemTotal: 1 kB\n", &s), -1);
	assert_int_equal(vmstat_parse("nr_free_pages 3\n"
	    "workingset_refault_anon 7\nworkingset_refault_file 42\n", &s), 0);
	assert_int_equal(s.refault, 42);
	assert_int_equal(memstat_anon("anon 4096\nfile 8192\n", &anon), 0);
	assert_int_equal(anon, 4096);
	assert_int_equal(memstat_anon("file 8192\nanon_thp 0\n", &anon), -1);
}

static void
test_priority_then_size(void **state)
{
	const struct victim	v[] = {
		{ 10, 900 * MIB, 0 },	/* big, but more important */
		{ 50, 20 * MIB, 0 },
		{ 50, 40 * MIB, 0 },	/* highest priority, then the biggest */
		{ -1, 2000 * MIB, 0 },	/* never */
		{ 0, 1 * MIB, 0 },
	};

	(void)state;
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 0), 2);
	assert_int_equal(victim_pick(v, 2, 0, 0), 1);
	assert_int_equal(victim_pick(v, 1, 0, 0), 0);
	/* At medium pressure, only from the floor's priority up. */
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 60, 0), -1);
	assert_int_equal(victim_pick(v, 1, 11, 0), -1);
}

/* A deficit: a victim that frees it goes first, whatever its rank. */
static void
test_deficit(void **state)
{
	const struct victim	v[] = {
		{ 50, 40 * MIB, 0 },
		{ 10, 300 * MIB, 0 },
		{ 10, 200 * MIB, 0 },
		{ 0, 500 * MIB, 0 },
	};

	(void)state;
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 30 * MIB), 0);
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 150 * MIB), 1);
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 400 * MIB), 3);
	/* None frees it: the first in rank. */
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 900 * MIB), 0);
}

/* Sizes within an eighth tie; the faster growing goes. */
static void
test_growth_ties(void **state)
{
	const struct victim	v[] = {
		{ 20, 100 * MIB, 0 },
		{ 20, 95 * MIB, 30 * MIB },	/* a leak */
		{ 20, 60 * MIB, 60 * MIB },	/* smaller by more than 1/8 */
	};
	const struct victim	z[] = { { 0, 0, 0 }, { 0, 0, 5 } };

	(void)state;
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v), 0, 0), 1);
	assert_int_equal(victim_pick(v, 1, 0, 0), 0);
	/* Nothing to free: no victim. */
	assert_int_equal(victim_pick(z, ARRAY_SIZE(z), 0, 0), -1);
}

/*
 * lmkd's rules (pressure_policy = lmkd, lmkd.c): one row a look, with
 * what lmkd goes by: free memory against the zones' watermarks (min 10,
 * low 20, high 30 MiB), free swap of 256, refaults of a file LRU of
 * 1000 pages, the pages kswapd and direct reclaim scanned.
 */
struct lrow {
	int64_t		t_ms;
	uint64_t	free_mib, swap_mib;
	uint64_t	refault, kswapd, direct;
	enum level	event;
	enum level	want;
	int		act;
};

static const struct decide_conf lconf = {
	.medium = { 70000, 1000000, false },
	.critical = { 700000, 1000000, true },
	.kill_timeout = 100,
	.lmkd = true,
};

static void
lrun(struct decide *d, const struct lrow *rows, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		const struct lrow	*r = &rows[i];
		struct snap		 s = {
			.t_us = 1000000 + r->t_ms * 1000,
			.avail = 400 * MIB, .total = 1024 * MIB,
			.free = r->free_mib * MIB,
			.swap_total = 256 * MIB, .swap_free = r->swap_mib * MIB,
			.refault = r->refault, .file_lru = 1000,
			.scan_kswapd = r->kswapd, .scan_direct = r->direct,
		};
		enum level		 lv;

		if (r->event)
			decide_event(d, r->event, &s);
		lv = decide_tick(d, &s);
		if (lv != r->want)
			fail_msg("row %zu (t=%lld ms): %s, not %s (%s)", i,
			    (long long)r->t_ms, level_name(lv),
			    level_name(r->want), d->lk.why ? d->lk.why : "-");
		if (r->act == KILLED)
			decide_killed(d, &s);
		else if (r->act == DIED)
			decide_over(d, &s);
	}
}

static void
lmkd_init(struct decide *d)
{
	decide_init(d, &lconf);
	d->lk.wmark[WMARK_MIN] = 10 * MIB;
	d->lk.wmark[WMARK_LOW] = 20 * MIB;
	d->lk.wmark[WMARK_HIGH] = 30 * MIB;
}

/*
 * Nothing while the kernel does not reclaim, whatever the event; in
 * reclaim, each rule in lmkd's order: thrashing under the low watermark
 * (medium: perceptible services spared; the limit cut by a tenth), the
 * min watermark on the first look after a kill, a critical event, swap
 * low under the low watermark.  A kill in flight holds the next until
 * its victim dies or pressure_kill_timeout.
 */
static void
test_lmkd_rules(void **state)
{
	const struct lrow	rows[] = {
		/* an event, but no reclaim: nothing */
		{ 0, 25, 200, 0, 0, 0, LEVEL_MEDIUM, LEVEL_NONE, 0 },
		/* kswapd: the reclaim starts, the refaults count from here */
		{ 100, 25, 200, 0, 100, 0, 0, LEVEL_NONE, 0 },
		{ 200, 15, 200, 500, 200, 0, 0, LEVEL_NONE, 0 },
		{ 300, 15, 200, 1100, 300, 0, 0, LEVEL_MEDIUM, KILLED },
		{ 310, 8, 200, 1100, 310, 0, 0, LEVEL_NONE, 0 },
		{ 350, 8, 200, 1100, 320, 0, 0, LEVEL_NONE, DIED },
		{ 360, 8, 200, 1100, 330, 0, 0, LEVEL_CRITICAL, KILLED },
		{ 400, 40, 200, 1100, 340, 0, 0, LEVEL_NONE, DIED },
		{ 410, 40, 200, 1100, 350, 0, 0, LEVEL_NONE, 0 },
		/* a critical event in reclaim; then one not in reclaim */
		{ 500, 40, 200, 1100, 360, 0, LEVEL_CRITICAL, LEVEL_CRITICAL,
		    KILLED },
		{ 550, 40, 200, 1100, 360, 0, 0, LEVEL_NONE, DIED },
		{ 600, 40, 200, 1100, 360, 0, LEVEL_CRITICAL, LEVEL_NONE, 0 },
		/* swap low: over the low watermark, nothing; under, a kill */
		{ 700, 25, 10, 1100, 380, 0, 0, LEVEL_NONE, 0 },
		{ 710, 15, 10, 1100, 390, 0, 0, LEVEL_CRITICAL, KILLED },
		/* pressure_kill_timeout (100 ms) over: the victim is stuck */
		{ 780, 15, 10, 1100, 400, 0, 0, LEVEL_NONE, 0 },
		{ 815, 15, 10, 1100, 410, 0, 0, LEVEL_CRITICAL, 0 },
	};
	struct decide		d;

	(void)state;
	lmkd_init(&d);
	lrun(&d, rows, 4);
	assert_string_equal(d.lk.why, "under the low watermark and thrashing");
	assert_int_equal(d.lk.limit, 90);
	lrun(&d, rows + 4, ARRAY_SIZE(rows) - 4);
	assert_string_equal(d.lk.why, "swap low and under the low watermark");
	assert_int_equal(d.lk.limit, 100);	/* a new reclaim, afresh */
	assert_int_equal(decide_next_ms(&d, &(struct snap){
	    .t_us = 1000000 + 815000, .avail = UINT64_MAX }), DECIDE_FAST_MS);
}

/*
 * Direct reclaim with refaults over the limit kills at medium level,
 * over the high watermark too, and keeps lmkd polling; with swap left
 * it polls every 100 ms, and stops a window after the last reason.
 */
static void
test_lmkd_direct(void **state)
{
	const struct lrow	rows[] = {
		{ 0, 50, 200, 0, 0, 0, LEVEL_MEDIUM, LEVEL_NONE, 0 },
		{ 100, 50, 200, 0, 0, 10, 0, LEVEL_NONE, 0 },
		{ 200, 50, 200, 900, 0, 20, 0, LEVEL_NONE, 0 },
		{ 300, 50, 200, 1200, 0, 30, 0, LEVEL_MEDIUM, KILLED },
		{ 350, 50, 200, 1200, 0, 30, 0, LEVEL_NONE, DIED },
		/* after the kill the refaults count afresh */
		{ 400, 50, 200, 1300, 0, 40, 0, LEVEL_NONE, 0 },
		{ 1300, 50, 200, 1300, 0, 40, 0, LEVEL_NONE, 0 },
		{ 2400, 50, 200, 1300, 0, 40, 0, LEVEL_NONE, 0 },
	};
	struct decide		d;
	struct snap		s = { .t_us = 1000000 + 1300000,
				    .avail = UINT64_MAX };

	(void)state;
	lmkd_init(&d);
	lrun(&d, rows, ARRAY_SIZE(rows) - 1);
	assert_null(d.lk.why);
	assert_int_equal(decide_next_ms(&d, &s), LMKD_SLOW_MS);
	lrun(&d, rows + ARRAY_SIZE(rows) - 1, 1);
	s.t_us = 1000000 + 2400000;
	assert_int_equal(decide_next_ms(&d, &s), -1);
}

/* /proc/zoneinfo: populated zones' marks with their largest protection. */
static void
test_lmkd_wmarks(void **state)
{
	const char	*zi =
	    "Node 0, zone      DMA\n  per-node stats\n      nr_free 1\n"
	    "  pages free     3840\n        boost    0\n        min      37\n"
	    "        low      46\n        high     55\n        spanned  4095\n"
	    "        present  3998\n        managed  3840\n"
	    "        protection: (0, 3018, 6730, 6730, 6730)\n"
	    "  pagesets\n    cpu: 0\n              count: 0\n"
	    "              high:  0\n              batch: 1\n"
	    "Node 0, zone    DMA32\n  pages free     772848\n"
	    "        min      7561\n        low      9451\n"
	    "        high     11341\n        present  782336\n"
	    "        protection: (0, 0, 3712, 3712, 3712)\n"
	    "Node 0, zone  Movable\n  pages free     0\n        min      32\n"
	    "        low      32\n        high     32\n        present  0\n"
	    "        protection: (0, 0, 0, 0, 0)";
	uint64_t	 w[3];

	(void)state;
	assert_int_equal(lmkd_wmarks(zi, w), 0);
	assert_int_equal(w[WMARK_MIN], (37 + 6730 + 7561 + 3712) << 12);
	assert_int_equal(w[WMARK_LOW], (46 + 6730 + 9451 + 3712) << 12);
	assert_int_equal(w[WMARK_HIGH], (55 + 6730 + 11341 + 3712) << 12);
	assert_int_equal(lmkd_wmarks("Node 0, zone Movable\n present 0\n",
	    w), -1);
	assert_int_equal(lmkd_wmarks("", w), -1);
}

/*
 * Traces recorded in the guest (tests/unit/traces/README): every call
 * pidvisor made into decide.c in a run of the pressure benchmark, with
 * the snapshot it made it on.  Replayed, each look must decide what it
 * decided there, and the kills are counted for the checks below.
 */
struct replay {
	unsigned	looks, events, kills, overs;
	int64_t		first_kill_us;	/* since the first line; -1 none */
	int64_t		last_kill_us;
	int64_t		first_event_us;
};

static enum level
level_of(const char *w)
{
	return !strncmp(w, "medium", 6) ? LEVEL_MEDIUM :
	    !strncmp(w, "critical", 8) ? LEVEL_CRITICAL :
	    !strncmp(w, "floor", 5) ? LEVEL_FLOOR : LEVEL_NONE;
}

static void
replay(const char *name, struct replay *r)
{
	char			 path[256], line[1024], m[8], c[8];
	struct decide_conf	 conf = { 0 };
	struct decide		 d;
	struct snap		 s;
	unsigned long long	 floor, w[3];
	unsigned		 timeout, n = 0;
	int			 lmkd;
	int64_t			 t0 = -1;
	FILE			*f;
	char			*p, *q;

	memset(r, 0, sizeof(*r));
	r->first_kill_us = r->first_event_us = -1;
	snprintf(path, sizeof(path), "tests/unit/traces/%s", name);
	if ((f = fopen(path, "r")) == NULL)
		fail_msg("%s: %m (run from the top of the tree)", path);
	decide_init(&d, &conf);
	while (fgets(line, sizeof(line), f) != NULL) {
		n++;
		if ((p = strstr(line, "pressure: trace ")) == NULL)
			continue;
		p += 16;
		if (!strncmp(p, "conf ", 5)) {
			if (sscanf(p, "conf medium=%7s %u %u critical=%7s %u %u",
			    m, &conf.medium.stall, &conf.medium.window, c,
			    &conf.critical.stall, &conf.critical.window) != 6)
				fail_msg("%s:%u: bad conf", path, n);
			conf.medium.full = !strcmp(m, "full");
			conf.critical.full = !strcmp(c, "full");
			decide_init(&d, &conf);
			continue;
		}
		if (snap_scan(p, &s) < 0 || (q = strstr(p, " floor=")) == NULL ||
		    sscanf(q, " floor=%llu timeout=%u lmkd=%d wmark=%llu,%llu,"
		    "%llu", &floor, &timeout, &lmkd, &w[0], &w[1], &w[2]) != 6)
			fail_msg("%s:%u: bad line", path, n);
		conf.floor = floor;
		conf.kill_timeout = timeout;
		conf.lmkd = lmkd;
		d.lk.wmark[0] = w[0];
		d.lk.wmark[1] = w[1];
		d.lk.wmark[2] = w[2];
		if (t0 < 0)
			t0 = s.t_us;
		if (!strncmp(p, "event ", 6)) {
			decide_event(&d, level_of(p + 6), &s);
			if (r->events++ == 0)
				r->first_event_us = s.t_us - t0;
		} else if (!strncmp(p, "over ", 5)) {
			decide_over(&d, &s);
			r->overs++;
		} else if (!strncmp(p, "look ", 5)) {
			enum level	want = level_of(p + 5), lv;

			r->looks++;
			lv = decide_tick(&d, &s);
			if (lv != want)
				fail_msg("%s:%u: %s, not %s as recorded", path,
				    n, level_name(lv), level_name(want));
			if (lv == LEVEL_NONE)
				continue;
			q = p + 5 + strlen(level_name(lv)) + 1;
			if (!strncmp(q, "killed", 6)) {
				decide_killed(&d, &s);
				if (r->kills++ == 0)
					r->first_kill_us = s.t_us - t0;
				r->last_kill_us = s.t_us - t0;
			} else {
				decide_none(&d, &s);
			}
		}
	}
	fclose(f);
	if (r->looks == 0)
		fail_msg("%s: no looks", path);
}

/*
 * fast-leak (500 MiB/s), pidvisor's rules: one kill, within a window of
 * the first event; spike (swap takes it): none; file-thrash: one; the
 * stuck scenario: the stuck service first (the more expendable), then
 * the leak once pressure_kill_timeout (300 ms) is over, not held.
 */
static void
test_trace_pidvisor(void **state)
{
	struct replay	r;

	(void)state;
	replay("fast-leak-pidvisor.trace", &r);
	assert_int_equal(r.kills, 1);
	assert_true(r.first_event_us >= 0);
	assert_in_range(r.first_kill_us - r.first_event_us, 0, 1000000);
	replay("spike-pidvisor.trace", &r);
	assert_int_equal(r.kills, 0);
	replay("file-thrash-pidvisor.trace", &r);
	assert_int_equal(r.kills, 1);
	replay("stuck-pidvisor.trace", &r);
	assert_int_equal(r.kills, 2);
	assert_in_range(r.last_kill_us - r.first_kill_us, 300000, 1300000);
}

/* The same runs under lmkd's rules (lmkd-trace) replay as they went. */
static void
test_trace_lmkd(void **state)
{
	struct replay	r;

	(void)state;
	replay("fast-leak-lmkd.trace", &r);
	assert_int_equal(r.kills, 1);
	replay("file-thrash-lmkd.trace", &r);
	assert_true(r.looks > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_then_rate),
		cmocka_unit_test(test_stale_event),
		cmocka_unit_test(test_stuck_victim),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_critical),
		cmocka_unit_test(test_escalate),
		cmocka_unit_test(test_self_limited),
		cmocka_unit_test(test_ample),
		cmocka_unit_test(test_next_ms),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_priority_then_size),
		cmocka_unit_test(test_deficit),
		cmocka_unit_test(test_growth_ties),
		cmocka_unit_test(test_lmkd_rules),
		cmocka_unit_test(test_lmkd_direct),
		cmocka_unit_test(test_lmkd_wmarks),
		cmocka_unit_test(test_trace_pidvisor),
		cmocka_unit_test(test_trace_lmkd),
	};

	return cmocka_run_group_tests_name("decide", tests, NULL, NULL);
}
