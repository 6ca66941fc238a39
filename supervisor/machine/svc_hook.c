/*
 * svc_hook.c - the state machine's steps around hooks: a start that waits
 * for its start_pre_exec and start_post_exec, a stop by stop_exec, a
 * death that waits for its stop_post_exec, a finished task's stop_exec
 * at the end.  The hooks themselves are hook.c's; the rest of the
 * machine is svc.c's, whose own helpers svc_int.h shares.
 */
#include <errno.h>
#include <signal.h>

#include "cond.h"
#include "svc.h"
#include "svc_int.h"

/*
 * At the end, a finished task with a stop_exec runs it (systemd's
 * oneshot with RemainAfterExit and ExecStop: save at power-off what was
 * loaded at boot); it is stopping until that ends.
 */
void
svc_done_stop(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;

	if (ops->hook == NULL || ops->hook(s, HOOK_STOP) != 0)
		return;
	s->hook = HOOK_STOP;
	if (s->def->stop_timeout)
		svc_arm(s, s->def->stop_timeout);
	svc_set_state(s, SVC_STOPPING, svc_why(WHY_IN_HOOK, HOOK_STOP));
}

/* Kill the hooks of the steps that run, and forget them. */
void
svc_hook_cancel(struct svc *s)
{
	if (s->hook == HOOK_NONE)
		return;
	s->set->ops->hook_stop(s);
	s->hook = HOOK_NONE;
}

/* A finished task's stop_exec ended (svc_done_stop): it is stopped. */
static void
svc_task_stopped(struct svc *s, int status)
{
	struct svc_reason	r = svc_why(WHY_HOOK, status);

	if (s->pidfd >= 0 || s->state != SVC_STOPPING)
		return;
	r.stage = HOOK_STOP;
	svc_disarm(s);
	svc_set_state(s, SVC_STOPPED, status ? r : svc_why(WHY_STOPPED, 0));
}

/*
 * A start's condition did not hold (status: HOOK_ST_* and its code):
 * skipped, its start not counted, what waits on it goes on (systemd's
 * job done, the unit inactive); an assertion fails it, with no restart.
 * False: the checker itself failed (a failure as any hook's).
 */
static bool
svc_not_met(struct svc *s, int status)
{
	int			code = status & 0xffff;
	struct svc_reason	r = svc_why(WHY_CONDITION, code);

	if (status & HOOK_ST_CONDITION) {
		r.stage = 1;
	} else if (code >= COND_ASSERT_TRIGGERS &&
	    code < COND_ASSERT_FAILED + COND_MAX) {
		r.why = WHY_ASSERT;
		s->last = r;
		s->want_up = false;
		svc_set_state(s, SVC_FAILED, r);
		return true;
	} else if (code < COND_TRIGGERS || code >= COND_FAILED + COND_MAX) {
		return false;
	}
	if (s->limit_count > 0)
		s->limit_count--;
	/* Its job is done, as a task's: nothing more is wanted of it (an
	 * accept instance goes, a listener waits for a start). */
	s->want_up = false;
	svc_set_state(s, SVC_SKIPPED, r);
	return true;
}

/*
 * A hook of the steps failed (status: its exit status, 256 + a signal,
 * or -errno): a start_pre_exec fails the start; a start_post_exec stops
 * the service, a failed start.
 */
void
svc_hook_failed(struct svc *s, int kind, int status)
{
	struct svc_reason	r = svc_why(WHY_HOOK, status);

	r.stage = (uint8_t)kind;
	s->hook = HOOK_NONE;
	svc_disarm(s);
	if (status > 0 && (status & (HOOK_ST_CHECKER | HOOK_ST_CONDITION))) {
		if (svc_not_met(s, status))
			return;
		status &= 0xffff;
		r.code = status;
	}
	if (kind == HOOK_START_PRE) {
		s->last = r;
		if (restart_on[s->def->restart] & DEATH_CODE) {
			svc_backoff(s, r, false);
			return;
		}
		s->want_up = false;
		svc_set_state(s, SVC_FAILED, r);
		return;
	}
	s->pending = r;
	svc_send_stop(s, s->def->stop_signal);
	svc_set_state(s, SVC_STOPPING, r);
}

/*
 * Event: the hooks of a step ended, with status 0 (all exited 0) or as
 * svc_hook_failed() says.  Each step goes on from where it waited.
 */
void
svc_hook_done(struct svc *s, int kind, int status)
{
	const struct svc_ops	*ops = s->set->ops;

	if (s->hook != kind || kind == HOOK_NONE)
		return;
	switch (kind) {
	case HOOK_START_PRE:
	case HOOK_START_POST:
		if (status != 0)
			svc_hook_failed(s, kind, status);
		else if (kind == HOOK_START_PRE) {
			/* The main process next, when there is room for it
			 * (svc_step): others' spawns may fill it now. */
			s->hook = HOOK_NONE;
			s->pre_done = true;
			svc_disarm(s);	/* the spawn arms ready_timeout */
			svc_kick(s);
		} else
			svc_up(s);
		break;
	case HOOK_STOP:
		/* stop_exec failed: the stop_signal, as without it. */
		s->hook = HOOK_NONE;
		if (status != 0 && s->pidfd >= 0 && !s->kill_sent) {
			ops->signal(s, s->def->stop_signal);
			ops->signal(s, SIGCONT);
			if (s->def->send_sighup)
				ops->signal(s, SIGHUP);
		}
		svc_task_stopped(s, status);
		break;
	case HOOK_STOP_POST:
		s->hook = HOOK_NONE;
		svc_disarm(s);
		svc_after_death(s, s->last);
		break;
	}
	svc_set_run(s->set);
}

/*
 * The timer fired while hooks of a step run: a start's fail it, a stop's
 * stop_exec gives way to SIGKILL, a stop_post_exec is given up.
 */
void
svc_hook_timeout(struct svc *s)
{
	int	kind = s->hook;

	svc_hook_cancel(s);
	switch (kind) {
	case HOOK_START_PRE:
	case HOOK_START_POST:
		svc_hook_failed(s, kind, -ETIMEDOUT);
		break;
	case HOOK_STOP:
		svc_send_stop(s, SIGKILL);
		svc_task_stopped(s, -ETIMEDOUT);
		break;
	case HOOK_STOP_POST:
		svc_after_death(s, s->last);
		break;
	}
}

