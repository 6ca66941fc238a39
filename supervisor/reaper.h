/* reaper.h - process_mrelease() off the loop, in a thread of its own */
#ifndef PIDVISOR_REAPER_H
#define PIDVISOR_REAPER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

/* What the thread says of one request. */
struct reaper_result {
	uint32_t	seq;
	int32_t		err;		/* 0, or the errno of process_mrelease */
	int64_t		took_us;
};

struct reaper {
	int		 req[2];	/* the loop writes requests to [1] */
	int		 res[2];	/* the thread writes results to [1] */
	ev_io		 w;		/* res[0], in the loop */
	pthread_t	 thread;
	bool		 running;
	bool		 busy;		/* a request is being reaped */
	void		(*done)(struct reaper *, const struct reaper_result *);
};

int	reaper_start(struct reaper *r, struct ev_loop *loop,
	    void (*done)(struct reaper *, const struct reaper_result *));
int	reaper_submit(struct reaper *r, int pidfd, uint32_t seq);
void	reaper_stop(struct reaper *r, struct ev_loop *loop);

#endif
