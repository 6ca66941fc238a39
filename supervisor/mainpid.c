/*
 * mainpid.c - which process a notify service's datagrams may come from,
 * and MAINPID=: the service's main process from then on, if it belongs
 * to the service (its user's, in its cgroup or its session).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "ctl.h"
#include "mainpid.h"
#include "service.h"
#include "sup.h"
#include "sys.h"


/*
 * Is the main process's PID still its own?  Ours, unreaped, it is (a
 * zombie holds its PID).  A main process named by MAINPID may not be our
 * child: once it exited, its parent may have reaped it and its PID be
 * another's.
 */
static bool
mainpid_held(const struct service *ss)
{
	siginfo_t	si;

	if (!ss->handed || !service_pidfd_exited(ss->svc.pidfd))
		return true;
	memset(&si, 0, sizeof(si));
	return waitid(P_PIDFD, (id_t)ss->svc.pidfd, &si, WEXITED | WNOHANG |
	    WNOWAIT | __WALL) == 0 && si.si_pid != 0;
}

/* notifysock.c's question: which notify service sent this? */
struct svc *
mainpid_lookup(void *ctx, pid_t pid)
{
	struct service	*ss = service_by_pid(ctx, pid);

	if (ss == NULL || ss->svc.def->ready != READY_NOTIFY ||
	    !mainpid_held(ss))
		return NULL;
	return &ss->svc;
}

/*
 * Does pid belong to the service?  Its user's (real and effective uid;
 * any, if the service runs as root), and, where it has a cgroup, in it;
 * without one, a child of its main process or a process of the session
 * that the main process leads (every service is spawned a session of
 * its own: a forked daemon stays in it, even once its parent exited and
 * it is ours).  The main process is unreaped, so no other session can
 * have its PID for an ID.  Read once the caller holds a pidfd on pid.
 * NULL, or why not.
 */
static const char *
mainpid_belongs(struct sup *sup, struct service *ss, pid_t pid)
{
	const struct svc_def	*d = ss->svc.def;
	char			 path[64], buf[2048], *p;
	long			 main = ss->svc.pid, ruid = -1, euid = -1;
	uid_t			 uid = d->set_uid ? d->uid : geteuid();

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return "gone";
	if ((p = strstr(buf, "\nUid:")) != NULL)
		sscanf(p + 5, "%ld %ld", &ruid, &euid);
	if (uid != 0 && (ruid != (long)uid || euid != (long)uid))
		return "not the service's user";
	if (ss->cgfd >= 0)
		return cgroup_pid_in(&sup->cg, d->name, pid) ? NULL :
		    "not in its cgroup";
	if ((p = strstr(buf, "\nPPid:")) != NULL && strtol(p + 7, NULL, 10) ==
	    main)
		return NULL;
	/* The first NSsid is in our PID namespace, as main is. */
	if ((p = strstr(buf, "\nNSsid:")) != NULL &&
	    strtol(p + 8, NULL, 10) == main)
		return NULL;
	return "not in its session, nor a child of its main process";
}

/*
 * May the service's MAINPID=pid be looked at now?  Not the PID refused
 * last time again; at most MAINPID_RATE a second, and a warning at
 * most once a second, with how many were let go meanwhile.
 */
#define MAINPID_RATE	10

static bool
mainpid_allowed(struct service *ss, pid_t pid)
{
	int64_t	now = mono_ms();

	if (pid == ss->mainpid_refused)
		return false;
	if (now - ss->mainpid_second >= 1000) {
		ss->mainpid_second = now;
		ss->mainpid_count = 0;
	}
	return ++ss->mainpid_count <= MAINPID_RATE;
}

/*
 * Say why MAINPID=pid was refused: at most once a second.  Remember it
 * (not looked at again) if it was for good: not for the service's state.
 */
static void
mainpid_refused(struct service *ss, pid_t pid, const char *why,
    bool remember)
{
	int64_t	now = mono_ms();

	if (remember)
		ss->mainpid_refused = pid;
	if (now - ss->mainpid_warned < 1000) {
		ss->mainpid_quiet++;
		return;
	}
	ss->mainpid_warned = now;
	if (ss->mainpid_quiet)
		log_warn("%s: MAINPID=%d ignored: %s (and %u more since the "
		    "last word)", ss->svc.def->name, (int)pid, why,
		    ss->mainpid_quiet);
	else
		log_warn("%s: MAINPID=%d ignored: %s", ss->svc.def->name,
		    (int)pid, why);
	ss->mainpid_quiet = 0;
}

/* The main process before the last MAINPID= has exited: forget it. */
void
mainpid_on_prev_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	ev_io_stop(loop, w);
	close(w->fd);
	ev_io_set(w, -1, EV_READ);
}

/*
 * notifysock.c's MAINPID=pid, from the main process of s: pid is its
 * main process from now on, if it belongs to the service.  A pidfd is
 * taken first, then pid is checked, then the pidfd's process is checked
 * alive: alive, it held pid throughout, so what was checked was it.
 * From then on the service is that process, known by that pidfd alone:
 * its death ends the service, its signals go through it.  The process
 * it replaces, while it lives, is still the service's: stop signals go
 * to it too (an orphan of ours, reaped by PID once it exits).
 */
void
mainpid_set(void *ctx, struct svc *s, pid_t pid)
{
	struct sup	*sup = ctx;
	struct service	*ss = service_of(s);
	const char	*why;
	int		 fd;

	if (pid == s->pid || !mainpid_allowed(ss, pid))
		return;
	/* It sent this: it has exec'd; the report may not be read yet. */
	if (ss->spawn != NULL) {
		service_spawn_check(sup, ss->spawn, false);
		service_unhold(sup);
	}
	if ((s->state != SVC_STARTING && s->state != SVC_READY) ||
	    ss->spawn != NULL) {
		mainpid_refused(ss, pid, ss->spawn ? "not exec'd yet" :
		    svc_state_name(s->state), false);
		return;
	}
	if ((fd = (int)sys_pidfd_open(pid, 0)) < 0) {
		mainpid_refused(ss, pid, strerror(errno), true);
		return;
	}
	if ((why = mainpid_belongs(sup, ss, pid)) != NULL ||
	    pidfd_signal(fd, 0) < 0) {
		mainpid_refused(ss, pid, why ? why : "gone", true);
		close(fd);
		return;
	}
	log_info("%s: main process %d -> %d (MAINPID)", s->def->name,
	    (int)s->pid, (int)pid);
	pidmap_del(&sup->pids, &ss->pm);
	ev_io_stop(sup->loop, &ss->death);
	if (ev_is_active(&ss->prev)) {		/* one before: only one kept */
		ev_io_stop(sup->loop, &ss->prev);
		close(ss->prev.fd);
	}
	ev_io_set(&ss->prev, s->pidfd, EV_READ);
	ev_io_start(sup->loop, &ss->prev);
	s->pidfd = spawn_fd_keep(fd);
	s->pid = pid;
	ss->handed = true;
	ss->mainpid_refused = 0;
	if (ss->out)
		ss->out->pid = pid;
	ss->pm.kind = PM_MAIN;
	pidmap_add(&sup->pids, &ss->pm, pid);
	ev_io_set(&ss->death, s->pidfd, EV_READ);
	ev_io_start(sup->loop, &ss->death);
	ctl_svc_changed(&sup->ctl, s);
}
