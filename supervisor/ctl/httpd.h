/* httpd.h - GET /metrics over HTTP, answered on the loop */
#ifndef PIDVISOR_HTTPD_H
#define PIDVISOR_HTTPD_H

#include <sys/queue.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "util.h"

#define HTTPD_CONNS_MAX	16	/* at once ... */
#define HTTPD_CONNS_PEER 4	/* ... and from one address */
#define HTTPD_REQ_MAX	4096	/* a request's head, at most */
#define HTTPD_RETRY_MS	100	/* out of fds: accept again after */
#define HTTPD_LINGER_MS	1000	/* answered: its close awaited so long */
#define HTTPD_BODY_AGE	1.0	/* s: a body built is served so long */

struct httpd_conn;
LIST_HEAD(httpd_conns, httpd_conn);

struct httpd {
	/* What it works with, set before httpd_listen(). */
	struct ev_loop		*loop;
	int			(*body)(void *ctx, struct buf *b);
	void			*ctx;
	const uint32_t		*timeout_ms;	/* a whole exchange */
	uid_t *const		*users;		/* whose connections it takes */
	const size_t		*nusers;	/* ... 0: anyone's */
	/* Its own. */
	int			 fd;		/* -1: off */
	char			*spec;		/* as configured */
	char			 addr[64];	/* as bound, HOST:PORT */
	ev_io			 w;
	ev_timer		 retry_w;
	struct httpd_conns	 conns;
	unsigned		 nconns;
	uint64_t		 served;	/* 200s */
	struct buf		 built;		/* the last body built ... */
	ev_tstamp		 built_at;	/* ... at; 0: none */
};

/* 0: incomplete; else the status to answer (200: GET or HEAD /metrics). */
int	http_parse(const char *p, size_t n, bool *head);

void	httpd_init(struct httpd *h);
int	httpd_listen(struct httpd *h, const char *spec, char *err, size_t n);
void	httpd_close(struct httpd *h);

struct st_w;
struct st_r;
void	httpd_state_save(const struct httpd *h, struct st_w *w);
int	httpd_state_load(struct httpd *h, struct st_r *r);

#endif
