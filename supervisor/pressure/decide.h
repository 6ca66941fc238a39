/* decide.h - when the low-memory killer kills, and at which level */
#ifndef PIDVISOR_DECIDE_H
#define PIDVISOR_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One look at the system's memory: what decide_*() go by.  pressure.c
 * fills it from the files; the unit tests from recorded traces.
 */
struct snap {
	int64_t		t_us;		/* monotonic */
	uint64_t	some_us;	/* PSI totals of the watched file */
	uint64_t	full_us;
	uint64_t	self_some_us;	/* stall of services held at their own
					 * memory limits (the sum of theirs) */
	uint64_t	self_full_us;
	uint64_t	avail;		/* MemAvailable, bytes */
	uint64_t	total;		/* MemTotal */
	uint64_t	swap_free;
	uint64_t	swap_total;
	uint64_t	room;		/* what the services may still take:
					 * MemAvailable, and no more than is
					 * left under their cgroup's limits */
	uint64_t	limit;		/* MemTotal, or that limit if less */
	uint64_t	refault;	/* workingset_refault_file, pages */
	uint64_t	file_lru;	/* Active(file) + Inactive(file), pages */
	/* For pressure_policy = lmkd only: */
	uint64_t	free;		/* MemFree less CmaFree, bytes */
	uint64_t	scan_direct;	/* pgscan_direct, pages */
	uint64_t	scan_kswapd;	/* pgscan_kswapd, pages */
};

/* Why a kill, the most pressing last. */
enum level {
	LEVEL_NONE,
	LEVEL_MEDIUM,		/* the `pressure` trigger's rate */
	LEVEL_CRITICAL,		/* pressure_critical's, or medium with
				 * swap out or the file cache thrashing */
	LEVEL_FLOOR,		/* MemAvailable under pressure_min_available */
};

struct trigger {
	uint32_t	stall;		/* us; 0: none */
	uint32_t	window;		/* us */
	bool		full;
};

struct decide_conf {
	struct trigger	medium;
	struct trigger	critical;
	uint64_t	floor;		/* bytes of MemAvailable; 0: none */
	uint32_t	kill_timeout;	/* ms */
	bool		lmkd;		/* pressure_policy = lmkd (lmkd.c) */
};

/* Escalation: swap under a tenth left, refaults of a whole file LRU. */
#define DECIDE_SWAP_LOW_DIV	10
#define DECIDE_AMPLE_DIV	10	/* medium kills nothing while a tenth
					 * of the memory is still to be had */
#define DECIDE_THRASH_PCT	100
#define DECIDE_FAST_MS		10	/* the fast path's interval */
#define DECIDE_SLOW_MS		1000	/* the floor's, far from it */
#define DECIDE_FILL_RATE	(2ULL << 30)	/* bytes/s a leak may take */

/* What lmkd's rules remember between looks (lmkd.c). */
enum wmark { WMARK_MIN, WMARK_LOW, WMARK_HIGH, WMARK_NONE };
struct lmkd {
	uint64_t	wmark[3];	/* the zones' min, low and high
					 * watermarks, with their protection,
					 * bytes (lmkd_wmarks) */
	uint64_t	scan_direct;	/* pgscan_* at the last look */
	uint64_t	scan_kswapd;
	uint64_t	base_refault;	/* at the start of the reclaim */
	uint64_t	base_lru;
	uint32_t	limit;		/* thrashing limit, %, decaying */
	bool		in_reclaim;
	bool		after_kill;	/* the first look after a kill */
	bool		swap_low;
	bool		cut;		/* a kill on thrashing cuts limit */
	const char	*why;		/* the rule that decided */
};

#define LMKD_SLOW_MS		100	/* lmkd's polling, with swap left */
#define LMKD_DECAY_PCT		10	/* the thrashing limit's cut */

struct decide {
	const struct decide_conf *c;
	struct snap	base;		/* stall counts from here: the end
					 * of the last kill, or the event */
	bool		have_base;
	int64_t		fast_until;	/* us: look every DECIDE_FAST_MS */
	int64_t		kill_at;	/* us: a kill not yet over; 0 none */
	enum level	event;		/* a trigger fired, not yet acted on */
	/* What the last decision saw, for the kill record. */
	enum level	level;
	uint32_t	thrash_pct;
	uint64_t	deficit;	/* bytes short of the floor */
	unsigned	nstale;		/* events whose stall was before */
	unsigned	nself;		/* stall of services at their own high */
	unsigned	nample;		/* medium stall with memory to spare */
	struct lmkd	lk;
};

void		 decide_init(struct decide *d, const struct decide_conf *c);
void		 decide_event(struct decide *d, enum level lv,
		     const struct snap *s);
enum level	 decide_tick(struct decide *d, const struct snap *s);
void		 decide_killed(struct decide *d, const struct snap *s);
void		 decide_over(struct decide *d, const struct snap *s);
void		 decide_none(struct decide *d, const struct snap *s);
int64_t		 decide_next_ms(const struct decide *d, const struct snap *s);
const char	*level_name(enum level lv);
int64_t		 decide_window(const struct decide *d);

/* lmkd.c: Android lmkd's rules, for pressure_policy = lmkd. */
enum level	 lmkd_tick(struct decide *d, const struct snap *s);
int64_t		 lmkd_next_ms(const struct decide *d);
int		 lmkd_wmarks(const char *zoneinfo, uint64_t wmark[3]);

/* A snapshot as the words of a trace line (log_level = debug), and
 * back: -1 if a field is missing. */
void	 snap_text(const struct snap *s, char *out, size_t n);
int	 snap_scan(const char *text, struct snap *s);

/* The text of the kernel's files, parsed; -1 if it is not theirs. */
int	 psi_parse(const char *text, uint64_t *some_us, uint64_t *full_us);
int	 meminfo_parse(const char *text, struct snap *s);
int	 vmstat_parse(const char *text, struct snap *s);
int	 memstat_anon(const char *text, uint64_t *anon);

#endif
