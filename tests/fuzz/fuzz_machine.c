/*
 * fuzz_machine.c - the state machine (svc.c, svc_hook.c) driven by any
 * order of events: each input byte is one, on one of six services that
 * between them use every feature the machine has (hooks, a task, a
 * listener on demand, notify and its watchdog, health, dependencies,
 * settle).  The world is faked as in test_svc.c, but it keeps the
 * promises the real one keeps: a death only of a process, a hook's end
 * only of a hook that runs, a timer only when armed.  svc_set_state()
 * aborts at a move outside its table; this checks, after each event,
 * that no state without a process holds one.  The first two bytes pick
 * the restart modes of two services.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "fuzz.h"
#include "conf.h"
#include "svc.h"

#define NSVC	6

static const char *const names[NSVC] = { "a", "b", "d", "f", "h", "t" };
static const char *const texts[NSVC] = {
	/* a: notify, watchdog, every hook, needs b */
	"[service]\nexec = x\nready = notify\nwatchdog = 1s\n"
	"start_pre_exec = p\nstart_post_exec = q\nstop_exec = s\n"
	"stop_post_exec = r\nrequires = b\nstart_limit_burst = 5\n"
	"restart = %s\n",
	/* b: ready at its exec */
	"[service]\nexec = x\nrestart = %s\n",
	/* d: started by a client */
	"[service]\nexec = x\non_demand = yes\nlisten = tcp:127.0.0.1:1\n",
	/* f: a pipe, settles, needs the task, comes after a */
	"[service]\nexec = x\nready = fd:3\nsettle = 1s\nrequires = t\n"
	"after = a\nrestart = never\nstart_post_exec = q\n",
	/* h: ready by its health check */
	"[service]\nexec = x\nready = health\nhealth_exec = c\n"
	"restart = on-abnormal\nready_timeout = 5s\n",
	/* t: a task with a stop at the end */
	"[service]\nexec = x\nready = exit\nstop_exec = s\n",
};

struct fsvc {
	struct svc	svc;
	int64_t		timer;		/* -1: disarmed */
	bool		hook;		/* its hooks run */
};

static struct {
	struct conf	conf;
	struct svc_set	set;
	struct fsvc	f[NSVC];
	int64_t		now;
	int		spawn_rc;
	int		listen_rc;
	bool		busy;
	int64_t		hold;
	int		pids;
} W;

static struct fsvc *
F(struct svc *s)
{
	return (struct fsvc *)(void *)s;
}

static int
f_spawn(struct svc *s)
{
	int	rc = W.spawn_rc;

	if (rc) {
		W.spawn_rc = 0;
		return rc;
	}
	s->pid = ++W.pids;
	s->pidfd = 100 + (W.pids % 1000);
	return 0;
}

static int
f_signal(struct svc *s, int sig)
{
	(void)s;
	(void)sig;
	return 0;
}

static void
f_timer(struct svc *s, uint32_t ms)
{
	F(s)->timer = W.now + ms;
}

static void
f_timer_stop(struct svc *s)
{
	F(s)->timer = -1;
}

/* FUZZ_TRACE=1: each event and move on stderr, to read a crash. */
static bool	trace;

static void
f_changed(struct svc *s, enum svc_state from)
{
	if (trace && from != s->state)
		fprintf(stderr, "  %s: %s -> %s\n", s->def->name,
		    svc_state_name(from), svc_state_name(s->state));
}

static int64_t
f_now(struct svc_set *set)
{
	(void)set;
	return W.now;
}

static void
f_defer(struct svc_set *set)
{
	(void)set;
}

static bool
f_busy(struct svc_set *set)
{
	(void)set;
	return W.busy;
}

static int64_t
f_hold(struct svc *s, int64_t *until)
{
	(void)s;
	*until = W.now + 60000;
	return W.hold;
}

static int
f_hook(struct svc *s, int kind)
{
	const struct svc_def	*d = s->def;
	char *const		*cmds = kind == HOOK_START_PRE ?
				    d->start_pre_exec : kind == HOOK_START_POST ?
				    d->start_post_exec : kind == HOOK_STOP ?
				    d->stop_exec : kind == HOOK_STOP_POST ?
				    d->stop_post_exec : NULL;

	if (cmds == NULL)
		return 1;
	F(s)->hook = true;
	return 0;
}

static void
f_hook_stop(struct svc *s)
{
	F(s)->hook = false;
}

static int
f_listen(struct svc *s, bool on)
{
	int	rc = on ? W.listen_rc : 0;

	(void)s;
	W.listen_rc = 0;
	return rc;
}

static const struct svc_ops ops = {
	.spawn = f_spawn, .busy = f_busy, .signal = f_signal,
	.timer = f_timer, .timer_stop = f_timer_stop, .changed = f_changed,
	.now = f_now, .defer = f_defer, .hold = f_hold, .hook = f_hook,
	.hook_stop = f_hook_stop, .listen = f_listen,
};

static const char *const modes[] = {
	"always", "on-failure", "never", "on-success", "on-abnormal",
	"on-abort", "on-watchdog",
};

static int
world(uint8_t ma, uint8_t mb)
{
	char	text[512];
	size_t	i;

	memset(&W, 0, sizeof(W));
	W.now = 1000000;
	conf_init(&W.conf);
	for (i = 0; i < NSVC; i++) {
		snprintf(text, sizeof(text), texts[i], modes[(i == 0 ? ma :
		    mb) % (sizeof(modes) / sizeof(modes[0]))]);
		if (conf_parse_service(&W.conf, names[i], names[i], text) < 0)
			return -1;
	}
	if (conf_check(&W.conf) < 0)
		return -1;
	W.set.v = calloc(NSVC, sizeof(*W.set.v));
	W.set.ops = &ops;
	TAILQ_INIT(&W.set.queue);
	TAILQ_INIT(&W.set.held);
	for (i = 0; i < W.conf.ndefs; i++) {
		svc_init(&W.f[i].svc, W.conf.defs[i], &W.set);
		W.f[i].timer = -1;
		W.set.v[W.set.n++] = &W.f[i].svc;
	}
	return svc_set_link(&W.set);
}

static void
world_free(void)
{
	size_t	i;

	for (i = 0; i < W.set.n; i++)
		svc_release(W.set.v[i]);
	free(W.set.v);
	free(W.set.stack);
	conf_free(&W.conf);
}

/* The process of s ended, with a status or of a signal. */
static void
die(struct svc *s, int code, int sig)
{
	if (s->pidfd < 0)
		return;
	s->pidfd = -1;
	svc_died(s, code, sig);
}

static void
event(uint8_t b)
{
	struct fsvc	*f = &W.f[(b >> 5) % W.set.n];
	struct svc	*s = &f->svc;

	if (trace)
		fprintf(stderr, "%s: event %d (hook %d)\n", s->def->name,
		    b & 0x1f, s->hook);
	switch (b & 0x1f) {
	case 0:  svc_start(s); break;
	case 1:  svc_stop(s); break;
	case 2:  svc_restart(s); break;
	case 3:  svc_exec(s, STAGE_EXEC, 0); break;
	case 4:  svc_exec(s, STAGE_EXEC, ENOENT); break;
	case 5:  svc_ready(s); break;
	case 6:  die(s, 0, 0); break;
	case 7:  die(s, 1, 0); break;
	case 8:  die(s, 0, SIGKILL); break;
	case 9:
		if (f->timer >= 0) {
			W.now = f->timer > W.now ? f->timer : W.now;
			f->timer = -1;
			svc_timeout(s);
		}
		break;
	case 10:
	case 11:
		if (f->hook && s->hook != HOOK_NONE) {
			f->hook = false;
			svc_hook_done(s, s->hook, b & 1);
		}
		break;
	case 12: svc_watchdog(s); break;
	case 13: svc_watchdog_trigger(s); break;
	case 14: svc_unhealthy(s, 1); break;
	case 15: svc_stopping(s); break;
	case 16: svc_triggered(s); break;
	case 17: svc_trigger_limit(s); break;
	case 18: svc_pressure_killed(s); break;
	case 19: svc_oom_killed(s); break;
	case 20: W.spawn_rc = -EAGAIN; break;
	case 21: W.spawn_rc = -ENOENT; break;
	case 22:
		W.busy = !W.busy;
		if (!W.busy)
			svc_set_unhold(&W.set);
		break;
	case 23: W.hold = W.hold ? 0 : (b & 0x20) ? -1 : 5000; break;
	case 24: W.listen_rc = -EADDRINUSE; break;
	case 25: svc_set_stop_all(&W.set); break;
	case 26: W.now += 10000; break;
	case 27: svc_reload_asked(s, b & 0x20); break;
	case 28: svc_reload_done(s, (b & 0x40) ? 1 : 0); break;
	case 29: svc_reloading(s); break;
	case 30: svc_spawn_timeout(s); break;
	case 31: svc_extend(s, 3000); break;
	}
	svc_set_run(&W.set);
}

/* A state that has no process holds none; a hook runs only with one. */
static void
check(void)
{
	size_t	i;

	for (i = 0; i < W.set.n; i++) {
		struct svc	*s = W.set.v[i];

		switch (s->state) {
		case SVC_STOPPED:
		case SVC_BACKOFF:
		case SVC_FAILED:
		case SVC_DONE:
		case SVC_LISTENING:
			if (s->pidfd >= 0 || s->hook != HOOK_NONE) {
				fprintf(stderr, "%s: %s with pidfd %d, hook "
				    "%d\n", s->def->name,
				    svc_state_name(s->state), s->pidfd,
				    s->hook);
				abort();
			}
			break;
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t	i;

	if (size < 2 || size > 4096)
		return 0;
	trace = getenv("FUZZ_TRACE") != NULL;
	if (world(data[0], data[1]) < 0)
		abort();		/* every world here is valid */
	for (i = 2; i < size; i++) {
		event(data[i]);
		check();
	}
	world_free();
	return 0;
}
