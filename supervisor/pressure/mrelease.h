/* mrelease.h - process_mrelease() off the loop, in a thread of its own */
#ifndef PIDVISOR_MRELEASE_H
#define PIDVISOR_MRELEASE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

/* What the thread says of one request. */
struct mrelease_result {
	uint32_t	seq;
	int32_t		err;		/* 0, or the errno of process_mrelease */
	int64_t		took_us;
};

struct mrelease {
	int		 req[2];	/* the loop writes requests to [1] */
	int		 res[2];	/* the thread writes results to [1] */
	ev_io		 w;		/* res[0], in the loop */
	pthread_t	 thread;
	bool		 running;
	bool		 busy;		/* a request is being reaped */
	void		(*done)(struct mrelease *, const struct mrelease_result *);
};

int	mrelease_start(struct mrelease *r, struct ev_loop *loop,
	    void (*done)(struct mrelease *, const struct mrelease_result *));
int	mrelease_submit(struct mrelease *r, int pidfd, uint32_t seq);
void	mrelease_stop(struct mrelease *r, struct ev_loop *loop);

#endif
