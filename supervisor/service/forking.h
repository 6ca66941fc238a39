/* forking.h - ready = forking: finding the daemon a first process left */
#ifndef PIDVISOR_FORKING_H
#define PIDVISOR_FORKING_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "svc.h"

struct core;
struct forking_reader;
struct pidmap_node;

/*
 * A service's search for its daemon, from the exit 0 of its first
 * process to the daemon as its main process (a part of struct service;
 * active goes in the re-exec state, and the next binary goes on).  The
 * daemon found, core->forked makes it the main process; none found,
 * core->fork_failed tells the first process's death.
 */
struct forking {
	bool			 active;	/* searching now */
	uint32_t		 delay;		/* ms, the next try's */
	ev_timer		 w;		/* the next try */
	struct forking_reader	*reader;	/* reading pid_file; NULL */
	struct core		*core;
	struct svc		*svc;
	const int		*cgfd;		/* its cgroup's; -1: none */
};

void	forking_init(struct forking *f, struct core *core, struct svc *s,
	    const int *cgfd);
bool	forking_wanted(const struct forking *f);
void	forking_start(struct forking *f);
void	forking_changed(struct forking *f);
void	forking_stop(struct forking *f);
bool	forking_reaped(struct core *core, struct pidmap_node *pm);

#endif
