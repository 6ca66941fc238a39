/*
 * httpd.c - metrics_listen: GET /metrics over HTTP, on the loop.
 *
 * Why not a helper process: the numbers are the loop's own state, and a
 * helper would need a protocol to ask for them, which is what this is.
 * So the responder is kept small enough to trust in PID 1: one request
 * per connection, its head at most HTTPD_REQ_MAX bytes in a fixed
 * buffer, parsed by http_parse() alone (fuzzed: tests/fuzz/fuzz_http.c),
 * at most HTTPD_CONNS_MAX connections (the next get a 503 and go), and
 * the whole exchange within client_timeout.  Nothing blocks: the reply
 * is sent as the socket takes it, then our side is shut and the
 * connection closed once the peer closes too (or the deadline comes),
 * so that no unread byte turns the close into a reset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
	struct buf	body = { 0 };
	const char	*text = "Error";
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(st); i++)
		if (st[i].code == status)
			text = st[i].text;
	if (status == 200 && c->h->body(c->h->ctx, &body) < 0) {
		buf_free(&body);
		status = 500;
		text = "Internal Server Error";
	}
	if (status != 200)
		buf_printf(&body, "%d %s\n", status, text);
	if (status == 200)
		c->h->served++;
	buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n%s\r\n", status, text,
	    status == 200 ? "text/plain; version=0.0.4; charset=utf-8" :
	    "text/plain; charset=utf-8", body.len,
	    status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head)
		buf_add(&c->out, body.data, body.len);
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
		if (sock_peer_gone(c->fd))
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

static void
httpd_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	static const char	busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				    "Content-Length: 0\r\nConnection: close"
				    "\r\n\r\n";
	struct httpd		*h = container_of(w, struct httpd, w);
	struct httpd_conn	*c;
	int			 fd, i;

	(void)revents;
	for (i = 0; i < 16; i++) {
		fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)) {
			ev_io_stop(loop, &h->w);
			ev_timer_set(&h->retry_w, HTTPD_RETRY_MS / 1000.0, 0.);
			ev_timer_start(loop, &h->retry_w);
			return;
		}
		if (fd < 0)
			return;
		if (h->nconns >= HTTPD_CONNS_MAX ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
			close(fd);
			continue;
		}
		c->h = h;
		c->fd = fd;
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
}

/* For the next binary: the listening socket and what it was asked. */
void
httpd_state_save(const struct httpd *h, struct st_w *w)
{
	st_fd(w, h->fd);
	st_str(w, h->spec ? h->spec : "");
	st_u64(w, h->served);
}

int
httpd_state_load(struct httpd *h, struct st_r *r)
{
	char	*spec = NULL;
	int	 fd = st_get_fd(r);

	st_get_str(r, &spec);
	h->served = st_get_u64(r);
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
