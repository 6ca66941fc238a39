/* timer.h - a service's timer: when it runs by itself (timer.c) */
#ifndef PIDVISOR_TIMER_H
#define PIDVISOR_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "status.h"
#include "svc.h"

struct calendar;
struct core;
struct st_r;
struct st_w;

/* The one-shot spans, once elapsed (systemd disables them). */
#define TIMER_DONE_BOOT		0x01
#define TIMER_DONE_STARTUP	0x02
#define TIMER_DONE_ACTIVE	0x04

/*
 * A service's timer (a part of struct service): its next elapse on the
 * wall clock (on_calendar's) or the monotonic one (the spans'), the
 * watcher of that, and what the next computation starts from.  Times
 * are us; real: CLOCK_REALTIME, mono: CLOCK_MONOTONIC.  timer_save()
 * keeps what the next binary cannot make again.
 */
struct timer {
	struct core	*core;
	struct svc	*svc;
	ev_periodic	 real_w;	/* an on_calendar elapse */
	ev_timer	 mono_w;	/* a span's, or a deferral's next look */
	struct calendar	*cal;		/* the on_calendar of def, parsed */
	size_t		 ncal;
	const struct svc_def *def;	/* what cal was made of */
	int64_t		 next_real;	/* 0: no next elapse */
	int64_t		 next_mono;	/* 0: the next is a calendar's */
	int64_t		 wake;		/* next, coalesced (accuracy) */
	int64_t		 last_real;	/* the last run it started; 0 */
	int64_t		 elapsed_real;	/* the last elapse, run or not; 0 */
	int64_t		 elapsed_mono;
	int64_t		 armed_real;	/* on_active's base: armed then */
	int64_t		 armed_mono;
	int64_t		 active_mono;	/* the service last left rest; 0 */
	int64_t		 inactive_mono;	/* ... last came to rest; 0 */
	int64_t		 deferred_mono;	/* held for pressure since; 0 */
	uint64_t	 random_ms;	/* this elapse's randomized delay */
	uint64_t	 triggers;	/* runs started */
	uint64_t	 skipped[SKIP__COUNT];
	uint8_t		 done;		/* TIMER_DONE_* */
	bool		 armed;
};

void	timer_core_init(struct core *c, int64_t start_ms, bool container);
void	timer_init(struct timer *t, struct core *core, struct svc *s);
void	timer_start(struct timer *t);
void	timer_stop(struct timer *t);
void	timer_free(struct timer *t);
void	timer_changed(struct timer *t, enum svc_state from);
void	timer_reloaded(struct timer *t, const struct svc_def *old);
void	timer_zone_changed(struct timer *t);
void	timer_status(const struct timer *t, struct timer_status *st);
void	timer_save(const struct timer *t, struct st_w *w);
void	timer_load(struct timer *t, struct st_r *r);
int64_t	timer_coalesce(int64_t a, int64_t b, int64_t perturb);

#endif
