/* cgroup.h - a cgroup v2 per service */
#ifndef PIDVISOR_CGROUP_H
#define PIDVISOR_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"

struct cgroups {
	int	 base_fd;	/* the services' parent; -1: no cgroups */
	char	*base;		/* its path */
	char	 why[160];	/* why there are none */
};

int	cgroup_init(struct cgroups *, const struct sup_conf *, bool);
void	cgroup_fini(struct cgroups *);
int	cgroup_svc_open(struct cgroups *, const struct svc_def *);
void	cgroup_svc_remove(struct cgroups *, const char *);
int	cgroup_read_u64(int, const char *, uint64_t *);
int	cgroup_read_limit(int, const char *, uint64_t *);
int	cgroup_events(int, uint64_t *, uint64_t *);
int	cgroup_kill(int);
int	cgroup_signal(int, int);
bool	cgroup_empty(int);

#endif
