/*
 * mainpid.c - which process may be a notify service's main process
 * (MAINPID=): one that belongs to the service (its user's, in its
 * cgroup or its session), looked at at most so often; the service layer
 * (service.c) makes it the main process.
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
#include "mainpid.h"
#include "util.h"

/* Has the process of a pidfd exited (readable, without waiting)? */
bool
pidfd_exited(int fd)
{
	struct pollfd	p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP));
}

/*
 * Is the main process's PID still its own?  Ours, unreaped, it is (a
 * zombie holds its PID).  A main process named by MAINPID (handed) may
 * not be our child: once it exited, its parent may have reaped it and
 * its PID be another's.
 */
bool
mainpid_held(const struct svc *s, bool handed)
{
	siginfo_t	si;

	if (!handed || !pidfd_exited(s->pidfd))
		return true;
	memset(&si, 0, sizeof(si));
	return waitid(P_PIDFD, (id_t)s->pidfd, &si, WEXITED | WNOHANG |
	    WNOWAIT | __WALL) == 0 && si.si_pid != 0;
}

/*
 * Does pid belong to the service s?  Its user's (real and effective uid;
 * any, if the service runs as root), and, where it has a cgroup (cg), in
 * it; without one, a child of its main process or a process of the
 * session that the main process leads (every service is spawned a
 * session of its own: a forked daemon stays in it, even once its parent
 * exited and it is ours).  The main process is unreaped, so no other
 * session can have its PID for an ID.  orphan: without a cgroup, a
 * process we adopted (its parent is us) belongs too: the daemon of a
 * forking service, whose first process exited.  Read once the caller
 * holds a pidfd on pid.  NULL, or why not ("gone": no such process).
 */
const char *
mainpid_belongs(const struct svc *s, const struct cgroups *cg, pid_t pid,
    bool orphan)
{
	const struct svc_def	*d = s->def;
	char			 path[64], buf[2048], *p;
	long			 main = s->pid, ruid = -1, euid = -1;
	uid_t			 uid = d->set_uid ? d->uid : geteuid();

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return "gone";
	if ((p = strstr(buf, "\nUid:")) != NULL)
		sscanf(p + 5, "%ld %ld", &ruid, &euid);
	if (uid != 0 && (ruid != (long)uid || euid != (long)uid))
		return "not the service's user";
	if (cg != NULL)
		return cgroup_pid_in(cg, d->name, pid) ? NULL :
		    "not in its cgroup";
	if ((p = strstr(buf, "\nPPid:")) != NULL && (strtol(p + 7, NULL, 10) ==
	    main || (orphan && strtol(p + 7, NULL, 10) == getpid())))
		return NULL;
	/* The first NSsid is in our PID namespace, as main is. */
	if ((p = strstr(buf, "\nNSsid:")) != NULL &&
	    strtol(p + 8, NULL, 10) == main)
		return NULL;
	return orphan ? "not in its session, nor a child of ours" :
	    "not in its session, nor a child of its main process";
}

/*
 * May the service's MAINPID=pid be looked at now?  Not the PID refused
 * last time again; at most MAINPID_RATE a second, and a warning at
 * most once a second, with how many were let go meanwhile.
 */
#define MAINPID_RATE	10

bool
mainpid_allowed(struct mainpid *m, pid_t pid)
{
	int64_t	now = mono_ms();

	if (pid == m->refused)
		return false;
	if (now - m->second >= 1000) {
		m->second = now;
		m->count = 0;
	}
	return ++m->count <= MAINPID_RATE;
}

/*
 * Say why MAINPID=pid of the service name was refused: at most once a
 * second.  Remember it (not looked at again) if it was for good: not for
 * the service's state.
 */
void
mainpid_refused(struct mainpid *m, const char *name, pid_t pid,
    const char *why, bool remember)
{
	int64_t	now = mono_ms();

	if (remember)
		m->refused = pid;
	if (now - m->warned < 1000) {
		m->quiet++;
		return;
	}
	m->warned = now;
	if (m->quiet)
		log_warn("%s: MAINPID=%d ignored: %s (and %u more since the "
		    "last word)", name, (int)pid, why, m->quiet);
	else
		log_warn("%s: MAINPID=%d ignored: %s", name, (int)pid, why);
	m->quiet = 0;
}
