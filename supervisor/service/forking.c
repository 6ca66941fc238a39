/*
 * forking.c - ready = forking (systemd's Type=forking): the first
 * process forks the daemon and exits 0 once it runs; the daemon is the
 * main process from then on, and the service is ready.
 *
 * Which process is the daemon: the one pid_file names, read by a child
 * of ours (a pid file in a directory a user controls may hang its
 * reader: a FUSE file), looked up a component at a time, symlinks only
 * root's or the service user's (rawpath.c), the file itself root's or
 * the service user's, or another user's if the PID it names is in the
 * service's cgroup (as systemd takes it); or, without pid_file, the one
 * process left in its cgroup.  A missing file, or one that names a
 * process that is not there yet, is read again, less often each time, until ready_timeout.
 * The PID is taken as a pidfd, checked to be the service's (mainpid.c:
 * its user's, in its cgroup; without a cgroup, an orphan we adopted),
 * then checked alive: alive, it held the PID throughout.
 *
 * The first process is reaped at once (a zombie we kept would stop the
 * orphan reaper's peeks at it); its pidfd stays the service's process,
 * as svc.c sees it, until the daemon takes its place, or until the
 * search is given up (a stop, the time-out, a wrong file) and its death
 * is told.  Its PID may be another's meanwhile: it is out of the PID
 * map, and signals go to its pidfd, to nobody.  A re-exec meanwhile
 * hands the search over (service.forking) and the next binary goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "conf.h"
#include "core.h"
#include "forking.h"
#include "mainpid.h"
#include "pidmap.h"
#include "rawpath.h"
#include "rawsys.h"
#include "spawn.h"
#include "sys.h"
#include "util.h"

#define FORKING_DELAY_MIN	10	/* ms, the first try again */
#define FORKING_DELAY_MAX	500	/* ms, at most between tries */
#define FORKING_ROOT		100	/* reader's exit: a root's file */
#define FORKING_USER		101	/* ... the service user's */
#define FORKING_OTHER		102	/* ... another user's */

/* What a reader reads, and for which service (NULL: gone). */
struct forking_reader {
	ev_io			 death;
	struct pidmap_node	 pm;		/* PM_FORK: the reaper's */
	int			 out;
	int			 in;		/* its stdout: ours till it
						 * ends (it may share our fds) */
	struct spawn_proc	 proc;
	struct forking		*f;		/* NULL: its search is over */
	char			*path;
	uid_t			 owner;
};

static void	forking_try(struct forking *);

/*
 * The reader child: pid_file's first bytes on its stdout; its exit
 * FORKING_ROOT or FORKING_USER (whose file it is), or an errno.  Raw
 * system calls only: it may share our memory.
 */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static int
forking_read(void *arg)
{
	const struct forking_reader	*r = arg;
	struct rawpath			 rp;
	struct stat			 st = { 0 };
	char				 buf[64];
	long				 root, fd, n;

	if ((root = RAWSYS(SYS_openat, AT_FDCWD, "/", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return (int)-root;
	if ((fd = rawpath_open((int)root, r->path, r->owner, O_RDONLY |
	    O_NONBLOCK | O_NOCTTY, &rp)) < 0)
		return (int)-fd;
	if ((n = RAWSYS(SYS_fstat, fd, &st)) < 0)
		return (int)-n;
	if (!S_ISREG(st.st_mode))
		return EINVAL;
	if ((n = RAWSYS(SYS_read, fd, buf, sizeof(buf))) < 0)
		return (int)-n;
	if (n > 0 && RAWSYS(SYS_write, 1, buf, n) != n)
		return EIO;
	return st.st_uid == 0 ? FORKING_ROOT : st.st_uid == r->owner ?
	    FORKING_USER : FORKING_OTHER;
}

static void
forking_reader_free(struct core *core, struct forking_reader *r)
{
	if (r->f != NULL)
		r->f->reader = NULL;
	pidmap_del(core->pids, &r->pm);
	ev_io_stop(core->loop, &r->death);
	close(r->death.fd);
	close(r->out);
	close(r->in);
	spawn_proc_free(&r->proc);
	free(r->path);
	free(r);
}

/* The search is over, the daemon found or not: no more tries. */
static void
forking_end(struct forking *f)
{
	f->active = false;
	ev_timer_stop(f->core->loop, &f->w);
	if (f->reader != NULL) {
		pidfd_signal(f->reader->death.fd, SIGKILL);
		f->reader->f = NULL;	/* reaped at its death, freed */
		f->reader = NULL;
	}
}

/*
 * Give up: the first process's death is told (it exited 0; pending says
 * why that is no start), why the search failed (why; NULL: the machine
 * moved on and says why) its reason.
 */
static void
forking_give_up(struct forking *f, const char *why)
{
	struct svc	*s = f->svc;

	forking_end(f);
	if (why != NULL) {
		log_warn("%s: %s", s->def->name, why);
		free(s->fail);
		s->fail = strdup(why);
		if (s->pending.why == WHY_NONE)
			s->pending.why = WHY_PID_FILE;
	}
	f->core->fork_failed(f->core, s);
}

/* Try again later, less often each time. */
static void
forking_later(struct forking *f)
{
	ev_timer_set(&f->w, f->delay / 1000., 0.);
	ev_timer_start(f->core->loop, &f->w);
	f->delay = f->delay * 2 > FORKING_DELAY_MAX ? FORKING_DELAY_MAX :
	    f->delay * 2;
}

/*
 * The daemon, pid (with its pidfd fd, or -1), is the main process: the
 * zombie before it is reaped, and the service is ready (0).  Else 1 (not
 * there: try again), or -1 (why in err: give up).
 */
static int
forking_take(struct forking *f, pid_t pid, int fd, char *err, size_t n)
{
	struct svc	*s = f->svc;
	const char	*why;

	if (fd < 0 && (fd = (int)sys_pidfd_open(pid, 0)) < 0)
		return errno == ESRCH ? 1 : (snprintf(err, n, "PID %d: %s",
		    (int)pid, strerror(errno)), -1);
	if ((why = mainpid_belongs(s, *f->cgfd >= 0 ? f->core->cg : NULL,
	    pid, true)) != NULL || pidfd_signal(fd, 0) < 0) {
		close(fd);
		if (why == NULL || strcmp(why, "gone") == 0)
			return 1;	/* gone meanwhile: a stale file */
		snprintf(err, n, "PID %d is not the service's: %s", (int)pid,
		    why);
		return -1;
	}
	forking_end(f);
	log_info("%s: main process %d -> %d (%s)", s->def->name, (int)s->pid,
	    (int)pid, s->def->pid_file ? "pid_file" : "its cgroup's one");
	f->core->forked(f->core, s, pid, fd);
	svc_ready(s);
	return 0;
}

/* No pid_file: the one process of its cgroup. */
static void
forking_guess(struct forking *f)
{
	char	err[160];
	pid_t	pid[2];
	int	fds[2], n, i, rc;

	if (*f->cgfd < 0) {
		forking_give_up(f, "ready = forking: no pid_file, and no "
		    "cgroup to find its daemon in");
		return;
	}
	if ((n = cgroup_pidfds(*f->cgfd, fds, pid, 2)) != 1) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		snprintf(err, sizeof(err), "ready = forking: %s in its cgroup; "
		    "pid_file says which is the daemon", n == 0 ? "no process" :
		    n < 0 ? strerror(-n) : "more than one process");
		forking_give_up(f, err);
		return;
	}
	if ((rc = forking_take(f, pid[0], fds[0], err, sizeof(err))) < 0)
		forking_give_up(f, err);
	else if (rc > 0)
		forking_later(f);
}

/*
 * The reader r exited (the reaper's, or its pidfd's watcher's news):
 * the PID it read, or why not.  false: it has not.
 */
static bool
forking_reap(struct core *core, struct forking_reader *r)
{
	struct forking	*f = r->f;
	char		 buf[65], err[200], *end;
	siginfo_t	 si;
	ssize_t		 len;
	long		 pid;
	int		 rc, st;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)r->death.fd, &si, WEXITED | WNOHANG |
	    __WALL) < 0 || si.si_pid == 0)
		return false;
	st = si.si_code == CLD_EXITED ? si.si_status : EINTR;
	len = read(r->out, buf, sizeof(buf) - 1);
	buf[len > 0 ? len : 0] = '\0';
	forking_reader_free(core, r);
	if (f == NULL || !f->active)
		return true;
	if (st == ENOENT ||			/* not written yet */
	    ((st == FORKING_ROOT || st == FORKING_USER ||
	    st == FORKING_OTHER) && len <= 0)) {
		forking_later(f);		/* ... or being written */
		return true;
	}
	/*
	 * Another user's file (PostgreSQL's, written by the postgres user
	 * its root service becomes) may name any PID: taken, as systemd
	 * takes it, only if that PID is in the service's cgroup.
	 */
	if (st == FORKING_OTHER && *f->cgfd < 0) {
		snprintf(err, sizeof(err), "pid_file %s: another user's file, "
		    "and no cgroup to check its PID is the service's",
		    f->svc->def->pid_file);
		forking_give_up(f, err);
		return true;
	}
	if (st != FORKING_ROOT && st != FORKING_USER && st != FORKING_OTHER) {
		snprintf(err, sizeof(err), "pid_file %s: %s",
		    f->svc->def->pid_file, strerror(st));
		forking_give_up(f, err);
		return true;
	}
	pid = strtol(buf, &end, 10);
	if (pid <= 0 || pid > INT32_MAX || end == buf ||
	    end[strspn(end, " \t\r\n")] != '\0') {
		snprintf(err, sizeof(err), "pid_file %s: not a PID: '%.40s'",
		    f->svc->def->pid_file, buf);
		forking_give_up(f, err);
		return true;
	}
	if ((rc = forking_take(f, (pid_t)pid, -1, err, sizeof(err))) < 0)
		forking_give_up(f, err);
	else if (rc > 0)
		forking_later(f);
	return true;
}

/* The reaper's: a zombie in the PID map as PM_FORK is a reader. */
bool
forking_reaped(struct core *core, struct pidmap_node *pm)
{
	return forking_reap(core, container_of(pm, struct forking_reader, pm));
}

static void
forking_on_reader(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	forking_reap(ev_userdata(loop), container_of(w,
	    struct forking_reader, death));
}

/* Start a reader of pid_file; 0, or -errno. */
static int
forking_reader_start(struct forking *f)
{
	struct core		*core = f->core;
	const struct svc_def	*d = f->svc->def;
	struct forking_reader	*r;
	struct spawn_req	 req = {
		.cgroup_fd = -1, .stdio = { -1, -1, -1 }, .ready_pipe = -1,
		.ready_fd = -1, .fn = forking_read,
	};
	struct spawn_result	 res;
	struct rlimit		 rl;
	int			 p[2], rc;

	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->path = strdup(d->pid_file)) == NULL) {
		free(r);
		return -ENOMEM;
	}
	r->owner = d->set_uid ? d->uid : 0;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = -errno;
		free(r->path);
		free(r);
		return rc;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		req.nofile_cur = rl.rlim_cur;
		req.nofile_max = rl.rlim_max;
	}
	req.stdio[1] = p[1];
	req.fn_arg = r;
	spawn_proc_init(&r->proc);
	if ((rc = spawn_start(&r->proc, &req, &res)) < 0) {
		close(p[0]);
		close(p[1]);
		spawn_proc_free(&r->proc);
		free(r->path);
		free(r);
		return rc;
	}
	r->out = p[0];
	r->in = p[1];
	r->f = f;
	ev_io_init(&r->death, forking_on_reader, spawn_fd_keep(res.pidfd),
	    EV_READ);
	ev_io_start(core->loop, &r->death);
	r->pm.kind = PM_FORK;
	pidmap_add(core->pids, &r->pm, res.pid);
	f->reader = r;
	return 0;
}

/* One try: read pid_file (a child does), or look in its cgroup. */
static void
forking_try(struct forking *f)
{
	char	err[160];
	int	rc;

	if (!f->active)
		return;
	if (f->svc->state != SVC_STARTING) {
		forking_give_up(f, NULL);
		return;
	}
	if (f->svc->def->pid_file == NULL) {
		forking_guess(f);
		return;
	}
	if (f->reader != NULL)
		return;
	if ((rc = forking_reader_start(f)) < 0) {
		snprintf(err, sizeof(err), "pid_file: no reader: %s",
		    strerror(-rc));
		forking_give_up(f, err);
	}
}

static void
forking_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	forking_try(container_of(w, struct forking, w));
}

void
forking_init(struct forking *f, struct core *core, struct svc *s,
    const int *cgfd)
{
	memset(f, 0, sizeof(*f));
	f->core = core;
	f->svc = s;
	f->cgfd = cgfd;
	ev_timer_init(&f->w, forking_on_timer, 0., 0.);
}

/*
 * Is the exit 0 of the first process of s the start of a search?  A
 * forking service's, starting, not searching already.
 */
bool
forking_wanted(const struct forking *f)
{
	const struct svc	*s = f->svc;

	return ready_kinds[s->def->ready].forks && s->state == SVC_STARTING &&
	    !f->active && s->pending.why == WHY_NONE;
}

/* Search, the first process reaped (service.c's), or after a re-exec. */
void
forking_start(struct forking *f)
{
	f->active = true;
	f->delay = FORKING_DELAY_MIN;
	log_debug("%s: its first process exited 0; its daemon next",
	    f->svc->def->name);
	ev_timer_set(&f->w, 0., 0.);
	ev_timer_start(f->core->loop, &f->w);
}

/*
 * The machine moved (a stop, the time-out): the search ends, at the
 * next turn of the loop (not inside the machine's move).
 */
void
forking_changed(struct forking *f)
{
	if (!f->active || f->svc->state == SVC_STARTING)
		return;
	ev_timer_stop(f->core->loop, &f->w);
	ev_timer_set(&f->w, 0., 0.);
	ev_timer_start(f->core->loop, &f->w);
}

/* The service goes: its search ends (a reader is reaped at its death). */
void
forking_stop(struct forking *f)
{
	forking_end(f);
}
