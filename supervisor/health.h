/* health.h - a service's health checks (health.c) */
#ifndef PIDVISOR_HEALTH_H
#define PIDVISOR_HEALTH_H

#include "svc.h"

struct sup;
struct service;

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

void		 health_init(struct service *ss);
void		 health_changed(struct sup *sup, struct service *ss,
		     enum svc_state from);
void		 health_result(struct sup *sup, struct service *ss, int status);
void		 health_end(struct sup *sup, struct service *ss);
const char	*health_name(enum health_state h);

#endif
