/* cgroup.h - a cgroup v2 per service */
#ifndef PIDVISOR_CGROUP_H
#define PIDVISOR_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"

struct cgroups {
	int	 base_fd;	/* the services' parent; -1: no cgroups */
	char	*base;		/* its path */
	char	 why[160];	/* why there are none */
};

int	cgroup_init(struct cgroups *cg, const struct sup_conf *sc, bool pid1);
int	cgroup_adopt(struct cgroups *cg, const char *base, const char *why);
void	cgroup_fini(struct cgroups *cg);
int	cgroup_svc_open(struct cgroups *cg, const struct svc_def *d);
void	cgroup_svc_remove(struct cgroups *cg, const char *name);
int	cgroup_read_u64(int dirfd, const char *file, uint64_t *v);
int	cgroup_read_limit(int dirfd, const char *file, uint64_t *v);
int	cgroup_events(int dirfd, uint64_t *oom, uint64_t *oom_kill);
int	cgroup_kill(int dirfd);
int	cgroup_signal(int dirfd, int sig);
#define CGROUP_PIDFDS_MAX	64
int	cgroup_pidfds(int dirfd, int *out, pid_t *pid, size_t max);
int	cgroup_freeze(int dirfd, bool on);
int	cgroup_write(int dirfd, const char *file, const char *val);
bool	cgroup_pid_in(const struct cgroups *cg, const char *name, pid_t pid);

#endif
