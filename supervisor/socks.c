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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service.h"
#include "socks.h"
#include "st.h"
#include "sup.h"

static void	socks_on_client(struct ev_loop *, ev_io *, int);

static void	socks_on_retry(struct ev_loop *, ev_timer *, int);

static struct socks *
socks_get(struct service *ss)
{
	struct socks	*sk = ss->socks;

	if (sk == NULL && (sk = calloc(1, sizeof(*sk))) != NULL) {
		sk->conn = -1;
		ev_timer_init(&sk->retry, socks_on_retry, 1., 0.);
		sk->retry.data = ss;
		ss->socks = sk;
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

/*
 * The listen sockets of definition d: those ss holds already (the same
 * value) are taken over, with d's backlog, mode and owner; the others
 * are bound.  0 with them in *out (socks_commit or socks_abort takes
 * them), or -errno with "listen VALUE: why" in err, the index of that
 * value in *nout, and nothing bound.
 */
int
socks_prepare(struct service *ss, const struct svc_def *d,
    struct held_fd **out, uint32_t *nout, char *err, size_t n)
{
	const struct socks	*sk = ss ? ss->socks : NULL;
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
			    strcmp(sk->listen[j].spec, d->listen[i]) == 0)
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
		socks_abort(ss, v, (uint32_t)i);
		*nout = (uint32_t)(i - 1);	/* which one */
		return rc;
	}
	*out = v;
	*nout = (uint32_t)k;
	return 0;
}

/* Is fd one that ss holds for listen? */
static bool
socks_holds(const struct service *ss, int fd)
{
	const struct socks	*sk = ss ? ss->socks : NULL;
	uint32_t		 i;

	for (i = 0; sk && i < sk->nlisten; i++)
		if (sk->listen[i].fd == fd)
			return true;
	return false;
}

/* Forget what socks_prepare made: close what it bound. */
void
socks_abort(struct service *ss, struct held_fd *v, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++) {
		if (v[i].fd >= 0 && !socks_holds(ss, v[i].fd)) {
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
		}
		held_free(&sk->listen[i]);
	}
	free(sk->listen);
	sk->listen = NULL;
	sk->nlisten = 0;
}

/* ss holds v from now on (socks_prepare's): the others it held go. */
int
socks_commit(struct sup *sup, struct service *ss, struct held_fd *v,
    uint32_t n)
{
	struct socks	*sk = socks_get(ss);
	bool		 watching;

	if (sk == NULL) {
		socks_abort(ss, v, n);
		return -ENOMEM;
	}
	watching = sk->watching;
	socks_watch(sup, ss, false);
	socks_close_listen(sk, v, n);
	sk->listen = v;
	sk->nlisten = n;
	if (watching)
		socks_watch(sup, ss, true);
	return 0;
}

/*
 * Bind the sockets of ss, if it has none yet: 0, or -errno with why in
 * its s->fail.
 */
int
socks_open(struct sup *sup, struct service *ss)
{
	const struct svc_def	*d = ss->svc.def;
	struct held_fd		*v;
	uint32_t		 n;
	char			 err[512];
	int			 rc;

	if (d->listen == NULL || conf_def_is_conn(d) ||
	    (ss->socks && ss->socks->nlisten > 0))
		return 0;
	if ((rc = socks_prepare(ss, d, &v, &n, err, sizeof(err))) < 0) {
		log_err("%s: %s", d->name, err);
		free(ss->svc.fail);
		ss->svc.fail = strdup(err);
		return rc;
	}
	return socks_commit(sup, ss, v, n);
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
socks_pass(struct service *ss, int *fds, struct buf *names)
{
	const struct socks	*sk = ss->socks;
	const char		*name = ss->svc.def->name;
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
		fds[n++] = sk->listen[i].fd;
		socks_name(names, base);
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
socks_spawned(struct service *ss)
{
	if (ss->socks && ss->socks->conn >= 0) {
		close(ss->socks->conn);
		ss->socks->conn = -1;
	}
}

/*
 * Watch the listen sockets of ss for a client (on), or stop.  Bound
 * first if need be: 0, or -errno (s->fail says why).
 */
int
socks_watch(struct sup *sup, struct service *ss, bool on)
{
	struct socks	*sk;
	uint32_t	 i;
	int		 rc;

	if (on && (rc = socks_open(sup, ss)) < 0)
		return rc;
	if ((sk = ss->socks) == NULL || sk->watching == on)
		return 0;
	if (on) {
		if ((sk->watch = calloc(sk->nlisten, sizeof(*sk->watch))) ==
		    NULL && sk->nlisten > 0)
			return -ENOMEM;
		for (i = 0; i < sk->nlisten; i++) {
			ev_io_init(&sk->watch[i], socks_on_client,
			    sk->listen[i].fd, EV_READ);
			sk->watch[i].data = ss;
			ev_io_start(sup->loop, &sk->watch[i]);
		}
	} else {
		for (i = 0; i < sk->nlisten; i++)
			ev_io_stop(sup->loop, &sk->watch[i]);
		free(sk->watch);
		sk->watch = NULL;
	}
	sk->watching = on;
	return 0;
}

/* The listener of an accept instance (NAME@N: NAME), or NULL. */
static struct service *
socks_listener(struct sup *sup, const struct svc_def *d)
{
	char		 name[SVC_NAME_MAX + 1];
	const char	*at = strchr(d->name, '@');
	struct svc	*s;

	if (!d->accept || at == NULL)
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)(at - d->name), d->name);
	s = svc_find(&sup->set, name);
	return s && svc_is_listener(s) ? service_of(s) : NULL;
}

/*
 * A client at the listener ss: accept it, and start an instance with
 * it, while fewer than max_connections run; the rest wait.
 */
static void
socks_accept(struct sup *sup, struct service *ss, int lfd)
{
	struct socks		*sk = ss->socks, *isk;
	const struct svc_def	*d = ss->svc.def;
	char			 name[SVC_NAME_MAX + 2];
	struct buf		 err = { 0 };
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
			socks_watch(sup, ss, false);
			ev_timer_start(sup->loop, &sk->retry);
			return;
		}
		do
			snprintf(name, sizeof(name), "%s@%u", d->name,
			    ++sk->seq);
		while (svc_find(&sup->set, name) != NULL);
		s = sup_instance(sup, name, &err);
		if (s == NULL || (isk = socks_get(service_of(s))) == NULL) {
			log_err("%s: no instance for a client: %.*s", d->name,
			    (int)strcspn(err.data ? err.data : "out of memory",
			    "\n"), err.data ? err.data : "out of memory");
			close(fd);
			buf_free(&err);
			break;
		}
		isk->conn = fd;
		isk->counted = true;
		sk->conns++;
		svc_start(s);
	}
	if (sk->conns >= d->max_connections)
		socks_watch(sup, ss, false);	/* the backlog holds them */
}

/* accept ran out of fds a second ago: listen again. */
static void
socks_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct service	*ss = w->data;

	(void)revents;
	if (ss->svc.state == SVC_LISTENING &&
	    ss->socks->conns < ss->svc.def->max_connections)
		socks_watch(ev_userdata(loop), ss, true);
}

static void
socks_on_client(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);
	struct service	*ss = w->data;

	(void)revents;
	if (svc_is_listener(&ss->svc)) {
		socks_accept(sup, ss, w->fd);
		return;
	}
	socks_watch(sup, ss, false);
	log_info("%s: a client came", ss->svc.def->name);
	svc_triggered(&ss->svc);
}

/*
 * A service changed state: one down for good lets its sockets go (and,
 * stopped by a command, its fd store); an accept instance that is over
 * goes, and makes room at its listener.
 */
void
socks_changed(struct sup *sup, struct service *ss)
{
	struct svc	*s = &ss->svc;
	struct socks	*sk = ss->socks;
	struct service	*l;
	bool		 down = !s->want_up && !s->restart_req &&
			    !svc_has_process(s);

	if (sk == NULL || !down)
		return;
	if (sk->counted) {
		sk->counted = false;
		ss->removing = true;	/* sup_changed() frees it */
		if ((l = socks_listener(sup, s->def)) != NULL && l->socks &&
		    l->socks->conns > 0 &&
		    l->socks->conns-- == l->svc.def->max_connections &&
		    l->svc.state == SVC_LISTENING)
			socks_watch(sup, l, true);
		return;
	}
	socks_watch(sup, ss, false);
	ev_timer_stop(sup->loop, &sk->retry);
	if (sk->nlisten > 0)
		socks_close_listen(sk, NULL, 0);
	if (s->state == SVC_STOPPED && (s->reason.why == WHY_STOPPED ||
	    s->reason.why == WHY_STOP_KILLED))
		socks_store_drop(ss);
}

/* The service goes: everything it held. */
void
socks_free(struct sup *sup, struct service *ss)
{
	struct socks	*sk = ss->socks;

	if (sk == NULL)
		return;
	socks_watch(sup, ss, false);
	ev_timer_stop(sup->loop, &sk->retry);
	socks_close_listen(sk, NULL, 0);
	socks_store_drop(ss);
	if (sk->conn >= 0)
		close(sk->conn);
	free(sk);
	ss->socks = NULL;
}

/*
 * FDSTORE=1 from its main process: keep fds under name, within its
 * fdstore_max; what does not fit is closed (each is of a kind whose
 * close cannot wait), and so said, with those refused before (refused).
 */
void
socks_store_add(struct service *ss, int *fds, size_t n, const char *name,
    size_t len, size_t refused)
{
	const struct svc_def	*d = ss->svc.def;
	struct socks		*sk = socks_get(ss);
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

/* Drop the stored fds of ss named name (NULL: all of them). */
static void
socks_store_take(struct service *ss, const char *name, size_t len)
{
	struct socks	*sk = ss->socks;
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
		log_info("%s: fd store: %u fd%s dropped", ss->svc.def->name, n,
		    n == 1 ? "" : "s");
}

/* FDSTOREREMOVE=1 with FDNAME=name. */
void
socks_store_remove(struct service *ss, const char *name, size_t len)
{
	socks_store_take(ss, name, len);
}

/* Its whole store. */
void
socks_store_drop(struct service *ss)
{
	socks_store_take(ss, NULL, 0);
}

/* What ss holds, for the next binary (reexec.c). */
void
socks_save(const struct socks *sk, struct st_w *w)
{
	uint32_t	i;

	st_u32(w, sk ? sk->nlisten : 0);
	for (i = 0; sk && i < sk->nlisten; i++) {
		st_fd_kept(w, sk->listen[i].fd);
		st_str(w, sk->listen[i].spec);
		st_u64(w, (uint64_t)sk->listen[i].id.dev);
		st_u64(w, (uint64_t)sk->listen[i].id.ino);
	}
	st_u32(w, sk ? sk->nstore : 0);
	for (i = 0; sk && i < sk->nstore; i++) {
		st_fd_kept(w, sk->store[i].fd);
		st_str(w, sk->store[i].name);
	}
	st_u32(w, sk ? sk->conns : 0);
	st_u32(w, sk ? sk->seq : 0);
	st_u8(w, sk ? sk->counted : 0);
}

/* Take over what the binary before us held for ss. */
int
socks_load(struct sup *sup, struct service *ss, struct st_r *r)
{
	uint32_t	 nl = st_get_count(r, "listen fds"), ns, i;
	struct socks	*sk;
	struct held_fd	*h;

	(void)sup;
	if (st_bad(r))
		return -EINVAL;
	if ((sk = socks_get(ss)) == NULL)
		return -ENOMEM;
	if (nl > 0 && (sk->listen = calloc(nl, sizeof(*h))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nl; i++) {
		h = &sk->listen[sk->nlisten++];
		h->fd = st_get_fd_kept(r);
		st_get_str(r, &h->spec);
		h->id.dev = (dev_t)st_get_u64(r);
		h->id.ino = (ino_t)st_get_u64(r);
	}
	ns = st_get_count(r, "stored fds");
	if (ns > 0 && (sk->store = calloc(ns, sizeof(*h))) == NULL)
		return -ENOMEM;
	for (i = 0; i < ns && !st_bad(r); i++) {
		h = &sk->store[sk->nstore++];
		h->fd = st_get_fd_kept(r);
		st_get_str(r, &h->name);
	}
	sk->conns = st_get_u32(r);
	sk->seq = st_get_u32(r);
	sk->counted = st_get_u8(r) != 0;
	return st_bad(r) ? -EINVAL : 0;
}
