/* mainpid.h - who may speak for a notify service (mainpid.c) */
#ifndef PIDVISOR_MAINPID_H
#define PIDVISOR_MAINPID_H

#include <sys/types.h>

#include <ev.h>

#include "svc.h"

struct svc	*mainpid_lookup(void *ctx, pid_t pid);
void		 mainpid_set(void *ctx, struct svc *s, pid_t pid);
void		 mainpid_on_prev_death(struct ev_loop *loop, ev_io *w,
		     int revents);

#endif
