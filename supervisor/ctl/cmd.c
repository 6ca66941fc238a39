/*
 * cmd.c - the verbs of the control socket, one function each (cmd_*)
 * and one table (ctl_cmds): what a request does, through the client it
 * came on (ctl.c) and the supervisor's ctl_ops.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd.h"
#include "conf.h"
#include "security.h"
#include "metrics.h"
#include "pressure.h"
#include "spawn.h"
#include "sandbox.h"
#include "timers.h"
#include "unit.h"


/*
 * On stderr, where it matters to the services shown: the keys that do
 * nothing without cgroups (note: why there are none), and a kill_mode
 * a file asked for that acts as another here.  A default kill_mode
 * adapts in silence.
 */
static void
ctl_svc_notes(struct ctl_client *c, const struct svc_status *v, size_t n,
    const char *note)
{
	struct buf	b = { 0 };
	size_t		i;

	for (i = 0; i < n; i++) {
		if (note != NULL && v[i].cgroup_keys[0] != '\0')
			buf_printf(&b, "%s: %s: nothing without cgroups (%s)\n",
			    v[i].name, v[i].cgroup_keys, note);
		if (v[i].kill_mode != v[i].kill_mode_real &&
		    v[i].kill_mode_given)
			buf_printf(&b, "%s: kill_mode = %s acts as %s here\n",
			    v[i].name, kill_mode_name(v[i].kill_mode),
			    kill_mode_name(v[i].kill_mode_real));
	}
	if (b.len && !b.nomem)
		ctl_frame_put(&c->out, CTL_NOTE, b.data, (uint32_t)b.len);
	buf_free(&b);
}

/*
 * The units not run (ctl_ops.refused), as rows of status: every one
 * (name NULL), or the one of that name (NAME or NAME.service); *v (of
 * *cap rows) grown for them, their names kept in *names.  1 if one was added, 0 if
 * not, -ENOMEM (*names gone: nothing may be shown).
 */
static int
cmd_refused(struct ctl_client *c, const char *name, struct svc_status **v,
    size_t *n, size_t *cap, char ***names)
{
	char *const	*r = c->ctl->ops->refused ?
			    c->ctl->ops->refused(c->ctl->ctx) : NULL;
	char		 nm[SVC_NAME_MAX + 1];
	size_t		 i, len;
	int		 added = 0;

	for (i = 0; r && r[i]; i++) {
		const char		*tab = strchr(r[i], '\t');
		struct svc_status	*nv;

		if (tab == NULL || (len = (size_t)(tab - r[i])) > SVC_NAME_MAX)
			continue;
		snprintf(nm, sizeof(nm), "%.*s", (int)len, r[i]);
		if (name != NULL && strcmp(name, nm) != 0 &&
		    !(strncmp(name, nm, len) == 0 &&
		    strcmp(name + len, ".service") == 0))
			continue;
		if (*n == *cap) {
			if ((nv = realloc(*v, (*cap + 16) * sizeof(**v))) ==
			    NULL) {
				strv_free(*names);
				*names = NULL;
				return -ENOMEM;
			}
			*v = nv;
			*cap += 16;
		}
		nv = *v;
		if ((*names = strv_add(*names, nm)) == NULL)
			return -ENOMEM;
		memset(&nv[*n], 0, sizeof(nv[*n]));
		nv[*n].name = (*names)[strv_len(*names) - 1];
		nv[*n].refused = true;
		nv[*n].state = SVC_STOPPED;
		snprintf(nv[*n].reason, sizeof(nv[*n].reason), "not run: %s",
		    tab + 1);
		(*n)++;
		added = 1;
		if (name != NULL)
			break;
	}
	return added;
}

/* status [NAME...] [--json]: from snapshots (status.c formats them). */
static void
cmd_status(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc_set		*set = c->ctl->set;
	struct svc_status	*v;
	struct buf		 b = { 0 };
	const char		*note;
	char			**names = NULL;
	int			 rc = 0;
	int64_t			 now = mono_ms();
	size_t			 i, n = 0, cap = set->n + (size_t)a->npos + 1;
	int			 width, code = CTL_OK;

	if ((v = calloc(cap, sizeof(*v))) == NULL) {
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	if (a->npos == 0) {
		for (i = 0; i < set->n; i++)
			c->ctl->ops->status(c->ctl->ctx, set->v[i], now, &v[n++]);
		rc = cmd_refused(c, NULL, &v, &n, &cap, &names);
	}
	for (i = 0; i < (size_t)a->npos; i++) {
		struct svc	*s;

		/* A unit not run: its line, not ready. */
		if (rc >= 0 && ctl_lookup(c->ctl, a->pos[i]) == NULL &&
		    (rc = cmd_refused(c, a->pos[i], &v, &n, &cap, &names)) >
		    0) {
			code = CTL_ENOTREADY;
			continue;
		}
		if (rc < 0)
			break;
		if ((s = ctl_svc(c, a->pos[i])) == NULL) {
			free(v);
			strv_free(names);
			return;
		}
		c->ctl->ops->status(c->ctl->ctx, s, now, &v[n++]);
		if (s->state != SVC_READY)
			code = CTL_ENOTREADY;
	}
	if (rc < 0) {
		free(v);
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	if (a->json) {
		buf_puts(&b, "[");
		for (i = 0; i < n; i++) {
			if (i > 0)
				buf_puts(&b, ",");
			status_json(&b, &v[i]);
		}
		buf_puts(&b, "]\n");
	} else {
		width = status_width(v, n);
		status_text_header(&b, width);
		for (i = 0; i < n; i++)
			status_text(&b, &v[i], width);
		note = c->ctl->ops->cgroup_note(c->ctl->ctx);
		ctl_svc_notes(c, v, n, note);
	}
	free(v);
	strv_free(names);
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_reply(c, code, "%s", "");
}


/* Refuse requests that would start things while we shut down. */
static bool
ctl_refuse_stopping(struct ctl_client *c)
{
	if (c->ctl->ops->running(c->ctl->ctx))
		return false;
	ctl_reply(c, CTL_EFAIL, "shutting down");
	return true;
}

/* start NAME... [--wait] */
static void
cmd_start(struct ctl_client *c, const struct ctl_args *a)
{
	size_t	i;

	if (ctl_refuse_stopping(c) || !ctl_svcs(c, a, 0))
		return;
	svc_set_batch(c->ctl->set, true);
	for (i = 0; i < c->nwait; i++)
		svc_start(c->wait_svc[i]);
	svc_set_batch(c->ctl->set, false);
	if (a->wait)
		ctl_wait_begin(c, WAIT_UP, a->timeout);
	else
		ctl_ok(c);
}

/* What a stop or restart takes along, besides the services named. */
struct cmd_also {
	struct ctl_client	 *c;
	struct svc		**v;	/* each with the one it requires */
	struct svc		**via;
	size_t			  n;
};

static void
cmd_also_add(struct svc *x, struct svc *via, void *arg)
{
	struct cmd_also	*al = arg;
	size_t		 i;

	for (i = 0; i < al->c->nwait; i++)
		if (al->c->wait_svc[i] == x)
			return;			/* named: not "also" */
	for (i = 0; i < al->n; i++)
		if (al->v[i] == x)
			return;
	al->v[al->n] = x;
	al->via[al->n++] = via;
}

/*
 * Say what the command takes along ("also stopped: web (requires db)"):
 * a note on stderr, and with --json, on stdout, the services named and
 * those with what they require.  Before the command: it changes wants.
 */
static void
cmd_also(struct ctl_client *c, const struct ctl_args *a, bool restart)
{
	const char	*verb = restart ? "restarted" : "stopped";
	struct cmd_also	 al = { .c = c };
	struct buf	 b = { 0 };
	size_t		 i, n = c->ctl->set->n;

	al.v = calloc(n + 1, sizeof(*al.v));
	al.via = calloc(n + 1, sizeof(*al.via));
	if (al.v != NULL && al.via != NULL)
		for (i = 0; i < c->nwait; i++)
			svc_dependents(c->wait_svc[i], restart, cmd_also_add,
			    &al);
	if (al.n > 0) {
		buf_printf(&b, "also %s:", verb);
		for (i = 0; i < al.n; i++)
			buf_printf(&b, "%s %s (requires %s)", i ? "," : "",
			    al.v[i]->def->name, al.via[i]->def->name);
		buf_puts(&b, "\n");
		if (!b.nomem)
			ctl_note(c, b.data);
		b.len = 0;
	}
	if (a->json) {
		buf_printf(&b, "{\"%s\":[", verb);
		for (i = 0; i < c->nwait; i++) {
			buf_puts(&b, i ? "," : "");
			buf_json_str(&b, c->wait_svc[i]->def->name);
		}
		buf_puts(&b, "],\"also\":[");
		for (i = 0; i < al.n; i++) {
			buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
			buf_json_str(&b, al.v[i]->def->name);
			buf_puts(&b, ",\"requires\":");
			buf_json_str(&b, al.via[i]->def->name);
			buf_puts(&b, "}");
		}
		buf_puts(&b, "]}\n");
		ctl_output_buf(c, &b);
	}
	buf_free(&b);
	free(al.v);
	free(al.via);
}

/* stop NAME... [--wait] [--json] */
static void
cmd_stop(struct ctl_client *c, const struct ctl_args *a)
{
	size_t	i;

	if (!ctl_svcs(c, a, 0))
		return;
	cmd_also(c, a, false);
	for (i = 0; i < c->nwait; i++)
		svc_stop(c->wait_svc[i]);
	if (a->wait)
		ctl_wait_begin(c, WAIT_DOWN, a->timeout);
	else
		ctl_ok(c);
}

/* restart NAME... [--wait] [--json] */
static void
cmd_restart(struct ctl_client *c, const struct ctl_args *a)
{
	size_t	i;

	if (ctl_refuse_stopping(c) || !ctl_svcs(c, a, 0))
		return;
	cmd_also(c, a, true);
	for (i = 0; i < c->nwait; i++)
		svc_restart(c->wait_svc[i]);
	if (a->wait)
		ctl_wait_begin(c, WAIT_RESTART, a->timeout);
	else
		ctl_ok(c);
}

/*
 * kill NAME [SIGNAL] [--all]: TERM by default, to the main process
 * through its pidfd, or to every process of the service (systemctl
 * kill).  signal NAME SIGNAL is the same, without --all.
 */
static void
cmd_kill(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc	*s;
	int		 sig = SIGTERM, rc;

	if (a->npos > 1 && (sig = signal_parse(a->pos[1])) < 0) {
		ctl_reply(c, CTL_EUSAGE, "unknown signal '%.32s'", a->pos[1]);
		return;
	}
	if ((s = ctl_svc(c, a->pos[0])) == NULL)
		return;
	if (!svc_has_process(s) || s->pidfd < 0) {
		ctl_reply(c, CTL_EFAIL, "%s is not running", s->def->name);
		return;
	}
	if ((rc = c->ctl->ops->send(c->ctl->ctx, s, sig, a->all)) < 0)
		ctl_reply(c, CTL_EFAIL, "%s: %s", s->def->name,
		    rc == -EOPNOTSUPP ? "--all: it has no cgroup, and this "
		    "kernel cannot signal its process group through a pidfd" :
		    strerror(-rc));
	else
		ctl_ok(c);
}

/* wait NAME STATE [--timeout=D] */
static void
cmd_wait(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc	*s;
	int		 st;

	for (st = 0; st < SVC__STATES; st++)
		if (strcmp(a->pos[1], svc_state_name(st)) == 0)
			break;
	if (st == SVC__STATES) {
		ctl_reply(c, CTL_EUSAGE, "unknown state '%.32s' (stopped, "
		    "starting, ready, stopping, backoff, failed, done, listening, "
		    "skipped)",
		    a->pos[1]);
		return;
	}
	if ((s = ctl_svc(c, a->pos[0])) == NULL)
		return;
	c->wait_svc[0] = s;
	c->nwait = 1;
	c->wait_state = (uint8_t)st;
	ctl_wait_begin(c, WAIT_STATE, a->timeout);
}

/* version */
static void
cmd_version(struct ctl_client *c, const struct ctl_args *a)
{
	char	v[64];
	int	n;

	(void)a;
	n = snprintf(v, sizeof(v), "pidvisor %s (protocol %d)\n",
	    PIDVISOR_VERSION, CTL_VERSION);
	ctl_output(c, v, (size_t)n);
	ctl_ok(c);
}

/*
 * shutdown, reboot, poweroff: stop every service in order, then (as
 * PID 1) reboot(2); not as PID 1, shutdown exits and the others refuse.
 */
static void
cmd_halt(struct ctl_client *c, const struct ctl_args *a)
{
	struct ctl	*ctl = c->ctl;
	unsigned int	 cmd = a->verb == VERB_REBOOT ? RB_AUTOBOOT :
			    RB_POWER_OFF;

	if (!ctl->pid1 && a->verb != VERB_SHUTDOWN) {
		ctl_reply(c, CTL_EFAIL, "not PID 1: use shutdown to stop "
		    "pidvisor");
		return;
	}
	ctl_ok(c);
	ctl->ops->shutdown(ctl->ctx, cmd);
}

/* The lines of the services `logs` names, to be merged by time. */
struct logs_line {
	struct svclog_line	 l;	/* its text: at off in the walk's text */
	size_t			 off;
	const char		*name;
	size_t			 svc;	/* which of the names */
};

struct logs_walk {
	struct logs_line	*v;
	size_t			 n, cap;
	struct buf		 text;	/* a walk's lines are not kept */
	const char		*name;
	size_t			 svc;
	bool			 nomem;
};

static void
logs_take(const struct svclog_line *l, void *arg)
{
	struct logs_walk	*w = arg;
	struct logs_line	*nv;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		if ((nv = realloc(w->v, w->cap * sizeof(*nv))) == NULL) {
			w->nomem = true;
			return;
		}
		w->v = nv;
	}
	w->v[w->n].l = *l;
	w->v[w->n].off = w->text.len;
	if (buf_add(&w->text, l->text, l->len) < 0)
		w->nomem = true;
	w->v[w->n].name = w->name;
	w->v[w->n++].svc = w->svc;
}

/* By time; lines of one time in the order of the names, then of seq. */
static int
logs_cmp(const void *x, const void *y)
{
	const struct logs_line	*a = x, *b = y;

	if (a->l.ts_ms != b->l.ts_ms)
		return a->l.ts_ms < b->l.ts_ms ? -1 : 1;
	if (a->svc != b->svc)
		return a->svc < b->svc ? -1 : 1;
	return a->l.seq < b->l.seq ? -1 : a->l.seq > b->l.seq;
}

/*
 * logs NAME... [-n N] [-f] [--json]: the last lines of the services'
 * ring buffers, interleaved by time; with -f the connection stays and
 * new lines of any of them follow as they come.  --json is an array,
 * or with -f one object per line.
 */
static void
cmd_logs(struct ctl_client *c, const struct ctl_args *a)
{
	struct logs_walk	 w = { 0 };
	struct buf		 b = { 0 };
	struct svc_status	 st;
	size_t			 i, from;

	if (!ctl_svcs(c, a, 0))
		return;
	for (i = 0; i < c->nwait; i++) {
		c->ctl->ops->status(c->ctl->ctx, c->wait_svc[i], mono_ms(),
		    &st);
		w.name = c->wait_svc[i]->def->name;
		w.svc = i;
		if (st.ring)
			ring_walk(st.ring, a->lines, logs_take, &w);
	}
	if (w.nomem) {
		free(w.v);
		buf_free(&w.text);
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), logs_cmp);
	from = a->lines != UINT32_MAX && w.n > a->lines ? w.n - a->lines : 0;
	if (a->json && !a->follow)
		buf_puts(&b, "[");
	for (i = from; i < w.n; i++) {
		if (a->json && !a->follow && i > from)
			buf_puts(&b, ",");
		w.v[i].l.text = w.text.data + w.v[i].off;
		svclog_format(&b, w.v[i].name, &w.v[i].l, a->json ?
		    SVCLOG_JSON : SVCLOG_TEXT);
		if (a->json && a->follow)
			buf_puts(&b, "\n");
	}
	if (a->json && !a->follow)
		buf_puts(&b, "]\n");
	free(w.v);
	buf_free(&w.text);
	ctl_output_buf(c, &b);
	buf_free(&b);
	if (!a->follow) {
		ctl_ok(c);
		return;
	}
	c->follow = true;		/* the services in c->wait_svc */
	c->follow_json = a->json;
	ev_timer_stop(c->ctl->loop, &c->timer);
	ctl_flush(c);
}

/*
 * events [NAME...] [--json]: every change from now on, of the services
 * named or of all (and then reloads and re-execs too), until the client
 * hangs up; ctl_event() writes them.
 */
static void
cmd_events(struct ctl_client *c, const struct ctl_args *a)
{
	if (!ctl_svcs(c, a, 0))
		return;
	c->events = true;
	c->follow_json = a->json;
	c->ctl->nevents++;
	ev_timer_stop(c->ctl->loop, &c->timer);
	ctl_flush(c);
}

/*
 * The whole metrics text: every service's snapshot, and our own numbers
 * (ours and the supervisor's, through ctl_ops).
 */
int
ctl_metrics(struct ctl *ctl, struct buf *b)
{
	struct svc_set		*set = ctl->set;
	struct svc_status	*v;
	struct metrics_own	 own = { 0 };
	int64_t			 now = mono_ms();
	size_t			 i;
	int			 rc;

	if ((v = calloc(set->n + 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < set->n; i++)
		ctl->ops->status(ctl->ctx, set->v[i], now, &v[i]);
	ctl->ops->metrics(ctl->ctx, &own);
	own.version = PIDVISOR_VERSION;
	own.clients = ctl->nclients;
	own.loop_turns = ev_iteration(ctl->loop);
	own.events_dropped = ctl->events_dropped;
	rc = metrics_text(b, &own, v, set->n);
	free(v);
	return rc;
}

/* metrics: the Prometheus text format. */
static void
cmd_metrics(struct ctl_client *c, const struct ctl_args *a)
{
	struct buf	b = { 0 };

	(void)a;
	if (ctl_metrics(c->ctl, &b) < 0) {
		buf_free(&b);
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/*
 * Is a service as is-ready wants it: ready, a task done, or listening;
 * a timer's: armed and not failed, between runs or in one?
 */
static bool
cmd_ready(const struct svc *s)
{
	if (svc_timed(s))
		return svc_timer_ok(s);
	return s->state == SVC_READY || s->state == SVC_DONE ||
	    s->state == SVC_LISTENING || s->state == SVC_SKIPPED;
}

/*
 * is-ready [NAME...]: 0 if every service named, or every enabled one,
 * is ready or done; else 3, naming those that are not (a probe's
 * question).
 */
static void
cmd_is_ready(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc_set	*set = c->ctl->set;
	struct buf	 b = { 0 };
	size_t		 i, n = 0;

	if (!ctl_svcs(c, a, 0))
		return;
	for (i = 0; i < (a->npos ? c->nwait : set->n); i++) {
		struct svc	*s = a->npos ? c->wait_svc[i] : set->v[i];

		if (cmd_ready(s) || (a->npos == 0 && !s->def->enabled))
			continue;
		if (n++ < 8)
			buf_printf(&b, "%s%s (%s)", n > 1 ? ", " : "",
			    s->def->name, svc_state_name(s->state));
	}
	if (n == 0)
		ctl_ok(c);
	else if (b.nomem)
		ctl_reply(c, CTL_ENOTREADY, "%zu not ready", n);
	else
		ctl_reply(c, CTL_ENOTREADY, "not ready: %s%s", b.data,
		    n > 8 ? ", ..." : "");
	buf_free(&b);
}

/*
 * reset-failed [NAME...]: the services named, or all, that failed are
 * stopped, with their start limit and back-off afresh (systemctl
 * reset-failed); the others are left as they are.
 */
static void
cmd_reset_failed(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc_set	*set = c->ctl->set;
	size_t		 i;

	if (!ctl_svcs(c, a, 0))
		return;
	for (i = 0; i < (a->npos ? c->nwait : set->n); i++)
		svc_reset_failed(a->npos ? c->wait_svc[i] : set->v[i]);
	ctl_ok(c);
}

/*
 * timers [--all] [--json]: the services with an armed timer (--all: any
 * timer), sorted by their next elapse (timers.c formats them).
 */
static void
cmd_timers(struct ctl_client *c, const struct ctl_args *a)
{
	struct svc_set		*set = c->ctl->set;
	struct svc_status	*v;
	struct buf		 b = { 0 };
	int64_t			 now = mono_ms(), real = real_us();
	size_t			 i, n = 0;

	if ((v = calloc(set->n + 1, sizeof(*v))) == NULL) {
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	for (i = 0; i < set->n; i++) {
		if (!svc_timed(set->v[i]))
			continue;
		c->ctl->ops->status(c->ctl->ctx, set->v[i], now, &v[n]);
		if (v[n].timer.armed || a->all)
			n++;
	}
	timers_sort(v, n);
	if (a->json)
		timers_json(&b, v, n, real);
	else
		timers_text(&b, v, n, real, a->all);
	free(v);
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/* calendar: pidvisorctl's own (calshow.c); a request of it is a mistake. */
static void
cmd_calendar(struct ctl_client *c, const struct ctl_args *a)
{
	(void)a;
	ctl_reply(c, CTL_EUSAGE, "calendar is answered by pidvisorctl itself");
}

/* pressure [--json]: the killer's state; pressure kill NAME: use it now. */
static void
cmd_pressure(struct ctl_client *c, const struct ctl_args *a)
{
	struct buf	 b = { 0 };
	struct svc	*s;
	int		 rc;

	if (a->npos > 0) {
		if (strcmp(a->pos[0], "kill") != 0 || a->npos != 2) {
			ctl_reply(c, CTL_EUSAGE, "usage: %s",
			    ctl_verbs[VERB_PRESSURE].usage);
			return;
		}
		if (!c->priv) {
			ctl_reply(c, CTL_EPERM, "permission denied");
			return;
		}
		if ((s = ctl_svc(c, a->pos[1])) == NULL)
			return;
		if (s->def->kill_priority == KILL_PRIORITY_NEVER) {
			ctl_reply(c, CTL_EFAIL, "%s: kill_priority = never",
			    s->def->name);
			return;
		}
		rc = c->ctl->ops->pressure_kill(c->ctl->ctx, s);
		if (rc < 0)
			ctl_reply(c, CTL_EFAIL, "%s: %s", s->def->name,
			    rc == -ESRCH ? "not running" : rc == -EBUSY ?
			    "another kill is in flight" : strerror(-rc));
		else
			ctl_ok(c);
		return;
	}
	c->ctl->ops->pressure_report(c->ctl->ctx, &b, a->json);
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/* Where the value of key k of d comes from: FILE:LINE into buf, or a word. */
static const char *
ctl_show_source(const struct ctl *ctl, const struct svc_def *d, size_t k,
    char *buf, size_t n)
{
	static const size_t	log_keys[][2] = {
		{ K_LOG, K_SUP_LOG }, { K_LOG_BUFFER, K_SUP_LOG_BUFFER },
		{ K_LOG_FILE_MAX, K_SUP_LOG_FILE_MAX },
		{ K_LOG_FILE_KEEP, K_SUP_LOG_FILE_KEEP },
	};
	const char		*file;
	uint32_t		 line;
	size_t			 i, at = 0;

	/* Each place that gave it, FILE:LINE (FILE: made of it). */
	for (i = 0; (file = conf_src_get(d, (unsigned)k, i, &line)) != NULL &&
	    at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, line ? "%s%s:%u" :
		    "%s%s", i ? ", " : "", file, line);
	if (i > 0)
		return buf;
	if (keyset_has(&d->given, (unsigned)k))
		return d->file;
	for (i = 0; i < ARRAY_SIZE(log_keys); i++)
		if (log_keys[i][0] == k &&
		    keyset_has(&ctl->sc->given, (unsigned)log_keys[i][1]))
			return "pidvisor.ini";
	if (k == K_KILL_PRIORITY && (d->console || d->tty))
		return "default for a terminal's service";
	if ((k == K_USER || k == K_GROUP) && !keyset_has(&d->given,
	    (unsigned)k))
		return "default: pidvisor's";
	return "default";
}

/* A limit_* a service did not give: ours, which it inherits. */
static bool
ctl_show_rlimit(const struct svc_def *d, size_t k, struct buf *v,
    char *from, size_t n)
{
	struct svc_def	 one = *d;
	struct rlimit	 rl;
	int		 i = (int)k - K_LIMIT_AS;

	if (getrlimit(sb_rlimits[i].resource, &rl) < 0)
		return false;
	one.limit[i].cur = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
	    rl.rlim_cur;
	one.limit[i].max = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX :
	    rl.rlim_max;
	v->len = 0;
	conf_key_show(v, &conf_keys[k], &one);
	snprintf(from, n, "inherited: pidvisor's");
	return true;
}

/*
 * A key a service did not give whose value is ours (umask, limit_nofile,
 * limit_*, oom_score_adj): what it gets, into v.  false for any other
 * key.
 */
static bool
ctl_show_inherited(const struct ctl *ctl, const struct svc_def *d, size_t k,
    struct buf *v, char *from, size_t n)
{
	uint64_t	nofile, nofile_max;
	mode_t		mask;
	int		adj;

	if (keyset_has(&d->given, (unsigned)k))
		return false;
	if (k >= K_LIMIT_AS && k <= K_LIMIT_STACK)
		return ctl_show_rlimit(d, k, v, from, n);
	if ((k != K_UMASK && k != K_LIMIT_NOFILE && k != K_OOM_SCORE_ADJ) ||
	    ctl->ops->inherited == NULL)
		return false;
	ctl->ops->inherited(ctl->ctx, &mask, &nofile, &nofile_max, &adj);
	v->len = 0;
	if (k == K_UMASK)
		buf_printf(v, "%04o", (unsigned)mask);
	else if (k == K_OOM_SCORE_ADJ)
		buf_printf(v, "%d", adj);
	else
		buf_printf(v, "%llu", (unsigned long long)nofile);
	if (k == K_LIMIT_NOFILE && nofile != nofile_max)
		snprintf(from, n, "inherited: pidvisor's (hard limit %llu)",
		    (unsigned long long)nofile_max);
	else
		snprintf(from, n, "inherited: pidvisor's");
	return true;
}

/* One line of show: KEY = VALUE, then where it comes from. */
static void
ctl_show_line(struct buf *b, const char *key, const char *val, size_t len,
    const char *from)
{
	size_t	start = b->len;
	int	n;

	/* A value is whatever a file said: escaped for the terminal. */
	buf_printf(b, "%s = ", key);
	buf_add_escaped(b, val, len);
	n = (int)(b->len - start);
	buf_printf(b, "%*s# %s\n", n < 40 ? 40 - n : 1, "", from);
}

/*
 * A list key given more than once (listen, env_file, the hooks): a line
 * per value, as a file says it, each with its own FILE:LINE where there
 * is one per value.
 */
static void
ctl_show_lines(struct buf *b, const struct svc_def *d, size_t k,
    const struct buf *v, const char *from)
{
	const char	*p, *nl, *end = v->data + v->len, *file;
	char		 src[PATH_MAX + 16];
	uint32_t	 line;
	size_t		 j, nv = 0, ns = 0;

	for (p = v->data; p < end; p = nl + 1, nv++)
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
	while (conf_src_get(d, (unsigned)k, ns, &line) != NULL)
		ns++;
	for (p = v->data, j = 0; p < end; p = nl + 1, j++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (ns == nv && (file = conf_src_get(d, (unsigned)k, j,
		    &line)) != NULL)
			snprintf(src, sizeof(src), line ? "%s:%u" : "%s", file,
			    line);
		ctl_show_line(b, conf_keys[k].name, p, (size_t)(nl - p),
		    ns == nv ? src : from);
	}
}

/*
 * show NAME: every key of the service as it is in effect, defaults
 * included, each with where it comes from (its file, pidvisor.ini, a
 * default).  Written as a file would say it, one line per env value.
 */
static void
cmd_show(struct ctl_client *c, const struct ctl_args *a)
{
	const struct svc_def	*d;
	struct buf		 b = { 0 }, v = { 0 };
	struct svc		*s;
	char			 why[64], src[PATH_MAX + 16];
	size_t			 i, j;

	if ((s = ctl_svc(c, a->pos[0])) == NULL)
		return;
	d = s->def;
	buf_printf(&b, "# %s, from %s\n", d->name, d->file);
	for (i = 0; i < K__COUNT; i++) {
		const struct conf_key	*k = &conf_keys[i];
		const char		*from = ctl_show_source(c->ctl, d, i,
					    src, sizeof(src));
		uint32_t		 line;

		if (k->section != SEC_SERVICE)
			continue;
		if (i == K_ENV && d->env != NULL) {
			/* Each value where it was given. */
			for (j = 0; d->env[j]; j++) {
				if ((from = conf_src_get(d, K_ENV, j,
				    &line)) != NULL)
					snprintf(src, sizeof(src), "%s:%u",
					    from, line);
				ctl_show_line(&b, k->name, d->env[j],
				    strlen(d->env[j]), from ? src : d->file);
			}
			continue;
		}
		v.len = 0;
		if (ctl_show_inherited(c->ctl, d, i, &v, why, sizeof(why)))
			from = why;
		else
			conf_key_show(&v, k, d);
		if (k->show == SHOW_ENV && v.data != NULL &&
		    memchr(v.data, '\n', v.len) != NULL) {
			ctl_show_lines(&b, d, i, &v, from);
			continue;
		}
		ctl_show_line(&b, k->name, v.data ? v.data : "", v.len, from);
	}
	if (v.nomem)
		b.nomem = true;
	buf_free(&v);
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/*
 * security NAME: each protection of the service on or off, what that
 * means, and its exposure (sandbox.c).
 */
static void
cmd_security(struct ctl_client *c, const struct ctl_args *a)
{
	struct buf	 b = { 0 };
	struct svc	*s;

	if ((s = ctl_svc(c, a->pos[0])) == NULL)
		return;
	security_report(&b, s->def, a->json);
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/* One file for cat, line by line, escaped: it may have changed since. */
static int
ctl_cat_file(struct buf *b, const char *path, char *err, size_t n)
{
	struct buf	 f = { 0 };
	const char	*p, *nl, *end;
	int		 rc;

	if ((rc = read_file(AT_FDCWD, path, CONF_FILE_MAX, &f)) < 0) {
		buf_free(&f);
		snprintf(err, n, "%s: %s", path, rc == -EINVAL ?
		    "not a regular file" : strerror(-rc));
		return rc;
	}
	buf_printf(b, "# %s\n", path);
	for (p = f.data, end = f.data + f.len; p && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		buf_add_escaped(b, p, (size_t)(nl - p));
		buf_puts(b, "\n");
	}
	buf_free(&f);
	return 0;
}

/*
 * cat NAME: the file that defines the service, as it is now on disk,
 * then a unit's drop-ins, each after a blank line, as systemctl cat.
 */
static void
cmd_cat(struct ctl_client *c, const struct ctl_args *a)
{
	struct buf	 b = { 0 };
	struct svc	*s;
	char		 err[PATH_MAX + 64];
	size_t		 i;

	if ((s = ctl_svc(c, a->pos[0])) == NULL)
		return;
	if (ctl_cat_file(&b, s->def->file, err, sizeof(err)) < 0) {
		buf_free(&b);
		ctl_reply(c, CTL_EFAIL, "%s", err);
		return;
	}
	for (i = 0; s->def->dropins && s->def->dropins[i]; i++) {
		buf_puts(&b, "\n");
		if (ctl_cat_file(&b, s->def->dropins[i], err, sizeof(err)) < 0)
			buf_printf(&b, "# %s\n", err);	/* gone since */
	}
	ctl_output_buf(c, &b);
	buf_free(&b);
	ctl_ok(c);
}

/*
 * reload NAME...: each service's reload_exec or reload_signal; the reply
 * once each is reloaded (a notify service: its READY=1).
 */
static void
cmd_reload_svcs(struct ctl_client *c, const struct ctl_args *a)
{
	char	err[256];
	size_t	i;

	if (ctl_refuse_stopping(c) || !ctl_svcs(c, a, 0))
		return;
	for (i = 0; i < c->nwait; i++) {
		if (c->ctl->ops->svc_reload(c->ctl->ctx, c->wait_svc[i], err,
		    sizeof(err)) < 0) {
			ctl_reply(c, CTL_EFAIL, "%s", err);
			return;
		}
	}
	ctl_wait_begin(c, WAIT_RELOAD, a->timeout);
}

/* reload: apply the configuration on disk, or refuse it whole. */
static void
cmd_reload(struct ctl_client *c, const struct ctl_args *a)
{
	struct buf	report = { 0 };
	int		rc;

	if (a->npos > 0) {
		cmd_reload_svcs(c, a);
		return;
	}
	rc = c->ctl->ops->reload(c->ctl->ctx, &report);
	ctl_output_buf(c, &report);
	buf_free(&report);
	if (rc == -EINVAL)
		ctl_reply(c, CTL_EFAIL, "configuration refused; nothing "
		    "changed");
	else if (rc < 0)
		ctl_reply(c, CTL_EFAIL, "reload failed: %s", strerror(-rc));
	else
		ctl_ok(c);
}

/*
 * enable, disable, mask, unmask NAME... [--now]: the links of the units
 * in the first directory of the unit path (unit_install.c), each change
 * said; with --now, a reload then, which starts and stops what they
 * changed.  Files of the system's: root's and pidvisor's own user's.
 */
static void
cmd_install(struct ctl_client *c, const struct ctl_args *a)
{
	static const enum unit_op	 ops[] = {
		[VERB_ENABLE] = UNIT_ENABLE, [VERB_DISABLE] = UNIT_DISABLE,
		[VERB_MASK] = UNIT_MASK, [VERB_UNMASK] = UNIT_UNMASK,
	};
	const struct sup_conf		*sc = c->ctl->sc;
	struct unit_path		 up;
	struct buf			 said = { 0 };
	char				 err[PATH_MAX + 128];
	int				 i, rc = 0;

	if (c->uid != 0 && c->uid != geteuid()) {
		ctl_reply(c, CTL_EPERM, "%s: only root or pidvisor's own "
		    "user, not control_group", ctl_verbs[a->verb].name);
		return;
	}
	if (!sc->systemd_units) {
		ctl_reply(c, CTL_EFAIL, "pidvisor reads no unit files "
		    "([supervisor] systemd_units = no)");
		return;
	}
	if (unit_path_init(&up, sc->unit_path ? sc->unit_path :
	    UNIT_PATH_DEFAULT) < 0) {
		ctl_reply(c, CTL_EFAIL, "%s", strerror(ENOMEM));
		return;
	}
	for (i = 0; i < a->npos && rc == 0; i++)
		rc = unit_install(&up, a->pos[i], ops[a->verb], &said, err,
		    sizeof(err));
	unit_path_free(&up);
	ctl_output_buf(c, &said);
	buf_free(&said);
	if (rc < 0)
		ctl_reply(c, CTL_EFAIL, "%s", err);
	else if (a->now)
		cmd_reload(c, &(struct ctl_args){ .verb = VERB_RELOAD });
	else
		ctl_ok(c);
}

/*
 * reexec [--binary PATH]: answered once the new binary runs (by it), or
 * with why not (by us, still running).
 */
static void
cmd_reexec(struct ctl_client *c, const struct ctl_args *a)
{
	struct ctl	*ctl = c->ctl;
	char		 err[512];

	if (ctl_refuse_stopping(c))
		return;
	/* It runs a binary of the asker's choice as us: not for a member
	 * of control_group, whose verbs run nothing it chose. */
	if (c->uid != 0 && c->uid != geteuid()) {
		ctl_reply(c, CTL_EPERM, "reexec: only root or pidvisor's own "
		    "user, not control_group");
		return;
	}
	if (ctl->reexec_client != NULL) {
		ctl_reply(c, CTL_EFAIL, "a re-exec is under way");
		return;
	}
	ctl->reexec_client = c;
	c->wait = WAIT_REEXEC;
	ev_timer_stop(ctl->loop, &c->timer);
	if (ctl->ops->reexec(ctl->ctx, a->binary, err, sizeof(err)) < 0)
		ctl_reexec_end(ctl, CTL_EFAIL, err);
}

#define VERB_CMD(id, fn, name, min, max, flags, usage, help)		\
	[VERB_##id] = cmd_##fn,
ctl_cmd *const ctl_cmds[VERB__COUNT] = {
	CTL_VERBS(VERB_CMD)
};
