/* socks.h - the fds pidvisor holds for a service: its sockets, its store */
#ifndef PIDVISOR_SOCKS_H
#define PIDVISOR_SOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "listen.h"
#include "util.h"

/*
 * Where an accepted client comes from, for max_connections_per_source:
 * its address (inet), or its user (unix, SO_PEERCRED).
 */
struct socks_src {
	uint8_t		family;		/* 0: not known */
	uint8_t		addr[16];
	uint32_t	uid;
};

/* One fd held: a socket bound for listen (spec), or one it stored. */
struct held_fd {
	int		 fd;
	char		*spec;		/* listen's value; NULL: stored */
	char		*name;		/* stored: FDNAME= */
	struct file_id	 id;		/* a unix socket's path */
};

struct socks {
	struct held_fd	*listen;	/* as its listen keys say, in order */
	uint32_t	 nlisten;
	struct held_fd	*store;		/* its fd store, oldest first */
	uint32_t	 nstore;
	ev_io		*watch;		/* LISTENING: one per listen fd */
	ev_timer	 retry;		/* accept ran out of fds: later */
	bool		 watching;
	uint32_t	 conns;		/* accept listener: instances alive */
	uint32_t	 seq;		/* ... the last one's number */
	int		 conn;		/* accept instance: its client until
					 * its spawn is over; -1 */
	bool		 counted;	/* ... counted in its listener's conns */
	struct socks_src src;		/* ... where its client came from */
	int64_t		 trig_begin;	/* clients (or starts on demand) ... */
	uint32_t	 trig_count;	/* ... counted since, for the limit */
	int64_t		 refused_at;	/* per source: last said, and ... */
	uint32_t	 refused;	/* ... refused since */
	struct svc	*svc;		/* whose */
	int64_t		 logged_at;	/* instances logged: this second's */
	uint32_t	 logged;	/* ... count, and ... */
	uint32_t	 unlogged;	/* ... those not logged, said ... */
	ev_timer	 unlogged_w;	/* ... at the second's end */
};

#define SOCKS_LOGGED_MAX	10	/* instances logged a second, at most */

struct core;
struct svc;
struct svc_def;
struct st_w;
struct st_r;

int	socks_prepare(struct svc *s, const struct svc_def *d,
	    struct held_fd **out, uint32_t *nout, char *err, size_t n);
void	socks_abort(struct svc *s, struct held_fd *v, uint32_t n);
int	socks_commit(struct svc *s, struct held_fd *v, uint32_t n);
int	socks_open(struct svc *s);
int	socks_pass(struct svc *s, int *fds, struct buf *names);
int	socks_watch(struct svc *s, bool on);
void	socks_spawned(struct svc *s);
void	socks_changed(struct svc *s);
void	socks_free(struct svc *s);
void	socks_store_add(struct svc *s, int *fds, size_t n,
	    const char *name, size_t len, size_t refused);
void	socks_store_remove(struct svc *s, const char *name, size_t len);
void	socks_store_drop(struct svc *s);
void	socks_save(const struct socks *sk, struct st_w *w);
int	socks_load(struct svc *s, struct st_r *r);

#endif
