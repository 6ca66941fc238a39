/*
 * decide.c - when the low-memory killer kills, and at which level.
 *
 * Pure: it reads nothing and kills nothing.  pressure.c hands it
 * snapshots (struct snap: the PSI totals, /proc/meminfo, /proc/vmstat)
 * as things happen, and the unit tests hand it recorded ones.
 *
 * A PSI trigger's event is not itself the decision.  The kernel checks a
 * trigger every tenth of its window and allows one event per window, so
 * an event may describe stall that a kill has already ended, and none
 * comes for a window after it.  An event opens the fast path instead:
 * for one window, a snapshot every DECIDE_FAST_MS, and a kill once the
 * stall since the event (or since the last kill was over) goes at the
 * trigger's rate over at least a tenth of its window, as the kernel
 * measures it.  A kill is over when its victim is dead or after
 * pressure_kill_timeout, whichever comes first, so that a victim stuck
 * in D state does not hold the next kill; after it the fast path goes on
 * for another window.  Below the memory floor no rate is waited for.
 * The floor is of memory that can still be had: MemAvailable and free
 * swap together (earlyoom waits for both too), so that a spike that swap
 * can take kills nothing; pressure from swapping is the triggers' to see.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"

const char *
level_name(enum level lv)
{
	switch (lv) {
	case LEVEL_MEDIUM:	return "medium";
	case LEVEL_CRITICAL:	return "critical";
	case LEVEL_FLOOR:	return "floor";
	default:		return "none";
	}
}

void
decide_init(struct decide *d, const struct decide_conf *c)
{
	memset(d, 0, sizeof(*d));
	d->c = c;
}

/* Memory that can still be had: MemAvailable and free swap. */
static uint64_t
decide_room(const struct snap *s)
{
	if (s->avail == UINT64_MAX)
		return UINT64_MAX;
	return s->avail + s->swap_free;
}

/* The longer window of the two triggers, in us. */
int64_t
decide_window(const struct decide *d)
{
	uint32_t	w = d->c->medium.window;

	if (d->c->critical.stall && d->c->critical.window > w)
		w = d->c->critical.window;
	return w ? w : 1000000;
}

static bool
decide_fast(const struct decide *d, const struct snap *s)
{
	return s->t_us < d->fast_until;
}

/* Look again from here, for one window. */
static void
decide_rebase(struct decide *d, const struct snap *s)
{
	d->base = *s;
	d->have_base = true;
	d->fast_until = s->t_us + decide_window(d);
}

/* A trigger fired: watch closely for one window. */
void
decide_event(struct decide *d, enum level lv, const struct snap *s)
{
	/* Afresh, or going on; the base slides by a window at most. */
	if (!decide_fast(d, s) || !d->have_base ||
	    s->t_us - d->base.t_us > decide_window(d))
		decide_rebase(d, s);
	else
		d->fast_until = s->t_us + decide_window(d);
	if (lv > d->event)
		d->event = lv;
}

/*
 * Does the stall since the base go at trigger t's rate?  0 no, 1 yes,
 * -1 not yet known (less than a tenth of its window seen), 2 yes but
 * it is the stall of services held at their own memory_high.
 */
static int
decide_rate(const struct decide *d, const struct trigger *t,
    const struct snap *s)
{
	int64_t		span = s->t_us - d->base.t_us;
	uint64_t	stall, self;

	if (t->stall == 0)
		return 0;
	if (span < (int64_t)t->window / 10 || span <= 0)
		return -1;
	stall = t->full ? s->full_us - d->base.full_us :
	    s->some_us - d->base.some_us;
	if (stall * t->window < (uint64_t)t->stall * (uint64_t)span)
		return 0;
	self = t->full ? s->self_full_us - d->base.self_full_us :
	    s->self_some_us - d->base.self_some_us;
	/* A service gone, or its cgroup made anew, counts for nothing. */
	if ((t->full ? s->self_full_us < d->base.self_full_us :
	    s->self_some_us < d->base.self_some_us))
		self = 0;
	if (self * 10 >= stall * 9)
		return 2;
	return 1;
}

/* Medium pressure with swap nearly gone or the file cache thrashing. */
static enum level
decide_escalate(struct decide *d, const struct snap *s)
{
	int64_t		span = s->t_us - d->base.t_us;
	uint64_t	re = s->refault - d->base.refault;

	d->thrash_pct = 0;
	if (span > 0 && s->file_lru > 0)
		d->thrash_pct = (uint32_t)(re * 100 *
		    (uint64_t)decide_window(d) / (uint64_t)span / s->file_lru);
	if (s->swap_total > 0 &&
	    s->swap_free < s->swap_total / DECIDE_SWAP_LOW_DIV)
		return LEVEL_CRITICAL;
	if (d->thrash_pct >= DECIDE_THRASH_PCT)
		return LEVEL_CRITICAL;
	return LEVEL_MEDIUM;
}

/*
 * A snapshot, at the interval decide_next_ms() asked for or on an
 * event: the level to kill at now, or LEVEL_NONE.
 */
enum level
decide_tick(struct decide *d, const struct snap *s)
{
	enum level	lv = LEVEL_NONE;
	int		r;

	d->level = LEVEL_NONE;
	d->deficit = 0;
	if (d->kill_at) {
		if (s->t_us - d->kill_at < (int64_t)d->c->kill_timeout * 1000)
			return LEVEL_NONE;
		decide_over(d, s);	/* timed out: it may be stuck */
	}
	if (d->c->floor && decide_room(s) < d->c->floor) {
		d->deficit = d->c->floor - decide_room(s);
		d->level = LEVEL_FLOOR;
		d->event = LEVEL_NONE;
		return LEVEL_FLOOR;
	}
	if (d->c->lmkd)
		return lmkd_tick(d, s);
	if (!decide_fast(d, s)) {
		if (d->event)
			d->nstale++;	/* a window went by at a lower rate */
		d->event = LEVEL_NONE;
		return LEVEL_NONE;
	}
	if (s->t_us - d->base.t_us > decide_window(d))
		decide_rebase(d, s);
	r = decide_rate(d, &d->c->critical, s);
	if (r == 1)
		lv = LEVEL_CRITICAL;
	else if (r != 2 && (r = decide_rate(d, &d->c->medium, s)) == 1)
		lv = decide_escalate(d, s);
	if (r == 2) {
		d->nself++;
		decide_rebase(d, s);
		return LEVEL_NONE;
	}
	/*
	 * Medium stall while a tenth of the memory is still to be had is
	 * not for want of memory (swapping back in after a kill, a burst of
	 * reclaim): a kill would free what is not short.
	 */
	if (lv == LEVEL_MEDIUM && s->limit && s->room != UINT64_MAX &&
	    s->room > s->limit / DECIDE_AMPLE_DIV) {
		d->nample++;
		decide_rebase(d, s);
		return LEVEL_NONE;
	}
	if (lv == LEVEL_NONE)
		return LEVEL_NONE;
	d->event = LEVEL_NONE;
	d->level = lv;
	return lv;
}

/* A kill was sent on what decide_tick() said. */
void
decide_killed(struct decide *d, const struct snap *s)
{
	d->kill_at = s->t_us ? s->t_us : 1;
	d->fast_until = s->t_us + decide_window(d);
	if (d->lk.cut)
		d->lk.limit = d->lk.limit * (100 - LMKD_DECAY_PCT) / 100;
}

/*
 * The kill is over: its victim died, or pressure_kill_timeout passed.
 * Stall counts afresh from here, and the fast path goes on a window.
 */
void
decide_over(struct decide *d, const struct snap *s)
{
	d->kill_at = 0;
	d->lk.after_kill = true;
	decide_rebase(d, s);
}

/*
 * A level was decided, but no service may be killed at it: measure
 * afresh rather than decide the same at every tick.
 */
void
decide_none(struct decide *d, const struct snap *s)
{
	decide_rebase(d, s);
}

/*
 * When to look next, in ms: on the fast path (an event, a kill) at once
 * again; near the floor sooner than far from it (as if a leak took
 * DECIDE_FILL_RATE); -1 never (no floor, nothing going on).
 */
int64_t
decide_next_ms(const struct decide *d, const struct snap *s)
{
	uint64_t	ms;

	if (d->kill_at)
		return DECIDE_FAST_MS;
	if (decide_fast(d, s))
		return d->c->lmkd ? lmkd_next_ms(d) : DECIDE_FAST_MS;
	if (d->c->floor == 0)
		return -1;
	if (decide_room(s) <= d->c->floor)
		return DECIDE_FAST_MS;
	ms = (decide_room(s) - d->c->floor) * 1000 / DECIDE_FILL_RATE;
	if (ms < DECIDE_FAST_MS)
		return DECIDE_FAST_MS;
	return ms > DECIDE_SLOW_MS ? DECIDE_SLOW_MS : (int64_t)ms;
}

void
snap_text(const struct snap *s, char *out, size_t n)
{
	snprintf(out, n, "t=%" PRId64 " some=%" PRIu64 " full=%" PRIu64
	    " sself=%" PRIu64 " fself=%" PRIu64 " avail=%" PRIu64
	    " total=%" PRIu64 " swapfree=%" PRIu64 " swaptotal=%" PRIu64
	    " room=%" PRIu64 " limit=%" PRIu64 " refault=%" PRIu64
	    " lru=%" PRIu64 " free=%" PRIu64 " scand=%" PRIu64
	    " scank=%" PRIu64, s->t_us, s->some_us, s->full_us,
	    s->self_some_us, s->self_full_us, s->avail, s->total,
	    s->swap_free, s->swap_total, s->room, s->limit, s->refault,
	    s->file_lru, s->free, s->scan_direct, s->scan_kswapd);
}

int
snap_scan(const char *text, struct snap *s)
{
	const char	*p = strstr(text, "t=");

	memset(s, 0, sizeof(*s));
	if (p == NULL || sscanf(p, "t=%" SCNd64 " some=%" SCNu64
	    " full=%" SCNu64 " sself=%" SCNu64 " fself=%" SCNu64
	    " avail=%" SCNu64 " total=%" SCNu64 " swapfree=%" SCNu64
	    " swaptotal=%" SCNu64 " room=%" SCNu64 " limit=%" SCNu64
	    " refault=%" SCNu64 " lru=%" SCNu64 " free=%" SCNu64
	    " scand=%" SCNu64 " scank=%" SCNu64, &s->t_us, &s->some_us,
	    &s->full_us, &s->self_some_us, &s->self_full_us, &s->avail,
	    &s->total, &s->swap_free, &s->swap_total, &s->room, &s->limit,
	    &s->refault, &s->file_lru, &s->free, &s->scan_direct,
	    &s->scan_kswapd) != 16)
		return -1;
	return 0;
}

/* "some avg10=... total=N\nfull avg10=... total=M" */
int
psi_parse(const char *text, uint64_t *some_us, uint64_t *full_us)
{
	const char	*p;

	*some_us = *full_us = 0;
	if (strncmp(text, "some ", 5) != 0 ||
	    (p = strstr(text, "total=")) == NULL ||
	    sscanf(p, "total=%" SCNu64, some_us) != 1)
		return -1;
	/* The system's "full" line was added in 5.13; a cgroup has it. */
	if ((p = strstr(text, "\nfull ")) != NULL &&
	    (p = strstr(p, "total=")) != NULL)
		sscanf(p, "total=%" SCNu64, full_us);
	return 0;
}

/* The value of "NAME:   N kB" in /proc/meminfo, in bytes. */
static int
meminfo_field(const char *text, const char *name, uint64_t *v)
{
	size_t		 n = strlen(name);
	const char	*p = text;

	for (; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ':' &&
		    sscanf(p + n + 1, "%" SCNu64, v) == 1) {
			*v <<= 10;
			return 0;
		}
	}
	return -1;
}

int
meminfo_parse(const char *text, struct snap *s)
{
	uint64_t	act = 0, inact = 0, cma = 0;

	if (meminfo_field(text, "MemTotal", &s->total) < 0 ||
	    meminfo_field(text, "MemAvailable", &s->avail) < 0 ||
	    meminfo_field(text, "MemFree", &s->free) < 0)
		return -1;
	meminfo_field(text, "CmaFree", &cma);
	s->free = s->free > cma ? s->free - cma : 0;
	if (meminfo_field(text, "SwapTotal", &s->swap_total) < 0 ||
	    meminfo_field(text, "SwapFree", &s->swap_free) < 0)
		s->swap_total = s->swap_free = 0;
	meminfo_field(text, "Active(file)", &act);
	meminfo_field(text, "Inactive(file)", &inact);
	s->file_lru = (act + inact) >> 12;
	return 0;
}

/* The value of "name N" in /proc/vmstat or memory.stat. */
static int
stat_field(const char *text, const char *name, uint64_t *v)
{
	size_t		 n = strlen(name);
	const char	*p = text;

	for (; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ' ')
			return sscanf(p + n + 1, "%" SCNu64, v) == 1 ? 0 : -1;
	}
	return -1;
}

/*
 * workingset_refault_file (5.9 on); before, workingset_refault.  The
 * pages scanned by kswapd and in direct reclaim, for lmkd's rules.
 */
int
vmstat_parse(const char *text, struct snap *s)
{
	if (stat_field(text, "workingset_refault_file", &s->refault) < 0 &&
	    stat_field(text, "workingset_refault", &s->refault) < 0)
		return -1;
	if (stat_field(text, "pgscan_direct", &s->scan_direct) < 0 ||
	    stat_field(text, "pgscan_kswapd", &s->scan_kswapd) < 0)
		s->scan_direct = s->scan_kswapd = 0;
	return 0;
}

/* memory.stat's anon: what a kill of the cgroup frees, with its swap. */
int
memstat_anon(const char *text, uint64_t *anon)
{
	return stat_field(text, "anon", anon);
}
