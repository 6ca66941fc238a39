/*
 * lmkd.c - Android lmkd's rules of when to kill, for pressure_policy = lmkd,
 * on pidvisor's mechanism: its triggers, its victims, its reclaim path.
 * The benchmark runs it beside pidvisor's own rules (decide.c) to tell
 * policy from mechanism.  Pure, as decide.c.
 *
 * As lmkd decides on a PSI event and while it polls after one (every
 * 100 ms, every 10 ms with swap low or a kill in flight, for a window
 * that events, kills and direct reclaim extend): nothing unless the
 * kernel is reclaiming (pgscan_kswapd or pgscan_direct grew since the
 * last look); else, the first rule that holds, in lmkd's order:
 *
 *  free memory under the min watermark on the first look after a kill;
 *  a critical event (lmkd: "device is not responding");
 *  swap under a tenth free and refaults above 100% of the file LRU;
 *  swap under a tenth free and free memory under the low watermark;
 *  under the low watermark and refaults above the thrashing limit;
 *  direct reclaim and refaults above the thrashing limit.
 *
 * The last two spare what lmkd calls perceptible apps: they are kills
 * at medium level (kill_priority >= pressure_min_priority) and cut the
 * thrashing limit by a tenth; the rest kill at critical level.  The
 * refaults count from the start of the reclaim or the last kill, against
 * the file LRU then.  The watermarks are the sums over populated zones
 * of each's mark and its largest protection, as lmkd sums them.
 *
 * Behaviour learned from lmkd's mp_event_psi() (AOSP system/memory/lmkd,
 * 2020 on); its tunables at their defaults (swap_free_low_percentage
 * 10, thrashing_limit 100, thrashing_limit_decay 10).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"

/* Which watermark free memory is under, the lowest; WMARK_NONE none. */
static enum wmark
lmkd_wmark(const struct lmkd *l, const struct snap *s)
{
	if (l->wmark[WMARK_HIGH] == 0)
		return WMARK_NONE;	/* not read yet */
	if (s->free < l->wmark[WMARK_MIN])
		return WMARK_MIN;
	if (s->free < l->wmark[WMARK_LOW])
		return WMARK_LOW;
	if (s->free < l->wmark[WMARK_HIGH])
		return WMARK_HIGH;
	return WMARK_NONE;
}

enum level
lmkd_tick(struct decide *d, const struct snap *s)
{
	struct lmkd	*l = &d->lk;
	enum level	 ev = d->event, lv = LEVEL_NONE;
	bool		 after = l->after_kill, direct;
	uint64_t	 thrash = 0;
	enum wmark	 wm;

	d->event = LEVEL_NONE;
	l->after_kill = false;
	l->why = NULL;
	l->cut = false;
	d->thrash_pct = 0;
	if (s->t_us >= d->fast_until) {
		if (ev)
			d->nstale++;
		return LEVEL_NONE;	/* lmkd polls no more */
	}
	if (after) {
		l->base_lru = s->file_lru;
		l->base_refault = s->refault;
	}
	l->swap_low = s->swap_total > 0 &&
	    s->swap_free < s->swap_total / DECIDE_SWAP_LOW_DIV;
	direct = s->scan_direct > l->scan_direct;
	if (ev || direct)
		d->fast_until = s->t_us + decide_window(d);
	if (!direct && s->scan_kswapd <= l->scan_kswapd) {
		l->in_reclaim = false;
		return LEVEL_NONE;	/* not reclaiming */
	}
	l->scan_direct = s->scan_direct;
	l->scan_kswapd = s->scan_kswapd;
	if (!l->in_reclaim) {
		l->base_lru = s->file_lru;
		l->base_refault = s->refault;
		l->limit = DECIDE_THRASH_PCT;
	} else if (l->base_lru > 0 && s->refault > l->base_refault) {
		thrash = (s->refault - l->base_refault) * 100 / l->base_lru;
	}
	l->in_reclaim = true;
	d->thrash_pct = thrash > UINT32_MAX ? UINT32_MAX : (uint32_t)thrash;
	wm = lmkd_wmark(l, s);
	if (after && wm < WMARK_LOW) {
		l->why = "under the min watermark after a kill";
		lv = LEVEL_CRITICAL;
	} else if (ev == LEVEL_CRITICAL) {
		l->why = "a critical event (not responding)";
		lv = LEVEL_CRITICAL;
	} else if (l->swap_low && thrash > DECIDE_THRASH_PCT) {
		l->why = "swap low and thrashing";
		lv = LEVEL_CRITICAL;
	} else if (l->swap_low && wm < WMARK_HIGH) {
		l->why = "swap low and under the low watermark";
		lv = LEVEL_CRITICAL;
	} else if (wm < WMARK_HIGH && thrash > l->limit) {
		l->why = "under the low watermark and thrashing";
		lv = LEVEL_MEDIUM;
	} else if (direct && thrash > l->limit) {
		l->why = "direct reclaim and thrashing";
		lv = LEVEL_MEDIUM;
	}
	l->cut = lv == LEVEL_MEDIUM;
	d->level = lv;
	return lv;
}

/* The poll's interval while lmkd polls: short with swap low. */
int64_t
lmkd_next_ms(const struct decide *d)
{
	return d->lk.swap_low ? DECIDE_FAST_MS : LMKD_SLOW_MS;
}

/* A zone's marks, if it has pages, into the sums. */
static bool
lmkd_zone(uint64_t wmark[3], uint64_t z[3], uint64_t *prot,
    uint64_t *present)
{
	bool	had = *present > 0;
	int	i;

	for (i = 0; had && i < 3; i++)
		wmark[i] += (z[i] + *prot) << 12;
	z[0] = z[1] = z[2] = *prot = *present = 0;
	return had;
}

/*
 * /proc/zoneinfo's watermarks, in bytes: each populated zone's min, low
 * and high, each with the zone's largest protection, summed.  -1 if
 * there are none.
 */
int
lmkd_wmarks(const char *text, uint64_t wmark[3])
{
	static const char *const name[3] = { "min", "low", "high" };
	uint64_t	 z[3] = { 0 }, prot = 0, present = 0, v;
	const char	*p = text, *q;
	bool		 any = false;
	size_t		 n;
	int		 i;

	wmark[0] = wmark[1] = wmark[2] = 0;
	for (; p != NULL; p = q ? q + 1 : NULL) {
		q = strchr(p, '\n');
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "Node ", 5) == 0) {
			any |= lmkd_zone(wmark, z, &prot, &present);
		} else if (strncmp(p, "protection: (", 13) == 0) {
			for (p += 13; sscanf(p, "%" SCNu64, &v) == 1;) {
				if (v > prot)
					prot = v;
				if ((p = strchr(p, ',')) == NULL ||
				    (q != NULL && p > q))
					break;
				p++;
			}
		} else if (strncmp(p, "present ", 8) == 0) {
			sscanf(p + 8, "%" SCNu64, &present);
		} else {
			for (i = 0; i < 3; i++) {
				n = strlen(name[i]);
				if (strncmp(p, name[i], n) == 0 && p[n] == ' ')
					sscanf(p + n, "%" SCNu64, &z[i]);
			}
		}
	}
	any |= lmkd_zone(wmark, z, &prot, &present);
	return any ? 0 : -1;
}
