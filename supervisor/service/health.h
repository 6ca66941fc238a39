/* health.h - a service's health checks (health.c) */
#ifndef PIDVISOR_HEALTH_H
#define PIDVISOR_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "svc.h"

struct core;

/* What status says of a service's health. */
enum health_state {
	HEALTH_NONE,		/* no health_exec, or not running */
	HEALTH_STARTING,	/* not passed since its start */
	HEALTH_HEALTHY,
	HEALTH_UNHEALTHY,	/* failed health_retries times in a row */
};

/*
 * Until a check first passed, checks come this often (or at
 * health_interval, if that is sooner): ready = health is told soon.
 */
#define HEALTH_START_PACE	1000	/* ms */

/* A service's checks (a part of struct service). */
struct health {
	ev_timer	 w;		/* the next check */
	struct core	*core;
	struct svc	*svc;
	uint8_t		 state;		/* enum health_state */
	bool		 running;	/* a check runs (core->check) */
	uint32_t	 fails;		/* in a row */
	int32_t		 status;	/* of the last failed check */
};

void		 health_init(struct health *h, struct core *core,
		     struct svc *s);
void		 health_changed(struct health *h, enum svc_state from);
void		 health_result(struct health *h, int status);
void		 health_end(struct health *h);
const char	*health_name(enum health_state h);

#endif
