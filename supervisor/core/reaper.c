/*
 * reaper.c - the orphan reaper.  A service is reaped only through its
 * pidfd (service.c); orphans that we inherit as subreaper (or as PID 1)
 * are reaped here, on SIGCHLD.  The two must not steal from each other,
 * and exec resets a service's exit_signal to SIGCHLD, so waitid(P_ALL)
 * does see services.  The reaper therefore only peeks (WNOWAIT); a
 * zombie that is one of our services (the PID of an unreaped child of
 * ours cannot be reused, so the PID map is exact here), a reload_exec or
 * a re-exec's check is handed to its pidfd path, and only the rest is
 * reaped by PID.  (The thread of process_mrelease() is mrelease.c.)
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

#include "pid1.h"
#include "reaper.h"
#include "service.h"
#include "sup.h"


/*
 * Reap orphans.  Peek at the next zombie; one of our services is reaped
 * through its pidfd, anything else (an orphan we inherited) by its PID,
 * which is safe for a zombie child of ours.  At most REAPER_TURN in one
 * turn of the loop: services restarted at once can die as fast as we
 * reap them, and the loop must go on serving everything else; the rest
 * is taken in the next turn.
 */
#define REAPER_TURN	256

void
reaper_reap(struct sup *sup)
{
	struct pidmap_node	*e;
	struct service		*ss;
	siginfo_t		 si;
	pid_t			 pid;
	int			 n;

	ev_timer_stop(sup->core.loop, &sup->reap_w);
	for (n = 0;; n++) {
		if (n == REAPER_TURN) {
			ev_timer_set(&sup->reap_w, 0., 0.);
			ev_timer_start(sup->core.loop, &sup->reap_w);
			return;
		}
		memset(&si, 0, sizeof(si));
		/* __WALL: children that never exec'd (exit_signal 0) too,
		 * such as a notify drainer a binary before us started. */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT |
		    __WALL) < 0 || si.si_pid == 0)
			break;
		pid = si.si_pid;
		if ((ss = service_by_pid(&sup->core, pid)) != NULL) {
			if (!service_reap(&sup->core, ss))
				break;
			continue;
		}
		if ((e = pidmap_get(&sup->pids, pid)) != NULL &&
		    e->kind == PM_CHECK) {
			/* A re-exec's check: through its pidfd too. */
			sup_reexec_reaped(sup);
			if (sup->rx.phase == RX_CHECK)
				break;
			continue;
		}
		if (e != NULL && e->kind == PM_FORK) {
			/* A forking service's pid_file reader: its pidfd. */
			if (!forking_reaped(&sup->core, e))
				break;
			continue;
		}
		if (e != NULL && e->kind == PM_HOOK) {
			/* A hook: through its pidfd too. */
			struct hookrun	*hr = container_of(e, struct hookrun,
					    pm);

			hook_reap(&sup->core, hr);
			if (pidmap_get(&sup->pids, pid) == e)
				break;
			continue;
		}
		if (e != NULL) {
			/* A reload_exec: through its pidfd too. */
			ss = container_of(e, struct hook_reload, pm)->ss;
			hook_reload_reap(&sup->core, ss);
			/* Not reaped yet; reaped, its chain may go on. */
			if (ss->reload != NULL && ss->reload->pid == pid)
				break;
			continue;
		}
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG |
		    __WALL) < 0)
			break;
		log_debug("reaped orphan %d", (int)pid);
	}
	if (sup->pid1)
		pid1_reaped(&sup->p1);
}

void
reaper_on_more(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	reaper_reap(ev_userdata(loop));
}
