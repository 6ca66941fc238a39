/*
 * service_env.c - the environment of a service's processes (env.c makes
 * it): its own, kept while its definition stands, and each spawn's with
 * the fds it is passed (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "cgroup.h"
#include "env.h"
#include "service.h"
#include "core.h"

/*
 * MEMORY_PRESSURE_WATCH for a service, into buf: its cgroup's
 * memory.pressure (which its spawn makes its user's), or with
 * memory_pressure_watch = on and no cgroups the system's; NULL: none.
 */
static const char *
service_mp_watch(struct core *core, const struct svc_def *d, char *buf,
    size_t n)
{
	if (d->memory_pressure_watch == MP_OFF)
		return NULL;
	if (core->cg->base_fd >= 0 && (size_t)snprintf(buf, n,
	    "%s/%s/memory.pressure", core->cg->base, d->name) < n)
		return buf;
	return d->memory_pressure_watch == MP_ON ? "/proc/pressure/memory" :
	    NULL;
}

/*
 * The environment of a service (env.c): the shared base, ours less our
 * own NOTIFY_SOCKET, unless it has env keys, is a notify service or
 * is told of memory pressure.  Its env files are read by its spawn
 * child, on top of this.
 */
static int
service_env_make(struct core *core, struct service *ss)
{
	const struct svc_def	*d = ss->svc.def;
	char			 mp[PATH_MAX];
	const struct env_req	 r = {
		.base = core->base_env, .keys = d->env,
		.notify = ready_kinds[d->ready].notify ? ss->notify_path : NULL,
		.watchdog_ms = d->watchdog,
		.mp_watch = service_mp_watch(core, d, mp, sizeof(mp)),
		.mp_threshold_ms = d->memory_pressure_threshold,
	};
	const char		*path;
	int			 rc;

	if ((rc = env_build(&r, &ss->envp, &path, &ss->pid_slot)) < 0)
		return rc;
	ss->path = path ? path : core->base_path;
	return 0;
}

/*
 * The fds its next process gets (socks.c) into pass, and the
 * environment of that spawn (sp's, not the service's: a hook may be
 * reading that), with LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES.
 */
int
service_env_socks(struct core *core, struct service *ss,
    struct service_spawn *sp, int *pass, int *n, char **slots)
{
	const struct svc_def	*d = ss->svc.def;
	struct buf		 names = { 0 };
	char			 mp[PATH_MAX];
	struct env_req		 r = {
		.base = core->base_env, .keys = d->env,
		.notify = ready_kinds[d->ready].notify ? ss->notify_path : NULL,
		.watchdog_ms = d->watchdog, .listen_slot = &slots[1],
		.mp_watch = service_mp_watch(core, d, mp, sizeof(mp)),
		.mp_threshold_ms = d->memory_pressure_threshold,
	};
	const char		*path;
	int			 rc;

	env_free(sp->envp);
	sp->envp = NULL;
	*n = socks_pass(&ss->svc, pass, &names);
	r.listen_fds = (uint32_t)*n;
	r.listen_names = names.data ? names.data : "";
	rc = names.nomem ? -ENOMEM : env_build(&r, &sp->envp, &path,
	    &slots[0]);
	buf_free(&names);
	return rc;
}

int
service_env(struct core *core, struct service *ss)
{
	const struct svc_def	*d = ss->svc.def;
	char			 mp[PATH_MAX];

	ss->envp = NULL;
	ss->pid_slot = NULL;
	ss->path = core->base_path;
	if (d->env == NULL && !ready_kinds[d->ready].notify && d->watchdog == 0 &&
	    service_mp_watch(core, d, mp, sizeof(mp)) == NULL)
		return 0;
	return service_env_make(core, ss);
}

void
service_env_free(struct service *ss)
{
	env_free(ss->envp);
	ss->envp = NULL;
	ss->pid_slot = NULL;
	ss->path = NULL;
}

