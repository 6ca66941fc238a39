/*
 * socks.c - the fds pidvisor holds for a service, as systemd's socket
 * units and fd store do (s6-fdholder, dinit's socket-listen):
 *
 * - its listen sockets (listen.c binds them), bound at its first start
 *   and held across its restarts, back-offs and a re-exec, so that a
 *   client of a restarting service waits in the backlog instead of
 *   being refused; closed once it is down for good (stopped, failed,
 *   removed).  A reload keeps the ones it still names and binds the
 *   new ones before anything changes: one that cannot be bound refuses
 *   the reload.
 * - on_demand: while LISTENING (svc.c) its sockets are watched, and the
 *   first client starts it.
 * - accept = yes: the listener of a template accepts each client and
 *   makes an instance of it, NAME@N, with the connection as its stdin,
 *   stdout and fd 3; at most max_connections at once, the rest waits in
 *   the backlog.
 * - its fd store (fdstore_max): fds the main process handed us with
 *   FDSTORE=1 (notifysock.c), passed back after the listen fds at its
 *   next start; dropped when it is stopped by a command.
 *
 * A stored fd is one whose close cannot wait (notifysock.c's drainer
 * let only those through: a socket, a pipe, a memfd, an anonymous file):
 * any close of a file whose flush may wait (a FUSE file's, an NFS file's)
 * would hold PID 1, and no thread may do it for us (it would hold a
 * re-exec).  fd_close_safe() takes a socket's linger off first.  Listen
 * sockets are ours, and their close does not wait.
 */
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core.h"
#include "socks.h"
#include "spawn.h"
#include "st.h"

static void	socks_on_client(struct ev_loop *, ev_io *, int);

static void	socks_on_retry(struct ev_loop *, ev_timer *, int);
static void	socks_on_unlogged(struct ev_loop *, ev_timer *, int);

/* What s holds (NULL: nothing yet). */
static struct socks *
socks_of(struct svc *s)
{
	return *core_of(s)->socks_of(s);
}

/* What s holds, made if it has nothing yet; NULL without memory. */
static struct socks *
socks_get(struct svc *s)
{
	struct socks	**skp = core_of(s)->socks_of(s), *sk = *skp;

	if (sk == NULL && (sk = calloc(1, sizeof(*sk))) != NULL) {
		sk->conn = -1;
		sk->svc = s;
		ev_timer_init(&sk->retry, socks_on_retry, 1., 0.);
		sk->retry.data = sk;
		ev_init(&sk->unlogged_w, socks_on_unlogged);
		sk->unlogged_w.data = sk;
		*skp = sk;
	}
	return sk;
}

static void
held_free(struct held_fd *h)
{
	free(h->spec);
	free(h->name);
	h->spec = h->name = NULL;
}

/* The options of d's sockets. */
static void
socks_opts(const struct svc_def *d, struct listen_opts *o)
{
	o->backlog = d->listen_backlog;
	o->mode = d->listen_mode;
	o->uid = d->listen_uid;
	o->gid = d->listen_gid;
}

static bool
socks_same(const char *held, const char *spec)
{
	struct listen_addr	a, b;
	char			err[8];

	/* The address, not the options: a reload sets them anew. */
	return listen_parse(held, &a, err, sizeof(err)) == 0 &&
	    listen_parse(spec, &b, err, sizeof(err)) == 0 &&
	    a.kind == b.kind && listen_same(&a, &b);
}

/*
 * The listen sockets of definition d: those s holds already (the same
 * address) are taken over, with d's backlog, mode,
 * owner and options; the others
 * are bound.  0 with them in *out (socks_commit or socks_abort takes
 * them), or -errno with "listen VALUE: why" in err, the index of that
 * value in *nout, and nothing bound.
 */
int
socks_prepare(struct svc *s, const struct svc_def *d,
    struct held_fd **out, uint32_t *nout, char *err, size_t n)
{
	const struct socks	*sk = s ? socks_of(s) : NULL;
	struct listen_opts	 o;
	struct held_fd		*v;
	size_t			 i, j, k = strv_len(d->listen);
	int			 rc = 0;

	*out = NULL;
	*nout = 0;
	if (k == 0)
		return 0;
	if ((v = calloc(k, sizeof(*v))) == NULL) {
		snprintf(err, n, "listen: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	socks_opts(d, &o);
	for (i = 0; i < k && rc == 0; i++) {
		v[i].fd = -1;
		for (j = 0; sk && j < sk->nlisten; j++)
			if (sk->listen[j].fd >= 0 &&
			    socks_same(sk->listen[j].spec, d->listen[i]))
				break;
		if (sk && j < sk->nlisten) {
			v[i].fd = sk->listen[j].fd;
			v[i].id = sk->listen[j].id;
			rc = listen_update(v[i].fd, d->listen[i], &o, &v[i].id,
			    err, n);
		} else if ((rc = listen_bind(d->listen[i], &o, &v[i].id, err,
		    n)) >= 0) {
			/* Blocking, as inetd's: the service may accept
			 * without a poll.  An accept listener's stays
			 * non-blocking: we accept on it. */
			if (!d->accept)
				fcntl(rc, F_SETFL, fcntl(rc, F_GETFL) &
				    ~O_NONBLOCK);
			v[i].fd = spawn_fd_keep(rc);
			rc = 0;
		}
		if (rc == 0 && (v[i].spec = strdup(d->listen[i])) == NULL) {
			snprintf(err, n, "listen: %s", strerror(ENOMEM));
			rc = -ENOMEM;
		}
	}
	if (rc < 0) {
		socks_abort(s, v, (uint32_t)i);
		*nout = (uint32_t)(i - 1);	/* which one */
		return rc;
	}
	*out = v;
	*nout = (uint32_t)k;
	return 0;
}

/* Is fd one that s holds for listen? */
static bool
socks_holds(struct svc *s, int fd)
{
	const struct socks	*sk = s ? socks_of(s) : NULL;
	uint32_t		 i;

	for (i = 0; sk && i < sk->nlisten; i++)
		if (sk->listen[i].fd == fd)
			return true;
	return false;
}

/* Forget what socks_prepare made: close what it bound. */
void
socks_abort(struct svc *s, struct held_fd *v, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++) {
		if (v[i].fd >= 0 && !socks_holds(s, v[i].fd)) {
			if (v[i].spec)
				listen_unlink(v[i].spec, &v[i].id);
			close(v[i].fd);
		}
		held_free(&v[i]);
	}
	free(v);
}

/* Close the listen sockets of sk that are not in v (NULL: all). */
static void
socks_close_listen(struct socks *sk, const struct held_fd *v, uint32_t n)
{
	uint32_t	i, j;

	for (i = 0; i < sk->nlisten; i++) {
		for (j = 0; j < n; j++)
			if (v[j].fd == sk->listen[i].fd)
				break;
		if (j == n && sk->listen[i].fd >= 0) {
			listen_unlink(sk->listen[i].spec, &sk->listen[i].id);
			close(sk->listen[i].fd);
		} else if (j < n && sk->listen[i].spec && v[j].spec) {
			/* kept: the links it no longer names go */
			listen_relink(sk->listen[i].spec, v[j].spec);
		}
		held_free(&sk->listen[i]);
	}
	free(sk->listen);
	sk->listen = NULL;
	sk->nlisten = 0;
}

/* s holds v from now on (socks_prepare's): the others it held go. */
int
socks_commit(struct svc *s, struct held_fd *v, uint32_t n)
{
	struct socks	*sk = socks_get(s);
	bool		 watching;

	if (sk == NULL) {
		socks_abort(s, v, n);
		return -ENOMEM;
	}
	watching = sk->watching;
	socks_watch(s, false);
	socks_close_listen(sk, v, n);
	sk->listen = v;
	sk->nlisten = n;
	if (watching)
		socks_watch(s, true);
	return 0;
}

/*
 * Bind the sockets of s, if it has none yet: 0, or -errno with why in
 * its s->fail.
 */
int
socks_open(struct svc *s)
{
	const struct svc_def	*d = s->def;
	const struct socks	*sk = socks_of(s);
	struct held_fd		*v;
	uint32_t		 n;
	char			 err[512];
	int			 rc;

	if (d->listen == NULL || conf_def_is_conn(d) ||
	    (sk && sk->nlisten > 0))
		return 0;
	if ((rc = socks_prepare(s, d, &v, &n, err, sizeof(err))) < 0) {
		log_err("%s: %s", d->name, err);
		free(s->fail);
		s->fail = strdup(err);
		return rc;
	}
	return socks_commit(s, v, n);
}

/* A name for LISTEN_FDNAMES: what systemd's sd_listen_fds accepts. */
static void
socks_name(struct buf *b, const char *name)
{
	const char	*p;

	if (b->len > 0)
		buf_puts(b, ":");
	for (p = name; *p; p++)
		buf_add(b, *p > ' ' && *p < 127 && *p != ':' ? p : "_", 1);
}

/*
 * What its process gets from 3 on: its listen sockets, then its fd
 * store (an accept instance: its client); their names, ':'-separated,
 * in names.  How many, at most SPAWN_PASS_MAX.
 */
int
socks_pass(struct svc *s, int *fds, struct buf *names)
{
	const struct socks	*sk = socks_of(s);
	const char		*name = s->def->name;
	char			 base[SVC_NAME_MAX + 1];
	uint32_t		 i;
	int			 n = 0;

	if (sk == NULL)
		return 0;
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(name, "@"), name);
	if (sk->conn >= 0) {
		fds[n++] = sk->conn;
		socks_name(names, "connection");
		return n;
	}
	for (i = 0; i < sk->nlisten && n < SPAWN_PASS_MAX; i++) {
		char	own[LISTEN_NAME_MAX + 1];
		const char *nm = listen_name(sk->listen[i].spec, own,
		    sizeof(own));

		fds[n++] = sk->listen[i].fd;
		socks_name(names, nm ? nm : base);
	}
	for (i = 0; i < sk->nstore && n < SPAWN_PASS_MAX; i++) {
		fds[n++] = sk->store[i].fd;
		socks_name(names, sk->store[i].name ? sk->store[i].name :
		    "stored");
	}
	return n;
}

/* Its spawn is over (exec'd or not): an instance's client is its own. */
void
socks_spawned(struct svc *s)
{
	struct socks	*sk = socks_of(s);

	if (sk && sk->conn >= 0) {
		close(sk->conn);
		sk->conn = -1;
	}
}

/*
 * Watch the listen sockets of s for a client (on), or stop.  Bound
 * first if need be: 0, or -errno (s->fail says why).
 */
int
socks_watch(struct svc *s, bool on)
{
	struct core	*core = core_of(s);
	struct socks	*sk;
	uint32_t	 i;
	int		 rc;

	if (on && (rc = socks_open(s)) < 0)
		return rc;
	if ((sk = socks_of(s)) == NULL || sk->watching == on)
		return 0;
	if (on) {
		if ((sk->watch = calloc(sk->nlisten, sizeof(*sk->watch))) ==
		    NULL && sk->nlisten > 0)
			return -ENOMEM;
		for (i = 0; i < sk->nlisten; i++) {
			ev_io_init(&sk->watch[i], socks_on_client,
			    sk->listen[i].fd, EV_READ);
			sk->watch[i].data = sk;
			ev_io_start(core->loop, &sk->watch[i]);
		}
	} else {
		for (i = 0; i < sk->nlisten; i++)
			ev_io_stop(core->loop, &sk->watch[i]);
		free(sk->watch);
		sk->watch = NULL;
	}
	sk->watching = on;
	return 0;
}

/* The listener of an accept instance (NAME@N: NAME), or NULL. */
static struct svc *
socks_listener(struct core *core, const struct svc_def *d)
{
	char		 name[SVC_NAME_MAX + 1];
	const char	*at = strchr(d->name, '@');
	struct svc	*s;

	if (!d->accept || at == NULL)
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)(at - d->name), d->name);
	s = svc_find(core->set, name);
	return s && svc_is_listener(s) ? s : NULL;
}

/* Where the client of fd comes from (an accepted connection). */
static void
socks_src_of(int fd, struct socks_src *src)
{
	struct sockaddr_storage	 ss = { 0 };
	struct sockaddr_in	*in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)&ss;
	struct ucred		 cred;
	socklen_t		 len = sizeof(ss);

	memset(src, 0, sizeof(*src));
	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET) {
		memcpy(src->addr, &in->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		memcpy(src->addr, &in6->sin6_addr, 16);
	} else if (ss.ss_family == AF_UNIX) {
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
			return;
		src->uid = cred.uid;
	} else {
		return;
	}
	src->family = (uint8_t)ss.ss_family;
}

static bool
socks_src_same(const struct socks_src *a, const struct socks_src *b)
{
	return a->family != 0 && a->family == b->family && a->uid == b->uid &&
	    memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

/*
 * The instances of the listener ss alive now with a client from src:
 * those of its template are NAME@..., together in the set's order.
 */
static uint32_t
socks_src_count(struct core *core, struct svc *l,
    const struct socks_src *src)
{
	const char	*name = l->def->name;
	size_t		 len = strlen(name), lo = 0, hi = core->set->n, mid;
	uint32_t	 n = 0;
	struct svc	*s;
	struct socks	*isk;

	while (lo < hi) {		/* the first name past NAME@ */
		mid = (lo + hi) / 2;
		s = core->set->v[mid];
		if (strncmp(s->def->name, name, len) < 0 ||
		    (strncmp(s->def->name, name, len) == 0 &&
		    strcmp(s->def->name + len, "@") < 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < core->set->n; lo++) {
		s = core->set->v[lo];
		if (strncmp(s->def->name, name, len) != 0 ||
		    s->def->name[len] != '@')
			break;
		isk = socks_of(s);
		if (isk != NULL && isk->counted && socks_src_same(&isk->src,
		    src))
			n++;
	}
	return n;
}

/*
 * A client of src: may it start an instance, within
 * max_connections_per_source?  Refusals are said once a second.
 */
static bool
socks_src_admit(struct core *core, struct socks *sk,
    const struct socks_src *src)
{
	const struct svc_def	*d = sk->svc->def;
	int64_t			 now = mono_ms();

	if (d->max_per_source == 0 || d->max_per_source >= d->max_connections ||
	    socks_src_count(core, sk->svc, src) < d->max_per_source)
		return true;
	sk->refused++;
	if (now - sk->refused_at >= 1000) {
		log_warn("%s: %u client%s refused: max_connections_per_source "
		    "(%u) from one %s", d->name, sk->refused, sk->refused == 1 ?
		    "" : "s", d->max_per_source, src->family == AF_UNIX ?
		    "user" : "address");
		sk->refused_at = now;
		sk->refused = 0;
	}
	return false;
}

/* Say how many instances of a second went unlogged. */
static void
socks_on_unlogged(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct socks	*sk = w->data;

	(void)loop;
	(void)revents;
	if (sk->unlogged > 0)
		log_info("%s: %u instance%s not logged (at most %d a second)",
		    sk->svc->def->name, sk->unlogged, sk->unlogged == 1 ? "" :
		    "s", SOCKS_LOGGED_MAX);
	sk->unlogged = 0;
}

/*
 * Is the next instance of the listener ss one too many to log this
 * second?  A storm of clients would otherwise write four lines each;
 * how many went unlogged is said once the second is over.
 */
static bool
socks_quiet(struct core *core, struct socks *sk)
{
	int64_t		 now = mono_ms();

	if (now - sk->logged_at >= 1000) {
		sk->logged_at = now;
		sk->logged = 0;
	}
	if (sk->logged < SOCKS_LOGGED_MAX) {
		sk->logged++;
		return false;
	}
	if (sk->unlogged++ == 0) {
		ev_timer_set(&sk->unlogged_w, (double)(sk->logged_at + 1000 -
		    now) / 1000., 0.);
		ev_timer_start(core->loop, &sk->unlogged_w);
	}
	return true;
}

/*
 * One more client (or start on demand): false once trigger_limit_burst
 * of them came within trigger_limit_interval.  Then, as systemd's socket
 * unit, the service fails, and its sockets are closed: clients are
 * refused until it is started again.
 */
static bool
socks_trigger(struct socks *sk)
{
	struct svc		*s = sk->svc;
	const struct svc_def	*d = s->def;
	int64_t			 now = mono_ms();
	char			 iv[32];

	if (d->trigger_burst == 0 || d->trigger_interval == 0)
		return true;
	if (sk->trig_count == 0 || now - sk->trig_begin >
	    (int64_t)d->trigger_interval) {
		sk->trig_begin = now;
		sk->trig_count = 0;
	}
	if (++sk->trig_count <= d->trigger_burst)
		return true;
	format_duration(iv, sizeof(iv), d->trigger_interval);
	log_err("%s: trigger limit hit: more than %u %s in %s; its sockets "
	    "are closed until it is started again", d->name, d->trigger_burst,
	    d->accept ? "clients" : "starts", iv);
	sk->trig_count = 0;
	socks_watch(s, false);
	svc_trigger_limit(s);
	return false;
}

/*
 * A client at the listener ss: accept it, and start an instance with
 * it, while fewer than max_connections run; the rest wait.
 */
static void
socks_accept(struct socks *sk, int lfd)
{
	struct core		*core = core_of(sk->svc);
	struct socks		*isk;
	const struct svc_def	*d = sk->svc->def;
	char			 name[SVC_NAME_MAX + 2];
	struct buf		 err = { 0 };
	struct socks_src	 src;
	struct svc		*s;
	int			 fd, i;

	for (i = 0; i < 64 && sk->conns < d->max_connections; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (fd < 0) {
			/* Out of fds or memory: the clients wait in the
			 * backlog, and we try again in a second. */
			log_err("%s: accept: %s; again in 1 s", d->name,
			    strerror(errno));
			socks_watch(sk->svc, false);
			ev_timer_start(core->loop, &sk->retry);
			return;
		}
		if (!socks_trigger(sk)) {
			close(fd);
			return;
		}
		socks_src_of(fd, &src);
		if (!socks_src_admit(core, sk, &src)) {
			close(fd);
			continue;
		}
		do
			snprintf(name, sizeof(name), "%s@%u", d->name,
			    ++sk->seq);
		while (svc_find(core->set, name) != NULL);
		s = core->instance(core, name, &err, socks_quiet(core, sk));
		if (s == NULL || (isk = socks_get(s)) == NULL) {
			log_err("%s: no instance for a client: %.*s", d->name,
			    (int)strcspn(err.data ? err.data : "out of memory",
			    "\n"), err.data ? err.data : "out of memory");
			close(fd);
			buf_free(&err);
			break;
		}
		isk->conn = fd;
		isk->counted = true;
		isk->src = src;
		sk->conns++;
		svc_start(s);
	}
	if (sk->conns >= d->max_connections)
		socks_watch(sk->svc, false);	/* the backlog holds them */
}

/* accept ran out of fds a second ago: listen again. */
static void
socks_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct socks	*sk = w->data;

	(void)loop;
	(void)revents;
	if (sk->svc->state == SVC_LISTENING &&
	    sk->conns < sk->svc->def->max_connections)
		socks_watch(sk->svc, true);
}

static void
socks_on_client(struct ev_loop *loop, ev_io *w, int revents)
{
	struct socks	*sk = w->data;
	struct svc	*s = sk->svc;

	(void)loop;
	(void)revents;
	if (svc_is_listener(s)) {
		socks_accept(sk, w->fd);
		return;
	}
	socks_watch(s, false);
	if (!socks_trigger(sk))
		return;
	log_info("%s: a client came", s->def->name);
	svc_triggered(s);
}

/*
 * A service changed state: one down for good lets its sockets go (and,
 * stopped by a command, its fd store); an accept instance that is over
 * goes, and makes room at its listener.
 */
void
socks_changed(struct svc *s)
{
	struct core	*core = core_of(s);
	struct socks	*sk = socks_of(s), *lsk;
	struct svc	*l;
	bool		 down = !s->want_up && !s->restart_req &&
			    !svc_has_process(s);

	if (sk == NULL || !down)
		return;
	if (sk->counted) {
		sk->counted = false;
		core->remove(core, s);	/* once down, it goes */
		if ((l = socks_listener(core, s->def)) != NULL &&
		    (lsk = socks_of(l)) != NULL && lsk->conns > 0 &&
		    lsk->conns-- == l->def->max_connections &&
		    l->state == SVC_LISTENING)
			socks_watch(l, true);
		return;
	}
	socks_watch(s, false);
	ev_timer_stop(core->loop, &sk->retry);
	if (sk->nlisten > 0)
		socks_close_listen(sk, NULL, 0);
	if (s->state == SVC_STOPPED && (s->reason.why == WHY_STOPPED ||
	    s->reason.why == WHY_STOP_KILLED))
		socks_store_drop(s);
}

/* The service goes: everything it held. */
void
socks_free(struct svc *s)
{
	struct core	*core = core_of(s);
	struct socks	**skp = core->socks_of(s), *sk = *skp;

	if (sk == NULL)
		return;
	socks_watch(s, false);
	ev_timer_stop(core->loop, &sk->retry);
	ev_timer_stop(core->loop, &sk->unlogged_w);
	socks_close_listen(sk, NULL, 0);
	socks_store_drop(s);
	if (sk->conn >= 0)
		close(sk->conn);
	free(sk);
	*skp = NULL;
}

/*
 * FDSTORE=1 from its main process: keep fds under name, within its
 * fdstore_max; what does not fit is closed (each is of a kind whose
 * close cannot wait), and so said, with those refused before (refused).
 */
void
socks_store_add(struct svc *s, int *fds, size_t n, const char *name,
    size_t len, size_t refused)
{
	const struct svc_def	*d = s->def;
	struct socks		*sk = socks_get(s);
	struct held_fd		*v = NULL;
	size_t			 i, room, kept = 0;

	room = sk ? d->fdstore_max - sk->nstore : 0;
	if (n > room)
		log_warn("%s: fd store: %zu fd%s over fdstore_max (%u) "
		    "dropped", d->name, n - room, n - room == 1 ? "" : "s",
		    d->fdstore_max);
	if (refused > 0)
		log_warn("%s: fd store: %zu fd%s refused (not a socket, pipe, "
		    "memfd or anonymous file: its close could wait)", d->name,
		    refused, refused == 1 ? "" : "s");
	if (sk != NULL && n > 0 && room > 0 && (v = realloc(sk->store,
	    (sk->nstore + (n < room ? n : room)) * sizeof(*v))) != NULL)
		sk->store = v;
	for (i = 0; i < n; i++) {
		if (v == NULL || kept == room) {
			fd_close_safe(fds[i]);
			continue;
		}
		v = &sk->store[sk->nstore++];
		memset(v, 0, sizeof(*v));
		v->fd = spawn_fd_keep(fds[i]);
		v->name = name ? strndup(name, len) : strdup("stored");
		kept++;
	}
	if (kept > 0)
		log_info("%s: fd store: %zu fd%s kept (%u held)", d->name, kept,
		    kept == 1 ? "" : "s", sk->nstore);
}

/* Drop the stored fds of s named name (NULL: all of them). */
static void
socks_store_take(struct svc *s, const char *name, size_t len)
{
	struct socks	*sk = socks_of(s);
	uint32_t	 i, j, n = 0;

	if (sk == NULL)
		return;
	for (i = j = 0; i < sk->nstore; i++) {
		const char	*x = sk->store[i].name;

		if (name == NULL || (x && strlen(x) == len &&
		    memcmp(x, name, len) == 0)) {
			fd_close_safe(sk->store[i].fd);
			held_free(&sk->store[i]);
			n++;
		} else {
			sk->store[j++] = sk->store[i];
		}
	}
	sk->nstore = j;
	if (j == 0) {
		free(sk->store);
		sk->store = NULL;
	}
	if (n > 0)
		log_info("%s: fd store: %u fd%s dropped", s->def->name, n,
		    n == 1 ? "" : "s");
}

/* FDSTOREREMOVE=1 with FDNAME=name. */
void
socks_store_remove(struct svc *s, const char *name, size_t len)
{
	socks_store_take(s, name, len);
}

/* Its whole store. */
void
socks_store_drop(struct svc *s)
{
	socks_store_take(s, NULL, 0);
}

/* What ss holds, for the next binary (reexec.c). */
static void
socks_src_save(const struct socks_src *src, struct st_w *w)
{
	uint64_t	a[2];

	memcpy(a, src->addr, sizeof(a));
	st_begin(w, "src");
	st_u8(w, "family", src->family);
	st_u64(w, "addr0", a[0]);
	st_u64(w, "addr1", a[1]);
	st_u32(w, "uid", src->uid);
	st_end(w);
}

static void
socks_src_load(struct socks_src *src, struct st_r *r)
{
	uint64_t	a[2] = { 0, 0 };

	if (!st_enter(r, "src"))
		return;
	st_get_u8(r, "family", &src->family);
	st_get_u64(r, "addr0", &a[0]);
	st_get_u64(r, "addr1", &a[1]);
	memcpy(src->addr, a, sizeof(a));
	st_get_u32(r, "uid", &src->uid);
	st_leave(r);
}

/*
 * For the next binary: the sockets held (and their paths' identities),
 * the fd store, an accept listener's count and an instance's client.
 */
void
socks_save(const struct socks *sk, struct st_w *w)
{
	uint32_t	i;

	st_begin(w, "socks");
	st_u32(w, "nlisten", sk ? sk->nlisten : 0);
	for (i = 0; sk && i < sk->nlisten; i++) {
		st_begin(w, "listen");
		st_fd_kept(w, "fd", sk->listen[i].fd);
		st_str(w, "spec", sk->listen[i].spec);
		st_u64(w, "dev", (uint64_t)sk->listen[i].id.dev);
		st_u64(w, "ino", (uint64_t)sk->listen[i].id.ino);
		st_end(w);
	}
	st_u32(w, "nstore", sk ? sk->nstore : 0);
	for (i = 0; sk && i < sk->nstore; i++) {
		st_begin(w, "store");
		st_fd_kept(w, "fd", sk->store[i].fd);
		st_str(w, "name", sk->store[i].name);
		st_end(w);
	}
	st_u32(w, "conns", sk ? sk->conns : 0);
	st_u32(w, "seq", sk ? sk->seq : 0);
	st_u8(w, "counted", sk ? sk->counted : 0);
	socks_src_save(sk ? &sk->src : &(struct socks_src){ 0 }, w);
	st_end(w);
}

/* Take over what the binary before us held for ss. */
int
socks_load(struct svc *s, struct st_r *r)
{
	uint32_t	 nl = 0, ns = 0, i;
	uint64_t	 dev, ino;
	struct socks	*sk;
	struct held_fd	*h;

	if (!st_enter(r, "socks"))
		return st_bad(r) ? -EINVAL : 0;
	st_get_count(r, "nlisten", &nl);
	if (st_bad(r))
		return -EINVAL;
	if ((sk = socks_get(s)) == NULL)
		return -ENOMEM;
	if (nl > 0 && (sk->listen = calloc(nl, sizeof(*h))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nl && st_enter(r, "listen"); i++) {
		h = &sk->listen[sk->nlisten++];
		h->fd = -1;
		dev = ino = 0;
		st_get_fd_kept(r, "fd", &h->fd);
		st_get_str(r, "spec", &h->spec);
		st_get_u64(r, "dev", &dev);
		st_get_u64(r, "ino", &ino);
		h->id.dev = (dev_t)dev;
		h->id.ino = (ino_t)ino;
		st_leave(r);
	}
	st_get_count(r, "nstore", &ns);
	if (ns > 0 && (sk->store = calloc(ns, sizeof(*h))) == NULL)
		return -ENOMEM;
	for (i = 0; i < ns && !st_bad(r) && st_enter(r, "store"); i++) {
		h = &sk->store[sk->nstore++];
		h->fd = -1;
		st_get_fd_kept(r, "fd", &h->fd);
		st_get_str(r, "name", &h->name);
		st_leave(r);
	}
	st_get_u32(r, "conns", &sk->conns);
	st_get_u32(r, "seq", &sk->seq);
	st_get_bool(r, "counted", &sk->counted);
	if (st_since(r, STATE_NAMED))
		socks_src_load(&sk->src, r);
	st_leave(r);
	return st_bad(r) ? -EINVAL : 0;
}
