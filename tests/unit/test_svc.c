/*
 * test_svc.c - the state machine, driven by scripted events.
 *
 * The fake svc_ops log what the machine asks of the world ("spawn a",
 * "a:TERM") and every transition ("a>ready"), keep a fake clock, and
 * hold each service's timer, so a test reads like the story it checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "st.h"
#include "svc.h"

struct tsvc {
	struct svc	svc;
	int64_t		timer;		/* deadline, -1: disarmed */
};

static struct {
	struct conf	 conf;
	struct svc_set	 set;
	struct tsvc	*t;
	int64_t		 now;
	int		 next_pid;
	int		 spawn_rc;	/* next spawn: -errno */
	int		 exec_err;	/* next exec fails with this */
	struct svc	*execing[16];	/* spawned, exec not yet told */
	int		 nexecing;
	bool		 quiet;		/* do not log transitions */
	bool		 busy;		/* ops->busy */
	int64_t		 hold;		/* ops->hold: ms to wait for memory */
	int		 listen_rc;	/* ops->listen(on): -errno */
	int		 holds;		/* calls of ops->hold */
	int		 defers;	/* calls of ops->defer */
	struct buf	 log;
} W;

static struct tsvc *
T(struct svc *s)
{
	return container_of(s, struct tsvc, svc);
}

static void
logw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
logw(const char *fmt, ...)
{
	char	b[256];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	buf_puts(&W.log, b);
	buf_puts(&W.log, ";");
}

static int
f_spawn(struct svc *s)
{
	if (W.spawn_rc) {
		int	rc = W.spawn_rc;

		W.spawn_rc = 0;
		logw("spawn %s failed", s->def->name);
		return rc;
	}
	s->pid = ++W.next_pid;
	s->pidfd = 100 + s->pid;
	logw("spawn %s", s->def->name);
	assert_true(W.nexecing < (int)ARRAY_SIZE(W.execing));
	W.execing[W.nexecing++] = s;
	return 0;
}

static int
f_signal(struct svc *s, int sig)
{
	logw("%s:%s", s->def->name, signal_name(sig));
	return 0;
}

static void
f_timer(struct svc *s, uint32_t ms)
{
	T(s)->timer = W.now + ms;
}

static void
f_timer_stop(struct svc *s)
{
	T(s)->timer = -1;
}

static void
f_changed(struct svc *s, enum svc_state from)
{
	if (from != s->state && !W.quiet)
		logw("%s>%s", s->def->name, svc_state_name(s->state));
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
	W.defers++;
	logw("defer");
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
	W.holds++;
	*until = W.now + 60000;
	return W.hold;
}

/* Hooks: started if the definition has commands of the kind. */
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
	logw("hook %s %s", d->name, hook_name(kind));
	return 0;
}

static void
f_hook_stop(struct svc *s)
{
	logw("hook-stop %s", s->def->name);
}

/* Its sockets watched (on) or not; W.listen_rc: the next watch fails. */
static int
f_listen(struct svc *s, bool on)
{
	int	rc = on ? W.listen_rc : 0;

	W.listen_rc = 0;
	logw("%s %s%s", on ? "listen" : "unlisten", s->def->name,
	    rc ? " failed" : "");
	return rc;
}

static const struct svc_ops fake_ops = {
	.spawn = f_spawn, .busy = f_busy, .signal = f_signal, .timer = f_timer,
	.timer_stop = f_timer_stop, .changed = f_changed, .now = f_now,
	.defer = f_defer, .hold = f_hold, .hook = f_hook,
	.hook_stop = f_hook_stop, .listen = f_listen,
};

/* Make the services of the parsed W.conf, driven by the fake ops. */
static void
world_services(void)
{
	size_t	i;

	assert_int_equal(conf_check(&W.conf), 0);
	W.t = calloc(W.conf.ndefs, sizeof(*W.t));
	W.set.v = calloc(W.conf.ndefs, sizeof(*W.set.v));
	W.set.ops = &fake_ops;
	TAILQ_INIT(&W.set.queue);
	TAILQ_INIT(&W.set.held);
	for (i = 0; i < W.conf.ndefs; i++) {
		svc_init(&W.t[i].svc, W.conf.defs[i], &W.set);
		W.t[i].timer = -1;
		W.set.v[W.set.n++] = &W.t[i].svc;
	}
	assert_int_equal(svc_set_link(&W.set), 0);
}

/* Build a world from NULL-terminated pairs: name, ini text. */
static void
world(const char *name, ...)
{
	va_list		 ap;
	const char	*n, *text;

	memset(&W, 0, sizeof(W));
	W.now = 1000000;
	conf_init(&W.conf);
	va_start(ap, name);
	for (n = name; n; n = va_arg(ap, const char *)) {
		text = va_arg(ap, const char *);
		assert_int_equal(conf_parse_service(&W.conf, n, n, text), 0);
	}
	va_end(ap);
	world_services();
}

static int
world_free(void **state)
{
	size_t	i;

	(void)state;
	for (i = 0; i < W.set.n; i++)
		svc_release(W.set.v[i]);
	free(W.set.v);
	free(W.set.stack);
	free(W.t);
	conf_free(&W.conf);
	buf_free(&W.log);
	return 0;
}

static struct svc *
S(const char *name)
{
	struct svc	*s = svc_find(&W.set, name);

	assert_non_null(s);
	return s;
}

static void
log_clear(void)
{
	buf_consume(&W.log, W.log.len);
}

/* Compare the log so far with want, then clear it. */
/*
 * The children of the spawns so far exec, as the loop would tell (the
 * first fails with W.exec_err if set); what that starts, too.  EV(): an
 * event, then that.
 */
static void
execs(void)
{
	struct svc	*s;
	int		 err;

	while (W.nexecing > 0) {
		s = W.execing[0];
		memmove(W.execing, W.execing + 1,
		    (size_t)--W.nexecing * sizeof(*W.execing));
		err = W.exec_err;
		W.exec_err = 0;
		svc_exec(s, STAGE_EXEC, err);
	}
}

static void
expect_log(const char *want)
{
	const char	*got = W.log.data ? W.log.data : "";

	if (strcmp(got, want) != 0)
		print_error("want: %s\ngot:  %s\n", want, got);
	assert_string_equal(got, want);
	log_clear();
}

#define EV(call)	do { call; execs(); } while (0)

/* Advance the clock to the timer of s and fire it. */
static void
fire(struct svc *s)
{
	assert_true(T(s)->timer >= 0);
	W.now = T(s)->timer;
	T(s)->timer = -1;
	svc_timeout(s);
	execs();
}

/* The process of s ended. */
static void
die(struct svc *s, int code, int sig)
{
	assert_true(s->pidfd >= 0);
	s->pidfd = -1;
	svc_died(s, code, sig);
	execs();
}

static const char *
reason(struct svc *s)
{
	static char	b[256];

	svc_reason_format(s, b, sizeof(b));
	return b;
}

static void
test_exec_ready_and_backoff(void **state)
{
	struct svc	*a;
	int		 i;
	int64_t		 want[] = { 100, 200, 400, 800, 1600, 3200, 3500,
			    3500 };

	(void)state;
	world("a", "[service]\nexec = x\nstart_limit_burst = 0\n"
	    "restart_delay_max = 3.5s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	expect_log("spawn a;a>starting;a>ready;");
	assert_int_equal(a->state, SVC_READY);
	for (i = 0; i < (int)ARRAY_SIZE(want); i++) {
		W.now += 10;
		die(a, 1, 0);
		expect_log("a>backoff;");
		assert_string_equal(reason(a), i == 0 ?
		    "exited with code 1; restart in 100ms" : reason(a));
		assert_int_equal(T(a)->timer - W.now, want[i]);
		fire(a);
		expect_log("spawn a;a>starting;a>ready;");
	}
	assert_int_equal(a->restarts, ARRAY_SIZE(want));
	assert_int_equal(a->starts, ARRAY_SIZE(want) + 1);
}

/* Ready for SVC_STABLE_MS: the next failure waits restart_delay again. */
static void
test_backoff_resets_when_stable(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	a = S("a");
	EV(svc_start(a));
	die(a, 1, 0);
	fire(a);
	die(a, 1, 0);
	assert_int_equal(T(a)->timer - W.now, 200);
	fire(a);
	W.now += SVC_STABLE_MS - 1;
	die(a, 1, 0);
	assert_int_equal(T(a)->timer - W.now, 400);
	fire(a);
	W.now += SVC_STABLE_MS;
	die(a, 0, SIGSEGV);
	assert_string_equal(reason(a), "killed by signal SEGV; restart in "
	    "100ms");
	assert_int_equal(T(a)->timer - W.now, 100);
}

/*
 * By default a crashing service is retried for ever, the wait doubling
 * from 100 ms to its ceiling of 30 s, where it stays.
 */
static void
test_crash_loop_default(void **state)
{
	struct svc	*a;
	int64_t		 wait = 0;
	int		 i;

	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	a = S("a");
	EV(svc_start(a));
	for (i = 0; i < 40; i++) {
		die(a, 2, 0);
		assert_int_equal(a->state, SVC_BACKOFF);
		wait = T(a)->timer - W.now;
		if (i < 9)
			assert_int_equal(wait, 100 << i);
		fire(a);
	}
	assert_int_equal(wait, 30000);
	assert_int_equal(a->state, SVC_READY);
	assert_int_equal(a->restarts, 40);
}

/* start_limit_burst: five starts in ten seconds, then failed, with the
 * last exit shown (systemd's way). */
static void
test_start_limit(void **state)
{
	struct svc	*a;
	int		 i;

	(void)state;
	world("a", "[service]\nexec = x\nstart_limit_burst = 5\n", NULL);
	a = S("a");
	EV(svc_start(a));
	for (i = 0; i < 4; i++) {
		die(a, 2, 0);
		fire(a);
	}
	log_clear();
	die(a, 2, 0);
	expect_log("a>failed;");
	assert_int_equal(a->state, SVC_FAILED);
	assert_false(a->want_up);
	assert_int_equal(T(a)->timer, -1);
	assert_string_equal(reason(a), "start limit hit (5 starts in 10.0s); "
	    "last: exited with code 2");
	/* A command starts it afresh. */
	EV(svc_start(a));
	expect_log("spawn a;a>starting;a>ready;");
	die(a, 2, 0);
	assert_int_equal(T(a)->timer - W.now, 100);
}

/*
 * Hooks of a start: start_pre_exec before the spawn, start_post_exec
 * before READY; a stop during start_pre_exec has no process to stop.
 */
static void
test_hooks_start(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nstart_pre_exec = p\n"
	    "start_post_exec = q\n", NULL);
	a = S("a");
	EV(svc_start(a));
	expect_log("hook a start_pre_exec;a>starting;");
	assert_string_equal(reason(a), "running start_pre_exec");
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	expect_log("spawn a;hook a start_post_exec;");
	assert_int_equal(a->state, SVC_STARTING);
	assert_string_equal(reason(a), "running start_post_exec");
	EV(svc_hook_done(a, HOOK_START_POST, 0));
	expect_log("a>ready;");
	/* A stop while start_pre_exec runs: killed, stopped at once. */
	EV(svc_stop(a));
	expect_log("a:TERM;a:CONT;a>stopping;");
	die(a, 0, SIGTERM);
	expect_log("a>stopped;");
	EV(svc_start(a));
	expect_log("hook a start_pre_exec;a>starting;");
	EV(svc_stop(a));
	expect_log("hook-stop a;a>stopped;");
	EV(svc_hook_done(a, HOOK_START_PRE, 0));	/* cancelled: nothing */
	expect_log("");
	/* Done while no spawn can start: the main process waits for room
	 * (a stop meanwhile has nothing to stop). */
	EV(svc_start(a));
	log_clear();
	W.busy = true;
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	expect_log("");
	assert_true(a->held);
	W.busy = false;
	EV(svc_set_unhold(&W.set));
	expect_log("spawn a;hook a start_post_exec;");
	EV(svc_hook_done(a, HOOK_START_POST, 0));
	EV(svc_stop(a));
	die(a, 0, SIGTERM);
	EV(svc_start(a));
	log_clear();
	W.busy = true;
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	EV(svc_stop(a));
	expect_log("a>stopped;");
	W.busy = false;
	EV(svc_set_unhold(&W.set));
	expect_log("");
}

/* A failed hook of a start: a failed start (its reason); a timed out
 * start_post_exec stops the main process. */
static void
test_hooks_start_fail(void **state)
{
	struct svc	*a, *b;

	(void)state;
	world("a", "[service]\nexec = x\nstart_pre_exec = p\n"
	    "restart = never\n",
	    "b", "[service]\nexec = x\nstart_post_exec = q\n"
	    "ready_timeout = 2s\n", NULL);
	a = S("a");
	b = S("b");
	EV(svc_start(a));
	log_clear();
	EV(svc_hook_done(a, HOOK_START_PRE, 3));
	expect_log("a>failed;");
	assert_string_equal(reason(a), "start_pre_exec exited with code 3");
	EV(svc_start(b));
	expect_log("spawn b;b>starting;hook b start_post_exec;");
	fire(b);
	expect_log("hook-stop b;b:TERM;b:CONT;b>stopping;");
	die(b, 0, SIGTERM);
	assert_int_equal(b->state, SVC_BACKOFF);
	assert_string_equal(reason(b), "start_post_exec timed out; restart in "
	    "100ms");
}

/*
 * What stops a start stops its start_post_exec too (fuzz_machine found
 * each of these READY while stopping): STOPPING=1, WATCHDOG=trigger and
 * the spawn deadline while it runs.  READY=1 before there is a main
 * process (its start_pre_exec done, no room for the spawn yet) is no
 * readiness.
 */
static void
test_hooks_start_interrupted(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n"
	    "start_pre_exec = p\nstart_post_exec = q\nrestart = never\n",
	    NULL);
	a = S("a");
	EV(svc_start(a));
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	EV(svc_ready(a));
	expect_log("hook a start_pre_exec;a>starting;spawn a;"
	    "hook a start_post_exec;");
	EV(svc_stopping(a));
	expect_log("hook-stop a;a>stopping;");
	EV(svc_hook_done(a, HOOK_START_POST, 0));	/* cancelled */
	expect_log("");
	die(a, 0, 0);
	expect_log("a>stopped;");
	/* WATCHDOG=trigger */
	EV(svc_start(a));
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	EV(svc_ready(a));
	log_clear();
	EV(svc_watchdog_trigger(a));
	expect_log("hook-stop a;a:ABRT;a:CONT;a>stopping;");
	EV(svc_hook_done(a, HOOK_START_POST, 0));
	expect_log("");
	die(a, 0, SIGABRT);
	expect_log("a>failed;");
	/* READY=1 before the exec's report; then the spawn deadline. */
	svc_start(a);
	svc_hook_done(a, HOOK_START_PRE, 0);
	svc_ready(a);
	expect_log("hook a start_pre_exec;a>starting;spawn a;"
	    "hook a start_post_exec;");
	svc_spawn_timeout(a);
	W.nexecing = 0;
	expect_log("hook-stop a;a:KILL;a>stopping;");
	EV(svc_hook_done(a, HOOK_START_POST, 0));
	expect_log("");
	die(a, 0, SIGKILL);
	expect_log("a>failed;");
	/* READY=1 with no main process yet: nothing. */
	EV(svc_start(a));
	W.busy = true;
	EV(svc_hook_done(a, HOOK_START_PRE, 0));
	log_clear();
	EV(svc_ready(a));
	expect_log("");
	assert_int_equal(a->hook, HOOK_NONE);
	W.busy = false;
	EV(svc_set_unhold(&W.set));
	expect_log("spawn a;");
}

/*
 * stop_exec in place of the stop signal, then SIGKILL at stop_timeout;
 * stop_post_exec after the death, before what comes next.
 */
static void
test_hooks_stop(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nstop_exec = s\n"
	    "stop_post_exec = t\nstop_timeout = 5s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	expect_log("spawn a;a>starting;a>ready;");
	EV(svc_stop(a));
	expect_log("hook a stop_exec;a>stopping;");
	fire(a);
	expect_log("hook-stop a;a:KILL;");
	die(a, 0, SIGKILL);
	expect_log("hook a stop_post_exec;");
	assert_int_equal(a->state, SVC_STOPPING);
	assert_string_equal(reason(a), "running stop_post_exec");
	EV(svc_hook_done(a, HOOK_STOP_POST, 0));
	expect_log("a>stopped;");
	assert_string_equal(reason(a), "stopped; killed after stop_timeout");
	/* A crash: stop_post_exec, then the back-off. */
	EV(svc_start(a));
	log_clear();
	die(a, 1, 0);
	expect_log("hook a stop_post_exec;a>stopping;");
	EV(svc_hook_done(a, HOOK_STOP_POST, 0));
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "exited with code 1; restart in 100ms");
	/* A stop_exec that fails: the stop signal after all. */
	fire(a);
	log_clear();
	EV(svc_stop(a));
	expect_log("hook a stop_exec;a>stopping;");
	EV(svc_hook_done(a, HOOK_STOP, 1));
	expect_log("a:TERM;a:CONT;");
}

/* Starts spread over more than the interval never hit the limit. */
static void
test_start_limit_window(void **state)
{
	struct svc	*a;
	int		 i;

	(void)state;
	world("a", "[service]\nexec = x\nrestart_delay = 3s\n"
	    "restart_delay_max = 3s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	for (i = 0; i < 20; i++) {
		die(a, 1, 0);
		assert_int_equal(a->state, SVC_BACKOFF);
		fire(a);
	}
	assert_int_equal(a->state, SVC_READY);
}

static void
test_restart_policies(void **state)
{
	(void)state;
	world("n", "[service]\nexec = x\nrestart = never\n",
	    "o", "[service]\nexec = x\nrestart = on-failure\n", NULL);
	EV(svc_start(S("n")));
	die(S("n"), 0, 0);
	assert_int_equal(S("n")->state, SVC_STOPPED);
	assert_string_equal(reason(S("n")), "exited with code 0");
	EV(svc_start(S("n")));
	die(S("n"), 3, 0);
	assert_int_equal(S("n")->state, SVC_FAILED);
	assert_false(S("n")->want_up);

	EV(svc_start(S("o")));
	die(S("o"), 0, 0);
	assert_int_equal(S("o")->state, SVC_STOPPED);
	EV(svc_start(S("o")));
	die(S("o"), 0, SIGKILL);
	assert_int_equal(S("o")->state, SVC_BACKOFF);
	assert_string_equal(reason(S("o")), "killed by signal KILL; restart "
	    "in 100ms");
}

/*
 * Each restart mode against each way to die, as systemd.service(5)'s
 * table of Restart= has it (a clean exit, an exit code, SIGKILL, the
 * ready timeout, the watchdog): R restarts, . does not.
 */
static void
test_restart_modes(void **state)
{
	static const struct {
		const char	*mode;
		const char	*want;	/* clean, code, signal, timeout, dog */
	} t[] = {
		{ "never",	 "....." },
		{ "always",	 "RRRRR" },
		{ "on-success",	 "R...." },
		{ "on-failure",	 ".RRRR" },
		{ "on-abnormal", "..RRR" },
		{ "on-abort",	 "..R.." },
		{ "on-watchdog", "....R" },
	};
	char		text[256];
	struct svc	*a;
	size_t		i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++)
		for (k = 0; k < 5; k++) {
			snprintf(text, sizeof(text), "[service]\nexec = x\n"
			    "ready = notify\nwatchdog = 1s\nready_timeout = 2s\n"
			    "restart = %s\n", t[i].mode);
			if (i || k)
				world_free(NULL);	/* the one before */
			world("a", text, NULL);
			a = S("a");
			EV(svc_start(a));
			if (k != 3)
				EV(svc_ready(a));
			if (k == 0)
				die(a, 0, 0);
			else if (k == 1)
				die(a, 3, 0);
			else if (k == 2)
				die(a, 0, SIGKILL);
			else {
				fire(a);	/* the timeout, the watchdog */
				die(a, 0, k == 3 ? SIGTERM : SIGABRT);
			}
			if ((a->state == SVC_BACKOFF) != (t[i].want[k] == 'R'))
				fail_msg("restart = %s, death %zu: %s", t[i].mode,
				    k, svc_state_name(a->state));
		}
}

/*
 * on_demand: listening until a client comes; it satisfies what requires
 * it meanwhile; a clean exit listens again, a failure backs off first;
 * a stop stops listening; sockets that cannot be bound fail it.
 */
static void
test_on_demand(void **state)
{
	(void)state;
	world("od", "[service]\nexec = x\nlisten = tcp:127.0.0.1:1\n"
	    "on_demand = yes\nrestart = on-failure\n",
	    "user", "[service]\nexec = x\nrequires = od\n", NULL);
	EV(svc_start(S("user")));
	expect_log("listen od;od>listening;spawn user;user>starting;"
	    "user>ready;");
	assert_string_equal(reason(S("od")), "until a client comes");
	EV(svc_triggered(S("od")));
	expect_log("unlisten od;spawn od;od>starting;od>ready;");
	die(S("od"), 0, 0);
	expect_log("od>stopped;listen od;od>listening;");
	assert_string_equal(reason(S("od")), "exited with code 0");
	EV(svc_triggered(S("od")));
	log_clear();
	die(S("od"), 1, 0);
	expect_log("od>backoff;");
	fire(S("od"));
	expect_log("listen od;od>listening;");
	EV(svc_stop(S("od")));
	expect_log("user:TERM;user:CONT;user>stopping;");
	die(S("user"), 0, SIGTERM);
	expect_log("user>stopped;unlisten od;od>stopped;");
	W.listen_rc = -EADDRINUSE;
	EV(svc_start(S("od")));
	expect_log("listen od failed;od>failed;");
	assert_false(S("od")->want_up);
}

/* exec failed: the child reported it and dies; that is the reason. */
static void
test_exec_failure(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n", NULL);
	a = S("a");
	W.exec_err = ENOENT;
	EV(svc_start(a));
	expect_log("spawn a;a>starting;");
	assert_int_equal(T(a)->timer, -1);	/* no ready timeout */
	EV(svc_ready(a));				/* cannot be: ignored */
	assert_int_equal(a->state, SVC_STARTING);
	die(a, 127, 0);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "exec: No such file or directory; "
	    "restart in 100ms");
}

/* clone itself failed: no process; retried on a timer, never at once. */
static void
test_spawn_failure(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nrestart_delay = 0\n"
	    "start_limit_burst = 0\n", NULL);
	a = S("a");
	W.spawn_rc = -EAGAIN;
	EV(svc_start(a));
	expect_log("spawn a failed;a>backoff;");
	assert_int_equal(T(a)->timer - W.now, 100);
	assert_string_equal(reason(a), "spawn: Resource temporarily "
	    "unavailable; restart in 100ms");
	fire(a);
	expect_log("spawn a;a>starting;a>ready;");
	/* A real death with restart_delay = 0 restarts at once. */
	die(a, 1, 0);
	expect_log("a>backoff;spawn a;a>starting;a>ready;");
}

/* Out of fds for a long while: back-off, never failed; then back. */
static void
test_spawn_shortage(void **state)
{
	struct svc	*a;
	int		 i;

	(void)state;
	world("a", "[service]\nexec = x\nrestart_delay_max = 1s\n"
	    "start_limit_burst = 5\n", NULL);
	a = S("a");
	W.spawn_rc = -EMFILE;
	EV(svc_start(a));
	for (i = 0; i < 20; i++) {
		assert_int_equal(a->state, SVC_BACKOFF);
		W.spawn_rc = i % 2 ? -EAGAIN : -EMFILE;
		fire(a);
	}
	assert_int_equal(a->state, SVC_BACKOFF);
	assert_int_equal(T(a)->timer - W.now, 1000);	/* at the cap */
	fire(a);
	assert_int_equal(a->state, SVC_READY);
	/* Other spawn failures still count. */
	die(a, 1, 0);
	for (i = 0; i < 6 && a->state == SVC_BACKOFF; i++) {
		W.spawn_rc = -EACCES;
		fire(a);
	}
	assert_int_equal(a->state, SVC_FAILED);
	assert_true(i <= 5);
}

static void
test_ready_notify_and_timeout(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\nready_timeout = 2s\n"
	    "stop_timeout = 1s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	expect_log("spawn a;a>starting;");
	assert_int_equal(T(a)->timer - W.now, 2000);
	assert_string_equal(reason(a), "waiting for readiness");
	EV(svc_ready(a));
	expect_log("a>ready;");
	assert_int_equal(T(a)->timer, -1);
	die(a, 1, 0);
	fire(a);
	expect_log("a>backoff;spawn a;a>starting;");
	fire(a);			/* no READY=1 within 2 s */
	expect_log("a:TERM;a:CONT;a>stopping;");
	assert_string_equal(reason(a), "ready timeout");
	assert_int_equal(T(a)->timer - W.now, 1000);
	fire(a);			/* ignores TERM */
	expect_log("a:KILL;");
	assert_int_equal(T(a)->timer, -1);
	die(a, 0, SIGKILL);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "ready timeout; restart in 200ms");
}

static void
test_stop_and_kill(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nstop_signal = INT\nstop_timeout = 5s\n",
	    NULL);
	a = S("a");
	EV(svc_start(a));
	log_clear();
	EV(svc_stop(a));
	expect_log("a:INT;a:CONT;a>stopping;");
	assert_int_equal(T(a)->timer - W.now, 5000);
	die(a, 0, SIGINT);
	expect_log("a>stopped;");
	assert_string_equal(reason(a), "stopped");
	assert_int_equal(T(a)->timer, -1);

	EV(svc_start(a));
	EV(svc_stop(a));
	log_clear();
	fire(a);
	expect_log("a:KILL;");
	die(a, 0, SIGKILL);
	expect_log("a>stopped;");
	assert_string_equal(reason(a), "stopped; killed after stop_timeout");
	assert_int_equal(a->restarts, 0);
}

/* Stop while it backs off: stopped at once, the timer gone. */
static void
test_stop_in_backoff(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	a = S("a");
	EV(svc_start(a));
	die(a, 1, 0);
	log_clear();
	EV(svc_stop(a));
	expect_log("a>stopped;");
	assert_int_equal(T(a)->timer, -1);
	/* Start while backing off: at once, not after the delay. */
	EV(svc_start(a));
	die(a, 1, 0);
	log_clear();
	EV(svc_start(a));
	expect_log("spawn a;a>starting;a>ready;");
}

/* Start while a requested stop is under way: start again once it died. */
static void
test_start_while_stopping(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	a = S("a");
	EV(svc_start(a));
	EV(svc_stop(a));
	log_clear();
	EV(svc_start(a));
	expect_log("");
	die(a, 0, SIGTERM);
	expect_log("a>stopped;spawn a;a>starting;a>ready;");
	assert_int_equal(a->restarts, 0);
}

/* web requires db: db first, web once db is ready; stop in reverse. */
static void
test_requires_order(void **state)
{
	(void)state;
	world("db", "[service]\nexec = x\nready = notify\n",
	    "web", "[service]\nexec = x\nrequires = db\nready = fd:3\n",
	    "log", "[service]\nexec = x\n", NULL);
	EV(svc_start(S("web")));
	expect_log("spawn db;db>starting;");
	assert_int_equal(S("web")->state, SVC_STOPPED);
	assert_string_equal(reason(S("web")), "waiting for db");
	assert_int_equal(S("log")->state, SVC_STOPPED);
	EV(svc_ready(S("db")));
	expect_log("db>ready;spawn web;web>starting;");
	EV(svc_ready(S("web")));
	expect_log("web>ready;");

	EV(svc_stop(S("db")));
	expect_log("web:TERM;web:CONT;web>stopping;");
	assert_int_equal(S("db")->state, SVC_READY);
	die(S("web"), 0, SIGTERM);
	expect_log("web>stopped;db:TERM;db:CONT;db>stopping;");
	die(S("db"), 0, SIGTERM);
	expect_log("db>stopped;");
	assert_false(S("web")->want_up);
}

/* A required service that fails for good fails its dependents. */
static void
test_requires_failed(void **state)
{
	(void)state;
	world("db", "[service]\nexec = x\nrestart = never\n",
	    "web", "[service]\nexec = x\nrequires = db\n",
	    "db2", "[service]\nexec = x\nready = notify\nrestart = never\n",
	    "api", "[service]\nexec = x\nrequires = db2\n", NULL);
	EV(svc_start(S("web")));
	expect_log("spawn db;db>starting;db>ready;spawn web;web>starting;"
	    "web>ready;");
	die(S("db"), 1, 0);
	expect_log("db>failed;");
	assert_int_equal(S("web")->state, SVC_READY);	/* keeps running */

	EV(svc_start(S("api")));
	expect_log("spawn db2;db2>starting;");
	die(S("db2"), 1, 0);
	expect_log("db2>failed;api>failed;");
	assert_string_equal(reason(S("api")), "requires db2, which failed");
	/* Starting api again gives db2 another chance. */
	EV(svc_start(S("api")));
	expect_log("spawn db2;db2>starting;");
}

/* after: ordering only.  b comes after a; starting b alone is at once. */
static void
test_after_order(void **state)
{
	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n",
	    "b", "[service]\nexec = x\nafter = a\n", NULL);
	EV(svc_start(S("b")));
	expect_log("spawn b;b>starting;b>ready;");
	assert_int_equal(S("a")->state, SVC_STOPPED);
	EV(svc_stop(S("b")));
	die(S("b"), 0, SIGTERM);
	log_clear();

	W.quiet = false;
	EV(svc_start(S("a")));
	EV(svc_start(S("b")));
	expect_log("spawn a;a>starting;");
	EV(svc_ready(S("a")));
	expect_log("a>ready;spawn b;b>starting;b>ready;");

	/* Shutdown: b stops before a. */
	EV(svc_set_stop_all(&W.set));
	expect_log("b:TERM;b:CONT;b>stopping;");
	die(S("b"), 0, SIGTERM);
	expect_log("b>stopped;a:TERM;a:CONT;a>stopping;");
}

/* restart of db: web (which requires it) stops first, starts last. */
static void
test_restart_with_dependent(void **state)
{
	uint32_t	starts;

	(void)state;
	world("db", "[service]\nexec = x\n",
	    "web", "[service]\nexec = x\nrequires = db\n", NULL);
	EV(svc_start(S("web")));
	log_clear();
	starts = S("db")->starts;
	EV(svc_restart(S("db")));
	expect_log("web:TERM;web:CONT;web>stopping;");
	die(S("web"), 0, SIGTERM);
	expect_log("web>stopped;db:TERM;db:CONT;db>stopping;");
	die(S("db"), 0, SIGTERM);
	expect_log("db>stopped;spawn db;db>starting;db>ready;spawn web;"
	    "web>starting;web>ready;");
	assert_int_equal(S("db")->starts, starts + 1);
	assert_int_equal(S("db")->restarts, 0);
	assert_false(S("db")->restart_req || S("web")->restart_req);
}

/* restart of a stopped service is a start. */
static void
test_restart_stopped(void **state)
{
	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	EV(svc_restart(S("a")));
	expect_log("spawn a;a>starting;a>ready;");
}

static void
test_watchdog(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\nwatchdog = 3s\n",
	    NULL);
	a = S("a");
	EV(svc_start(a));
	EV(svc_ready(a));
	assert_int_equal(T(a)->timer - W.now, 3000);
	W.now += 2000;
	EV(svc_watchdog(a));
	assert_int_equal(T(a)->timer - W.now, 3000);
	log_clear();
	fire(a);
	expect_log("a:ABRT;a:CONT;a>stopping;");
	assert_string_equal(reason(a), "watchdog timeout");
	die(a, 0, SIGABRT);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "watchdog timeout; restart in 100ms");
}

/*
 * ready = exit: a task is done at exit 0, and only then do what requires
 * it and what comes after it start; a finished task stays done through
 * stop and through the start of a dependent; start runs it again.
 */
static void
test_task_done(void **state)
{
	(void)state;
	world("init", "[service]\nexec = x\nready = exit\n",
	    "web", "[service]\nexec = x\nrequires = init\n",
	    "log", "[service]\nexec = x\nafter = init\n", NULL);
	EV(svc_start(S("web")));
	EV(svc_start(S("log")));
	expect_log("spawn init;init>starting;");
	assert_string_equal(reason(S("web")), "waiting for init");
	assert_string_equal(reason(S("log")), "waiting for init");
	die(S("init"), 0, 0);
	expect_log("init>done;spawn web;web>starting;spawn log;"
	    "log>starting;web>ready;log>ready;");
	assert_false(S("init")->want_up);
	/* stop on a finished task: nothing, web keeps running */
	EV(svc_stop(S("init")));
	expect_log("");
	assert_int_equal(S("init")->state, SVC_DONE);
	assert_int_equal(S("web")->state, SVC_READY);
	/* a dependent restarted does not run it again */
	EV(svc_restart(S("web")));
	die(S("web"), 0, SIGTERM);
	expect_log("web:TERM;web:CONT;web>stopping;web>stopped;spawn web;"
	    "web>starting;web>ready;");
	/* start does */
	EV(svc_start(S("init")));
	expect_log("init>stopped;spawn init;init>starting;");
	die(S("init"), 0, 0);
	expect_log("init>done;");
}

/* A task that fails: failed with its reason, and so is what requires it. */
static void
test_task_failed(void **state)
{
	(void)state;
	world("init", "[service]\nexec = x\nready = exit\n",
	    "web", "[service]\nexec = x\nrequires = init\n",
	    "retry", "[service]\nexec = x\nready = exit\n"
	    "restart = on-failure\n", NULL);
	EV(svc_start(S("web")));
	die(S("init"), 3, 0);
	expect_log("spawn init;init>starting;init>failed;web>failed;");
	assert_string_equal(reason(S("init")), "exited with code 3");
	assert_string_equal(reason(S("web")), "requires init, which failed");
	/* a task is never ready before it exits */
	EV(svc_start(S("retry")));
	EV(svc_ready(S("retry")));
	assert_int_equal(S("retry")->state, SVC_STARTING);
	die(S("retry"), 0, SIGKILL);
	expect_log("spawn retry;retry>starting;retry>backoff;");
	fire(S("retry"));
	die(S("retry"), 0, 0);
	expect_log("spawn retry;retry>starting;retry>done;");
}

/*
 * A timer's elapse (svc_trigger): a start, as a command's; nothing while
 * it runs or restarts, or after a command stopped it, until a start.
 */
static void
test_timer_trigger(void **state)
{
	struct svc	*j;

	(void)state;
	world("job", "[service]\nexec = x\nready = exit\n"
	    "restart = on-failure\non_calendar = hourly\n", NULL);
	j = S("job");
	assert_true(svc_timed(j));
	assert_false(svc_starts_at_once(j));
	assert_true(svc_timer_ok(j));
	assert_int_equal(svc_trigger(j), 0);
	expect_log("spawn job;job>starting;");
	assert_int_equal(svc_trigger(j), -EBUSY);
	assert_true(svc_timer_ok(j));
	die(j, 1, 0);
	expect_log("job>backoff;");
	assert_int_equal(svc_trigger(j), -EBUSY);
	fire(j);
	die(j, 0, 0);
	expect_log("spawn job;job>starting;job>done;");
	EV(svc_stop(j));
	assert_false(svc_timer_ok(j));
	assert_int_equal(svc_trigger(j), -EPERM);
	expect_log("");
	EV(svc_start(j));
	expect_log("job>stopped;spawn job;job>starting;");
	assert_true(svc_timer_ok(j));
	die(j, 2, 0);
	expect_log("job>backoff;");
	fire(j);
	die(j, 2, 0);
	fire(j);
	assert_int_equal(svc_trigger(j), -EBUSY);
}

/*
 * settle: ready only once up that long; a death before is a failed
 * start (back-off), even with exit code 0.
 */
static void
test_settle(void **state)
{
	struct svc	*a, *b;

	(void)state;
	world("a", "[service]\nexec = x\nsettle = 2s\n",
	    "b", "[service]\nexec = x\nready = notify\nsettle = 1s\n"
	    "ready_timeout = 5s\nrestart = never\n", NULL);
	a = S("a");
	b = S("b");
	EV(svc_start(a));
	expect_log("spawn a;a>starting;");
	assert_string_equal(reason(a), "settling, ready in 2.0s");
	W.now += 500;
	die(a, 0, 0);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "exited with code 0 before it "
	    "settled; restart in 100ms");
	fire(a);
	expect_log("spawn a;a>starting;");
	fire(a);
	expect_log("a>ready;");

	/* notify: READY=1 first, then the rest of the settle time */
	EV(svc_start(b));
	W.now += 300;
	EV(svc_ready(b));
	assert_int_equal(T(b)->timer - W.now, 700);
	log_clear();
	fire(b);
	expect_log("b>ready;");
	/* without READY=1, the ready timeout as before */
	EV(svc_stop(b));
	die(b, 0, SIGTERM);
	EV(svc_start(b));
	log_clear();
	fire(b);
	expect_log("b:TERM;b:CONT;b>stopping;");
	assert_string_equal(reason(b), "ready timeout");
}

/* EXTEND_TIMEOUT_USEC while stopping: one message buys at most 90 s. */
static void
test_stop_extend(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n"
	    "stop_timeout = 10s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	EV(svc_ready(a));
	EV(svc_stop(a));
	log_clear();
	svc_extend(a, 4294967295U);	/* EXTEND_TIMEOUT_USEC=4294967295000 */
	assert_int_equal(T(a)->timer - W.now, SVC_EXTEND_MAX);
	W.now += 60000;
	svc_extend(a, 60000);		/* again: from now on */
	assert_int_equal(T(a)->timer - W.now, 60000);
	fire(a);
	expect_log("a:KILL;");
	die(a, 0, SIGKILL);
	expect_log("a>stopped;");
}

/* RELOADING=1 ... READY=1, a reload asked for, EXTEND_TIMEOUT_USEC. */
static void
test_reload_extend(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n"
	    "ready_timeout = 2s\n", NULL);
	a = S("a");
	EV(svc_start(a));
	W.now += 1000;
	svc_extend(a, 5000);		/* from now: 5 s, not 1 s left */
	assert_int_equal(T(a)->timer - W.now, 5000);
	svc_extend(a, 100);		/* never shorter */
	assert_int_equal(T(a)->timer - W.now, 5000);
	svc_extend(a, UINT32_MAX);	/* 49 days: capped */
	assert_int_equal(T(a)->timer - W.now, SVC_EXTEND_MAX);
	EV(svc_ready(a));
	log_clear();
	svc_reloading(a);
	assert_true(a->reloading);
	assert_string_equal(reason(a), "ready; reloading");
	EV(svc_ready(a));
	assert_false(a->reloading);
	assert_int_equal(a->reloads, 1);
	/* asked, until READY=1 */
	svc_reload_asked(a, true);
	svc_reload_done(a, 0);
	assert_int_equal(a->reloads, 1);
	EV(svc_ready(a));
	assert_int_equal(a->reloads, 2);
	/* a command that fails ends it, failed */
	svc_reload_asked(a, false);
	svc_reload_done(a, 3);
	assert_int_equal(a->reload_fails, 1);
	assert_int_equal(a->reload_status, 3);
	/* a command, after which RELOADING=1 waits for READY=1 */
	svc_reload_asked(a, false);
	svc_reloading(a);
	svc_reload_done(a, 0);
	assert_int_equal(a->reloads, 2);
	EV(svc_ready(a));
	assert_int_equal(a->reloads, 3);
	/* WATCHDOG=trigger */
	EV(svc_watchdog_trigger(a));
	expect_log("a:ABRT;a:CONT;a>stopping;");
	assert_string_equal(reason(a), "watchdog triggered by the service");
}

/* STOPPING=1, then exit: the policy decides as for any exit. */
static void
test_self_stopping(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nrestart = on-failure\n", NULL);
	a = S("a");
	EV(svc_start(a));
	log_clear();
	EV(svc_stopping(a));
	expect_log("a>stopping;");
	assert_string_equal(reason(a), "service reported stopping");
	die(a, 0, 0);
	expect_log("a>stopped;");
	assert_string_equal(reason(a), "exited with code 0");
}

/* STATUS= text belongs to the process: gone when it is. */
static void
test_status_text(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nready = notify\n", NULL);
	a = S("a");
	EV(svc_start(a));
	assert_int_equal(svc_status_text(a, "warming up", 10), 0);
	assert_string_equal(a->status_text, "warming up");
	die(a, 1, 0);
	assert_null(a->status_text);
}

/* A chain of 10,000 requires starts bottom-up without deep recursion. */
static void
test_long_chain(void **state)
{
	char	name[32], text[96];
	int	i, n = 10000;

	(void)state;
	memset(&W, 0, sizeof(W));
	conf_init(&W.conf);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%05d", i);
		snprintf(text, sizeof(text), i + 1 < n ? "[service]\n"
		    "exec = x\nrequires = s%05d\n" : "[service]\nexec = x\n",
		    i + 1);
		conf_parse_service(&W.conf, name, name, text);
	}
	W.quiet = true;
	world_services();
	EV(svc_start(S("s00000")));
	for (i = 0; i < n; i++)
		assert_int_equal(W.set.v[i]->state, SVC_READY);
	log_clear();
	EV(svc_stop(S("s09999")));
	assert_int_equal(S("s00000")->state, SVC_STOPPING);
	assert_int_equal(S("s09999")->state, SVC_READY);
}

/*
 * With spawn_max, a turn spawns at most that many; the rest waits, in
 * order, for the next turn (the owner resets spawns and runs the set).
 */
static void
test_spawns_per_turn(void **state)
{
	(void)state;
	world("a", "[service]\nexec = x\n", "b", "[service]\nexec = x\n",
	    "c", "[service]\nexec = x\n", "d", "[service]\nexec = x\n",
	    "e", "[service]\nexec = x\nrequires = a b c d\n", NULL);
	W.set.spawn_max = 2;
	EV(svc_start(S("e")));
	expect_log("spawn d;d>starting;spawn c;c>starting;defer;d>ready;defer;"
	    "c>ready;defer;");
	assert_int_equal(S("b")->state, SVC_STOPPED);
	assert_int_equal(S("e")->state, SVC_STOPPED);
	/* Nothing moves until the next turn... */
	EV(svc_set_run(&W.set));
	expect_log("defer;");
	/* ...which goes on where the last one stopped. */
	W.set.spawns = 0;
	EV(svc_set_run(&W.set));
	expect_log("spawn b;b>starting;spawn a;a>starting;b>ready;a>ready;"
	    "defer;");
	W.set.spawns = 0;
	EV(svc_set_run(&W.set));
	expect_log("spawn e;e>starting;e>ready;");
	assert_int_equal(W.set.spawns, 1);
	/* Stops are never held back. */
	W.set.spawns = 2;
	EV(svc_stop(S("a")));
	expect_log("e:TERM;e:CONT;e>stopping;");
}

/* ready = exec: starting until the loop sees the exec; a failed exec
 * is the reason of the death that follows. */
static void
test_exec_seen_later(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\n", NULL);
	a = S("a");
	svc_start(a);
	expect_log("spawn a;a>starting;");
	assert_int_equal(T(a)->timer - W.now, 30000);	/* ready_timeout */
	W.now += 5;
	svc_exec(a, 0, 0);
	expect_log("a>ready;");
	assert_int_equal(T(a)->timer, -1);
	assert_int_equal(a->ready_at, W.now);
	svc_exec(a, 0, 0);			/* once only */
	expect_log("");
	W.nexecing = 0;

	die(a, 1, 0);
	W.now = T(a)->timer;			/* fire(), but no exec */
	T(a)->timer = -1;
	svc_timeout(a);
	expect_log("a>backoff;spawn a;a>starting;");
	W.nexecing = 0;
	svc_exec(a, STAGE_CHDIR, ENOENT);
	assert_int_equal(T(a)->timer, -1);
	svc_ready(a);				/* cannot be: ignored */
	die(a, 127, 0);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "chdir: No such file or directory; "
	    "restart in 200ms");
}

/*
 * While no spawn can start (busy), services that would spawn are held
 * in order, the others go on; a held service can still be stopped.
 */
static void
test_busy_holds_spawns(void **state)
{
	struct svc	*a, *b, *c;

	(void)state;
	world("a", "[service]\nexec = x\n", "b", "[service]\nexec = x\n",
	    "c", "[service]\nexec = x\n", NULL);
	a = S("a");
	b = S("b");
	c = S("c");
	EV(svc_start(c));
	expect_log("spawn c;c>starting;c>ready;");
	W.busy = true;
	EV(svc_start(b));
	EV(svc_start(a));
	EV(svc_stop(c));			/* not held back */
	expect_log("c:TERM;c:CONT;c>stopping;");
	assert_int_equal(b->state, SVC_STOPPED);
	assert_true(b->held && a->held);
	EV(svc_stop(a));			/* leaves the held list */
	assert_false(a->held);
	EV(svc_set_run(&W.set));		/* still busy: nothing */
	expect_log("");
	W.busy = false;
	EV(svc_set_unhold(&W.set));
	expect_log("spawn b;b>starting;b>ready;");
	assert_int_equal(a->state, SVC_STOPPED);
	assert_false(b->held);
}

/*
 * Killed for memory pressure: once its back-off is over, a service waits
 * as long as ops->hold says, and says so; a command starts it at once; a
 * death of any other kind never waits; a stop ends the wait.
 */
static void
test_pressure_hold(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nstart_limit_burst = 0\n", NULL);
	a = S("a");
	EV(svc_start(a));
	log_clear();
	svc_pressure_killed(a);
	die(a, 0, SIGKILL);
	expect_log("a>backoff;");
	assert_string_equal(reason(a), "killed for memory pressure; restart "
	    "in 100ms");
	W.hold = 5000;
	fire(a);
	expect_log("");
	assert_true(a->mem_wait);
	assert_int_equal(T(a)->timer - W.now, 5000);
	assert_string_equal(reason(a), "killed for memory pressure; waiting "
	    "for memory, restart in at most 1m00s");
	W.hold = 0;
	fire(a);
	expect_log("spawn a;a>starting;a>ready;");
	assert_false(a->mem_wait);

	/* A command does not wait. */
	svc_pressure_killed(a);
	die(a, 0, SIGKILL);
	W.hold = 5000;
	fire(a);
	log_clear();
	assert_true(a->mem_wait);
	EV(svc_start(a));
	expect_log("spawn a;a>starting;a>ready;");

	/* Nor does any other death; the hold is not even asked. */
	W.holds = 0;
	die(a, 0, SIGKILL);
	fire(a);
	expect_log("a>backoff;spawn a;a>starting;a>ready;");
	assert_int_equal(W.holds, 0);

	/* A stop while it waits: stopped, no longer waiting. */
	svc_pressure_killed(a);
	die(a, 0, SIGKILL);
	fire(a);
	assert_true(a->mem_wait);
	log_clear();
	EV(svc_stop(a));
	expect_log("a>stopped;");
	assert_false(a->mem_wait);
	assert_int_equal(T(a)->timer, -1);
}

/* The kernel's OOM killer: the reason says so. */
static void
test_oom_killed(void **state)
{
	struct svc	*a;

	(void)state;
	world("a", "[service]\nexec = x\nrestart = on-failure\n", NULL);
	a = S("a");
	EV(svc_start(a));
	svc_oom_killed(a);
	die(a, 0, SIGKILL);
	assert_int_equal(a->state, SVC_BACKOFF);
	assert_string_equal(reason(a), "killed by the kernel's OOM killer; "
	    "restart in 100ms");
	fire(a);
	assert_int_equal(a->state, SVC_READY);
}

#define T_(f)	cmocka_unit_test_teardown(f, world_free)

/*
 * Every field of a struct is in its state list or its list of fields
 * made again: by offset, each begins where the one before ends (aligned
 * as it must be), and the last ends the struct.  A field added to the
 * struct and to neither list leaves a hole, and this fails.
 */
struct field_at {
	const char	*name;
	size_t		 off, size, align;
};

static int
field_at_cmp(const void *a, const void *b)
{
	const struct field_at	*x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

void
fields_cover(struct field_at *v, size_t n, size_t size, size_t align)
{
	size_t	i, end = 0;

	qsort(v, n, sizeof(*v), field_at_cmp);
	for (i = 0; i < n; i++) {
		end = (end + v[i].align - 1) / v[i].align * v[i].align;
		if (v[i].off != end)
			print_error("%s at %zu: a field before it is in no "
			    "list (or two lists name one)\n", v[i].name,
			    v[i].off);
		assert_int_equal(v[i].off, end);
		end = v[i].off + v[i].size;
	}
	assert_int_equal((end + align - 1) / align * align, size);
}

#define SVC_AT(f)	{ #f, offsetof(struct svc, f),			\
			  sizeof(((struct svc *)0)->f),			\
			  __alignof__(((struct svc *)0)->f) },
#define SVC_AT3(f, how, since)	SVC_AT(f)

#define FILL_U8(v)	(v) = (uint8_t)(k++ % 200);
#define FILL_BOOL(v)	(v) = (k++ % 2) != 0;
#define FILL_I32(v)	(v) = (int32_t)(-1000 - k++);
#define FILL_U32(v)	(v) = (uint32_t)(70000 + k++);
#define FILL_I64(v)	(v) = (int64_t)(-5000000000LL - k++);
#define FILL_U64(v)	(v) = (uint64_t)(9000000000ULL + k++);
#define FILL_STR(v)	{ char t[16]; snprintf(t, sizeof(t), "s%d", k++); \
			  (v) = strdup(t); }
#define FILL_FD(v)	(v) = 300 + k++;
#define FILL_REASON(v)	(v).why = (uint8_t)(k++ % WHY_GONE); (v).stage = 2; \
			(v).early = true; (v).code = -k; (v).dep = dep;
#define FILL(name, how, since)	FILL_##how(s->name)

#define SAME_U8(a, b)		assert_int_equal((a), (b));
#define SAME_BOOL(a, b)		assert_int_equal((a), (b));
#define SAME_I32(a, b)		assert_int_equal((a), (b));
#define SAME_U32(a, b)		assert_int_equal((a), (b));
#define SAME_I64(a, b)		assert_true((a) == (b));
#define SAME_U64(a, b)		assert_true((a) == (b));
#define SAME_STR(a, b)		assert_string_equal((a), (b));
#define SAME_FD(a, b)		assert_int_equal((a), (b));
#define SAME_REASON(a, b)	assert_int_equal((a).why, (b).why); \
	assert_int_equal((a).stage, (b).stage); \
	assert_int_equal((a).early, (b).early); \
	assert_int_equal((a).code, (b).code); \
	assert_ptr_equal((a).dep, (b).dep);
#define SAME(name, how, since)	SAME_##how(s->name, t->name)

/*
 * A re-exec keeps every field SVC_STATE says it keeps: each set to a
 * value of its own, through the state and back; and every field of
 * struct svc is in SVC_STATE or SVC_SKIPPED.
 */
static void
test_state_fields(void **state)
{
	struct field_at	 at[] = { SVC_STATE(SVC_AT3) SVC_SKIPPED(SVC_AT) };
	struct svc	*s, *t, *dep;
	struct svc	 fresh;
	struct st_w	 w = { 0 };
	struct st_r	 r;
	uint32_t	 v;
	int		 k = 1;

	(void)state;
	fields_cover(at, ARRAY_SIZE(at), sizeof(struct svc),
	    __alignof__(struct svc));
	world("a", "[service]\nexec = x\nrequires = b\n",
	    "b", "[service]\nexec = x\n", NULL);
	s = S("a");
	dep = S("b");
	SVC_STATE(FILL)
	s->state = SVC_READY;
	st_head(&w, STATE_VERSION);
	svc_save(s, &w);
	st_head_done(&w);
	assert_false(w.nomem);
	assert_int_equal(st_r_open(&r, w.b.data, w.b.len, &v), 0);
	t = &fresh;
	svc_init(t, s->def, &W.set);
	assert_int_equal(svc_load(t, &r), 0);
	SVC_STATE(SAME)
	st_r_close(&r);
	/* A shorter state is refused, never read past its end. */
	assert_int_equal(st_r_open(&r, w.b.data, w.b.len - 1, &v), -EINVAL);
	st_r_close(&r);
	svc_release(&fresh);
	st_w_free(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T_(test_exec_ready_and_backoff),
		T_(test_exec_seen_later),
		T_(test_busy_holds_spawns),
		T_(test_backoff_resets_when_stable),
		T_(test_crash_loop_default),
		T_(test_hooks_start),
		T_(test_hooks_start_fail),
		T_(test_hooks_start_interrupted),
		T_(test_hooks_stop),
		T_(test_start_limit),
		T_(test_start_limit_window),
		T_(test_restart_policies),
		T_(test_restart_modes),
		T_(test_on_demand),
		T_(test_exec_failure),
		T_(test_spawn_failure),
		T_(test_spawn_shortage),
		T_(test_ready_notify_and_timeout),
		T_(test_stop_and_kill),
		T_(test_stop_in_backoff),
		T_(test_start_while_stopping),
		T_(test_requires_order),
		T_(test_requires_failed),
		T_(test_after_order),
		T_(test_restart_with_dependent),
		T_(test_restart_stopped),
		T_(test_watchdog),
		T_(test_self_stopping),
		T_(test_task_done),
		T_(test_task_failed),
		T_(test_settle),
		T_(test_reload_extend),
		T_(test_stop_extend),
		T_(test_timer_trigger),
		T_(test_state_fields),
		T_(test_status_text),
		T_(test_long_chain),
		T_(test_spawns_per_turn),
		T_(test_pressure_hold),
		T_(test_oom_killed),
	};

	return cmocka_run_group_tests_name("svc", tests, NULL, NULL);
}
