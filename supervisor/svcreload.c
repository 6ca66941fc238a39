/*
 * svcreload.c - `pidvisorctl reload NAME`: a service's own reload, by its
 * reload_signal or by its reload_exec, a command run as the service runs
 * (its user, its cgroup, its log), with $MAINPID.  svc.c counts reloads;
 * ctl.c waits on them.  The configuration's reload is confreload.c's.
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

#include "hook.h"
#include "service.h"
#include "spawn.h"
#include "sup.h"
#include "svcreload.h"


/* A reload_exec is over (exited, or never ran): tell the state machine. */
void
svcreload_end(struct sup *sup, struct service *ss, int status)
{
	struct svcreload	*rl = ss->reload;

	ev_io_stop(sup->loop, &rl->io);
	ev_io_stop(sup->loop, &rl->death);
	spawn_poll(&rl->proc);
	if (status != -ECANCELED || rl->proc.over)
		spawn_proc_free(&rl->proc);	/* off its stack */
	else
		spawn_release(&rl->proc);	/* at exit: it may be on it */
	if (rl->death.fd >= 0)
		close(rl->death.fd);
	pidmap_del(&sup->pids, &rl->pm);
	strv_free(rl->argv);
	free(rl);
	ss->reload = NULL;
	svc_reload_done(&ss->svc, status);
}

/* The reload_exec child's report: it exec'd, or why it could not. */
static void
svcreload_on_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct svcreload	*rl = container_of(w, struct svcreload, io);

	(void)revents;
	if (spawn_poll(&rl->proc))
		ev_io_stop(loop, w);
}

/* Reap a reload_exec process through its pidfd, if it exited. */
void
svcreload_reap(struct sup *sup, struct service *ss)
{
	struct svcreload	*rl = ss->reload;
	siginfo_t		 si;
	int			 status;

	memset(&si, 0, sizeof(si));
	if (rl == NULL || waitid(P_PIDFD, (id_t)rl->death.fd, &si, WEXITED |
	    WNOHANG | __WALL) < 0 || si.si_pid == 0)
		return;
	spawn_poll(&rl->proc);
	if (rl->proc.err)
		status = -rl->proc.err;		/* it never ran */
	else if (si.si_code == CLD_EXITED)
		status = si.si_status;
	else
		status = 128 + si.si_status;
	if (status != 0)
		log_warn("%s: reload_exec %s %d", ss->svc.def->name, status < 0 ?
		    "could not run: errno" : "ended with", status < 0 ? -status :
		    status);
	svcreload_end(sup, ss, status);
}

/*
 * The reload is over without its reload_exec (its deadline passed, or
 * the service left READY): kill the command; its death is reaped as
 * any other, and counts for nothing.
 */
void
svcreload_cancel(struct service *ss)
{
	struct svcreload	*rl = ss->reload;

	if (rl->killed)
		return;
	rl->killed = true;
	log_warn("%s: reload_exec (pid %d) outlived its reload: killed",
	    ss->svc.def->name, (int)rl->pid);
	pidfd_signal(rl->death.fd, SIGKILL);
}

static void
svcreload_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	struct svcreload	*rl = container_of(w, struct svcreload, death);

	(void)revents;
	svcreload_reap(ev_userdata(loop), rl->ss);
}

/*
 * Reload a ready service: run its reload_exec, or send its
 * reload_signal to its main process.  A notify service is reloaded once
 * its READY=1 comes (after RELOADING=1); svc.c counts reloads, and ctl.c
 * waits on them.  0; -errno with why in err.
 */
int
svcreload_start(struct sup *sup, struct svc *s, char *err, size_t n)
{
	struct service		*ss = service_of(s);
	const struct svc_def	*d = s->def;
	struct svcreload	*rl;
	struct spawn_req	 req;
	struct spawn_result	 res;
	int			 rc;

	if (svc_is_task(s) || s->state != SVC_READY) {
		snprintf(err, n, "%s is %s%s", d->name, svc_state_name(s->state),
		    svc_is_task(s) ? ": a task has nothing to reload" :
		    ", not ready: nothing to reload");
		return -ESRCH;
	}
	if (ss->reload != NULL || s->reload_asked) {
		snprintf(err, n, "%s: a reload is under way", d->name);
		return -EBUSY;
	}
	if (d->reload_exec == NULL) {
		if ((rc = pidfd_signal(s->pidfd, d->reload_signal)) < 0) {
			snprintf(err, n, "%s: signal: %s", d->name,
			    strerror(-rc));
			return rc;
		}
		svc_reload_asked(s, d->ready == READY_NOTIFY);
		if (d->ready != READY_NOTIFY)
			svc_reload_done(s, 0);	/* nothing tells us more */
		return 0;
	}
	if (pidfd_signal(s->pidfd, 0) < 0) {
		snprintf(err, n, "%s: its main process is gone", d->name);
		return -ESRCH;
	}
	if ((rl = calloc(1, sizeof(*rl))) == NULL ||
	    (rl->argv = hook_mainpid(d->reload_exec, s->pid)) == NULL) {
		free(rl);
		snprintf(err, n, "%s: %s", d->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	spawn_proc_init(&rl->proc);
	if ((rc = service_spawn_req(sup, ss, &req)) == 0) {
		req.argv = rl->argv;
		req.ns = ss->ns;
		rc = spawn_start(&rl->proc, &req, &res);
	}
	if (rc != 0) {
		strv_free(rl->argv);
		free(rl);
		snprintf(err, n, "%s: reload_exec: %s", d->name, strerror(-rc));
		return rc;
	}
	rl->pid = res.pid;
	rl->ss = ss;
	rl->fails = s->reload_fails;
	rl->pm.kind = PM_RELOAD;
	pidmap_add(&sup->pids, &rl->pm, res.pid);
	ev_io_init(&rl->io, svcreload_on_exec, rl->proc.errfd, EV_READ);
	ev_io_start(sup->loop, &rl->io);
	ev_io_init(&rl->death, svcreload_on_death, spawn_fd_keep(res.pidfd),
	    EV_READ);
	ev_io_start(sup->loop, &rl->death);
	ss->reload = rl;
	svc_reload_asked(s, false);
	return 0;
}
