/*
 * service_env.c - the environment of a service's processes (env.c makes
 * it): its own, kept while its definition stands, and each spawn's with
 * the fds it is passed (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
 * TERM for a service with a terminal, as systemd sets it: linux on a
 * virtual console (/dev/ttyN; /dev/console when the kernel's last
 * console is one), vt220 elsewhere (a serial line, a pty).
 */
static const char *
service_env_term(const char *tty)
{
	char		 active[128];
	const char	*name = tty + 5, *s;
	ssize_t		 n = -1;
	int		 fd;

	if (strcmp(tty, "/dev/console") == 0 && (fd = open(
	    "/sys/class/tty/console/active", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, active, sizeof(active) - 1);
		close(fd);
	}
	if (n > 0) {
		active[n] = '\0';
		active[strcspn(active, "\n")] = '\0';
		name = (s = strrchr(active, ' ')) ? s + 1 : active;
	} else if (strncmp(tty, "/dev/", 5) != 0) {
		return "TERM=vt220";
	}
	if (strncmp(name, "tty", 3) != 0 || name[3] == '\0')
		return "TERM=vt220";
	for (s = name + 3; *s >= '0' && *s <= '9'; s++)
		;
	return *s == '\0' ? "TERM=linux" : "TERM=vt220";
}

/* Does its env key set the variable of kv ("NAME=...")? */
static bool
service_env_set(const struct svc_def *d, const char *kv)
{
	size_t		 n = strcspn(kv, "=") + 1;
	char *const	*w;

	for (w = d->env; w && *w; w++)
		if (strncmp(*w, kv, n) == 0)
			return true;
	return false;
}

/*
 * Its env keys, TERM, RUNTIME_DIRECTORY and the like first (systemd's:
 * each the paths of its key, ':'-separated), unless an env key sets
 * them: *keys is d->env itself, or a vector the caller frees (*own).
 * 0, or -ENOMEM.
 */
static int
service_env_keys(const struct svc_def *d, char *const **keys, char ***own)
{
	struct buf	 b = { 0 };
	char		**v = NULL, *const *w;
	int		  k;

	*keys = d->env;
	*own = NULL;
	if (d->tty && !service_env_set(d, "TERM=") &&
	    (v = strv_add(v, service_env_term(d->tty))) == NULL)
		return -ENOMEM;
	for (k = 0; k < DIR__KINDS; k++) {
		if (d->dirs[k] == NULL)
			continue;
		b.len = 0;
		buf_printf(&b, "%s=", dir_kinds[k].env);
		for (w = d->dirs[k]; *w; w++)
			buf_printf(&b, "%s%s/%s", w == d->dirs[k] ? "" : ":",
			    dir_kinds[k].base, *w);
		if (b.nomem || buf_add(&b, "", 1) < 0)
			goto nomem;
		if (!service_env_set(d, b.data) &&
		    (v = strv_add(v, b.data)) == NULL)
			goto nomem;
	}
	buf_free(&b);
	if (v == NULL)
		return 0;
	for (w = d->env; w && *w; w++)
		if ((v = strv_add(v, *w)) == NULL)
			return -ENOMEM;
	*keys = *own = v;
	return 0;
nomem:
	buf_free(&b);
	strv_free(v);
	return -ENOMEM;
}

/* Does d give its processes variables of its own (TERM, directories)? */
static bool
service_env_dirs(const struct svc_def *d)
{
	int	k;

	if (d->tty)
		return true;
	for (k = 0; k < DIR__KINDS; k++)
		if (d->dirs[k] != NULL)
			return true;
	return false;
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
	char			 mp[PATH_MAX], **own;
	struct env_req		 r = {
		.base = core->base_env, .keys = d->env,
		.notify = ready_kinds[d->ready].notify ? ss->notify_path : NULL,
		.watchdog_ms = d->watchdog,
		.mp_watch = service_mp_watch(core, d, mp, sizeof(mp)),
		.mp_threshold_ms = d->memory_pressure_threshold,
	};
	const char		*path;
	int			 rc;

	if ((rc = service_env_keys(d, &r.keys, &own)) < 0)
		return rc;
	/* envp points into its keys: they stay while it does. */
	if ((rc = env_build(&r, &ss->envp, &path, &ss->pid_slot)) < 0) {
		strv_free(own);
		return rc;
	}
	ss->env_keys = own;
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
	if (ss->env_keys != NULL)
		r.keys = ss->env_keys;
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
	ss->env_keys = NULL;
	ss->pid_slot = NULL;
	ss->path = core->base_path;
	if (d->env == NULL && !ready_kinds[d->ready].notify && d->watchdog == 0 &&
	    service_mp_watch(core, d, mp, sizeof(mp)) == NULL &&
	    !service_env_dirs(d))
		return 0;
	return service_env_make(core, ss);
}

void
service_env_free(struct service *ss)
{
	env_free(ss->envp);
	strv_free(ss->env_keys);
	ss->envp = NULL;
	ss->env_keys = NULL;
	ss->pid_slot = NULL;
	ss->path = NULL;
}

