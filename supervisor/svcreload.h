/* svcreload.h - a service's own reload (svcreload.c) */
#ifndef PIDVISOR_SVCRELOAD_H
#define PIDVISOR_SVCRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <ev.h>

#include "pidmap.h"
#include "spawn.h"
#include "svc.h"

struct sup;
struct service;

/* A reload_exec process, while it runs. */
struct svcreload {
	struct spawn_proc	 proc;
	ev_io			 io;		/* its spawn report */
	ev_io			 death;		/* its pidfd */
	struct pidmap_node	 pm;
	char			**argv;		/* $MAINPID put in */
	struct service		*ss;		/* whose it is */
	pid_t			 pid;
	uint32_t		 fails;		/* svc.reload_fails at start */
	bool			 killed;	/* svcreload_cancel() */
};

int	svcreload_start(struct sup *sup, struct svc *s, char *err, size_t n);
void	svcreload_reap(struct sup *sup, struct service *ss);
void	svcreload_end(struct sup *sup, struct service *ss, int status);
void	svcreload_cancel(struct service *ss);

#endif
