/* mainpid.h - who may speak for a notify service (mainpid.c) */
#ifndef PIDVISOR_MAINPID_H
#define PIDVISOR_MAINPID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "svc.h"

struct cgroups;

/* MAINPID= of a service: how often it is looked at, said (service.h). */
struct mainpid {
	pid_t		 refused;	/* MAINPID= refused last */
	int64_t		 second;	/* this second's */
	int64_t		 warned;	/* last warned at */
	uint32_t	 count;
	uint32_t	 quiet;		/* not warned of since */
};

bool		 mainpid_allowed(struct mainpid *m, pid_t pid);
void		 mainpid_refused(struct mainpid *m, const char *name,
		     pid_t pid, const char *why, bool remember);
const char	*mainpid_belongs(const struct svc *s,
		     const struct cgroups *cg, pid_t pid, bool orphan);
bool		 mainpid_held(const struct svc *s, bool handed);
bool		 pidfd_exited(int fd);

#endif
