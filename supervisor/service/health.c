/*
 * health.c - health checks (Docker's HEALTHCHECK, a Kubernetes liveness
 * probe, s6-notifyoncheck): while a service runs, its health_exec runs
 * every health_interval, as a process of the service (the service layer
 * runs it as a hook: core->check), never on the loop, killed at its
 * health_timeout.  health_retries failures in a
 * row, once past health_start_period, make it unhealthy: svc.c stops it
 * and its restart policy says what next.  ready = health: it is ready
 * when a check first passes.
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "health.h"

static void	health_on_timer(struct ev_loop *, ev_timer *, int);

/* A new service, s: no check yet. */
void
health_init(struct health *h, struct core *core, struct svc *s)
{
	memset(h, 0, sizeof(*h));
	ev_init(&h->w, health_on_timer);
	h->core = core;
	h->svc = s;
	h->state = HEALTH_NONE;
}

/* The next check in ms from now. */
static void
health_arm(struct health *h, uint32_t ms)
{
	ev_timer_stop(h->core->loop, &h->w);
	ev_timer_set(&h->w, ms / 1000., 0.);
	ev_timer_start(h->core->loop, &h->w);
}

/* Until it first passes: soon, and again soon. */
static uint32_t
health_pace(const struct health *h)
{
	const struct svc_def	*d = h->svc->def;

	if (h->state == HEALTH_STARTING && d->health_interval >
	    HEALTH_START_PACE)
		return HEALTH_START_PACE;
	return d->health_interval;
}

/*
 * The first check of a service: within half a pace of it, where its
 * name says.  Services started together are checked apart: a thousand
 * at 1 s, all at once, made the restart latency of a service beside
 * them 56 ms at p90 (1.1 ms unchecked); spread, see docs/performance.md.
 */
static uint32_t
health_first(const struct health *h)
{
	const unsigned char	*p = (const unsigned char *)h->svc->def->name;
	uint32_t		 x = 2166136261u, pace = health_pace(h);

	for (; *p; p++)
		x = (x ^ *p) * 16777619u;	/* FNV-1a */
	return pace / 2 + (uint32_t)((uint64_t)pace * (x % 1024) / 1024);
}

/*
 * A service changed state: its checks begin once its main process is
 * spawned, and end with it (a check that runs then is killed).
 */
void
health_changed(struct health *h, enum svc_state from)
{
	struct svc	*s = h->svc;
	bool		 running = s->pidfd >= 0 &&
			    (s->state == SVC_STARTING || s->state == SVC_READY);

	if (s->def->health_exec == NULL || from == s->state)
		return;
	if (running && h->state == HEALTH_NONE) {
		h->state = HEALTH_STARTING;
		h->fails = 0;
		health_arm(h, ready_kinds[s->def->ready].on_check ? 0 :
		    health_first(h));
	} else if (!running && h->state != HEALTH_NONE) {
		health_end(h);
	}
}

static void
health_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct health	*h = container_of(w, struct health, w);
	int		 rc;

	(void)loop;
	(void)revents;
	if (h->running)
		return;		/* one at a time: its own end re-arms */
	/* A re-exec waits for quiet: no new check meanwhile (the next
	 * binary begins them afresh). */
	if (h->core->quiesce) {
		health_arm(h, health_pace(h));
		return;
	}
	h->running = true;
	if ((rc = h->core->check(h->core, h->svc, true)) < 0)
		health_result(h, rc);
}

/*
 * A check ended with status (0 passed; an exit status, 256 + a signal,
 * -ETIMEDOUT or -errno failed).
 */
void
health_result(struct health *h, int status)
{
	struct svc		*s = h->svc;
	const struct svc_def	*d = s->def;
	bool			 early;

	h->running = false;
	if (h->state == HEALTH_NONE)
		return;
	if (status == 0) {
		bool	news = h->state != HEALTH_HEALTHY;

		h->fails = 0;
		h->state = HEALTH_HEALTHY;
		if (s->state == SVC_STARTING && ready_kinds[d->ready].on_check)
			svc_ready(s);
		else if (news)		/* for those who wait on status */
			h->core->changed(h->core, s, (enum svc_state)s->state);
	} else if (s->state == SVC_READY) {
		/* The start period's failures do not count. */
		early = mono_ms() - s->started_at < d->health_start_period;
		if (!early && ++h->fails >= d->health_retries) {
			h->state = HEALTH_UNHEALTHY;
			h->status = status;
			svc_unhealthy(s, status);
			return;
		}
	}
	if (h->state != HEALTH_NONE)
		health_arm(h, health_pace(h));
}

/* The checks end: the timer, and a check that runs. */
void
health_end(struct health *h)
{
	ev_timer_stop(h->core->loop, &h->w);
	if (h->running)
		h->core->check(h->core, h->svc, false);
	h->running = false;
	h->state = HEALTH_NONE;
	h->fails = 0;
}

/* As status says it. */
const char *
health_name(enum health_state h)
{
	static const char *const names[] = {
		[HEALTH_NONE] = "", [HEALTH_STARTING] = "starting",
		[HEALTH_HEALTHY] = "healthy",
		[HEALTH_UNHEALTHY] = "unhealthy",
	};

	return h <= HEALTH_UNHEALTHY ? names[h] : "?";
}
