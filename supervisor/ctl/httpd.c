/*
 * httpd.c - metrics_listen: GET /metrics over HTTP, on the loop.
 *
 * Why not a helper process: the numbers are the loop's own state, and a
 * helper would need a protocol to ask for them, which is what this is.
 * So the responder is kept small enough to trust in PID 1: one request
 * per connection, its head at most HTTPD_REQ_MAX bytes in a fixed
 * buffer, parsed by http_parse() alone (fuzzed: tests/fuzz/fuzz_http.c),
 * at most HTTPD_CONNS_MAX connections and HTTPD_CONNS_PEER from one
 * address (a new one takes the place of the oldest that has not sent
 * its request yet, so idle connections cannot keep a scraper out; with
 * none such, it gets a 503 and goes), and the whole exchange within
 * client_timeout.  Nothing blocks: the reply is sent as the socket takes
 * it, then our side is shut and the connection closed once the peer
 * closes too, so that no unread byte turns the close into a reset; but
 * within HTTPD_LINGER_MS, and at once past SOCK_UNREAD_MAX bytes sent
 * after the request.  The body is built at most once every
 * HTTPD_BODY_AGE: scrapes, however many, cannot hold the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <unistd.h>

#include "httpd.h"
#include "st.h"

struct httpd_conn {
	struct httpd		*h;
	int			 fd;
	ev_io			 io;
	ev_timer		 timer;
	struct buf		 out;
	size_t			 outoff;
	size_t			 inlen;
	size_t			 unread;	/* sent after the request */
	struct sockaddr_storage	 peer;
	bool			 answered;	/* reading only for the end */
	LIST_ENTRY(httpd_conn)	 entry;
	char			 in[HTTPD_REQ_MAX];
};

/* A token's character (RFC 9110, 5.6.2). */
static bool
http_tchar(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= 'A' && ch <= 'Z') || (ch && strchr("!#$%&'*+-.^_`|~",
	    ch) != NULL);
}

/* The end of the line at p (its LF), or NULL. */
static const char *
http_eol(const char *p, const char *end)
{
	return memchr(p, '\n', (size_t)(end - p));
}

/*
 * One request's head: its request line and header fields, up to the
 * empty line.  0 while incomplete (and shorter than HTTPD_REQ_MAX);
 * otherwise the status to answer: 200 for GET or HEAD of /metrics (a
 * query is ignored), 404 for another target, 405 for another method,
 * 505 for another version, 431 for a head too large, 400 for anything
 * malformed.  Lines may end with CRLF or LF.
 */
int
http_parse(const char *p, size_t n, bool *head)
{
	const char	*end = p + n, *eol, *sp1, *sp2, *t, *v;
	size_t		 ml, tl, vl, i;

	*head = false;
	if ((eol = http_eol(p, end)) == NULL)
		return n >= HTTPD_REQ_MAX ? 431 : 0;
	/* The request line: METHOD SP TARGET SP HTTP/1.x */
	v = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	if ((sp1 = memchr(p, ' ', (size_t)(v - p))) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', (size_t)(v - sp1 - 1))) == NULL)
		return 400;
	ml = (size_t)(sp1 - p);
	t = sp1 + 1;
	tl = (size_t)(sp2 - t);
	vl = (size_t)(v - sp2 - 1);
	if (ml == 0 || tl == 0 || tl > 1024)
		return 400;
	for (i = 0; i < ml; i++)
		if (!http_tchar((unsigned char)p[i]))
			return 400;
	for (i = 0; i < tl; i++)
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return 400;
	if (vl != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return vl > 5 && memcmp(sp2 + 1, "HTTP/", 5) == 0 ? 505 : 400;
	if (sp2[8] != '0' && sp2[8] != '1')
		return 505;
	/* The header fields, each NAME: VALUE, up to an empty line. */
	for (;;) {
		const char	*l = eol + 1, *colon;

		if ((eol = http_eol(l, end)) == NULL)
			return n >= HTTPD_REQ_MAX ? 431 : 0;
		v = eol > l && eol[-1] == '\r' ? eol - 1 : eol;
		if (v == l)
			break;
		if ((colon = memchr(l, ':', (size_t)(v - l))) == NULL ||
		    colon == l)
			return 400;
		for (t = l; t < colon; t++)
			if (!http_tchar((unsigned char)*t))
				return 400;
		for (t = colon + 1; t < v; t++)
			if (((unsigned char)*t < 0x20 && *t != '\t') ||
			    *t == 0x7f)
				return 400;
	}
	if (!(ml == 3 && memcmp(p, "GET", 3) == 0) &&
	    !(ml == 4 && memcmp(p, "HEAD", 4) == 0))
		return 405;
	*head = ml == 4;
	if (t = sp1 + 1, !(tl >= 8 && memcmp(t, "/metrics", 8) == 0 &&
	    (tl == 8 || t[8] == '?')))
		return 404;
	return 200;
}

static void
httpd_conn_free(struct httpd_conn *c)
{
	struct httpd	*h = c->h;

	ev_io_stop(h->loop, &c->io);
	ev_timer_stop(h->loop, &c->timer);
	close(c->fd);
	buf_free(&c->out);
	LIST_REMOVE(c, entry);
	h->nconns--;
	free(c);
}

/* The metrics, built now unless they were within HTTPD_BODY_AGE. */
static int
httpd_body(struct httpd *h)
{
	ev_tstamp	now = ev_now(h->loop);

	if (h->built_at > 0 && now - h->built_at < HTTPD_BODY_AGE &&
	    now >= h->built_at)
		return 0;
	buf_free(&h->built);
	h->built_at = 0;
	if (h->body(h->ctx, &h->built) < 0 || h->built.nomem) {
		buf_free(&h->built);
		return -1;
	}
	h->built_at = now;
	return 0;
}

/* The status line and head of a reply; the body after it. */
static void
httpd_answer(struct httpd_conn *c, int status, bool head)
{
	static const struct { int code; const char *text; } st[] = {
		{ 200, "OK" }, { 400, "Bad Request" }, { 404, "Not Found" },
		{ 405, "Method Not Allowed" }, { 431, "Request Header "
		"Fields Too Large" }, { 500, "Internal Server Error" },
		{ 503, "Service Unavailable" }, { 505, "HTTP Version Not "
		"Supported" },
	};
	struct buf	 body = { 0 };
	const struct buf *own;
	const char	*text = "Error";
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(st); i++)
		if (st[i].code == status)
			text = st[i].text;
	if (status == 200 && httpd_body(c->h) < 0)
		status = 500, text = "Internal Server Error";
	if (status != 200)
		buf_printf(&body, "%d %s\n", status, text);
	else
		c->h->served++;
	own = status == 200 ? &c->h->built : &body;
	buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n%s\r\n", status, text,
	    status == 200 ? "text/plain; version=0.0.4; charset=utf-8" :
	    "text/plain; charset=utf-8", own->len,
	    status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head)
		buf_add(&c->out, own->data, own->len);
	buf_free(&body);
	c->answered = true;
}

/* Send what the socket takes; then shut our side and wait for its end. */
static void
httpd_send(struct httpd_conn *c)
{
	ssize_t	n;

	if (c->out.nomem) {
		httpd_conn_free(c);
		return;
	}
	while (c->outoff < c->out.len) {
		n = send(c->fd, c->out.data + c->outoff, c->out.len - c->outoff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			ev_io_stop(c->h->loop, &c->io);
			ev_io_set(&c->io, c->fd, EV_WRITE);
			ev_io_start(c->h->loop, &c->io);
			return;
		}
		if (n <= 0) {
			httpd_conn_free(c);
			return;
		}
		c->outoff += (size_t)n;
	}
	buf_free(&c->out);
	shutdown(c->fd, SHUT_WR);
	ev_io_stop(c->h->loop, &c->io);
	ev_io_set(&c->io, c->fd, EV_READ);
	ev_io_start(c->h->loop, &c->io);
	if (ev_timer_remaining(c->h->loop, &c->timer) > HTTPD_LINGER_MS /
	    1000.0) {
		ev_timer_stop(c->h->loop, &c->timer);
		ev_timer_set(&c->timer, HTTPD_LINGER_MS / 1000.0, 0.);
		ev_timer_start(c->h->loop, &c->timer);
	}
}

static void
httpd_on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct httpd_conn	*c = w->data;
	ssize_t			 n;
	bool			 head;
	int			 status;

	(void)loop;
	if (revents & EV_WRITE) {
		httpd_send(c);
		return;
	}
	if (c->answered) {
		/* Sent and shut: what comes now is discarded, up to the end. */
		if (sock_peer_gone(c->fd, &c->unread))
			httpd_conn_free(c);
		return;
	}
	n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen,
	    MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		httpd_conn_free(c);
		return;
	}
	c->inlen += (size_t)n;
	if ((status = http_parse(c->in, c->inlen, &head)) == 0)
		return;
	httpd_answer(c, status, head);
	httpd_send(c);
}

static void
httpd_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	httpd_conn_free(w->data);
}

static void
httpd_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct httpd	*h = container_of(w, struct httpd, retry_w);

	(void)revents;
	if (h->fd >= 0)
		ev_io_start(loop, &h->w);
}

/*
 * The user of the socket at the other end of a TCP connection to us,
 * if it is on this machine: asked of the kernel (sock_diag) by the
 * connection's addresses and ports, which it answers at once.  0 with
 * *uid, or -errno (-ENOENT: no socket of this machine).
 */
static int
httpd_peer_uid(int fd, uid_t *uid)
{
	struct sockaddr_storage	 me = { 0 }, peer = { 0 };
	struct sockaddr_in	*m4 = (void *)&me, *p4 = (void *)&peer;
	struct sockaddr_in6	*m6 = (void *)&me, *p6 = (void *)&peer;
	socklen_t		 ml = sizeof(me), pl = sizeof(peer);
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	req;
	}			 q;
	union {
		struct nlmsghdr	nlh;
		char		buf[512];
	}			 a;
	const struct inet_diag_msg *msg;
	ssize_t			 n;
	int			 nl, err;

	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST;
	q.req.sdiag_family = (uint8_t)peer.ss_family;
	q.req.sdiag_protocol = IPPROTO_TCP;
	q.req.idiag_states = ~0U;
	/* Its socket: from the peer's address and port, to ours. */
	if (peer.ss_family == AF_INET) {
		q.req.id.idiag_sport = p4->sin_port;
		q.req.id.idiag_dport = m4->sin_port;
		memcpy(q.req.id.idiag_src, &p4->sin_addr, 4);
		memcpy(q.req.id.idiag_dst, &m4->sin_addr, 4);
	} else if (peer.ss_family == AF_INET6) {
		q.req.id.idiag_sport = p6->sin6_port;
		q.req.id.idiag_dport = m6->sin6_port;
		memcpy(q.req.id.idiag_src, &p6->sin6_addr, 16);
		memcpy(q.req.id.idiag_dst, &m6->sin6_addr, 16);
	} else {
		return -EAFNOSUPPORT;
	}
	q.req.id.idiag_cookie[0] = q.req.id.idiag_cookie[1] =
	    INET_DIAG_NOCOOKIE;
	if ((nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) < 0)
		return -errno;
	n = send(nl, &q, sizeof(q), 0) < 0 ? -1 :
	    recv(nl, &a, sizeof(a), MSG_DONTWAIT);
	err = errno;
	close(nl);
	if (n < 0)
		return -err;
	if (n < (ssize_t)sizeof(a.nlh) || a.nlh.nlmsg_type == NLMSG_ERROR ||
	    a.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY || (size_t)n <
	    NLMSG_LENGTH(sizeof(*msg)))
		return -ENOENT;
	msg = NLMSG_DATA(&a.nlh);
	*uid = msg->idiag_uid;
	return 0;
}

/* May the connection fd have an answer (metrics_users)? */
static bool
httpd_user_ok(const struct httpd *h, int fd)
{
	uid_t	uid = (uid_t)-1;
	size_t	i;

	if (h->nusers == NULL || *h->nusers == 0)
		return true;
	if (httpd_peer_uid(fd, &uid) < 0)
		return false;
	for (i = 0; i < *h->nusers; i++)
		if ((*h->users)[i] == uid)
			return true;
	return false;
}

/* Is a the address of b (the port aside)? */
static bool
httpd_same_peer(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	const struct sockaddr_in	*a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6	*a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&a6->sin6_addr, &b6->sin6_addr,
		    sizeof(a6->sin6_addr)) == 0;
	return true;
}

/*
 * Room for a connection from peer: true if there is, or once the oldest
 * connection that has not sent its request (from peer, if it is peer's
 * share that is full) is dropped for it.
 */
static bool
httpd_room(struct httpd *h, const struct sockaddr_storage *peer)
{
	struct httpd_conn	*c, *oldest = NULL;
	unsigned		 mine = 0;
	bool			 peer_full;

	LIST_FOREACH(c, &h->conns, entry)
		if (httpd_same_peer(&c->peer, peer))
			mine++;
	peer_full = mine >= HTTPD_CONNS_PEER;
	if (!peer_full && h->nconns < HTTPD_CONNS_MAX)
		return true;
	LIST_FOREACH(c, &h->conns, entry)	/* newest first */
		if (!c->answered && (!peer_full ||
		    httpd_same_peer(&c->peer, peer)))
			oldest = c;
	if (oldest == NULL)
		return false;
	httpd_conn_free(oldest);
	return true;
}

static void
httpd_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	static const char	busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				    "Content-Length: 0\r\nConnection: close"
				    "\r\n\r\n";
	static const char	denied[] = "HTTP/1.1 403 Forbidden\r\n"
				    "Content-Length: 0\r\nConnection: close"
				    "\r\n\r\n";
	struct httpd		*h = container_of(w, struct httpd, w);
	struct httpd_conn	*c;
	struct sockaddr_storage	 peer;
	socklen_t		 len;
	int			 fd, i;

	(void)revents;
	for (i = 0; i < 16; i++) {
		len = sizeof(peer);
		memset(&peer, 0, sizeof(peer));
		fd = accept4(h->fd, (struct sockaddr *)&peer, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)) {
			ev_io_stop(loop, &h->w);
			ev_timer_set(&h->retry_w, HTTPD_RETRY_MS / 1000.0, 0.);
			ev_timer_start(loop, &h->retry_w);
			return;
		}
		if (fd < 0)
			return;
		if (!httpd_user_ok(h, fd)) {
			(void)!send(fd, denied, sizeof(denied) - 1,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		if (!httpd_room(h, &peer) ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
			close(fd);
			continue;
		}
		c->h = h;
		c->fd = fd;
		c->peer = peer;
		ev_io_init(&c->io, httpd_on_io, fd, EV_READ);
		c->io.data = c;
		ev_timer_init(&c->timer, httpd_on_timer,
		    *h->timeout_ms / 1000.0, 0.);
		c->timer.data = c;
		ev_io_start(loop, &c->io);
		ev_timer_start(loop, &c->timer);
		LIST_INSERT_HEAD(&h->conns, c, entry);
		h->nconns++;
	}
}

void
httpd_init(struct httpd *h)
{
	h->fd = -1;
	LIST_INIT(&h->conns);
	ev_init(&h->retry_w, httpd_on_retry);
}

/* Start answering on the listening socket fd. */
static void
httpd_take(struct httpd *h, int fd)
{
	struct sockaddr_storage	ss;
	socklen_t		len = sizeof(ss);

	h->fd = fd;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		format_inet_addr(h->addr, sizeof(h->addr), &ss);
	ev_io_init(&h->w, httpd_on_accept, fd, EV_READ);
	ev_io_start(h->loop, &h->w);
}

/*
 * Listen on spec (parse_inet_addr(); NULL or "none": off).  The socket
 * before is closed only once the new one is bound: a reload to an
 * address in use keeps the old.  0, or -errno with why in err.
 */
int
httpd_listen(struct httpd *h, const char *spec, char *err, size_t n)
{
	struct sockaddr_storage	ss;
	socklen_t		len;
	char			*copy = NULL;
	int			fd = -1, one = 1;

	if (spec != NULL && strcmp(spec, "none") != 0) {
		if (parse_inet_addr(spec, &ss, &len) < 0) {
			snprintf(err, n, "'%s' is not HOST:PORT", spec);
			return -EINVAL;
		}
		if ((copy = strdup(spec)) == NULL) {
			snprintf(err, n, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one)) < 0 || bind(fd, (struct sockaddr *)&ss,
		    len) < 0 || listen(fd, 64) < 0) {
			int	e = errno;

			snprintf(err, n, "%s: %s", spec, strerror(e));
			if (fd >= 0)
				close(fd);
			free(copy);
			return -e;
		}
	}
	httpd_close(h);
	h->spec = copy;
	if (fd >= 0) {
		httpd_take(h, fd);
		log_info("metrics: http://%s/metrics", h->addr);
	}
	return 0;
}

/* Stop listening, and drop every connection. */
void
httpd_close(struct httpd *h)
{
	struct httpd_conn	*c, *next;

	for (c = LIST_FIRST(&h->conns); c; c = next) {
		next = LIST_NEXT(c, entry);
		httpd_conn_free(c);
	}
	if (h->fd >= 0) {
		ev_io_stop(h->loop, &h->w);
		ev_timer_stop(h->loop, &h->retry_w);
		close(h->fd);
		h->fd = -1;
	}
	free(h->spec);
	h->spec = NULL;
	h->addr[0] = '\0';
	buf_free(&h->built);
	h->built_at = 0;
}

/* For the next binary: the listening socket and what it was asked. */
void
httpd_state_save(const struct httpd *h, struct st_w *w)
{
	st_begin(w, "httpd");
	st_fd(w, "fd", h->fd);
	st_str(w, "spec", h->spec ? h->spec : "");
	st_u64(w, "served", h->served);
	st_end(w);
}

int
httpd_state_load(struct httpd *h, struct st_r *r)
{
	char	*spec = NULL;
	int	 fd = -1;

	if (!st_enter(r, "httpd"))
		return st_bad(r) ? -EINVAL : 0;
	st_get_fd(r, "fd", &fd);
	st_get_str(r, "spec", &spec);
	st_get_u64(r, "served", &h->served);
	st_leave(r);
	if (st_bad(r)) {
		free(spec);
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	if (fd >= 0 && spec && *spec) {
		h->spec = spec;
		httpd_take(h, fd);
	} else {
		free(spec);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
