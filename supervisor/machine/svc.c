/*
 * svc.c - the service state machine: its commands and its steps.
 *
 * Every transition goes through svc_set_state() here, checked against
 * svc_moves.  Commands (start, stop, restart) come in here; the world's
 * events (a death, readiness, a timer) in svc_event.c; each changes one
 * service and queues the services around it.
 * svc_set_run() then steps queued services until nothing moves, so that
 * start and stop propagate along dependencies through a queue, never by
 * recursion.  The outside world (processes, signals, timers) is reached
 * only through set->ops, which the unit tests replace.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
#include "svc.h"
#include "svc_int.h"

static void	svc_step(struct svc *);

int64_t
svc_now(struct svc *s)
{
	return s->set->ops->now(s->set);
}

/* Arm the service's one timer, in ms from now. */
void
svc_arm(struct svc *s, uint32_t ms)
{
	s->deadline = svc_now(s) + ms;
	s->set->ops->timer(s, ms);
}

void
svc_disarm(struct svc *s)
{
	s->deadline = 0;
	s->set->ops->timer_stop(s);
}

/* Queue a service to be stepped. */
void
svc_kick(struct svc *s)
{
	if (s->held) {			/* it may not want the spawn now */
		TAILQ_REMOVE(&s->set->held, s, q);
		s->held = s->queued = false;
	}
	if (s->queued)
		return;
	s->queued = true;
	TAILQ_INSERT_TAIL(&s->set->queue, s, q);
}

/* Queue every service whose next move may depend on s. */
static void
svc_kick_around(struct svc *s)
{
	uint32_t	i;

	for (i = 0; i < s->nreq_by; i++)
		svc_kick(s->req_by[i]);
	for (i = 0; i < s->nafter_by; i++)
		svc_kick(s->after_by[i]);
	for (i = 0; i < s->nreqs; i++)
		svc_kick(s->reqs[i]);
	for (i = 0; i < s->nafters; i++)
		svc_kick(s->afters[i]);
}

/*
 * Where each state may go (svc_set_state checks): the machine as this
 * file and svc_hook.c drive it, read from every svc_set_state() call and
 * confirmed by a record of every move the tests make.
 */
#define M(st)	(1U << SVC_##st)
static const uint16_t svc_moves[SVC__STATES] = {
	[SVC_STOPPED] = M(STARTING) | M(BACKOFF) | M(FAILED) | M(LISTENING),
	[SVC_STARTING] = M(STOPPED) | M(STARTING) | M(READY) | M(STOPPING) |
	    M(BACKOFF) | M(FAILED) | M(DONE) | M(SKIPPED),
	[SVC_READY] = M(STOPPED) | M(STOPPING) | M(BACKOFF) | M(FAILED),
	[SVC_STOPPING] = M(STOPPED) | M(STOPPING) | M(BACKOFF) | M(FAILED) |
	    M(DONE),
	[SVC_BACKOFF] = M(STOPPED) | M(STARTING) | M(BACKOFF) | M(FAILED) |
	    M(LISTENING),
	[SVC_FAILED] = M(STOPPED) | M(STARTING) | M(BACKOFF) | M(FAILED) |
	    M(LISTENING),
	[SVC_DONE] = M(STOPPED) | M(STOPPING),
	[SVC_LISTENING] = M(STOPPED) | M(STARTING) | M(BACKOFF) | M(FAILED),
	[SVC_SKIPPED] = M(STOPPED),
};
#undef M

/* The one place where a service changes state. */
void
svc_set_state(struct svc *s, enum svc_state st, struct svc_reason r)
{
	enum svc_state	from = s->state;

	if (!(svc_moves[from] & 1U << st)) {
		fprintf(stderr, "pidvisor: bug: %s: %s to %s\n", s->def->name,
		    svc_state_name(from), svc_state_name(st));
#ifdef PV_STRICT
		abort();
#endif
	}
	s->state = (uint8_t)st;
	s->reason = r;
	if (st != SVC_BACKOFF)
		s->mem_wait = false;
	s->since = svc_now(s);
	svc_kick_around(s);
	s->set->ops->changed(s, from);
}

/*
 * Does the service have a process that we have not reaped?  (Or is it
 * on its way to one, or from one: in its start_pre_exec or its
 * stop_post_exec; pidfd says whether a main process is there.)
 */
bool
svc_has_process(const struct svc *s)
{
	return s->state == SVC_STARTING || s->state == SVC_READY ||
	    s->state == SVC_STOPPING;
}

/* Is it a run-once service (ready = exit)? */
bool
svc_is_task(const struct svc *s)
{
	return ready_kinds[s->def->ready].task;
}

/* May what requires it, or comes after it, start? */
bool
svc_satisfies(const struct svc *s)
{
	return (s->state == SVC_READY || s->state == SVC_DONE ||
	    s->state == SVC_LISTENING || s->state == SVC_SKIPPED) &&
	    !s->restart_req;
}

/* Is it run by a timer (any on_* key)? */
bool
svc_timed(const struct svc *s)
{
	return conf_def_timed(s->def);
}

/* Does it start when pidvisor does (or a reload adds it)? */
bool
svc_starts_at_once(const struct svc *s)
{
	return s->def->enabled && !svc_timed(s);
}

/*
 * A timer's service as is-ready wants it: enabled (its timer armed), not
 * stopped by a command, and not failed: between its runs, or in one.
 */
bool
svc_timer_ok(const struct svc *s)
{
	return s->def->enabled && !s->paused && s->state != SVC_FAILED &&
	    s->state != SVC_BACKOFF;
}

/*
 * Its timer elapsed: start it as a command would, unless it runs (or
 * is on its way up) or a command stopped it.  0: started; -EBUSY: it
 * runs; -EPERM: stopped by a command.
 */
int
svc_trigger(struct svc *s)
{
	if (s->paused)
		return -EPERM;
	if (svc_has_process(s) || s->state == SVC_BACKOFF ||
	    (s->state == SVC_STOPPED && s->want_up))
		return -EBUSY;
	svc_start(s);
	return 0;
}

/* Is it an accept = yes listener, whose instances serve its clients? */
bool
svc_is_listener(const struct svc *s)
{
	return s->def->accept && strchr(s->def->name, '@') == NULL;
}

/*
 * Wanted up, with nothing to start until a client comes: watch its
 * sockets (LISTENING).  A socket that cannot be bound fails it.
 */
static void
svc_listen(struct svc *s)
{
	struct svc_reason	r = s->reason;
	int			rc;

	if (s->state == SVC_LISTENING)
		return;
	if ((rc = s->set->ops->listen(s, true)) < 0) {
		s->want_up = false;
		if (s->state == SVC_BACKOFF)
			svc_disarm(s);
		svc_set_state(s, SVC_FAILED, svc_why(WHY_LISTEN, -rc));
		return;
	}
	if (r.why == WHY_STOPPED || r.why == WHY_NONE || r.why == WHY_WAITING)
		r = svc_why(WHY_ON_DEMAND, 0);
	svc_set_state(s, SVC_LISTENING, r);
}

/* Set up a service for a definition; it starts STOPPED, wanting down. */
void
svc_init(struct svc *s, struct svc_def *d, struct svc_set *set)
{
	memset(s, 0, sizeof(*s));
	s->def = d;
	s->set = set;
	s->pidfd = -1;
	s->delay = d->restart_delay;
	s->state = SVC_STOPPED;
#ifdef PV_TEST_FIELD
	s->test_field = 42;
#endif
}

/* Free what svc_init and svc_set_link allocated. */
void
svc_release(struct svc *s)
{
	free(s->reqs);
	free(s->afters);
	free(s->req_by);
	free(s->after_by);
	free(s->status_text);
	free(s->fail);
	if (s->queued)
		TAILQ_REMOVE(s->held ? &s->set->held : &s->set->queue, s, q);
	s->reqs = s->afters = s->req_by = s->after_by = NULL;
	s->status_text = s->fail = NULL;
	s->queued = s->held = false;
}

/* A command wants the service up: forget earlier failures. */
void
svc_fresh(struct svc *s)
{
	s->delay = s->def->restart_delay;
	s->limit_count = 0;
	s->limit_begin = 0;
}

/*
 * Set the want of s and, along dependencies, of what it needs (up: the
 * services it requires) or of what needs it (down: the services that
 * require it).  An explicit stack, not recursion.  A finished task (DONE)
 * that s requires stays done: it satisfies s as it is.
 */
static void
svc_want(struct svc *s, bool up)
{
	struct svc_set	 *set = s->set;
	struct svc	**stack = set->stack, *x;
	size_t		  top = 0;
	uint32_t	  i;

	set->round++;
	stack[top++] = s;
	s->mark = set->round;
	while (top > 0) {
		x = stack[--top];
		if (up && x != s && (x->state == SVC_DONE ||
		    x->state == SVC_SKIPPED))
			continue;
		if (up && !x->want_up)
			svc_fresh(x);
		if (up)
			x->paused = false;	/* wanted: its timer too */
		x->want_up = up;
		svc_kick(x);
		for (i = 0; i < (up ? x->nreqs : x->nreq_by); i++) {
			struct svc	*y = up ? x->reqs[i] : x->req_by[i];

			if (y->mark == set->round)
				continue;
			y->mark = set->round;
			stack[top++] = y;
		}
	}
}

/* A command asks a finished task (or a skipped start) to run again. */
static void
svc_undone(struct svc *s)
{
	if (s->state == SVC_DONE || s->state == SVC_SKIPPED)
		svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
}

/* Command: start s and what it requires; a finished task runs again. */
void
svc_start(struct svc *s)
{
	s->paused = false;
	svc_undone(s);
	svc_want(s, true);
	svc_fresh(s);
	if (s->state == SVC_BACKOFF) {
		s->due = true;
		s->mem_waived = true;	/* asked for: no wait for memory */
	}
	svc_set_run(s->set);
}

/* Command: stop s and, first, what requires it; a finished task stays. */
void
svc_stop(struct svc *s)
{
	s->paused = svc_timed(s);	/* its timer starts nothing */
	if (s->state == SVC_DONE)
		return;
	if (s->state == SVC_SKIPPED)
		svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
	svc_want(s, false);
	svc_set_run(s->set);
}

/*
 * Command: forget a failure: a failed service is stopped, its start
 * limit and back-off afresh; how it failed stays its last end.
 */
void
svc_reset_failed(struct svc *s)
{
	if (s->state != SVC_FAILED)
		return;
	svc_fresh(s);
	svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
	svc_set_run(s->set);
}

/* Command: stop everything, dependents first (shutdown). */
void
svc_set_stop_all(struct svc_set *set)
{
	size_t	i;

	for (i = 0; i < set->n; i++) {
		set->v[i]->want_up = false;
		set->v[i]->restart_req = false;
		if (set->v[i]->state == SVC_DONE)
			svc_done_stop(set->v[i]);
		svc_kick(set->v[i]);
	}
	svc_set_run(set);
}

/* Command: stop s (and what requires it and runs), then start them again. */
void
svc_restart(struct svc *s)
{
	struct svc_set	 *set = s->set;
	struct svc	**stack = set->stack, *x;
	size_t		  top = 0;
	uint32_t	  i;

	s->paused = false;
	svc_undone(s);
	svc_want(s, true);
	set->round++;
	stack[top++] = s;
	s->mark = set->round;
	while (top > 0) {
		x = stack[--top];
		if (x == s || svc_has_process(x))
			x->restart_req = true;
		svc_kick(x);
		for (i = 0; i < x->nreq_by; i++) {
			struct svc	*y = x->req_by[i];

			if (y->mark == set->round || !svc_has_process(y))
				continue;
			y->mark = set->round;
			stack[top++] = y;
		}
	}
	svc_set_run(set);
}

/*
 * Step queued services until nothing is left to do, or until this turn's
 * spawns are used up: a spawn costs a millisecond, and a thousand at once
 * must not keep the control socket and the deaths waiting.
 */
void
svc_set_run(struct svc_set *set)
{
	struct svc	*s;

	if (set->running || set->batch > 0)
		return;
	set->running = true;
	set->deferred = false;
	while (!set->deferred && (s = TAILQ_FIRST(&set->queue)) != NULL) {
		TAILQ_REMOVE(&set->queue, s, q);
		s->queued = false;
		svc_step(s);
	}
	set->running = false;
	if (set->deferred)
		set->ops->defer(set);
}

/*
 * Several changes at once (the boot's starts, a reload's, a command's
 * names): nothing steps until svc_set_batch(set, false), so that each
 * service sees every want set (`after` waits for a service that starts
 * in the same batch, whatever their order).
 */
void
svc_set_batch(struct svc_set *set, bool on)
{
	if (on)
		set->batch++;
	else if (--set->batch == 0)
		svc_set_run(set);
}

/* A spawn can start again: step the held services first, in order. */
void
svc_set_unhold(struct svc_set *set)
{
	struct svc	*s;

	while ((s = TAILQ_LAST(&set->held, svc_queue)) != NULL) {
		TAILQ_REMOVE(&set->held, s, q);
		s->held = false;
		TAILQ_INSERT_HEAD(&set->queue, s, q);
	}
	svc_set_run(set);
}

/*
 * Send the stop signal (and SIGCONT, so a stopped process sees it; and
 * SIGHUP with send_sighup, so that a shell hears its terminal go).
 */
void
svc_send_stop(struct svc *s, int sig)
{
	const struct svc_ops	*ops = s->set->ops;

	ops->signal(s, sig);
	if (sig == SIGKILL)
		s->kill_sent = true;
	else if (sig != SIGCONT)
		ops->signal(s, SIGCONT);
	if (s->def->send_sighup && sig != SIGKILL && sig != SIGHUP &&
	    sig != SIGCONT)
		ops->signal(s, SIGHUP);
	if (s->def->stop_timeout && !s->kill_sent)
		svc_arm(s, s->def->stop_timeout);
	else
		svc_disarm(s);
}

/*
 * Is there room for a spawn now?  If not, s is queued to be stepped
 * again, which comes back here: later this turn's, or once a spawn in
 * flight is done (ops->busy).
 */
static bool
svc_spawn_room(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;

	if (s->set->spawn_max && s->set->spawns >= s->set->spawn_max) {
		s->queued = true;
		TAILQ_INSERT_HEAD(&s->set->queue, s, q);
		s->set->deferred = true;
		return false;
	}
	if (ops->busy && ops->busy(s->set)) {
		/* Others may have work that is not a spawn. */
		s->queued = s->held = true;
		TAILQ_INSERT_TAIL(&s->set->held, s, q);
		return false;
	}
	return true;
}

/* Spawn the process. */
static void
svc_spawn(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;
	int64_t			 now = svc_now(s);
	int			 rc;

	if (!svc_spawn_room(s))
		return;
	if (s->state == SVC_LISTENING && ops->listen != NULL)
		ops->listen(s, false);
	s->triggered = false;
	s->set->spawns++;
	if (now - s->limit_begin > (int64_t)s->def->start_limit_interval ||
	    s->limit_count == 0) {
		s->limit_begin = now;
		s->limit_count = 0;
	}
	s->limit_count++;
	s->due = false;
	s->mem_waived = false;
	s->kill_sent = false;
	s->pending = svc_why(WHY_NONE, 0);
	s->ready_at = 0;
	s->ready_seen = s->reloading = s->reload_asked = false;
	s->reload_ready = false;
	s->reload_due = s->watch_due = 0;
	s->err = 0;
	s->pre_done = false;
	free(s->status_text);
	free(s->fail);
	s->status_text = s->fail = NULL;
	/* start_pre_exec first, within ready_timeout. */
	if (ops->hook != NULL && (rc = ops->hook(s, HOOK_START_PRE)) != 1) {
		if (rc < 0) {
			s->last = svc_why(WHY_HOOK, rc);
			s->last.stage = HOOK_START_PRE;
			svc_backoff(s, s->last, true);
			return;
		}
		s->hook = HOOK_START_PRE;
		s->starts++;
		s->started_at = now;
		if (s->def->ready_timeout)
			svc_arm(s, s->def->ready_timeout);
		svc_set_state(s, SVC_STARTING, svc_why(WHY_IN_HOOK,
		    HOOK_START_PRE));
		return;
	}
	svc_spawn_main(s, false);
}

/* Spawn the main process, its start_pre_exec done (counted: as a start). */
void
svc_spawn_main(struct svc *s, bool counted)
{
	const struct svc_ops	*ops = s->set->ops;
	int64_t			 now = svc_now(s);
	int			 rc;

	if ((rc = ops->spawn(s)) < 0) {
		/* Our own shortage (fds, PIDs, memory) is not the service
		 * failing: it does not count against the start limit, and
		 * the back-off retries until there is enough again. */
		if (rc == -EMFILE || rc == -ENFILE || rc == -EAGAIN ||
		    rc == -ENOMEM)
			s->limit_count--;
		/* s->fail: the op said why (its sockets: socks.c). */
		s->last = svc_why(s->fail ? WHY_LISTEN : WHY_SPAWN, -rc);
		svc_backoff(s, s->last, true);
		return;
	}
	s->pre_done = false;
	if (!counted)
		s->starts++;
	s->started_at = now;
	s->execing = true;
	if (s->def->ready_timeout)
		svc_arm(s, s->def->ready_timeout);
	svc_set_state(s, SVC_STARTING, svc_why(WHY_STARTED, 0));
}

/*
 * After a failure, while the service is wanted up: fail for good if it
 * started too often, else wait and start again.  Each quick failure
 * doubles the wait; a service that was ready long enough starts afresh.
 */
void
svc_backoff(struct svc *s, struct svc_reason r, bool spawn_failed)
{
	const struct svc_def	*d = s->def;
	int64_t			 now = svc_now(s);
	uint32_t		 delay;

	if (d->start_limit_burst && s->limit_count >= d->start_limit_burst &&
	    now - s->limit_begin <= (int64_t)d->start_limit_interval) {
		s->want_up = false;
		svc_set_state(s, SVC_FAILED, svc_why(WHY_START_LIMIT, 0));
		return;
	}
	if (s->ready_at && now - s->ready_at >= SVC_STABLE_MS)
		s->delay = d->restart_delay;
	delay = s->delay;
	s->delay = delay > d->restart_delay_max / 2 ? d->restart_delay_max :
	    delay * 2;
	if (spawn_failed && delay < 100)
		delay = 100;	/* never retry a failing clone in a loop */
	s->restarts++;
	s->mem_waived = false;
	s->due_at = now + delay;
	if (delay == 0) {
		s->due = true;
		svc_kick(s);
	} else {
		svc_arm(s, delay);
	}
	svc_set_state(s, SVC_BACKOFF, r);
}

/* The first required service that is not ready (or about to restart). */
static struct svc *
svc_unready_req(struct svc *s)
{
	uint32_t	i;

	for (i = 0; i < s->nreqs; i++)
		if (!svc_satisfies(s->reqs[i]))
			return s->reqs[i];
	return NULL;
}

/* The first service we come after that is still on its way up, or NULL. */
static struct svc *
svc_rising_after(struct svc *s)
{
	uint32_t	i;

	for (i = 0; i < s->nafters; i++) {
		struct svc	*t = s->afters[i];

		if (t->want_up && (t->state == SVC_STARTING ||
		    t->state == SVC_STOPPED || t->state == SVC_FAILED))
			return t;
	}
	return NULL;
}

/* The first service that must stop before s may, or NULL. */
static struct svc *
svc_blocking_stop(struct svc *s)
{
	uint32_t	i;

	for (i = 0; i < s->nreq_by + s->nafter_by; i++) {
		struct svc	*t = i < s->nreq_by ? s->req_by[i] :
		    s->after_by[i - s->nreq_by];

		if (svc_has_process(t) && (!t->want_up || t->restart_req))
			return t;
	}
	return NULL;
}

/*
 * A service killed for memory (by the low-memory killer or the kernel's
 * OOM killer) that is due to restart waits until the supervisor says
 * there is memory for it (ops->hold), unless a command asked for it.
 * True while it waits, or once it failed: it waited the longest, and
 * there is still no room, so it is not restarted into the pressure.
 */
static bool
svc_hold_for_memory(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;
	int64_t			 wait = 0, until = 0;

	if ((s->last.why != WHY_PRESSURE && s->last.why != WHY_OOM) ||
	    s->mem_waived || ops->hold == NULL ||
	    (wait = ops->hold(s, &until)) == 0) {
		s->mem_wait = false;
		return false;
	}
	if (wait < 0) {
		s->mem_wait = false;
		s->want_up = false;
		svc_set_state(s, SVC_FAILED, svc_why(WHY_NO_MEMORY, 0));
		return true;
	}
	s->due = false;
	s->due_at = until;
	svc_arm(s, (uint32_t)wait);
	if (!s->mem_wait) {
		s->mem_wait = true;
		ops->changed(s, (enum svc_state)s->state);
	}
	return true;
}

/* A stopped, failed or backing-off service that is wanted up. */
static void
svc_step_down(struct svc *s)
{
	struct svc	*dep;

	if (s->state == SVC_BACKOFF && (!s->want_up || s->restart_req)) {
		svc_disarm(s);
		s->due = false;
		svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
	}
	if (s->restart_req && s->state != SVC_BACKOFF) {
		s->restart_req = false;
		s->want_up = true;
	}
	if (!s->want_up) {
		if (s->state == SVC_STOPPED && s->reason.why == WHY_WAITING)
			s->reason = svc_why(WHY_STOPPED, 0);
		return;
	}
	if (s->state == SVC_BACKOFF && !s->due)
		return;
	if (s->state == SVC_BACKOFF && svc_hold_for_memory(s))
		return;
	if ((dep = svc_unready_req(s)) != NULL) {
		struct svc_reason	r = svc_why(WHY_WAITING, 0);

		if (dep->state == SVC_FAILED && !dep->want_up) {
			r.why = WHY_DEP_FAILED;
			r.dep = dep;
			s->want_up = false;
			if (s->state == SVC_BACKOFF)
				svc_disarm(s);
			svc_set_state(s, SVC_FAILED, r);
			return;
		}
		r.dep = dep;
		if (s->state != SVC_BACKOFF)
			s->reason = r;
		return;
	}
	if ((dep = svc_rising_after(s)) != NULL) {
		if (s->state != SVC_BACKOFF) {
			s->reason = svc_why(WHY_WAITING, 0);
			s->reason.dep = dep;
		}
		return;
	}
	if (s->set->ops->listen != NULL && (svc_is_listener(s) ||
	    (s->def->on_demand && !s->triggered))) {
		svc_listen(s);
		return;
	}
	svc_spawn(s);
}

/*
 * A stop asked for: its stop_exec, or its stop_signal; the stop_timeout
 * runs from here either way.  A start still in its start_pre_exec has
 * no process: it is stopped at once.
 */
static void
svc_stop_begin(struct svc *s)
{
	const struct svc_ops	*ops = s->set->ops;

	if (s->hook == HOOK_START_PRE || s->pre_done) {
		svc_hook_cancel(s);
		s->pre_done = false;
		svc_disarm(s);
		svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
		svc_kick(s);
		return;
	}
	svc_hook_cancel(s);
	if (ops->hook != NULL && ops->hook(s, HOOK_STOP) == 0) {
		s->hook = HOOK_STOP;
		if (s->def->stop_timeout)
			svc_arm(s, s->def->stop_timeout);
		else
			svc_disarm(s);
	} else {
		svc_send_stop(s, s->def->stop_signal);
	}
	svc_set_state(s, SVC_STOPPING, svc_why(WHY_STOPPED, 0));
}

/* Move one service toward its want. */
static void
svc_step(struct svc *s)
{
	switch (s->state) {
	case SVC_LISTENING:
		if (!s->want_up || s->restart_req) {
			/* What requires it stops first, as for any stop. */
			if (svc_blocking_stop(s) != NULL)
				break;
			if (s->set->ops->listen != NULL)
				s->set->ops->listen(s, false);
			svc_set_state(s, SVC_STOPPED, svc_why(WHY_STOPPED, 0));
		}
		svc_step_down(s);
		break;
	case SVC_STOPPED:
	case SVC_FAILED:
	case SVC_BACKOFF:
		svc_step_down(s);
		break;
	case SVC_STARTING:
	case SVC_READY:
		if (s->want_up && !s->restart_req) {
			/* start_pre_exec done: the main process, once there
			 * is room for its spawn. */
			if (s->pre_done && svc_spawn_room(s)) {
				s->set->spawns++;
				svc_spawn_main(s, true);
			}
			break;
		}
		if (svc_blocking_stop(s) != NULL)
			break;
		svc_stop_begin(s);
		break;
	case SVC_STOPPING:
	case SVC_DONE:
	case SVC_SKIPPED:
		break;
	}
}
