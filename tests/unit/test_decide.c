/*
 * test_decide.c - when the low-memory killer kills (decide.c) and whom
 * (victim.c), driven by traces: rows of what pressure.c reads (PSI
 * totals, /proc/meminfo, /proc/vmstat, the stall of services at their
 * own limits) and the decision each row must bring.  The files' own
 * text goes through the parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
	};

	return cmocka_run_group_tests_name("decide", tests, NULL, NULL);
}
