/* security.h - what a service may not do, as a report and as warnings */
#ifndef PIDVISOR_SECURITY_H
#define PIDVISOR_SECURITY_H

#include <stdbool.h>

#include "util.h"

struct svc_def;

/* pidvisorctl security: the report of one service. */
void	security_report(struct buf *b, const struct svc_def *d, bool json);

struct conf;

/* pidvisor --check: protections that undo each other. */
void	security_conf_check(struct conf *c, const struct svc_def *d);
void	security_warn(const struct svc_def *d,
	    void (*warn)(void *, const char *), void *arg);

#endif
