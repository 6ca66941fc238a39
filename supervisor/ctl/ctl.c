/*
 * ctl.c - the control socket.
 *
 * Each client is a small struct with its own watcher, deadline timer,
 * a fixed input buffer the size of the largest request, and an output
 * buffer.  Nothing here blocks: a client that sends nothing, sends
 * garbage, stops reading or hangs up costs one slot until its deadline,
 * never the loop.  One request per connection; the reply ends with an
 * END frame and the connection closes.  SO_PEERCRED decides: requests
 * that change something need root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd.h"
#include "proto.h"
#include "ctl.h"
#include "spawn.h"
#include "st.h"
#include "status.h"
#include "unit.h"

#define FOLLOW_MAX	(1 << 20)	/* unread output before we give up */

/* Out of fds and no spare: accept again after this long. */
#define CTL_RETRY_MS	100

/*
 * An fd held in reserve: out of fds, accept(2) fails with EMFILE while
 * the connection stays queued and the socket readable, a busy loop.
 * The spare is given up for one client, which is served; with none
 * left, accepting waits for a timer.  Taken back as a client goes.
 */
static void
ctl_spare_take(struct ctl *ctl)
{
	ctl->spare = spawn_fd_keep(open("/dev/null", O_RDONLY |
	    O_CLOEXEC));
}

/* Forget a client; take the spare back if it went to one. */
static void
ctl_client_free(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;

	if (ctl->reexec_client == c)
		ctl->reexec_client = NULL;
	if (c->events)
		ctl->nevents--;
	ev_io_stop(ctl->loop, &c->io);
	ev_timer_stop(ctl->loop, &c->timer);
	close(c->fd);
	buf_free(&c->out);
	LIST_REMOVE(c, entry);
	ctl->nclients--;
	free(c);
	if (ctl->spare < 0 && ctl->fd >= 0)
		ctl_spare_take(ctl);
}

/* Write what we can; close once the reply is out. */
void
ctl_flush(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;
	ssize_t		 n;
	bool		 progress = false;

	while (c->outoff < c->out.len) {
		n = send(c->fd, c->out.data + c->outoff, c->out.len - c->outoff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			ctl_client_free(c);
			return;
		}
		c->outoff += (size_t)n;
		progress = true;
	}
	if (c->outoff == c->out.len) {
		if (c->replied) {
			ctl_client_free(c);
			return;
		}
		/* All out (a follower): listen for a hang-up again. */
		buf_consume(&c->out, c->out.len);
		c->outoff = 0;
		ev_timer_stop(ctl->loop, &c->timer);
		ev_io_stop(ctl->loop, &c->io);
		ev_io_set(&c->io, c->fd, EV_READ);
		ev_io_start(ctl->loop, &c->io);
		return;
	}
	/* Wait for room; a client that takes none for too long is dropped. */
	ev_io_stop(ctl->loop, &c->io);
	ev_io_set(&c->io, c->fd, EV_WRITE);
	ev_io_start(ctl->loop, &c->io);
	if (progress || !ev_is_active(&c->timer)) {
		ev_timer_stop(ctl->loop, &c->timer);
		ev_timer_set(&c->timer, ctl->sc->client_timeout / 1000.0,
		    0.);
		ev_timer_start(ctl->loop, &c->timer);
	}
}

/* Queue text for the client's stdout, in frames no larger than allowed. */
void
ctl_output(struct ctl_client *c, const char *p, size_t len)
{
	uint32_t	n;

	while (len > 0) {
		n = len > CTL_FRAME_MAX ? CTL_FRAME_MAX : (uint32_t)len;
		ctl_frame_put(&c->out, CTL_OUTPUT, p, n);
		p += n;
		len -= n;
	}
}

/* Queue a whole answer made in b; or, if it is incomplete, none. */
void
ctl_output_buf(struct ctl_client *c, const struct buf *b)
{
	if (b->nomem)
		c->out.nomem = true;
	else
		ctl_output(c, b->data ? b->data : "", b->len);
}

/*
 * Not even the END frame could be queued: if nothing else is waiting to
 * go out, send an out-of-memory END from the stack (a new socket has
 * room for it); then the client goes.
 */
static void
ctl_end_nomem(struct ctl_client *c)
{
	static const char	msg[] = "Cannot allocate memory";
	uint8_t			f[CTL_HDR_SIZE + 4 + sizeof(msg)] = {
		CTL_VERSION, CTL_END };
	uint32_t		len = 4 + sizeof(msg);
	int32_t			code = CTL_EFAIL;

	if (c->outoff == 0) {
		memcpy(f + 4, &len, sizeof(len));
		memcpy(f + CTL_HDR_SIZE, &code, sizeof(code));
		memcpy(f + CTL_HDR_SIZE + 4, msg, sizeof(msg));
		(void)!send(c->fd, f, sizeof(f), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	ctl_client_free(c);
}

/* Queue the END frame and send. */
void
ctl_reply(struct ctl_client *c, int code, const char *fmt, ...)
{
	char	msg[1024];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->wait = WAIT_NONE;
	c->nwait = 0;
	c->follow = false;
	c->replied = true;
	if (c->out.nomem) {
		/* Part of the answer could not be made: an error instead,
		 * unless part of it is gone already. */
		if (c->outoff > 0) {
			ctl_client_free(c);
			return;
		}
		c->out.len = 0;
		c->out.nomem = false;
		code = CTL_EFAIL;
		snprintf(msg, sizeof(msg), "%s", strerror(ENOMEM));
	}
	if (ctl_end_put(&c->out, code, msg) < 0) {
		ctl_end_nomem(c);
		return;
	}
	ev_timer_stop(c->ctl->loop, &c->timer);
	ctl_flush(c);
}

/* The request is done, and nothing more to say. */
void
ctl_ok(struct ctl_client *c)
{
	ctl_reply(c, CTL_OK, "%s", "");
}

/*
 * An alias of a unit (ALIAS.service linked to NAME.service, as Alias=
 * and enable link it), in the first directory of the unit path that has
 * it: its service, or NULL.  The path is root's (its directories are
 * pidvisor.ini's): a readlink there holds nothing up.
 */
static struct svc *
ctl_find_alias(const struct ctl *ctl, const char *name)
{
	const char	*up = ctl->sc->unit_path ? ctl->sc->unit_path :
			    UNIT_PATH_DEFAULT, *d, *b;
	char		 path[PATH_MAX], to[PATH_MAX], base[SVC_NAME_MAX + 1];
	ssize_t		 n;
	size_t		 len;

	if (!ctl->sc->systemd_units || strchr(name, '/') != NULL)
		return NULL;
	for (d = up; *d != '\0'; d += len + (d[len] == ':')) {
		len = strcspn(d, ":");
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)len, d,
		    name) >= (int)sizeof(path))
			continue;
		if ((n = readlink(path, to, sizeof(to) - 1)) < 0) {
			if (errno == EINVAL)	/* a file: not an alias */
				return NULL;
			continue;
		}
		to[n] = '\0';
		b = strrchr(to, '/') ? strrchr(to, '/') + 1 : to;
		len = strlen(b);
		if (len <= 8 || len - 8 > SVC_NAME_MAX ||
		    strcmp(b + len - 8, ".service") != 0)
			return NULL;
		snprintf(base, sizeof(base), "%.*s", (int)(len - 8), b);
		return svc_find(ctl->set, base);
	}
	return NULL;
}

/*
 * A service by its name, or by its unit's (NAME.service), or by an
 * alias of its unit; or NULL.
 */
struct svc *
ctl_lookup(const struct ctl *ctl, const char *name)
{
	struct svc	*s = svc_find(ctl->set, name);
	size_t		 n = strlen(name);
	char		 base[SVC_NAME_MAX + 1];

	if (s == NULL && n > 8 && n - 8 <= SVC_NAME_MAX &&
	    strcmp(name + n - 8, ".service") == 0) {
		snprintf(base, sizeof(base), "%.*s", (int)(n - 8), name);
		if ((s = svc_find(ctl->set, base)) == NULL)
			s = ctl_find_alias(ctl, name);
	}
	return s;
}

/* The service named by the request, or reply "no such service". */
struct svc *
ctl_svc(struct ctl_client *c, const char *name)
{
	struct svc	*s = ctl_lookup(c->ctl, name);

	if (s == NULL)
		ctl_reply(c, CTL_ENOSVC, "no such service '%.64s'", name);
	return s;
}

/*
 * The service named name, or, for start, the instance NAME@INSTANCE made
 * from its template now; NULL with the reply sent if neither.
 */
static struct svc *
ctl_svc_make(struct ctl_client *c, const char *name)
{
	struct svc	*s = ctl_lookup(c->ctl, name);
	struct buf	 err = { 0 };

	if (s != NULL || strchr(name, '@') == NULL)
		return s ? s : ctl_svc(c, name);
	if ((s = c->ctl->ops->instance(c->ctl->ctx, name, &err)) == NULL) {
		if (err.len > 0) {
			ctl_output_buf(c, &err);
			ctl_reply(c, CTL_EFAIL, "%.64s: the template refuses "
			    "it; nothing done", name);
		} else {
			ctl_reply(c, CTL_ENOSVC, "no such service '%.64s' (nor "
			    "a template for it)", name);
		}
	}
	buf_free(&err);
	return s;
}

/* Queue a note for the client's stderr. */
void
ctl_note(struct ctl_client *c, const char *msg)
{
	ctl_frame_put(&c->out, CTL_NOTE, msg, (uint32_t)strlen(msg));
}

/* Has a reload the client waits on failed? */
static bool
ctl_reload_failed(const struct ctl_client *c, size_t i)
{
	return c->wait == WAIT_RELOAD &&
	    c->wait_svc[i]->reload_fails != c->wait_fails[i];
}

/* Is the wait decided for one service: 1 done, -1 failed, 0 not yet. */
static int
ctl_wait_one(const struct ctl_client *c, const struct svc *s, uint32_t starts)
{
	switch (c->wait) {
	case WAIT_UP:
		/* Listening: up, its sockets take clients. */
		if (s->state == SVC_READY || s->state == SVC_DONE ||
		    s->state == SVC_LISTENING || s->state == SVC_SKIPPED)
			return 1;
		if (s->state == SVC_FAILED || s->state == SVC_BACKOFF ||
		    (s->state == SVC_STOPPED && !s->want_up))
			return -1;
		return 0;
	case WAIT_RESTART:
		if ((((s->state == SVC_READY || s->state == SVC_DONE ||
		    s->state == SVC_SKIPPED) &&
		    s->starts != starts) || s->state == SVC_LISTENING) &&
		    !s->restart_req)
			return 1;
		if (s->state == SVC_FAILED || s->state == SVC_BACKOFF ||
		    (s->state == SVC_STOPPED && !s->want_up &&
		    !s->restart_req))
			return -1;
		return 0;
	case WAIT_DOWN:
		return s->state == SVC_STOPPED || s->state == SVC_FAILED ||
		    s->state == SVC_DONE || s->state == SVC_SKIPPED;
	case WAIT_STATE:
		return s->state == c->wait_state;
	case WAIT_RELOAD:
		if (s->reloads != starts)
			return 1;
		if (s->state != SVC_READY)
			return -1;
		return 0;
	}
	return 0;
}

/*
 * Answer a wait that is decided: done once every service is, failed as
 * soon as one fails (the reply names it).
 */
static void
ctl_wait_settle(struct ctl_client *c)
{
	char	why[256];
	size_t	i, done = 0;
	int	r;

	for (i = 0; i < c->nwait; i++) {
		struct svc	*s = c->wait_svc[i];

		if (ctl_reload_failed(c, i)) {
			char	d[32];

			format_duration(d, sizeof(d), svc_reload_limit(s));
			if (s->reload_status == -ETIMEDOUT)
				ctl_reply(c, CTL_EFAIL, "%s: reload failed: not "
				    "over after %s (%s)", s->def->name, d,
				    s->def->reload_exec ? "reload_exec did not "
				    "exit; killed" : "no READY=1 came");
			else {
				char	how[128];

				hook_status_format(HOOK_RELOAD,
				    s->reload_status, how, sizeof(how));
				ctl_reply(c, CTL_EFAIL, "%s: reload failed: %s",
				    s->def->name, how);
			}
			return;
		}
		if ((r = ctl_wait_one(c, s, c->wait_starts[i])) > 0) {
			done++;
		} else if (r < 0) {
			svc_reason_format(s, why, sizeof(why));
			ctl_reply(c, CTL_EFAIL, "%s: %s (%s)", s->def->name,
			    svc_state_name(s->state), why);
			return;
		}
	}
	if (done == c->nwait)
		ctl_ok(c);
}

/* Start waiting for the services; the reply comes from ctl_svc_changed. */
void
ctl_wait_begin(struct ctl_client *c, enum ctl_wait w, uint32_t timeout)
{
	c->wait = (uint8_t)w;
	ev_timer_stop(c->ctl->loop, &c->timer);
	ev_timer_set(&c->timer, timeout / 1000.0, 0.);
	ev_timer_start(c->ctl->loop, &c->timer);
	ctl_wait_settle(c);
}

/* Does the client wait on s? */
static bool
ctl_waits_on(const struct ctl_client *c, const struct svc *s)
{
	size_t	i;

	for (i = 0; i < c->nwait; i++)
		if (c->wait_svc[i] == s)
			return true;
	return false;
}

/* A service changed: settle the waits on it. */
void
ctl_svc_changed(struct ctl *ctl, struct svc *s)
{
	struct ctl_client	*c, *next;

	for (c = LIST_FIRST(&ctl->clients); c; c = next) {
		next = LIST_NEXT(c, entry);
		if (c->wait != WAIT_NONE && ctl_waits_on(c, s))
			ctl_wait_settle(c);
	}
}

/*
 * The services named by the request, into c->wait_svc (whether it
 * waits or not); false, with the reply sent, if one is unknown: then
 * nothing is done to any.
 */
bool
ctl_svcs(struct ctl_client *c, const struct ctl_args *a, int first)
{
	struct svc	*s;
	int		 i;

	c->nwait = 0;
	for (i = first; i < a->npos; i++) {
		/* Not into c: the reply to an unknown name may free it. */
		if ((s = a->verb == VERB_START ? ctl_svc_make(c, a->pos[i]) :
		    ctl_svc(c, a->pos[i])) == NULL)
			return false;
		c->wait_svc[c->nwait] = s;
		c->wait_fails[c->nwait] = s->reload_fails;
		c->wait_starts[c->nwait++] = a->verb == VERB_RELOAD ?
		    s->reloads : s->starts;
	}
	return true;
}

/* A new line of a service: to everyone following it. */
void
ctl_svc_line(struct ctl *ctl, struct svc *s, const struct svclog_line *l)
{
	struct ctl_client	*c, *next;
	struct buf		 b = { 0 };

	for (c = LIST_FIRST(&ctl->clients); c; c = next) {
		next = LIST_NEXT(c, entry);
		if (!c->follow || !ctl_waits_on(c, s))
			continue;
		if (c->out.len - c->outoff > FOLLOW_MAX) {
			log_warn("logs -f of %s: a client that does not read "
			    "was dropped", s->def->name);
			ctl_client_free(c);
			continue;
		}
		b.len = 0;
		svclog_format(&b, s->def->name, l, c->follow_json ?
		    SVCLOG_JSON : SVCLOG_TEXT);
		if (c->follow_json)
			buf_add(&b, "\n", 1);
		ctl_output_buf(c, &b);
		ctl_flush(c);
	}
	buf_free(&b);
}

/* An event as a line of text, or of JSON. */
static void
ctl_event_format(struct buf *b, const struct ctl_event *e, bool json)
{
	static const char *const kinds[] = {
		[EV_STATE] = "state", [EV_PRESSURE_KILL] = "pressure_kill",
		[EV_RELOAD] = "reload", [EV_REEXEC] = "reexec",
		[EV_REEXEC_DONE] = "reexec_done", [EV_ELAPSE] = "timer",
	};
	const char	*name = e->svc ? e->svc->def->name : NULL;
	char		 when[40];

	format_rfc3339(when, sizeof(when), real_ms());
	if (json) {
		buf_printf(b, "{\"time\":\"%s\",\"event\":\"%s\"", when,
		    kinds[e->kind]);
		if (name) {
			buf_puts(b, ",\"service\":");
			buf_json_str(b, name);
		}
		if (e->kind == EV_STATE)
			buf_printf(b, ",\"from\":\"%s\",\"to\":\"%s\"",
			    e->from, e->to);
		if (e->kind == EV_RELOAD || e->kind == EV_REEXEC_DONE)
			buf_printf(b, ",\"ok\":%s", e->ok ? "true" : "false");
		if (e->pid > 0)
			buf_printf(b, ",\"pid\":%d", (int)e->pid);
		if (e->kind == EV_PRESSURE_KILL)
			buf_printf(b, ",\"memory\":%llu",
			    (unsigned long long)e->memory);
		if (e->reason) {
			buf_puts(b, e->kind == EV_REEXEC ? ",\"binary\":" :
			    ",\"reason\":");
			buf_json_str(b, e->reason);
		}
		buf_puts(b, "}\n");
		return;
	}
	buf_printf(b, "%s ", when);
	switch (e->kind) {
	case EV_STATE:
		buf_printf(b, "%s: %s -> %s", name, e->from, e->to);
		if (e->reason && strcmp(e->reason, e->to) != 0)
			buf_printf(b, " (%s)", e->reason);
		break;
	case EV_PRESSURE_KILL:
		buf_printf(b, "%s: killed for memory (%s), %llu KiB", name,
		    e->reason, (unsigned long long)e->memory / 1024);
		break;
	case EV_RELOAD:
		buf_printf(b, "reload: %s", e->ok ? "done" : "refused");
		if (e->reason && *e->reason)
			buf_printf(b, " (%s)", e->reason);
		break;
	case EV_REEXEC:
		buf_printf(b, "reexec: %s", e->reason);
		break;
	case EV_REEXEC_DONE:
		buf_printf(b, "reexec: %s (%s)", e->ok ? "done" : "failed",
		    e->reason);
		break;
	case EV_ELAPSE:
		buf_printf(b, "%s: timer: %s", name, e->reason);
		break;
	}
	if (e->pid > 0)
		buf_printf(b, " pid %d", (int)e->pid);
	buf_puts(b, "\n");
}

/*
 * Something happened: to every client of `events` that asked for all,
 * or for its service.  One that leaves FOLLOW_MAX unread is dropped:
 * the loop never waits for a reader.
 */
void
ctl_event(struct ctl *ctl, const struct ctl_event *e)
{
	struct ctl_client	*c, *next;
	struct buf		 txt = { 0 }, json = { 0 };

	if (ctl->nevents == 0)
		return;
	for (c = LIST_FIRST(&ctl->clients); c; c = next) {
		next = LIST_NEXT(c, entry);
		if (!c->events || (c->nwait > 0 && (e->svc == NULL ||
		    !ctl_waits_on(c, e->svc))))
			continue;
		if (c->out.len - c->outoff > FOLLOW_MAX) {
			log_warn("events: a client that does not read was "
			    "dropped");
			ctl->events_dropped++;
			ctl_client_free(c);
			continue;
		}
		if (c->follow_json && json.len == 0)
			ctl_event_format(&json, e, true);
		else if (!c->follow_json && txt.len == 0)
			ctl_event_format(&txt, e, false);
		ctl_output_buf(c, c->follow_json ? &json : &txt);
		ctl_flush(c);
	}
	buf_free(&txt);
	buf_free(&json);
}

/* A client follows s no more (it is gone), but goes on with the rest. */
static void
ctl_forget(struct ctl_client *c, struct svc *s)
{
	size_t	i;

	for (i = 0; i < c->nwait; i++)
		if (c->wait_svc[i] == s)
			break;
	for (; i + 1 < c->nwait; i++) {
		c->wait_svc[i] = c->wait_svc[i + 1];
		c->wait_fails[i] = c->wait_fails[i + 1];
		c->wait_starts[i] = c->wait_starts[i + 1];
	}
	c->nwait--;
}

/* A service is gone: end the waits and the follows on it. */
void
ctl_svc_removed(struct ctl *ctl, struct svc *s)
{
	struct ctl_client	*c, *next;

	for (c = LIST_FIRST(&ctl->clients); c; c = next) {
		next = LIST_NEXT(c, entry);
		if ((c->follow || c->events) && ctl_waits_on(c, s) &&
		    c->nwait > 1)
			ctl_forget(c, s);
		else if ((c->follow || c->events) && ctl_waits_on(c, s))
			ctl_reply(c, CTL_OK, "%s was removed", s->def->name);
		else if (c->wait != WAIT_NONE && ctl_waits_on(c, s))
			ctl_reply(c, CTL_EFAIL, "%s was removed", s->def->name);
	}
}

/* The re-exec is over (or refused): tell whoever asked for it. */
void
ctl_reexec_end(struct ctl *ctl, int code, const char *msg)
{
	struct ctl_client	*c = ctl->reexec_client;

	if (c == NULL)
		return;
	ctl->reexec_client = NULL;
	ctl_reply(c, code, "%s", msg);
}

/*
 * The index of the first word that is empty, not UTF-8 or holds a
 * control character, or -1: names and messages echo words back, and a
 * reply must stay printable on a terminal and valid in JSON.
 */
static int
ctl_words_bad(int argc, char **argv)
{
	const unsigned char	*p;
	int			 i;

	for (i = 0; i < argc; i++) {
		size_t	len = strlen(argv[i]);

		if (len == 0 || utf8_valid_len(argv[i], len) != len)
			return i;
		for (p = (const unsigned char *)argv[i]; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				return i;
	}
	return -1;
}

/* Check and run one request. */
static void
ctl_dispatch(struct ctl_client *c, const struct ctl_frame *f)
{
	char		*argv[CTL_ARGS_MAX];
	char		 err[256];
	struct ctl_args	 a;
	int		 argc, i;

	if ((argc = ctl_req_get(f, argv, CTL_ARGS_MAX)) < 0) {
		ctl_reply(c, CTL_EUSAGE, "malformed request");
		return;
	}
	if ((i = ctl_words_bad(argc, argv)) >= 0) {
		ctl_reply(c, CTL_EUSAGE, "word %d is %s", i + 1, argv[i][0] ?
		    "not printable UTF-8" : "empty");
		return;
	}
	if (ctl_args_parse(argc, argv, &a, err, sizeof(err)) < 0) {
		ctl_reply(c, CTL_EUSAGE, "%s", err);
		return;
	}
	if ((ctl_verbs[a.verb].flags & VF_ROOT) && !c->priv) {
		ctl_reply(c, CTL_EPERM, "permission denied");
		return;
	}
	ctl_cmds[a.verb](c, &a);
}

/* Read the request; once it is there, only watch for a hang-up. */
static void
ctl_read(struct ctl_client *c)
{
	struct ctl_frame	f;
	ssize_t			n;
	int			rc;

	if (c->replied || c->wait != WAIT_NONE || c->follow || c->events) {
		/* A second request is not allowed; a hang-up ends a wait. */
		if (sock_peer_gone(c->fd, &c->unread))
			ctl_client_free(c);
		return;
	}
	n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen,
	    MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		ctl_client_free(c);
		return;
	}
	c->inlen += (size_t)n;
	rc = ctl_frame_get(c->in, c->inlen, CTL_REQ_MAX, &f);
	if (rc == -EMSGSIZE)
		ctl_reply(c, CTL_EUSAGE, "request too large (at most %d bytes)",
		    CTL_REQ_MAX);
	else if (rc < 0)
		ctl_reply(c, CTL_EUSAGE, "protocol error: expected a version "
		    "%d request", CTL_VERSION);
	else if (rc > 0 && f.type != CTL_REQUEST)
		ctl_reply(c, CTL_EUSAGE, "protocol error: expected a request");
	else if (rc > 0) {
		fault_begin();
		ctl_dispatch(c, &f);
		fault_end();
	}
}

static void
ctl_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_client	*c = container_of(w, struct ctl_client, io);

	(void)loop;
	if (revents & EV_WRITE)
		ctl_flush(c);
	else if (revents & EV_READ)
		ctl_read(c);
}

static void
ctl_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl_client	*c = container_of(w, struct ctl_client, timer);
	struct svc		*s;
	size_t			 i;

	(void)loop;
	(void)revents;
	if (c->wait == WAIT_NONE) {
		ctl_client_free(c);	/* silent, or not reading */
		return;
	}
	/* Name the first service the wait is not over for. */
	for (i = 0; i + 1 < c->nwait; i++)
		if (ctl_wait_one(c, c->wait_svc[i], c->wait_starts[i]) == 0)
			break;
	s = c->wait_svc[i];
	if (c->wait == WAIT_RELOAD && s->reload_asked) {
		char	d[32];

		format_duration(d, sizeof(d), s->reload_due - mono_ms());
		ctl_reply(c, CTL_EFAIL, "timed out waiting for the reload of "
		    "%s; it goes on, and fails in %s unless it ends",
		    s->def->name, d);
		return;
	}
	ctl_reply(c, CTL_EFAIL, "timed out waiting for %s (%s)", s->def->name,
	    svc_state_name(s->state));
}

/* Out of fds: accept with the spare, or stop accepting for a while. */
static int
ctl_accept_spare(struct ctl *ctl)
{
	int	fd;

	if (ctl->spare < 0) {
		log_warn("control socket: out of file descriptors; "
		    "accepting again in %d ms", CTL_RETRY_MS);
		ev_io_stop(ctl->loop, &ctl->w);
		ev_timer_set(&ctl->retry_w, CTL_RETRY_MS / 1000., 0.);
		ev_timer_start(ctl->loop, &ctl->retry_w);
		return -1;
	}
	close(ctl->spare);
	ctl->spare = -1;
	if ((fd = accept4(ctl->fd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) < 0)
		ctl_spare_take(ctl);
	return fd;
}

static void
ctl_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl	*ctl = container_of(w, struct ctl, retry_w);

	(void)revents;
	if (ctl->spare < 0)
		ctl_spare_take(ctl);
	ev_io_start(loop, &ctl->w);
}

/*
 * May one more client of uid connect?  Root and our own user may use
 * every slot of max_clients; the others together leave a quarter of
 * them free (at least one), and one user may hold at most a quarter,
 * so that no one who may connect can lock root out.
 */
static bool
ctl_admit(const struct ctl *ctl, uid_t uid)
{
	const struct ctl_client	*c;
	unsigned		 max = ctl->sc->max_clients;
	unsigned		 quarter = max / 4 ? max / 4 : 1;
	unsigned		 others = 0, same = 0;

	if (ctl->nclients >= max)
		return false;
	if (uid == 0 || uid == geteuid())
		return true;
	LIST_FOREACH(c, &ctl->clients, entry) {
		if (c->uid != 0 && c->uid != geteuid())
			others++;
		if (c->uid == uid)
			same++;
	}
	return others + quarter < max && same < quarter;
}

/* Is the peer on fd in group gid (its own, or a supplementary one)? */
static bool
ctl_in_group(int fd, gid_t peer_gid, gid_t gid)
{
	gid_t		groups[256];
	socklen_t	len = sizeof(groups);
	size_t		i;

	if (peer_gid == gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Take new connections. */
static void
ctl_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl		*ctl = container_of(w, struct ctl, w);
	struct ctl_client	*c;
	struct ucred		 cred;
	socklen_t		 len = sizeof(cred);
	struct buf		 b = { 0 };
	int			 fd;

	(void)w;
	(void)revents;
	for (;;) {
		fd = accept4(ctl->fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			fd = ctl_accept_spare(ctl);
		if (fd < 0)
			break;
		cred.uid = (uid_t)-1;
		cred.gid = (gid_t)-1;
		len = sizeof(cred);
		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
		if (!ctl_admit(ctl, cred.uid) ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			ctl_end_put(&b, CTL_EFAIL, "too many clients");
			(void)!send(fd, b.data, b.len, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
			buf_free(&b);
			close(fd);
			continue;
		}
		c->ctl = ctl;
		c->fd = fd;
		c->uid = cred.uid;
		c->priv = cred.uid == 0 || cred.uid == geteuid() ||
		    (ctl->sc->control_group && ctl_in_group(fd, cred.gid,
		    ctl->sc->control_gid));
		LIST_INSERT_HEAD(&ctl->clients, c, entry);
		ctl->nclients++;
		ev_io_init(&c->io, ctl_on_io, fd, EV_READ);
		ev_set_priority(&c->io, EV_MAXPRI);
		ev_io_start(loop, &c->io);
		ev_timer_init(&c->timer, ctl_on_timer,
		    ctl->sc->client_timeout / 1000.0, 0.);
		ev_timer_start(loop, &c->timer);
		/* The request is usually there already: no turn lost. */
		ev_feed_event(loop, &c->io, EV_READ);
	}
}

/*
 * Create the control socket: never over a live one (another supervisor
 * answers there), never over what is not a socket.
 */
int
ctl_listen(struct ctl *ctl)
{
	const char	*path = ctl->path;
	mode_t		 mode = ctl->sc->control_mode;
	int		 fd, rc;

	if ((rc = mkdir_parent(path, 0755)) < 0)
		log_warn("directory of %s: %s", path, strerror(-rc));
	/* control_group: its members may connect, as 0660 says unless
	 * control_mode says otherwise. */
	if (ctl->sc->control_group && !keyset_has(&ctl->sc->given,
	    K_CONTROL_MODE))
		mode = 0660;
	if ((fd = unix_bind(path, SOCK_STREAM, mode, ctl->sc->control_group ?
	    ctl->sc->control_gid : (gid_t)-1, &ctl->id)) < 0) {
		if (fd == -EADDRINUSE)
			log_err("%s: another supervisor is answering there",
			    path);
		else if (fd == -EEXIST)
			log_err("%s: there is a file there that is not a "
			    "socket; not replaced", path);
		else if (fd == -EPERM && ctl->sc->control_group)
			log_err("control socket %s: cannot give it to group "
			    "%s (control_group): not root, and not a member",
			    path, ctl->sc->control_group);
		else
			log_err("control socket %s: %s", path, strerror(-fd));
		return fd;
	}
	if (listen(fd, 128) < 0) {
		rc = -errno;
		log_err("control socket %s: %s", path, strerror(errno));
		close(fd);
		unix_unlink(path, &ctl->id);
		return rc;
	}
	ctl->fd = fd;
	ev_io_init(&ctl->w, ctl_on_accept, fd, EV_READ);
	/* Answers come before deaths and spawns in a turn: a storm of
	 * restarts does not keep status waiting. */
	ev_set_priority(&ctl->w, EV_MAXPRI);
	ev_io_start(ctl->loop, &ctl->w);
	ev_init(&ctl->retry_w, ctl_on_retry);
	ctl_spare_take(ctl);
	return 0;
}

/* Close the socket and every client. */
/*
 * End a client now: its END frame after what it has not read, sent as
 * far as the socket takes it at once (one that does not read loses it),
 * and it goes.
 */
static void
ctl_end_now(struct ctl_client *c, int code, const char *msg)
{
	ctl_end_put(&c->out, code, msg);
	while (c->outoff < c->out.len) {
		ssize_t	n = send(c->fd, c->out.data + c->outoff,
			    c->out.len - c->outoff, MSG_NOSIGNAL |
			    MSG_DONTWAIT);

		if (n <= 0)
			break;
		c->outoff += (size_t)n;
	}
	ctl_client_free(c);
}

void
ctl_close(struct ctl *ctl)
{
	struct ctl_client	*c;

	/* ctl_client_free() unlinks c: the analyzer does not follow.  A
	 * stream (logs -f, events) ends with a word, not a cut. */
	while ((c = LIST_FIRST(&ctl->clients)) != NULL) {
		if ((c->follow || c->events) && !c->replied)
			ctl_end_now(c, CTL_OK, "pidvisor exited");
		else
			ctl_client_free(c); /* NOLINT(clang-analyzer-unix.Malloc) */
	}
	if (ctl->fd >= 0) {
		ev_io_stop(ctl->loop, &ctl->w);
		ev_timer_stop(ctl->loop, &ctl->retry_w);
		if (ctl->spare >= 0)
			close(ctl->spare);
		ctl->spare = -1;
		close(ctl->fd);
		unix_unlink(ctl->path, &ctl->id);
		ctl->fd = -1;
	}
}

/*
 * Before the exec: every client but the one that asked and those of
 * events is told to try again (a follower too: its lines go on in the
 * new binary's ring), and goes.  Connections not yet accepted wait in
 * the socket's queue.
 */
void
ctl_reexec_drop(struct ctl *ctl)
{
	struct ctl_client	*c, *next;

	for (c = LIST_FIRST(&ctl->clients); c; c = next) {
		next = LIST_NEXT(c, entry);
		/* Events go on in the next binary (ctl_state_save()). */
		if (c == ctl->reexec_client || c->events)
			continue;
		ctl_end_now(c, CTL_EAGAIN, c->follow ?
		    "pidvisor is re-executing; follow again" :
		    "pidvisor is re-executing; try again");
	}
	/* Inheritable (spawn_fd_keep()), and the next binary has its own. */
	if (ctl->spare >= 0)
		close(ctl->spare);
	ctl->spare = -1;
}

/* The exec failed: the spare fd back (ctl_reexec_drop() closed it). */
void
ctl_reexec_undo(struct ctl *ctl)
{
	if (ctl->spare < 0 && ctl->fd >= 0)
		ctl_spare_take(ctl);
}

/* The socket for the next binary: its fd, its file, who asked. */
void
ctl_state_save(struct ctl *ctl, struct st_w *w)
{
	struct ctl_client	*c;
	size_t			 i;

	st_begin(w, "ctl");
	st_fd(w, "fd", ctl->fd);
	st_u64(w, "dev", (uint64_t)ctl->id.dev);
	st_u64(w, "ino", (uint64_t)ctl->id.ino);
	st_fd(w, "reexec_client", ctl->reexec_client ?
	    ctl->reexec_client->fd : -1);
	/* The clients of events, with what they have not read yet. */
	st_u32(w, "nevents", ctl->nevents);
	for (c = LIST_FIRST(&ctl->clients); c; c = LIST_NEXT(c, entry)) {
		if (!c->events)
			continue;
		st_begin(w, "events");
		st_fd(w, "fd", c->fd);
		st_u8(w, "json", c->follow_json);
		st_bytes(w, "unread", c->out.data + c->outoff,
		    (uint32_t)(c->out.len - c->outoff));
		st_u32(w, "nwait", c->nwait);
		for (i = 0; i < c->nwait; i++)
			st_str(w, "service", c->wait_svc[i]->def->name);
		st_end(w);
	}
	st_end(w);
}

/* A client of events, from the state of the binary before us. */
static void
ctl_events_load(struct ctl *ctl, struct st_r *r)
{
	struct ctl_client	*c;
	const void		*p = NULL;
	uint32_t		 n = 0, i, len = 0;
	char			*name;
	int			 fd = -1;
	bool			 json = false;
	struct svc		*s;

	if (!st_enter(r, "events"))
		return;
	st_get_fd(r, "fd", &fd);
	st_get_bool(r, "json", &json);
	st_get_bytes(r, "unread", &p, &len);
	st_get_count(r, "nwait", &n);
	if ((c = calloc(1, sizeof(*c))) != NULL) {
		c->ctl = ctl;
		c->fd = fd;
		c->events = true;
		c->follow_json = json;
		if (p != NULL && len > 0)
			buf_add(&c->out, p, len);
	}
	for (i = 0; i < n && !st_bad(r); i++) {
		name = NULL;
		if (st_get_str(r, "service", &name) && c != NULL && c->nwait <
		    CTL_NAMES_MAX && (s = svc_find(ctl->set, name)) != NULL)
			c->wait_svc[c->nwait++] = s;
		free(name);
	}
	st_leave(r);
	if (c == NULL || st_bad(r) || fd < 0 || (n > 0 && c->nwait == 0)) {
		/* Out of memory, or its services are gone: it sees the end. */
		if (c != NULL)
			buf_free(&c->out);
		free(c);
		if (fd >= 0 && !st_bad(r))
			close(fd);
		return;
	}
	LIST_INSERT_HEAD(&ctl->clients, c, entry);
	ctl->nclients++;
	ctl->nevents++;
	ev_io_init(&c->io, ctl_on_io, fd, EV_READ);
	ev_io_start(ctl->loop, &c->io);
	ev_init(&c->timer, ctl_on_timer);
	if (c->out.len > 0)
		ctl_flush(c);
}

/*
 * Take over the socket of the binary before us, and the client that
 * asked for the re-exec (to be answered with ctl_reexec_end()).
 */
int
ctl_state_load(struct ctl *ctl, struct st_r *r)
{
	struct ctl_client	*c;
	uint32_t		 i, n = 0;
	uint64_t		 dev = 0, ino = 0;
	int			 fd = -1, cfd = -1;

	if (!st_enter(r, "ctl"))
		return st_bad(r) ? -EINVAL : 0;
	st_get_fd(r, "fd", &fd);
	st_get_u64(r, "dev", &dev);
	st_get_u64(r, "ino", &ino);
	ctl->id.dev = (dev_t)dev;
	ctl->id.ino = (ino_t)ino;
	st_get_fd(r, "reexec_client", &cfd);
	st_get_count(r, "nevents", &n);
	for (i = 0; i < n && !st_bad(r); i++)
		ctl_events_load(ctl, r);
	st_leave(r);
	if (st_bad(r))
		return -EINVAL;
	ev_init(&ctl->retry_w, ctl_on_retry);
	if (fd >= 0) {
		ctl->fd = fd;
		ev_io_init(&ctl->w, ctl_on_accept, fd, EV_READ);
		ev_set_priority(&ctl->w, EV_MAXPRI);
		ev_io_start(ctl->loop, &ctl->w);
		ctl_spare_take(ctl);
	}
	if (cfd < 0)
		return 0;
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(cfd);
		return 0;	/* it is told nothing; it sees the end */
	}
	c->ctl = ctl;
	c->fd = cfd;
	c->priv = true;
	c->wait = WAIT_REEXEC;
	LIST_INSERT_HEAD(&ctl->clients, c, entry);
	ctl->nclients++;
	ev_io_init(&c->io, ctl_on_io, cfd, EV_READ);
	ev_io_start(ctl->loop, &c->io);
	ev_init(&c->timer, ctl_on_timer);
	ctl->reexec_client = c;
	return 0;
}

