/*
 * cgroup.c - a cgroup v2 per service.
 *
 * Services live in BASE/NAME, BASE being /sys/fs/cgroup/pidvisor when we
 * run in the root cgroup (PID 1), or a "services" cgroup beside our own
 * when we are somewhere below it (we move into a "supervisor" leaf so
 * that our cgroup may hand the memory and pids controllers down), or
 * cgroup_root from pidvisor.ini.  A child is placed in its cgroup by
 * clone3(CLONE_INTO_CGROUP), so no process of a service ever runs outside
 * it.  Without a writable cgroup v2 tree, services run without one and
 * status says why.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "spawn.h"
#include "sys.h"

#define CGROUP2_MAGIC	0x63677270
#define CGROUP_FS	"/sys/fs/cgroup"

/* Write a short string into file under dirfd. */
static int
cg_write(int dirfd, const char *file, const char *val)
{
	ssize_t	n;
	int	fd, err = 0;

	if ((fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Read a small file under dirfd into buf. */
static ssize_t
cg_read(int dirfd, const char *file, char *buf, size_t len)
{
	return read_small(dirfd, file, buf, len);
}

/* A number from a one-number file (memory.current). */
int
cgroup_read_u64(int dirfd, const char *file, uint64_t *v)
{
	char	buf[64];
	ssize_t	n;

	if ((n = cg_read(dirfd, file, buf, sizeof(buf))) < 0)
		return (int)n;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* A limit (memory.high, memory.max): a number, or UINT64_MAX for max. */
int
cgroup_read_limit(int dirfd, const char *file, uint64_t *v)
{
	char	buf[64];
	ssize_t	n;

	if ((n = cg_read(dirfd, file, buf, sizeof(buf))) < 0)
		return (int)n;
	*v = strncmp(buf, "max", 3) == 0 ? UINT64_MAX :
	    strtoull(buf, NULL, 10);
	return 0;
}

/* oom and oom_kill from memory.events. */
int
cgroup_events(int dirfd, uint64_t *oom, uint64_t *oom_kill)
{
	char		 buf[512], *line, *save = NULL;
	unsigned long long v;
	ssize_t		 n;

	*oom = *oom_kill = 0;
	if ((n = cg_read(dirfd, "memory.events", buf, sizeof(buf))) < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "oom %llu", &v) == 1)
			*oom = v;
		else if (sscanf(line, "oom_kill %llu", &v) == 1)
			*oom_kill = v;
	}
	return 0;
}

/* SIGKILL to every process of the cgroup, at once (cgroup.kill). */
int
cgroup_kill(int dirfd)
{
	return cg_write(dirfd, "cgroup.kill", "1");
}

static int
pid_cmp(const void *a, const void *b)
{
	pid_t	x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* The PIDs in the cgroup's cgroup.procs, sorted; their count or -errno. */
static ssize_t
cg_procs(int dirfd, pid_t **out)
{
	char	 line[32];
	pid_t	*v = NULL, *nv;
	size_t	 n = 0, cap = 0;
	FILE	*f;
	int	 fd;

	if ((fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (pid_t)atoi(line);
	}
	fclose(f);
	if (n > 1)
		qsort(v, n, sizeof(*v), pid_cmp);
	*out = v;
	return (ssize_t)n;
}

/*
 * Signal every process of the cgroup, each through a pidfd of its own.
 * The PIDs come from cgroup.procs, and one may be reused between the
 * read and pidfd_open(): so each pidfd is taken first, then the PID is
 * looked for in cgroup.procs read again, then the pidfd's process is
 * checked alive.  Alive after the second read, it held its PID during
 * it, so the PID found there was it: it is in the cgroup.  Only then
 * does it get the signal.  (SIGKILL needs none of this: cgroup.kill.)
 */
int
cgroup_signal(int dirfd, int sig)
{
	pid_t	*first = NULL, *again = NULL;
	int	*pfd;
	ssize_t	 n, m, i;
	int	 sent = 0;

	if ((n = cg_procs(dirfd, &first)) <= 0 || first == NULL)
		return (int)n;
	if ((pfd = calloc((size_t)n, sizeof(*pfd))) == NULL) {
		free(first);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		pfd[i] = (int)sys_pidfd_open(first[i], 0);
	if ((m = cg_procs(dirfd, &again)) < 0)
		m = 0;
	for (i = 0; i < n; i++) {
		if (pfd[i] < 0)
			continue;
		if (m > 0 && again != NULL && bsearch(&first[i], again,
		    (size_t)m,
		    sizeof(*again), pid_cmp) != NULL &&
		    pidfd_signal(pfd[i], 0) == 0 &&
		    pidfd_signal(pfd[i], sig) == 0)
			sent++;
		close(pfd[i]);
	}
	free(pfd);
	free(first);
	free(again);
	return sent;
}

/*
 * Pidfds of at most max processes of the cgroup, checked as
 * cgroup_signal() checks them (taken, then found in cgroup.procs read
 * again, then alive); their count, or -errno.  No allocation: for the
 * low-memory killer, which reaps a frozen cgroup's processes each.
 */
int
cgroup_pidfds(int dirfd, int *out, pid_t *pid, size_t max)
{
	char	 buf[4096], again[4096], key[16], *p, *e;
	size_t	 n = 0, i, k = 0, len;
	ssize_t	 r;
	int	 fd;

	if (max > CGROUP_PIDFDS_MAX)
		max = CGROUP_PIDFDS_MAX;
	if ((r = cg_read(dirfd, "cgroup.procs", buf, sizeof(buf))) < 0)
		return (int)r;
	for (p = buf; n < max && *p; p = e) {
		pid[n] = (pid_t)strtol(p, &e, 10);
		if (e == p)
			break;
		if (pid[n] > 0)
			out[n++] = -1;
		while (*e == '\n')
			e++;
	}
	for (i = 0; i < n; i++)
		out[i] = (int)sys_pidfd_open(pid[i], 0);
	if (cg_read(dirfd, "cgroup.procs", again + 1,
	    sizeof(again) - 1) < 0)
		again[1] = '\0';
	again[0] = '\n';
	for (i = 0; i < n; i++) {
		len = (size_t)snprintf(key, sizeof(key), "\n%d\n",
		    (int)pid[i]);
		fd = out[i];
		if (fd < 0)
			continue;
		/* The last line of a read that filled the buffer may be
		 * cut: only whole lines count. */
		if (len < sizeof(key) && strstr(again, key) != NULL &&
		    pidfd_signal(fd, 0) == 0) {
			pid[k] = pid[i];
			out[k++] = fd;
		} else {
			close(fd);
		}
	}
	return (int)k;
}

/* Freeze the cgroup's processes (1), or thaw them (0). */
int
cgroup_freeze(int dirfd, bool on)
{
	return cg_write(dirfd, "cgroup.freeze", on ? "1" : "0");
}

/* Write a short value into one of the cgroup's files. */
int
cgroup_write(int dirfd, const char *file, const char *val)
{
	return cg_write(dirfd, file, val);
}

/*
 * Is pid in the cgroup of service name, or below it?  Read from
 * /proc/PID/cgroup ("0::/path"), not from cgroup.procs: one small read,
 * nothing to sort, however many processes the service has.
 */
bool
cgroup_pid_in(const struct cgroups *cg, const char *name, pid_t pid)
{
	char	path[64], line[PATH_MAX], want[PATH_MAX], *nl;
	size_t	n;

	if (cg->base == NULL || strncmp(cg->base, CGROUP_FS,
	    strlen(CGROUP_FS)) != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (read_small(AT_FDCWD, path, line, sizeof(line)) <= 0 ||
	    strncmp(line, "0::", 3) != 0)
		return false;
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	n = (size_t)snprintf(want, sizeof(want), "%s/%s",
	    cg->base + strlen(CGROUP_FS), name);
	return n < sizeof(want) && strncmp(line + 3, want, n) == 0 &&
	    (line[3 + n] == '\0' || line[3 + n] == '/');
}

/* Is controller a word of the list avail? */
static bool
cg_has(const char *avail, const char *controller)
{
	size_t		n = strlen(controller);
	const char	*p;

	for (p = avail; (p = strstr(p, controller)) != NULL; p += n)
		if ((p == avail || p[-1] == ' ') && (p[n] == '\0' ||
		    p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Hand the memory and pids controllers (those there are) down from dir. */
static int
cg_delegate(int dirfd)
{
	char	avail[256];
	int	rc = 0;

	if (cg_read(dirfd, "cgroup.controllers", avail, sizeof(avail)) < 0)
		return -errno;
	if (strstr(avail, "memory"))
		rc = cg_write(dirfd, "cgroup.subtree_control", "+memory");
	if (rc == 0 && strstr(avail, "pids"))
		rc = cg_write(dirfd, "cgroup.subtree_control", "+pids");
	return rc;
}

/* Our own cgroup, from /proc/self/cgroup ("0::/path"). */
static int
cg_self(char *path, size_t len)
{
	char	 line[PATH_MAX];
	FILE	*f = fopen("/proc/self/cgroup", "re");
	int	 rc = -ENOENT;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			if (strlen(line + 3) < len) {
				memcpy(path, line + 3, strlen(line + 3) + 1);
				rc = 0;
			} else {
				rc = -ENAMETOOLONG;
			}
		}
	fclose(f);
	return rc;
}

/*
 * Hand cpu and io down one level from dir, to the services' parent,
 * which passes them on once a service asks (cg_cpu_io()).  Where they
 * cannot be had, a service that asks is told so.
 */
static void
cg_offer(int dirfd)
{
	char	avail[256];

	if (cg_read(dirfd, "cgroup.controllers", avail, sizeof(avail)) <= 0)
		return;
	if (cg_has(avail, "cpu"))
		cg_write(dirfd, "cgroup.subtree_control", "+cpu");
	if (cg_has(avail, "io"))
		cg_write(dirfd, "cgroup.subtree_control", "+io");
}

/* Give up on cgroups and say why; returns err. */
static int
cg_none(struct cgroups *cg, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cg_none(struct cgroups *cg, int err, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(cg->why, sizeof(cg->why), fmt, ap);
	va_end(ap);
	if (cg->base_fd >= 0)
		close(cg->base_fd);
	cg->base_fd = -1;
	free(cg->base);
	cg->base = NULL;
	return err;
}

/*
 * Find or make the services' parent cgroup and hand it the controllers;
 * set memory.high on it if asked to.
 */
int
cgroup_init(struct cgroups *cg, const struct sup_conf *sc, bool pid1)
{
	char		self[PATH_MAX - 64], path[PATH_MAX], val[32];
	struct statfs	sf;
	int		dir, rc;

	cg->base_fd = -1;
	cg->base = NULL;
	if (sc->cgroup_root && strcmp(sc->cgroup_root, "none") == 0)
		return cg_none(cg, 0, "turned off in pidvisor.ini");
	if (statfs(CGROUP_FS, &sf) < 0 || sf.f_type != CGROUP2_MAGIC)
		return cg_none(cg, 0, "no cgroup v2 at " CGROUP_FS);
	if (sc->cgroup_root) {
		snprintf(path, sizeof(path), "%s", sc->cgroup_root);
	} else {
		if ((rc = cg_self(self, sizeof(self))) < 0)
			return cg_none(cg, rc, "/proc/self/cgroup: %s",
			    strerror(-rc));
		if (strcmp(self, "/") == 0) {
			snprintf(path, sizeof(path), CGROUP_FS "/pidvisor");
		} else {
			/* Move into a leaf; then our cgroup can delegate. */
			snprintf(path, sizeof(path), CGROUP_FS "%s/supervisor",
			    self);
			if ((mkdir(path, 0755) < 0 && errno != EEXIST) ||
			    (dir = open(path, O_DIRECTORY | O_CLOEXEC)) < 0)
				return cg_none(cg, -errno, "%s: %s", path,
				    strerror(errno));
			rc = cg_write(dir, "cgroup.procs", "0");
			close(dir);
			if (rc < 0)
				return cg_none(cg, rc, "%s: %s", path,
				    strerror(-rc));
			snprintf(path, sizeof(path), CGROUP_FS "%s/services",
			    self);
		}
	}
	/* The parent of the base hands down, then the base itself. */
	snprintf(self, sizeof(self), "%.*s", (int)(strrchr(path, '/') - path),
	    path);
	if ((dir = open(self, O_DIRECTORY | O_CLOEXEC)) < 0)
		return cg_none(cg, -errno, "%s: %s", self, strerror(errno));
	rc = cg_delegate(dir);
	if (rc == 0)
		cg_offer(dir);
	close(dir);
	if (rc < 0)
		return cg_none(cg, rc, "%s: %s", self, strerror(-rc));
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return cg_none(cg, -errno, "%s: %s", path, strerror(errno));
	if ((cg->base_fd = open(path, O_DIRECTORY | O_CLOEXEC)) < 0)
		return cg_none(cg, -errno, "%s: %s", path, strerror(errno));
	if ((rc = cg_delegate(cg->base_fd)) < 0)
		return cg_none(cg, rc, "%s: %s", path, strerror(-rc));
	if (sc->cgroup_memory_high) {
		snprintf(val, sizeof(val), "%llu",
		    (unsigned long long)sc->cgroup_memory_high);
		if ((rc = cg_write(cg->base_fd, "memory.high", val)) < 0)
			return cg_none(cg, rc, "%s/memory.high: %s", path,
			    strerror(-rc));
	}
	cg->base = strdup(path);
	cg->why[0] = '\0';
	(void)pid1;
	return 0;
}

/*
 * The services' parent that the binary before us set up (base), or why
 * there is none: cgroup_init() again would move us a level down.
 */
int
cgroup_adopt(struct cgroups *cg, const char *base, const char *why)
{
	cg->base_fd = -1;
	cg->base = NULL;
	if (base == NULL)
		return cg_none(cg, 0, "%s", why ? why : "none");
	if ((cg->base_fd = open(base, O_DIRECTORY | O_CLOEXEC)) < 0)
		return cg_none(cg, -errno, "%s: %s", base, strerror(errno));
	if ((cg->base = strdup(base)) == NULL) {
		close(cg->base_fd);
		cg->base_fd = -1;
		return cg_none(cg, -ENOMEM, "%s", strerror(ENOMEM));
	}
	cg->why[0] = '\0';
	return 0;
}

void
cgroup_fini(struct cgroups *cg)
{
	if (cg->base_fd >= 0)
		close(cg->base_fd);
	cg->base_fd = -1;
	free(cg->base);
	cg->base = NULL;
}

/* Write a limit: a number, or "max" for 0. */
static int
cg_limit(int dirfd, const char *file, uint64_t v)
{
	char	buf[32];

	if (v == 0)
		snprintf(buf, sizeof(buf), "max");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return cg_write(dirfd, file, buf);
}

/*
 * cpu_weight, cpu_max, io_weight: each written if given, else put back
 * to the default (a reload may have dropped it).  The controllers are
 * handed down once asked for (not before: they change how CPU time is
 * shared); one that is not there fails only what asks for it.
 */
static int
cg_cpu_io(struct cgroups *cg, int fd, const struct svc_def *d)
{
	char	val[48], avail[256];
	int	rc;

	/* The cpu and io controllers, once a service asks for them. */
	if ((d->cpu_weight || d->cpu_quota || d->io_weight) &&
	    cg_read(cg->base_fd, "cgroup.controllers", avail,
	    sizeof(avail)) > 0) {
		if ((d->cpu_weight || d->cpu_quota) && cg_has(avail, "cpu"))
			cg_write(cg->base_fd, "cgroup.subtree_control", "+cpu");
		if (d->io_weight && cg_has(avail, "io"))
			cg_write(cg->base_fd, "cgroup.subtree_control", "+io");
	}

	snprintf(val, sizeof(val), "%u", d->cpu_weight ? d->cpu_weight : 100);
	if ((rc = cg_write(fd, "cpu.weight", val)) < 0 &&
	    (rc != -ENOENT || d->cpu_weight))
		return rc;
	if (d->cpu_quota)
		snprintf(val, sizeof(val), "%u %u", d->cpu_quota,
		    d->cpu_period);
	else
		snprintf(val, sizeof(val), "max 100000");
	if ((rc = cg_write(fd, "cpu.max", val)) < 0 &&
	    (rc != -ENOENT || d->cpu_quota))
		return rc;
	snprintf(val, sizeof(val), "default %u", d->io_weight ?
	    d->io_weight : 100);
	if ((rc = cg_write(fd, "io.weight", val)) < 0 &&
	    (rc != -ENOENT || d->io_weight))
		return rc;
	return 0;
}

/*
 * The cgroup of a service, made if need be, with its limits; the
 * directory fd that clone3(CLONE_INTO_CGROUP) takes, or -errno.
 */
int
cgroup_svc_open(struct cgroups *cg, const struct svc_def *d)
{
	int	fd, rc;

	if (cg->base_fd < 0)
		return -EOPNOTSUPP;
	if (mkdirat(cg->base_fd, d->name, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(cg->base_fd, d->name, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((rc = cg_limit(fd, "memory.max", d->memory_max)) < 0 ||
	    (rc = cg_limit(fd, "memory.high", d->memory_high)) < 0 ||
	    (rc = cg_limit(fd, "pids.max", d->pids_max)) < 0) {
		/* A controller that is not there: fine if not asked for. */
		if (rc != -ENOENT || d->memory_max || d->memory_high ||
		    d->pids_max) {
			close(fd);
			return rc;
		}
	}
	if ((rc = cg_cpu_io(cg, fd, d)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Remove a service's cgroup (it must be empty). */
void
cgroup_svc_remove(struct cgroups *cg, const char *name)
{
	if (cg->base_fd >= 0)
		unlinkat(cg->base_fd, name, AT_REMOVEDIR);
}
