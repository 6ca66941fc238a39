/*
 * test_ctl.c - the control socket and its verbs, without a daemon.
 *
 * A real socket in a temporary directory and a real libev loop; behind
 * them, instead of the supervisor, fake ctl_ops that log each call
 * ("reload", "kill a") and services driven by fake svc_ops, as in
 * test_svc.c.  A client here is an fd in the same loop: a test sends a
 * request and runs the loop until the reply's END frame has come, or
 * until what it waits for has happened; a deadline timer fails it
 * otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd.h"
#include "ctl.h"
#include "metrics.h"
#include "proto.h"
#include "status.h"

#define DEADLINE_S	20.	/* for any one wait of a test */

static struct {
	struct conf	 conf;
	struct svc_set	 set;
	struct svc	*svcs;
	struct ctl	 ctl;
	struct ev_loop	*loop;
	ev_timer	 deadline;
	bool		 late;
	char		 dir[64];
	char		 path[96];
	int		 next_pid;
	struct buf	 log;		/* what was asked of the core */
	/* What the fake core answers. */
	bool		 stopping;
	int		 reload_rc;
	const char	*reload_report;
	int		 kill_rc;
	int		 reexec_rc;
	int		 instance_err;	/* 1: refuse with a reason */
} W;

/* A client: one request, its reply. */
struct cli {
	int		 fd;
	ev_io		 w;
	struct buf	 in;		/* bytes not yet a whole frame */
	struct buf	 out;		/* OUTPUT frames */
	struct buf	 note;		/* NOTE frames */
	bool		 ended;		/* the END frame came */
	bool		 closed;	/* then EOF */
	int		 code;
	char		 msg[1024];
};

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

/* Compare what the core was asked so far with want, then forget it. */
#define expect_log(want) do {						\
	const char	*got_ = W.log.data && W.log.len ? W.log.data : ""; \
									\
	assert_string_equal(got_, (want));				\
	W.log.len = 0;							\
} while (0)

/* The services' world: spawns and signals are logged, nothing runs. */

static int
f_spawn(struct svc *s)
{
	s->pid = ++W.next_pid;
	s->pidfd = 1000 + s->pid;	/* a process, as svc.c sees it */
	logw("spawn %s", s->def->name);
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
	(void)s;
	(void)ms;
}

static void
f_timer_stop(struct svc *s)
{
	(void)s;
}

/* As the supervisor does: a change is an event, and settles the waits. */
static void
f_changed(struct svc *s, enum svc_state from)
{
	if (from != s->state)
		ctl_event(&W.ctl, &(struct ctl_event){ .kind = EV_STATE,
		    .svc = s, .from = svc_state_name(from),
		    .to = svc_state_name(s->state), .reason = "why",
		    .pid = s->pid });
	ctl_svc_changed(&W.ctl, s);
}

static int64_t
f_now(struct svc_set *set)
{
	(void)set;
	return mono_ms();
}

static void
f_defer(struct svc_set *set)
{
	(void)set;
}

static const struct svc_ops svc_fake = {
	.spawn = f_spawn, .signal = f_signal, .timer = f_timer,
	.timer_stop = f_timer_stop, .changed = f_changed, .now = f_now,
	.defer = f_defer,
};

/* The core, as ctl sees it. */

static struct svc *
o_instance(void *ctx, const char *name, struct buf *err)
{
	(void)ctx;
	logw("instance %s", name);
	if (W.instance_err)
		buf_puts(err, "web@x: user = nobody: no such user\n");
	return NULL;
}

static void
o_status(void *ctx, struct svc *s, int64_t now, struct svc_status *st)
{
	(void)ctx;
	(void)now;
	memset(st, 0, sizeof(*st));
	st->name = s->def->name;
	st->state = s->state;
	st->pid = svc_has_process(s) ? s->pid : 0;
	st->restarts = s->restarts;
	st->starts = s->starts;
	st->ready_ms = -1;
	svc_reason_format(s, st->reason, sizeof(st->reason));
	if (strcmp(st->name, "a") == 0)
		strcpy(st->cgroup_keys, "memory_max");
}

static const char *
o_cgroup_note(void *ctx)
{
	(void)ctx;
	return "no writable cgroup2";
}

static bool
o_running(void *ctx)
{
	(void)ctx;
	return !W.stopping;
}

static void
o_shutdown(void *ctx, unsigned int cmd)
{
	(void)ctx;
	logw("shutdown %s", cmd == RB_AUTOBOOT ? "reboot" :
	    cmd == RB_POWER_OFF ? "poweroff" : "?");
}

static int
o_reload(void *ctx, struct buf *report)
{
	(void)ctx;
	logw("reload");
	if (W.reload_report)
		buf_puts(report, W.reload_report);
	return W.reload_rc;
}

static int
o_svc_reload(void *ctx, struct svc *s, char *err, size_t n)
{
	(void)ctx;
	logw("reload %s", s->def->name);
	if (s->state != SVC_READY) {
		snprintf(err, n, "%s is not ready", s->def->name);
		return -EAGAIN;
	}
	svc_reload_asked(s, false);
	return 0;
}

static int
o_pressure_kill(void *ctx, struct svc *s)
{
	(void)ctx;
	logw("kill %s", s->def->name);
	return W.kill_rc;
}

static void
o_pressure_report(void *ctx, struct buf *b, bool json)
{
	(void)ctx;
	buf_puts(b, json ? "{\"psi\":null}\n" : "psi: none\n");
}

static int
o_reexec(void *ctx, const char *binary, char *err, size_t n)
{
	(void)ctx;
	logw("reexec %s", binary ? binary : "-");
	if (W.reexec_rc < 0)
		snprintf(err, n, "reexec: %s", strerror(-W.reexec_rc));
	return W.reexec_rc;
}

static void
o_metrics(void *ctx, struct metrics_own *m)
{
	(void)ctx;
	m->kills_request = 2;
	m->kills_pressure = 5;
	m->start_time_ms = 1796540458620;
}

static const struct ctl_ops ops_fake = {
	.instance = o_instance, .status = o_status,
	.cgroup_note = o_cgroup_note, .running = o_running,
	.shutdown = o_shutdown, .reload = o_reload,
	.svc_reload = o_svc_reload, .pressure_kill = o_pressure_kill,
	.pressure_report = o_pressure_report, .reexec = o_reexec,
	.metrics = o_metrics,
};

static void
on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	W.late = true;
	ev_break(loop, EVBREAK_ONE);
}

/* Run the loop until cond holds, or fail at the deadline. */
#define RUN_UNTIL(cond) do {						\
	W.late = false;							\
	ev_timer_set(&W.deadline, DEADLINE_S, 0.);			\
	ev_timer_start(W.loop, &W.deadline);				\
	while (!(cond) && !W.late)					\
		ev_run(W.loop, EVRUN_ONCE);				\
	ev_timer_stop(W.loop, &W.deadline);				\
	assert_false(W.late);						\
} while (0)

/* The first client the supervisor holds (the newest). */
#define CLIENT	LIST_FIRST(&W.ctl.clients)

/* Services from NULL-terminated pairs (name, ini text); the socket. */
static void
world(const char *name, ...)
{
	const char	*n, *text;
	va_list		 ap;
	size_t		 i;

	memset(&W, 0, sizeof(W));
	conf_init(&W.conf);
	va_start(ap, name);
	for (n = name; n; n = va_arg(ap, const char *)) {
		text = va_arg(ap, const char *);
		assert_int_equal(conf_parse_service(&W.conf, n, n, text), 0);
	}
	va_end(ap);
	assert_int_equal(conf_check(&W.conf), 0);
	W.svcs = calloc(W.conf.ndefs, sizeof(*W.svcs));
	W.set.v = calloc(W.conf.ndefs, sizeof(*W.set.v));
	W.set.ops = &svc_fake;
	TAILQ_INIT(&W.set.queue);
	TAILQ_INIT(&W.set.held);
	for (i = 0; i < W.conf.ndefs; i++) {
		svc_init(&W.svcs[i], W.conf.defs[i], &W.set);
		W.set.v[W.set.n++] = &W.svcs[i];
	}
	assert_int_equal(svc_set_link(&W.set), 0);

	assert_non_null(W.loop = ev_loop_new(EVFLAG_AUTO));
	ev_init(&W.deadline, on_deadline);
	strcpy(W.dir, "/tmp/test_ctl.XXXXXX");
	assert_non_null(mkdtemp(W.dir));
	snprintf(W.path, sizeof(W.path), "%s/control.sock", W.dir);
	W.ctl.ops = &ops_fake;
	W.ctl.ctx = &W;
	W.ctl.loop = W.loop;
	W.ctl.set = &W.set;
	W.ctl.sc = &W.conf.sup;
	W.ctl.path = W.path;
	W.ctl.fd = -1;
	W.ctl.spare = -1;
	LIST_INIT(&W.ctl.clients);
	assert_int_equal(ctl_listen(&W.ctl), 0);
}

static int
world_free(void **state)
{
	size_t	i;

	(void)state;
	if (W.ctl.path) {
		ctl_close(&W.ctl);
		/* It removed its socket: the directory must be empty. */
		assert_int_equal(rmdir(W.dir), 0);
	}
	if (W.loop)
		ev_loop_destroy(W.loop);
	for (i = 0; i < W.set.n; i++)
		svc_release(W.set.v[i]);
	free(W.set.v);
	free(W.set.stack);
	free(W.svcs);
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

/* Take whole frames from what the supervisor sent. */
static void
cli_frames(struct cli *c)
{
	struct ctl_frame	 f;
	const char		*msg;
	size_t			 used;
	int			 rc;

	while ((rc = ctl_frame_get(c->in.data, c->in.len, CTL_FRAME_MAX,
	    &f)) > 0) {
		assert_false(c->ended);		/* nothing after END */
		switch (f.type) {
		case CTL_OUTPUT:
			buf_add(&c->out, f.payload, f.len);
			break;
		case CTL_NOTE:
			buf_add(&c->note, f.payload, f.len);
			break;
		case CTL_END:
			assert_int_equal(ctl_end_get(&f, &c->code, &msg), 0);
			snprintf(c->msg, sizeof(c->msg), "%s", msg);
			c->ended = true;
			break;
		default:
			fail_msg("frame of type %u", f.type);
		}
		used = CTL_HDR_SIZE + f.len;
		buf_consume(&c->in, used);
	}
	assert_int_equal(rc, 0);
}

static void
cli_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct cli	*c = container_of(w, struct cli, w);
	char		 b[65536];
	ssize_t		 n;

	(void)revents;
	while ((n = recv(c->fd, b, sizeof(b), MSG_DONTWAIT)) > 0)
		buf_add(&c->in, b, (size_t)n);
	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		c->closed = true;
		ev_io_stop(loop, w);
	}
	cli_frames(c);
}

/* Connect, as pidvisorctl does. */
static void
cli_connect(struct cli *c)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	c->code = -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", W.path);
	assert_true((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
	    0)) >= 0);
	assert_int_equal(connect(c->fd, (struct sockaddr *)&sa,
	    sizeof(sa)), 0);
	ev_io_init(&c->w, cli_on_io, c->fd, EV_READ);
	ev_io_start(W.loop, &c->w);
}

/* Send raw bytes as the request. */
static void
cli_send_raw(struct cli *c, const void *p, size_t n)
{
	assert_int_equal(send(c->fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Connect and send the request made of the NULL-terminated words. */
static void
cli_ask_v(struct cli *c, char *const argv[])
{
	struct buf	b = { 0 };
	int		argc = 0;

	while (argv[argc])
		argc++;
	cli_connect(c);
	assert_int_equal(ctl_req_put(&b, argc, argv), 0);
	cli_send_raw(c, b.data, b.len);
	buf_free(&b);
}

#define cli_ask(c, ...) cli_ask_v((c), (char *[]){ __VA_ARGS__, NULL })

static void
cli_free(struct cli *c)
{
	ev_io_stop(W.loop, &c->w);
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	buf_free(&c->note);
}

/* Wait for the reply; then the supervisor must close the connection. */
static void
cli_reply(struct cli *c)
{
	RUN_UNTIL(c->ended);
	RUN_UNTIL(c->closed);
}

/* Ask and wait for the reply, with the expected code. */
static void
cli_expect_v(struct cli *c, int code, char *const argv[])
{
	cli_ask_v(c, argv);
	cli_reply(c);
	if (c->code != code)
		print_error("%s: code %d (%s), want %d\n", argv[0], c->code,
		    c->msg, code);
	assert_int_equal(c->code, code);
}

#define cli_expect(c, code, ...) \
	cli_expect_v((c), (code), (char *[]){ __VA_ARGS__, NULL })

static const char	task[] = "[service]\nexec = /bin/true\n";
static const char	longrun[] = "[service]\nexec = /bin/sleep 1\n";

/* version: the version and the protocol; no request reaches the core. */
static void
test_version(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	cli_expect(&c, CTL_OK, "version");
	assert_non_null(strstr(c.out.data, "(protocol 2)"));
	expect_log("");
	cli_free(&c);
}

/* status: every service through ops->status; a name alone: its code. */
static void
test_status(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, "b", task, NULL);
	cli_expect(&c, CTL_OK, "status");
	assert_non_null(strstr(c.out.data, "a "));
	assert_non_null(strstr(c.out.data, "b "));
	/* The core's note goes to stderr, not into what a script reads,
	 * and only for a service it matters to. */
	assert_non_null(strstr(c.note.data, "a: memory_max: nothing without "
	    "cgroups (no writable cgroup2)"));
	assert_null(strstr(c.note.data, "b:"));
	cli_free(&c);

	cli_expect(&c, CTL_ENOTREADY, "status", "a");
	cli_free(&c);
	cli_expect(&c, CTL_OK, "status", "--json");
	assert_true(c.out.data[0] == '[');
	assert_non_null(strstr(c.out.data, "\"name\":\"b\""));
	cli_free(&c);

	/* One unknown name: no status at all, and no core call for any. */
	cli_expect(&c, CTL_ENOSVC, "status", "a", "nosuch");
	assert_string_equal(c.msg, "no such service 'nosuch'");
	assert_int_equal(c.out.len, 0);
	cli_free(&c);
}

/* start --wait: answered when the service is up, not before. */
static void
test_start_wait(void **state)
{
	struct cli	c;

	(void)state;
	world("a", longrun, NULL);
	cli_ask(&c, "start", "--wait", "a");
	RUN_UNTIL(S("a")->pid != 0);
	expect_log("spawn a;");
	assert_false(c.ended);
	/* ready = exec: ready once it has exec'd. */
	svc_exec(S("a"), STAGE_EXEC, 0);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_OK);
	cli_free(&c);

	/* Up already: at once. */
	cli_expect(&c, CTL_OK, "start", "--wait", "a");
	expect_log("");
	cli_free(&c);
}

/* start --wait: a failure is the reply, with why. */
static void
test_start_wait_fails(void **state)
{
	struct cli	c;

	(void)state;
	world("a", "[service]\nexec = /nonexistent\nrestart = never\n", NULL);
	cli_ask(&c, "start", "--wait", "a");
	RUN_UNTIL(S("a")->pid != 0);
	/* Its exec failed, then its child exited. */
	svc_exec(S("a"), STAGE_EXEC, ENOENT);
	assert_false(c.ended);
	svc_died(S("a"), 127, 0);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EFAIL);
	assert_non_null(strstr(c.msg, "a: failed"));
	assert_non_null(strstr(c.msg, "No such file or directory"));
	cli_free(&c);
}

/* --timeout: the deadline is the reply, naming who was not there. */
static void
test_wait_timeout(void **state)
{
	struct cli	c;

	(void)state;
	world("a", longrun, "b", longrun, NULL);
	svc_start(S("a"));
	svc_exec(S("a"), STAGE_EXEC, 0);
	cli_ask(&c, "start", "--wait", "--timeout=50ms", "a", "b");
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EFAIL);
	assert_string_equal(c.msg, "timed out waiting for b (starting)");
	cli_free(&c);
}

/* wait NAME STATE: until the state, answered by a change. */
static void
test_wait_state(void **state)
{
	struct cli	c, d;

	(void)state;
	world("a", longrun, NULL);
	cli_expect(&c, CTL_EUSAGE, "wait", "a", "sleeping");
	assert_non_null(strstr(c.msg, "unknown state 'sleeping'"));
	cli_free(&c);

	cli_ask(&c, "wait", "a", "ready");
	cli_expect(&d, CTL_OK, "start", "a");
	cli_free(&d);
	assert_false(c.ended);
	svc_exec(S("a"), STAGE_EXEC, 0);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_OK);
	cli_free(&c);
}

/* A client that hangs up while it waits costs nothing after. */
static void
test_wait_hangup(void **state)
{
	struct cli	c;

	(void)state;
	world("a", longrun, NULL);
	cli_ask(&c, "wait", "a", "ready");
	RUN_UNTIL(CLIENT && CLIENT->wait == WAIT_STATE);
	shutdown(c.fd, SHUT_WR);
	RUN_UNTIL(W.ctl.nclients == 0);
	cli_free(&c);
	svc_start(S("a"));
	svc_exec(S("a"), STAGE_EXEC, 0);	/* nobody to tell */
}

/* stop, restart: through the state machine. */
static void
test_stop_restart(void **state)
{
	struct cli	c;
	struct svc	*a;

	(void)state;
	world("a", longrun, NULL);
	a = S("a");
	svc_start(a);
	svc_exec(a, STAGE_EXEC, 0);
	expect_log("spawn a;");
	cli_ask(&c, "stop", "--wait", "a");
	RUN_UNTIL(!a->want_up);
	expect_log("a:TERM;a:CONT;");
	assert_false(c.ended);
	svc_died(a, 0, SIGTERM);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_OK);
	cli_free(&c);

	cli_expect(&c, CTL_OK, "restart", "a");
	expect_log("spawn a;");
	cli_free(&c);
}

/* While the supervisor shuts down, nothing is started. */
static void
test_shutting_down(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	W.stopping = true;
	cli_expect(&c, CTL_EFAIL, "start", "a");
	assert_string_equal(c.msg, "shutting down");
	cli_free(&c);
	cli_expect(&c, CTL_EFAIL, "reexec");
	cli_free(&c);
	expect_log("");
	/* Stopping still is. */
	cli_expect(&c, CTL_OK, "stop", "a");
	cli_free(&c);
}

/* start NAME@INSTANCE: the core makes it, or says why not. */
static void
test_instance(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	cli_expect(&c, CTL_ENOSVC, "start", "web@x");
	assert_non_null(strstr(c.msg, "nor a template"));
	expect_log("instance web@x;");
	cli_free(&c);

	W.instance_err = 1;
	cli_expect(&c, CTL_EFAIL, "start", "web@x");
	assert_non_null(strstr(c.msg, "the template refuses it"));
	assert_non_null(strstr(c.out.data, "no such user"));
	expect_log("instance web@x;");
	cli_free(&c);

	/* Not start: no instance is made. */
	cli_expect(&c, CTL_ENOSVC, "stop", "web@x");
	expect_log("");
	cli_free(&c);
}

/* reload: the core's report, and its verdict as the code. */
static void
test_reload(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	W.reload_report = "+ b\n";
	cli_expect(&c, CTL_OK, "reload");
	assert_string_equal(c.out.data, "+ b\n");
	expect_log("reload;");
	cli_free(&c);

	W.reload_rc = -EINVAL;
	W.reload_report = "b.ini:3: exec: missing\n";
	cli_expect(&c, CTL_EFAIL, "reload");
	assert_string_equal(c.msg, "configuration refused; nothing changed");
	assert_string_equal(c.out.data, "b.ini:3: exec: missing\n");
	cli_free(&c);
}

/* reload NAME: answered once the service says it reloaded. */
static void
test_reload_svc(void **state)
{
	struct cli	c;
	struct svc	*a;
	uint32_t	 before;

	(void)state;
	world("a", longrun, NULL);
	a = S("a");
	cli_expect(&c, CTL_EFAIL, "reload", "a");
	assert_string_equal(c.msg, "a is not ready");
	cli_free(&c);

	svc_start(a);
	svc_exec(a, STAGE_EXEC, 0);
	W.log.len = 0;
	before = a->reloads;
	cli_ask(&c, "reload", "a");
	RUN_UNTIL(a->reload_asked);
	expect_log("reload a;");
	assert_false(c.ended);
	svc_reload_done(a, 0);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_OK);
	assert_int_equal(a->reloads, before + 1);
	cli_free(&c);

	/* Its reload_exec failed: that is the reply. */
	cli_ask(&c, "reload", "a");
	RUN_UNTIL(a->reload_asked);
	svc_reload_done(a, 3);
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EFAIL);
	assert_string_equal(c.msg, "a: reload failed: reload_exec exited "
	    "with code 3");
	assert_int_equal(S("a")->state, SVC_READY);
	cli_free(&c);
	expect_log("reload a;");
}

/* shutdown, reboot, poweroff: reboot(2) only as PID 1. */
static void
test_halt(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	cli_expect(&c, CTL_EFAIL, "reboot");
	assert_non_null(strstr(c.msg, "not PID 1"));
	cli_free(&c);
	expect_log("");
	cli_expect(&c, CTL_OK, "shutdown");
	cli_free(&c);
	expect_log("shutdown poweroff;");

	W.ctl.pid1 = true;
	cli_expect(&c, CTL_OK, "reboot");
	cli_free(&c);
	cli_expect(&c, CTL_OK, "poweroff");
	cli_free(&c);
	expect_log("shutdown reboot;shutdown poweroff;");
}

/* pressure kill NAME: the killer's own path; never a never. */
static void
test_pressure(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, "db", "[service]\nexec = /bin/true\n"
	    "kill_priority = never\n", NULL);
	cli_expect(&c, CTL_OK, "pressure", "kill", "a");
	expect_log("kill a;");
	cli_free(&c);

	W.kill_rc = -EBUSY;
	cli_expect(&c, CTL_EFAIL, "pressure", "kill", "a");
	assert_string_equal(c.msg, "a: another kill is in flight");
	cli_free(&c);

	cli_expect(&c, CTL_EFAIL, "pressure", "kill", "db");
	assert_string_equal(c.msg, "db: kill_priority = never");
	expect_log("kill a;");
	cli_free(&c);

	cli_expect(&c, CTL_EUSAGE, "pressure", "stab", "a");
	cli_free(&c);
	cli_expect(&c, CTL_OK, "pressure", "--json");
	assert_string_equal(c.out.data, "{\"psi\":null}\n");
	cli_free(&c);
}

/* reexec: answered by whoever finishes it, not by the request. */
static void
test_reexec(void **state)
{
	struct cli	c, d;

	(void)state;
	world("a", task, NULL);
	cli_ask(&c, "reexec", "--binary", "/usr/sbin/pidvisor");
	RUN_UNTIL(W.ctl.reexec_client != NULL);
	expect_log("reexec /usr/sbin/pidvisor;");
	/* One at a time. */
	cli_expect(&d, CTL_EFAIL, "reexec");
	assert_string_equal(d.msg, "a re-exec is under way");
	cli_free(&d);
	/* The others are told to try again; the asker stays. */
	cli_ask(&d, "wait", "a", "ready");
	RUN_UNTIL(W.ctl.nclients == 2 && CLIENT->wait == WAIT_STATE);
	ctl_reexec_drop(&W.ctl);
	cli_reply(&d);
	assert_int_equal(d.code, CTL_EAGAIN);
	cli_free(&d);
	assert_false(c.ended);
	ctl_reexec_undo(&W.ctl);
	ctl_reexec_end(&W.ctl, CTL_EFAIL, "exec: Permission denied");
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EFAIL);
	assert_string_equal(c.msg, "exec: Permission denied");
	cli_free(&c);

	/* Refused at once: the core's reason. */
	W.reexec_rc = -ENOEXEC;
	cli_expect(&c, CTL_EFAIL, "reexec");
	assert_string_equal(c.msg, "reexec: Exec format error");
	assert_null(W.ctl.reexec_client);
	cli_free(&c);
}

/* logs -f: new lines as they come; the service's removal ends it. */
static void
test_follow(void **state)
{
	struct cli		c;
	struct svclog_line	l = { .ts_ms = 0, .pid = 7, .len = 5,
				    .text = "hello" };

	(void)state;
	world("a", task, NULL);
	cli_ask(&c, "logs", "-f", "a");
	RUN_UNTIL(CLIENT && CLIENT->follow);
	ctl_svc_line(&W.ctl, S("a"), &l);
	RUN_UNTIL(c.out.len > 0 || c.closed);
	assert_non_null(strstr(c.out.data, "hello"));
	ctl_svc_removed(&W.ctl, S("a"));
	cli_reply(&c);
	assert_int_equal(c.code, CTL_OK);
	assert_string_equal(c.msg, "a was removed");
	cli_free(&c);
}

/* metrics: every service's rows, and the core's numbers. */
static void
test_metrics(void **state)
{
	struct cli	c;

	(void)state;
	world("a", longrun, "b", task, NULL);
	svc_start(S("a"));
	svc_exec(S("a"), STAGE_EXEC, 0);
	cli_expect(&c, CTL_OK, "metrics");
	assert_non_null(strstr(c.out.data, "\npidvisor_service_state{service="
	    "\"a\",state=\"ready\"} 1\n"));
	assert_non_null(strstr(c.out.data, "\npidvisor_service_state{service="
	    "\"b\",state=\"stopped\"} 1\n"));
	assert_non_null(strstr(c.out.data, "\npidvisor_service_starts_total{"
	    "service=\"a\"} 1\n"));
	assert_non_null(strstr(c.out.data, "pidvisor_pressure_kills_total{"
	    "reason=\"request\"} 2\n"));
	assert_non_null(strstr(c.out.data, "pidvisor_pressure_kills_total{"
	    "reason=\"pressure\"} 5\n"));
	assert_non_null(strstr(c.out.data, "\npidvisor_control_clients 1\n"));
	assert_non_null(strstr(c.out.data, "\npidvisor_start_time_seconds "
	    "1796540458.620\n"));
	assert_non_null(strstr(c.out.data, "\npidvisor_services 2\n"));
	cli_free(&c);
}

/*
 * events: the changes of all, or of those named; a reload; a re-exec
 * keeps the stream, the end of pidvisor ends it.
 */
static void
test_events(void **state)
{
	struct cli	c, d;

	(void)state;
	world("a", longrun, "b", longrun, NULL);
	cli_ask(&c, "events");
	cli_ask(&d, "events", "--json", "b");
	RUN_UNTIL(W.ctl.nevents == 2);
	svc_start(S("a"));
	svc_start(S("b"));
	RUN_UNTIL(strstr(c.out.data ? c.out.data : "", "b: stopped -> "
	    "starting (why) pid 2\n") != NULL &&
	    strstr(d.out.data ? d.out.data : "", "\"to\":\"starting\"") != NULL);
	assert_non_null(strstr(c.out.data, "Z a: stopped -> starting (why) "
	    "pid 1\n"));
	assert_null(strstr(d.out.data, "\"service\":\"a\""));
	assert_non_null(strstr(d.out.data, "\"event\":\"state\",\"service\":"
	    "\"b\",\"from\":\"stopped\",\"to\":\"starting\",\"pid\":2,"
	    "\"reason\":\"why\"}\n"));
	ctl_event(&W.ctl, &(struct ctl_event){ .kind = EV_RELOAD, .ok = true,
	    .reason = "added c" });
	RUN_UNTIL(strstr(c.out.data, "reload: done (added c)\n") != NULL);
	assert_null(strstr(d.out.data, "reload"));	/* named: not its */
	/* A re-exec keeps them (the next binary takes them over). */
	ctl_event(&W.ctl, &(struct ctl_event){ .kind = EV_REEXEC,
	    .reason = "/sbin/pidvisor" });
	ctl_reexec_drop(&W.ctl);
	RUN_UNTIL(strstr(c.out.data, "reexec: /sbin/pidvisor\n") != NULL);
	assert_int_equal(W.ctl.nevents, 2);
	assert_false(c.ended);
	/* The end of pidvisor ends the stream, with a word. */
	ctl_close(&W.ctl);
	cli_reply(&c);
	cli_reply(&d);
	assert_int_equal(c.code, CTL_OK);
	assert_string_equal(c.msg, "pidvisor exited");
	assert_int_equal(d.code, CTL_OK);
	cli_free(&c);
	cli_free(&d);
}

/* events: a client that does not read is dropped, and counted. */
static void
test_events_dropped(void **state)
{
	struct cli	c;
	char		why[200];
	int		i;

	(void)state;
	world("a", longrun, NULL);
	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	cli_ask(&c, "events");
	RUN_UNTIL(W.ctl.nevents == 1);
	ev_io_stop(W.loop, &c.w);		/* it reads no more */
	for (i = 0; i < 100000 && W.ctl.nevents > 0; i++)
		ctl_event(&W.ctl, &(struct ctl_event){ .kind = EV_RELOAD,
		    .ok = true, .reason = why });
	assert_int_equal(W.ctl.nevents, 0);
	assert_int_equal(W.ctl.events_dropped, 1);
	assert_true(i > 4000);			/* 1 MiB at least */
	assert_true(LIST_EMPTY(&W.ctl.clients));
	cli_free(&c);
}

/* is-ready: every enabled service, or those named; 3 with who is not. */
static void
test_is_ready(void **state)
{
	struct cli	c;

	(void)state;
	world("a", longrun, "b", longrun, "c",
	    "[service]\nexec = /bin/true\nenabled = no\n", NULL);
	cli_expect(&c, CTL_ENOTREADY, "is-ready");
	assert_string_equal(c.msg, "not ready: a (stopped), b (stopped)");
	cli_free(&c);
	svc_start(S("a"));
	svc_exec(S("a"), STAGE_EXEC, 0);
	cli_expect(&c, CTL_OK, "is-ready", "a");
	assert_string_equal(c.msg, "");
	assert_null(c.out.data);
	cli_free(&c);
	cli_expect(&c, CTL_ENOTREADY, "is-ready", "a", "c");
	assert_string_equal(c.msg, "not ready: c (stopped)");
	cli_free(&c);
	cli_expect(&c, CTL_ENOSVC, "is-ready", "nosuch");
	cli_free(&c);
	svc_start(S("b"));
	svc_exec(S("b"), STAGE_EXEC, 0);
	cli_expect(&c, CTL_OK, "is-ready");
	cli_free(&c);
}

/* reset-failed: failed services named, or all, become stopped. */
static void
test_reset_failed(void **state)
{
	struct cli	c;
	const char	*never = "[service]\nexec = x\nrestart = never\n";

	(void)state;
	world("a", never, "b", never, "c", longrun, NULL);
	svc_start(S("a"));
	svc_start(S("b"));
	svc_start(S("c"));
	svc_exec(S("a"), STAGE_EXEC, 0);
	svc_exec(S("b"), STAGE_EXEC, 0);
	svc_exec(S("c"), STAGE_EXEC, 0);
	S("a")->pidfd = S("b")->pidfd = -1;
	svc_died(S("a"), 1, 0);
	svc_died(S("b"), 1, 0);
	assert_int_equal(S("a")->state, SVC_FAILED);
	cli_expect(&c, CTL_OK, "reset-failed", "a");
	cli_free(&c);
	assert_int_equal(S("a")->state, SVC_STOPPED);
	assert_int_equal(S("b")->state, SVC_FAILED);
	assert_int_equal(S("a")->last.why, WHY_EXITED);	/* kept */
	cli_expect(&c, CTL_ENOSVC, "reset-failed", "nosuch");
	cli_free(&c);
	assert_int_equal(S("b")->state, SVC_FAILED);
	cli_expect(&c, CTL_OK, "reset-failed");
	cli_free(&c);
	assert_int_equal(S("b")->state, SVC_STOPPED);
	assert_int_equal(S("c")->state, SVC_READY);	/* left as it was */
}

/* What the protocol refuses, each with its own reason. */
static void
test_protocol(void **state)
{
	struct cli	c;
	uint8_t		hdr[CTL_HDR_SIZE] = { 9, CTL_REQUEST };
	uint32_t	len = CTL_REQ_MAX + 1;
	struct buf	b = { 0 };

	(void)state;
	world("a", task, NULL);
	cli_connect(&c);
	cli_send_raw(&c, hdr, sizeof(hdr));
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EUSAGE);
	assert_non_null(strstr(c.msg, "expected a version 2 request"));
	cli_free(&c);

	hdr[0] = CTL_VERSION;
	memcpy(hdr + 4, &len, sizeof(len));
	cli_connect(&c);
	cli_send_raw(&c, hdr, sizeof(hdr));
	cli_reply(&c);
	assert_int_equal(c.code, CTL_EUSAGE);
	assert_non_null(strstr(c.msg, "request too large"));
	cli_free(&c);

	cli_connect(&c);
	ctl_frame_put(&b, CTL_OUTPUT, "x", 1);
	cli_send_raw(&c, b.data, b.len);
	buf_free(&b);
	cli_reply(&c);
	assert_string_equal(c.msg, "protocol error: expected a request");
	cli_free(&c);

	cli_expect(&c, CTL_EUSAGE, "status", "a\033[2J");
	assert_string_equal(c.msg, "word 2 is not printable UTF-8");
	cli_free(&c);
	cli_expect(&c, CTL_EUSAGE, "frobnicate");
	cli_free(&c);
	cli_expect(&c, CTL_EUSAGE, "signal", "a", "SIGNOPE");
	assert_string_equal(c.msg, "unknown signal 'SIGNOPE'");
	cli_free(&c);
	cli_expect(&c, CTL_EFAIL, "signal", "a", "HUP");
	assert_string_equal(c.msg, "a is not running");
	cli_free(&c);
	expect_log("");
}

/* A client that says nothing is dropped at client_timeout. */
static void
test_silent_client(void **state)
{
	struct cli	c;

	(void)state;
	world("a", task, NULL);
	W.conf.sup.client_timeout = 50;
	cli_connect(&c);
	RUN_UNTIL(c.closed);
	assert_false(c.ended);
	assert_int_equal(W.ctl.nclients, 0);
	cli_free(&c);
}

/* max_clients: one more is told so, and the slot comes back. */
static void
test_max_clients(void **state)
{
	struct cli	c, d;

	(void)state;
	world("a", longrun, NULL);
	W.conf.sup.max_clients = 1;
	cli_ask(&c, "wait", "a", "ready");
	RUN_UNTIL(CLIENT && CLIENT->wait == WAIT_STATE);
	cli_expect(&d, CTL_EFAIL, "status");
	assert_string_equal(d.msg, "too many clients");
	cli_free(&d);
	cli_free(&c);
	RUN_UNTIL(W.ctl.nclients == 0);
	cli_expect(&d, CTL_OK, "status");
	cli_free(&d);
}

static void
on_exit_io(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	*(bool *)w->data = true;
}

/*
 * Another user: it may look, not change.  The client is a child that
 * became nobody; the loop runs here until it has exited with the code
 * of each reply as a byte: status, stop, pressure kill, reexec.
 */
static void
test_unprivileged(void **state)
{
	static char *const	asks[][4] = {
		{ "status", "a", NULL }, { "stop", "a", NULL },
		{ "pressure", "kill", "a", NULL }, { "reexec", NULL },
	};
	int			p[2], pidfd, st;
	uint8_t			codes[4];
	ev_io			w;
	bool			dead = false;
	pid_t			pid;
	size_t			i;

	(void)state;
	world("a", task, NULL);
	/* The socket is 0600: let everyone in, as control_mode would. */
	assert_int_equal(chmod(W.path, 0666), 0);
	assert_int_equal(chmod(W.dir, 0755), 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(100);
		for (i = 0; i < ARRAY_SIZE(asks); i++) {
			struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
			struct ctl_frame	 f;
			struct buf		 b = { 0 };
			char			 in[4096];
			size_t			 got = 0;
			const char		*msg;
			int			 fd, code = 99, argc = 0;
			ssize_t			 n;

			while (asks[i][argc])
				argc++;
			snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
			    W.path);
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			if (connect(fd, (struct sockaddr *)&sa,
			    sizeof(sa)) < 0 || ctl_req_put(&b, argc,
			    asks[i]) < 0 || send(fd, b.data, b.len, 0) < 0)
				_exit(101);
			/* Skip to the END frame. */
			while ((n = recv(fd, in + got, sizeof(in) - got,
			    0)) > 0)
				got += (size_t)n;
			for (size_t off = 0; ctl_frame_get(in + off, got - off,
			    sizeof(in), &f) > 0; off += CTL_HDR_SIZE + f.len)
				if (f.type == CTL_END)
					ctl_end_get(&f, &code, &msg);
			codes[i] = (uint8_t)code;
			close(fd);
		}
		_exit(write(p[1], codes, sizeof(codes)) == sizeof(codes) ?
		    0 : 102);
	}
	close(p[1]);
	assert_true((pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) >= 0);
	/* Its pidfd is readable once it has exited. */
	ev_io_init(&w, on_exit_io, pidfd, EV_READ);
	w.data = &dead;
	ev_io_start(W.loop, &w);
	RUN_UNTIL(dead);
	ev_io_stop(W.loop, &w);
	close(pidfd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(read(p[0], codes, sizeof(codes)), sizeof(codes));
	close(p[0]);
	assert_int_equal(codes[0], CTL_ENOTREADY);
	assert_int_equal(codes[1], CTL_EPERM);
	assert_int_equal(codes[2], CTL_EPERM);
	assert_int_equal(codes[3], CTL_EPERM);
	expect_log("");
}

/*
 * Out of memory in the middle of a request: each allocation in turn
 * fails (tests/helpers/fault.c); every reply is still one whole END,
 * either the answer or "Cannot allocate memory", and nothing leaks.
 */
static void
test_alloc_failure(void **state)
{
	char		file[128];
	struct cli	c;
	int		k, fd;
	bool		done = false;

	(void)state;
	world("a", task, "b", task, NULL);
	snprintf(file, sizeof(file), "%s/fault", W.dir);
	setenv("PIDVISOR_FAULT_ALLOC", file, 1);
	for (k = 1; !done && k < 200; k++) {
		char	n[16];

		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0600);
		assert_true(fd >= 0);
		assert_true(write(fd, n, (size_t)snprintf(n, sizeof(n), "%d",
		    k)) > 0);
		close(fd);
		cli_ask(&c, "status", "--json");
		RUN_UNTIL(c.closed);
		assert_true(c.ended || c.in.len == 0);
		if (c.ended && c.code == CTL_OK)
			done = c.out.data && strstr(c.out.data, "\"b\"");
		else if (c.ended)
			assert_string_equal(c.msg, "Cannot allocate memory");
		cli_free(&c);
	}
	unsetenv("PIDVISOR_FAULT_ALLOC");
	unlink(file);
	assert_true(done);
	assert_true(k > 2);	/* at least one allocation did fail */
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_teardown(test_version, world_free),
		cmocka_unit_test_teardown(test_status, world_free),
		cmocka_unit_test_teardown(test_start_wait, world_free),
		cmocka_unit_test_teardown(test_start_wait_fails, world_free),
		cmocka_unit_test_teardown(test_wait_timeout, world_free),
		cmocka_unit_test_teardown(test_wait_state, world_free),
		cmocka_unit_test_teardown(test_wait_hangup, world_free),
		cmocka_unit_test_teardown(test_stop_restart, world_free),
		cmocka_unit_test_teardown(test_shutting_down, world_free),
		cmocka_unit_test_teardown(test_instance, world_free),
		cmocka_unit_test_teardown(test_reload, world_free),
		cmocka_unit_test_teardown(test_reload_svc, world_free),
		cmocka_unit_test_teardown(test_halt, world_free),
		cmocka_unit_test_teardown(test_pressure, world_free),
		cmocka_unit_test_teardown(test_reexec, world_free),
		cmocka_unit_test_teardown(test_follow, world_free),
		cmocka_unit_test_teardown(test_metrics, world_free),
		cmocka_unit_test_teardown(test_events, world_free),
		cmocka_unit_test_teardown(test_events_dropped, world_free),
		cmocka_unit_test_teardown(test_is_ready, world_free),
		cmocka_unit_test_teardown(test_reset_failed, world_free),
		cmocka_unit_test_teardown(test_protocol, world_free),
		cmocka_unit_test_teardown(test_silent_client, world_free),
		cmocka_unit_test_teardown(test_max_clients, world_free),
		cmocka_unit_test_teardown(test_unprivileged, world_free),
		cmocka_unit_test_teardown(test_alloc_failure, world_free),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
