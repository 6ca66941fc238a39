/*
 * svc_event.c - the events of the world as the state machine takes them:
 * an exec's report, readiness, the notify messages (STOPPING=1, the
 * watchdog, reloads), health, the killer's kills, a timer, a death and
 * what follows it (restart = as restart.c's modes say).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "svc.h"
#include "svc_int.h"

/*
 * READY: the one timer serves the watchdog and a reload's deadline, the
 * sooner of the two.
 */
static void
svc_arm_ready(struct svc *s)
{
	int64_t	next = s->watch_due;

	if (s->reload_due && (next == 0 || s->reload_due < next))
		next = s->reload_due;
	if (next == 0) {
		svc_disarm(s);
		return;
	}
	next -= svc_now(s);
	svc_arm(s, next > 0 ? (uint32_t)next : 0);
}

/* Event: a client came to a LISTENING service: start it. */
void
svc_triggered(struct svc *s)
{
	if (s->state != SVC_LISTENING)
		return;
	s->triggered = true;
	svc_kick(s);
	svc_set_run(s->set);
}

/*
 * Event: its clients came faster than trigger_limit_burst in
 * trigger_limit_interval: it fails, as systemd's socket unit does, until
 * it is started again.
 */
void
svc_trigger_limit(struct svc *s)
{
	if (s->state != SVC_LISTENING)
		return;
	s->want_up = false;
	svc_set_state(s, SVC_FAILED, svc_why(WHY_TRIGGER_LIMIT, 0));
	svc_set_run(s->set);
}

/*
 * Event: the process exec'd (err 0), or reported that it could not, at
 * stage with errno err; it is exiting then, and that is why.
 */
void
svc_exec(struct svc *s, int stage, int err)
{
	if (!s->execing)
		return;
	s->execing = false;
	/* exec = -PROGRAM, the program missing: its end (code 127) is as
	 * clean as any other, as systemd's "Executable missing, skipping". */
	if (err == ENOENT && stage == STAGE_EXEC && s->def->exec_any_exit)
		return;
	if (err) {
		if (s->state == SVC_STARTING)
			svc_disarm(s);		/* no ready timeout */
		/* A wrong env file: s->fail says what (the caller's). */
		s->pending = svc_why(stage == STAGE_ENV_FILE && s->fail ?
		    WHY_ENV_FILE : WHY_EXEC, err);
		s->pending.stage = (uint8_t)stage;
		return;
	}
	if (ready_kinds[s->def->ready].on_exec)
		svc_ready(s);
}

/*
 * Event: its child has not reached exec within the spawn deadline (a
 * user who stopped it, a binary or workdir on a hung mount): it is
 * killed, and the start failed.
 */
void
svc_spawn_timeout(struct svc *s)
{
	if (!s->execing || s->state != SVC_STARTING)
		return;
	s->execing = false;
	svc_disarm(s);			/* no ready timeout */
	svc_hook_cancel(s);		/* a start_post_exec: it stops */
	s->pending = svc_why(WHY_SPAWN_TIMEOUT, 0);
	svc_send_stop(s, SIGKILL);
	/* Stopping until it is dead: a child stuck in the kernel (a hung
	 * mount) dies only once the kernel lets it. */
	svc_set_state(s, SVC_STOPPING, s->pending);
	svc_set_run(s->set);
}

/* How long a reload may take: ready_timeout, or SVC_EXTEND_MAX. */
uint32_t
svc_reload_limit(const struct svc *s)
{
	return s->def->ready_timeout ? s->def->ready_timeout : SVC_EXTEND_MAX;
}

/* A reload is over: counted, for those who wait on it (ctl.c). */
static void
svc_reload_end(struct svc *s, int status)
{
	s->reloading = s->reload_asked = s->reload_ready = false;
	s->reload_due = 0;
	svc_arm_ready(s);
	if (status == 0) {
		s->reloads++;
	} else {
		s->reload_fails++;
		s->reload_status = status;
	}
	s->set->ops->changed(s, SVC_READY);
}

/*
 * STARTING -> READY: readiness was reported and it has settled; its
 * start_post_exec first, within ready_timeout.
 */
void
svc_up(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;
	int			 rc;

	s->ready_seen = false;
	svc_disarm(s);
	if (s->hook != HOOK_START_POST && ops->hook != NULL &&
	    (rc = ops->hook(s, HOOK_START_POST)) != 1) {
		if (rc < 0) {
			svc_hook_failed(s, HOOK_START_POST, rc);
			return;
		}
		s->hook = HOOK_START_POST;
		if (s->def->ready_timeout)
			svc_arm(s, s->def->ready_timeout);
		svc_set_state(s, SVC_STARTING, svc_why(WHY_IN_HOOK,
		    HOOK_START_POST));
		return;
	}
	s->hook = HOOK_NONE;
	s->ready_at = svc_now(s);
	s->reload_due = 0;
	s->watch_due = s->def->watchdog ? s->ready_at + s->def->watchdog : 0;
	svc_arm_ready(s);
	svc_set_state(s, SVC_READY, svc_why(WHY_READY, 0));
	svc_set_run(s->set);
}

/*
 * Event: the service reported readiness.  While it settles, it is not
 * ready yet: the timer says when it is.  READY=1 of a service that is
 * ready ends its reload.  A task is ready by its exit alone.
 */
void
svc_ready(struct svc *s)
{
	int64_t	left;

	if (s->state == SVC_READY) {
		if (s->reloading || (s->reload_asked && s->reload_ready))
			svc_reload_end(s, 0);
		return;
	}
	if (s->state != SVC_STARTING || s->pidfd < 0 ||
	    s->pending.why != WHY_NONE || svc_is_task(s) || s->ready_seen ||
	    s->hook != HOOK_NONE)
		return;
	left = s->started_at + s->def->settle - svc_now(s);
	if (left > 0) {
		s->ready_seen = true;	/* no ready timeout now */
		svc_arm(s, (uint32_t)left);
		s->set->ops->changed(s, SVC_STARTING);
		return;
	}
	svc_up(s);
}

/* Event: WATCHDOG=1; the service is alive. */
void
svc_watchdog(struct svc *s)
{
	if (s->state == SVC_READY && s->def->watchdog) {
		s->watch_due = svc_now(s) + s->def->watchdog;
		svc_arm_ready(s);
	}
}

/*
 * Event: its health checks failed health_retries times in a row (the
 * last with status): stopped, and restarted as its policy says.
 */
void
svc_unhealthy(struct svc *s, int status)
{
	if (s->state != SVC_READY || s->pending.why != WHY_NONE)
		return;
	s->pending = svc_why(WHY_UNHEALTHY, status);
	svc_send_stop(s, s->def->stop_signal);
	svc_set_state(s, SVC_STOPPING, s->pending);
	svc_set_run(s->set);
}

/* Event: WATCHDOG=trigger; the service asks for the watchdog's action. */
void
svc_watchdog_trigger(struct svc *s)
{
	if ((s->state != SVC_STARTING && s->state != SVC_READY) ||
	    s->pidfd < 0 || s->pending.why != WHY_NONE)
		return;
	svc_hook_cancel(s);		/* a start_post_exec: it stops */
	s->pending = svc_why(WHY_WATCHDOG_TRIGGER, 0);
	svc_send_stop(s, SIGABRT);
	svc_set_state(s, SVC_STOPPING, s->pending);
	svc_set_run(s->set);
}

/*
 * Event: EXTEND_TIMEOUT_USEC; the timeout running now (readiness, or
 * the stop) ends no sooner than ms from now.  One message buys at most
 * that timeout again, or SVC_EXTEND_MAX if that is more: a service that
 * needs longer says so again (as systemd's protocol asks), and one that
 * asks for 49 days at once does not hold a stop, or a shutdown, that
 * long.
 */
void
svc_extend(struct svc *s, uint32_t ms)
{
	bool		starting = s->state == SVC_STARTING && !s->ready_seen;
	bool		timing = starting ||
			    (s->state == SVC_STOPPING && !s->kill_sent);
	uint32_t	cap = starting ? s->def->ready_timeout :
			    s->def->stop_timeout;

	if (cap < SVC_EXTEND_MAX)
		cap = SVC_EXTEND_MAX;
	if (ms > cap)
		ms = cap;
	if (timing && s->deadline != 0 && s->deadline < svc_now(s) + ms)
		svc_arm(s, ms);
}

/*
 * Event: a reload was sent to the service (its signal, its command); it
 * is over at its READY=1 (until_ready), or at svc_reload_done(), or
 * else, failed, at its deadline: ready_timeout (SVC_EXTEND_MAX if that
 * is 0), as systemd bounds a reload by TimeoutStartSec.
 */
void
svc_reload_asked(struct svc *s, bool until_ready)
{
	if (s->state != SVC_READY)
		return;
	s->reload_asked = true;
	s->reload_ready = until_ready;
	s->reload_due = svc_now(s) + svc_reload_limit(s);
	svc_arm_ready(s);
}

/*
 * Event: the reload command ended, with status 0 (or its exit status, or
 * -errno): a failure ends the reload; success ends it too, unless the
 * service said RELOADING=1, whose READY=1 then ends it.
 */
void
svc_reload_done(struct svc *s, int status)
{
	if (!s->reload_asked || s->state != SVC_READY)
		return;
	if (status == 0 && (s->reloading || s->reload_ready))
		s->reload_ready = true;
	else
		svc_reload_end(s, status);
}

/* Event: RELOADING=1; the service reloads until its READY=1. */
void
svc_reloading(struct svc *s)
{
	if (s->state != SVC_READY || s->reloading)
		return;
	s->reloading = true;
	s->set->ops->changed(s, SVC_READY);
}

/* Event: STOPPING=1; the service is on its way out by itself. */
void
svc_stopping(struct svc *s)
{
	if ((s->state != SVC_STARTING && s->state != SVC_READY) ||
	    s->pidfd < 0)
		return;
	svc_hook_cancel(s);		/* a start_post_exec: it stops */
	if (s->def->stop_timeout)
		svc_arm(s, s->def->stop_timeout);
	else
		svc_disarm(s);
	svc_set_state(s, SVC_STOPPING, svc_why(WHY_SELF_STOPPING, 0));
	svc_set_run(s->set);
}

/* Event: the low-memory killer sent SIGKILL; say so when it dies. */
void
svc_pressure_killed(struct svc *s)
{
	if (svc_has_process(s) && s->pending.why == WHY_NONE)
		s->pending = svc_why(WHY_PRESSURE, 0);
}

/* Event: the kernel's OOM killer killed it; say so when it dies. */
void
svc_oom_killed(struct svc *s)
{
	if (svc_has_process(s) && s->pending.why == WHY_NONE) {
		s->pending = svc_why(WHY_OOM, 0);
		s->mem_need = s->mem_seen;	/* as the killer last saw it */
	}
}

/* Event: STATUS=text. */
int
svc_status_text(struct svc *s, const char *text, size_t len)
{
	char	*t;

	if ((t = strndup(text, len)) == NULL)
		return -ENOMEM;
	free(s->status_text);
	s->status_text = t;
	s->set->ops->changed(s, (enum svc_state)s->state);
	return 0;
}

/* Event: the timer of the service fired; what it means depends on state. */
void
svc_timeout(struct svc *s)
{
	int64_t	now;

	s->deadline = 0;
	if (s->hook != HOOK_NONE) {
		svc_hook_timeout(s);
		svc_set_run(s->set);
		return;
	}
	switch (s->state) {
	case SVC_STARTING:
		if (s->ready_seen) {	/* it settled */
			svc_up(s);
			return;
		}
		s->pending = svc_why(WHY_READY_TIMEOUT, 0);
		svc_send_stop(s, s->def->stop_signal);
		svc_set_state(s, SVC_STOPPING, s->pending);
		break;
	case SVC_READY:
		now = svc_now(s);
		if (s->reload_due && now >= s->reload_due)
			svc_reload_end(s, -ETIMEDOUT);	/* arms again */
		if (!s->watch_due || now < s->watch_due) {
			svc_arm_ready(s);
			break;
		}
		s->pending = svc_why(WHY_WATCHDOG, 0);
		svc_send_stop(s, SIGABRT);
		svc_set_state(s, SVC_STOPPING, s->pending);
		break;
	case SVC_STOPPING:
		if (!s->kill_sent)
			svc_send_stop(s, SIGKILL);
		break;
	case SVC_BACKOFF:
		s->due = true;
		svc_kick(s);
		break;
	}
	svc_set_run(s->set);
}

/*
 * Event: the process died (reaped through its pidfd): code is its exit
 * status, or sig the signal that killed it.
 */
void
svc_died(struct svc *s, int code, int sig)
{
	const struct svc_def	*d = s->def;
	struct svc_reason	 death;
	bool			 clean;

	svc_disarm(s);
	s->execing = false;
	s->exit_code = sig ? 0 : code;
	s->exit_sig = sig;
	death = sig ? svc_why(WHY_KILLED, sig) : svc_why(WHY_EXITED, code);
	if (s->pending.why != WHY_NONE)
		death = s->pending;
	s->pending = svc_why(WHY_NONE, 0);
	s->last = death;
	free(s->status_text);		/* it was that process's status */
	s->status_text = NULL;
	clean = (death.why == WHY_EXITED || death.why == WHY_KILLED) &&
	    restart_clean(d, code, sig);
	if (s->state == SVC_STARTING && d->settle && !svc_is_task(s)) {
		clean = false;		/* it did not settle: a failed start */
		death.early = true;
		s->last = death;
	}
	s->ready_seen = s->reloading = s->reload_asked = false;
	s->reload_ready = false;
	s->reload_due = s->watch_due = 0;
	s->died_clean = clean;
	s->died_stopped = s->state == SVC_STOPPING &&
	    s->reason.why == WHY_STOPPED;
	s->last = death;
	/* What a start or a stop ran dies with it; stop_post_exec next. */
	svc_hook_cancel(s);
	if (s->set->ops->hook != NULL &&
	    s->set->ops->hook(s, HOOK_STOP_POST) == 0) {
		s->hook = HOOK_STOP_POST;
		if (s->def->stop_timeout)
			svc_arm(s, s->def->stop_timeout);
		svc_set_state(s, SVC_STOPPING, svc_why(WHY_IN_HOOK,
		    HOOK_STOP_POST));
		svc_set_run(s->set);
		return;
	}
	svc_after_death(s, death);
}

/* How a death counts for the restart modes: one DEATH_ bit. */
static uint8_t
svc_death_kind(struct svc_reason death, bool clean)
{
	if (clean)
		return DEATH_CLEAN;
	switch (death.why) {
	case WHY_KILLED:
	case WHY_PRESSURE:
	case WHY_OOM:
		return DEATH_SIGNAL;
	case WHY_READY_TIMEOUT:
	case WHY_SPAWN_TIMEOUT:
		return DEATH_TIMEOUT;
	case WHY_WATCHDOG:
	case WHY_WATCHDOG_TRIGGER:
	case WHY_UNHEALTHY:
		return DEATH_WATCHDOG;
	default:
		return DEATH_CODE;
	}
}

/*
 * After the death of the main process (and its stop_post_exec): stopped,
 * started again, done or failed, as its want and its restart say.
 */
void
svc_after_death(struct svc *s, struct svc_reason death)
{
	const struct svc_def	*d = s->def;
	bool			 clean = s->died_clean, again;

	if (!s->want_up || s->restart_req || s->died_stopped) {
		/* It was to stop: whatever it died of, that is a stop.  If
		 * it is wanted up again (restart, or start while stopping),
		 * it starts afresh. */
		if (s->died_stopped)
			death = svc_why(s->kill_sent && d->stop_signal != SIGKILL ?
			    WHY_STOP_KILLED : WHY_STOPPED, 0);
		svc_set_state(s, SVC_STOPPED, death);
		if (s->want_up) {
			svc_fresh(s);
			svc_kick(s);
		}
	} else {
		again = restart_on[d->restart] & svc_death_kind(death, clean);
		/* restart_prevent/force_exit_status, of an exit's status
		 * alone, over the mode (systemd's). */
		if (death.why == WHY_EXITED || death.why == WHY_KILLED) {
			if (restart_listed(d->restart_prevent_exit_status,
			    s->exit_code, s->exit_sig))
				again = false;
			else if (restart_listed(d->restart_force_exit_status,
			    s->exit_code, s->exit_sig))
				again = true;
		}
		if (svc_is_task(s) && clean) {
			s->want_up = false;
			svc_set_state(s, SVC_DONE, death);
		} else if (d->on_demand && clean) {
			/* Done with its clients: listen for the next. */
			svc_set_state(s, SVC_STOPPED, death);
			svc_kick(s);
		} else if (again) {
			svc_backoff(s, death, false);
		} else {
			s->want_up = false;
			svc_set_state(s, clean ? SVC_STOPPED : SVC_FAILED,
			    death);
		}
	}
	svc_set_run(s->set);
}
