/*
 * health.c - health checks (Docker's HEALTHCHECK, a Kubernetes liveness
 * probe, s6-notifyoncheck): while a service runs, its health_exec runs
 * every health_interval, as a process of the service (hook.c), never on
 * the loop, killed at its health_timeout.  health_retries failures in a
 * row, once past health_start_period, make it unhealthy: svc.c stops it
 * and its restart policy says what next.  ready = health: it is ready
 * when a check first passes.
 */
#include <errno.h>

#include "health.h"
#include "hook.h"
#include "service.h"
#include "sup.h"

static void	health_on_timer(struct ev_loop *, ev_timer *, int);

/* A new service: no check yet. */
void
health_init(struct service *ss)
{
	ev_init(&ss->health_w, health_on_timer);
	ss->health = HEALTH_NONE;
	ss->health_fails = 0;
}

/* The next check in ms from now. */
static void
health_arm(struct sup *sup, struct service *ss, uint32_t ms)
{
	ev_timer_stop(sup->loop, &ss->health_w);
	ev_timer_set(&ss->health_w, ms / 1000., 0.);
	ev_timer_start(sup->loop, &ss->health_w);
}

/* Until it first passes: soon, and again soon. */
static uint32_t
health_pace(const struct service *ss)
{
	const struct svc_def	*d = ss->svc.def;

	if (ss->health == HEALTH_STARTING && d->health_interval >
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
health_first(const struct service *ss)
{
	const unsigned char	*p = (const unsigned char *)ss->svc.def->name;
	uint32_t		 h = 2166136261u, pace = health_pace(ss);

	for (; *p; p++)
		h = (h ^ *p) * 16777619u;	/* FNV-1a */
	return pace / 2 + (uint32_t)((uint64_t)pace * (h % 1024) / 1024);
}

/*
 * A service changed state: its checks begin once its main process is
 * spawned, and end with it (a check that runs then is killed).
 */
void
health_changed(struct sup *sup, struct service *ss, enum svc_state from)
{
	struct svc	*s = &ss->svc;
	bool		 running = s->pidfd >= 0 &&
			    (s->state == SVC_STARTING || s->state == SVC_READY);

	if (s->def->health_exec == NULL || from == s->state)
		return;
	if (running && ss->health == HEALTH_NONE) {
		ss->health = HEALTH_STARTING;
		ss->health_fails = 0;
		health_arm(sup, ss, s->def->ready == READY_HEALTH ? 0 :
		    health_first(ss));
	} else if (!running && ss->health != HEALTH_NONE) {
		health_end(sup, ss);
	}
}

static void
health_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);
	struct service	*ss = container_of(w, struct service, health_w);
	int		 rc;

	(void)revents;
	if (ss->hooks[HOOK_SLOT_HEALTH] != NULL)
		return;		/* one at a time: its own end re-arms */
	/* A re-exec waits for quiet: no new check meanwhile (the next
	 * binary begins them afresh). */
	if (sup->rx.phase == RX_QUIESCE) {
		health_arm(sup, ss, health_pace(ss));
		return;
	}
	if ((rc = hook_start(sup, ss, HOOK_HEALTH)) < 0)
		health_result(sup, ss, rc);
}

/*
 * A check ended with status (0 passed; an exit status, 128 + a signal,
 * -ETIMEDOUT or -errno failed).
 */
void
health_result(struct sup *sup, struct service *ss, int status)
{
	struct svc		*s = &ss->svc;
	const struct svc_def	*d = s->def;
	bool			 early;

	if (ss->health == HEALTH_NONE)
		return;
	if (status == 0) {
		bool	news = ss->health != HEALTH_HEALTHY;

		ss->health_fails = 0;
		ss->health = HEALTH_HEALTHY;
		if (s->state == SVC_STARTING && d->ready == READY_HEALTH)
			svc_ready(s);
		else if (news)		/* for those who wait on status */
			sup_changed(sup, s, (enum svc_state)s->state);
	} else if (s->state == SVC_READY) {
		/* The start period's failures do not count. */
		early = mono_ms() - s->started_at < d->health_start_period;
		if (!early && ++ss->health_fails >= d->health_retries) {
			ss->health = HEALTH_UNHEALTHY;
			ss->health_status = status;
			svc_unhealthy(s, status);
			return;
		}
	}
	if (ss->health != HEALTH_NONE)
		health_arm(sup, ss, health_pace(ss));
}

/* The checks end: the timer, and a check that runs. */
void
health_end(struct sup *sup, struct service *ss)
{
	ev_timer_stop(sup->loop, &ss->health_w);
	hook_cancel(sup, ss, HOOK_SLOT_HEALTH);
	ss->health = HEALTH_NONE;
	ss->health_fails = 0;
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
