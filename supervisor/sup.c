/*
 * sup.c - the supervisor: one libev loop, everything an fd.
 *
 *   signalfd   SIGCHLD (orphans), TERM/INT/USR1/USR2/PWR (shutdown)
 *   pidfd[i]   service i exited: waitid(P_PIDFD) -> svc_died()
 *   ready[i]   service i wrote its readiness line (fd:N)
 *   notify     sd_notify datagrams; the sender is told apart by the
 *              kernel's SCM_CREDENTIALS, checked against our own children
 *   control    pidvisorctl (ctl.c)
 *   timers     one per service, armed by svc.c
 *
 * Reaping.  A service is reaped only through its pidfd.  Orphans that
 * we inherit as subreaper (or as PID 1) are reaped on SIGCHLD.  The two
 * must not steal from each other, and exec resets a service's
 * exit_signal to SIGCHLD, so waitid(P_ALL) does see services.  The
 * orphan reaper therefore only peeks (WNOWAIT); a zombie that is one of
 * our services (the PID of an unreaped child of ours cannot be reused,
 * so the PID map is exact here) is handed to the pidfd path, and only
 * the rest is reaped by PID.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "notifysock.h"
#include "output.h"
#include "pid1.h"
#include "pidmap.h"
#include "proto.h"
#include "victim.h"
#include "spawn.h"
#include "sup.h"
#include "sys.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#define PATH_DEFAULT	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:" \
			"/sbin:/bin"

extern char **environ;

static const int sup_signals[] = {
	SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGPWR, SIGWINCH,
};

static void	sup_check_stopped(struct sup *);
static void	sup_stopped(struct sup *);
static void	sup_on_shutdown_timeout(struct ev_loop *, ev_timer *, int);
static int	sup_init_rest(struct sup *, struct sup_restore *);
static int	sup_restore(struct sup *, struct sup_restore *);
static void	sup_reap_orphans(struct sup *);
static int	sup_send_signal(struct sup *, struct sup_svc *, int);
static bool	sup_pidfd_exited(int);
static bool	sup_gone(struct sup *, struct sup_svc *);
static void	sup_process_gone(struct sup *, struct sup_svc *);
static void	sup_prev_forget(struct sup *, struct sup_svc *);
static void	sup_on_prev_death(struct ev_loop *, ev_io *, int);
static void	sup_reload_reap(struct sup *, struct sup_svc *);
static int	sup_svc_env_make(struct sup *, struct sup_svc *);

/* The supervisor's view of a service. */
struct sup_svc *
sup_svc_of(struct svc *s)
{
	return container_of(s, struct sup_svc, svc);
}

static struct sup *
sup_of(struct svc *s)
{
	return s->set->ctx;
}

/* The service whose unreaped main process has this PID, or NULL. */
static struct sup_svc *
sup_svc_by_pid(struct sup *sup, pid_t pid)
{
	struct pidmap_node	*e = pidmap_get(&sup->pids, pid);

	return e && e->kind == PM_MAIN ? container_of(e, struct sup_svc, pm) :
	    NULL;
}

/* Stop watching and close the readiness pipe. */
static void
sup_ready_close(struct sup *sup, struct sup_svc *ss)
{
	if (!ev_is_active(&ss->ready))
		return;
	ev_io_stop(sup->loop, &ss->ready);
	close(ss->ready.fd);
	ev_io_set(&ss->ready, -1, EV_READ);
}

/* Read what the service wrote on its readiness fd; a newline: ready. */
static void
sup_ready_drain(struct sup *sup, struct sup_svc *ss)
{
	char	buf[512];
	ssize_t	n;

	while (ev_is_active(&ss->ready)) {
		n = read(ss->ready.fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n > 0 && memchr(buf, '\n', (size_t)n) == NULL)
			continue;
		/* A newline, or EOF without one: either way we are done. */
		sup_ready_close(sup, ss);
		if (n > 0)
			svc_ready(&ss->svc);
	}
}

static void
sup_on_ready(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup_svc	*ss = container_of(w, struct sup_svc, ready);

	(void)revents;
	sup_ready_drain(ev_userdata(loop), ss);
}

/* output.c's hook: a line of a service, for those who follow it. */
static void
sup_on_line(struct output *o, struct svc *s, const struct svclog_line *l)
{
	ctl_svc_line(&((struct sup *)o->ctx)->ctl, s, l);
}

/* The spawn is over: its slot is free for the next. */
static void
sup_spawn_end(struct sup *sup, struct sup_spawn *sp)
{
	ev_io_stop(sup->loop, &sp->io);
	ev_timer_stop(sup->loop, &sp->timer);
	spawn_end(&sp->proc);
	sp->ss->spawn = NULL;
	sp->ss = NULL;
	svc_def_free(sp->old_def);
	sp->old_def = NULL;
	env_free(sp->old_envp);
	sp->old_envp = NULL;
}

/*
 * A free spawn slot; NULL while SUP_SPAWNS are in flight and not slow,
 * or every slot is taken.
 */
static struct sup_spawn *
sup_spawn_slot(struct sup *sup)
{
	struct sup_spawn	*free = NULL;
	size_t			 i, fresh = 0;

	for (i = 0; i < SUP_SPAWN_SLOTS; i++) {
		if (sup->spawns[i].ss == NULL)
			free = free ? free : &sup->spawns[i];
		else if (!sup->spawns[i].slow)
			fresh++;
	}
	return fresh < SUP_SPAWNS ? free : NULL;
}

static void	sup_unhold(struct sup *);

/*
 * A spawn's timer: it is slow now (the next spawn may go), or, the
 * second time, past its deadline (its child is killed).
 */
static void
sup_on_spawn_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sup_spawn	*sp = container_of(w, struct sup_spawn, timer);
	struct sup		*sup = ev_userdata(loop);

	(void)revents;
	if (sp->ss == NULL)
		return;
	if (!sp->slow) {
		sp->slow = true;
		ev_timer_set(w, SUP_SPAWN_TIMEOUT - SUP_SPAWN_SLOW, 0.);
		ev_timer_start(loop, w);
		sup_unhold(sup);
		return;
	}
	log_warn("%s: its child did not exec within %.0f s: killed",
	    sp->ss->svc.def->name, SUP_SPAWN_TIMEOUT);
	svc_spawn_timeout(&sp->ss->svc);
}

/* svc_ops: no spawn can start while SUP_SPAWNS are in flight. */
static bool
sup_op_busy(struct svc_set *set)
{
	struct sup	*sup = container_of(set, struct sup, set);

	return sup_reexec_holds(sup) || sup_spawn_slot(sup) == NULL;
}

/* A spawn ended: the services held for it go on. */
static void
sup_unhold(struct sup *sup)
{
	if (!TAILQ_EMPTY(&sup->set.held) && !sup_op_busy(&sup->set))
		svc_set_unhold(&sup->set);
}

/* What a re-exec held back (it failed, or was refused) goes on. */
void
sup_resume(struct sup *sup)
{
	sup_unhold(sup);
}

/*
 * The child found an env file wrong: s->fail says which, where and what
 * (of the definition it was spawned with: a reload may have replaced
 * it), never what the file holds.
 */
static void
sup_env_fail(struct sup_spawn *sp)
{
	struct svc	*s = &sp->ss->svc;
	const struct svc_def *d = sp->old_def ? sp->old_def : s->def;
	char		 msg[512];

	env_fail_format(&sp->proc.fail, d->env_files, msg, sizeof(msg));
	log_err("%s: env_file: %s", s->def->name, msg);
	free(s->fail);
	s->fail = strdup(msg);
}

/*
 * What the child of a spawn said: it exec'd, or why it could not.  Once
 * dead (its pidfd said so), the spawn ends, whatever it said.
 */
static void
sup_spawn_check(struct sup *sup, struct sup_spawn *sp, bool dead)
{
	struct spawn_proc	*p = &sp->proc;
	struct svc		*s = &sp->ss->svc;

	if (!spawn_poll(p) && !dead)
		return;
	if (p->err && p->stage == STAGE_ENV_FILE)
		sup_env_fail(sp);
	sup_spawn_end(sup, sp);
	if (p->over || p->err)
		svc_exec(s, p->stage, p->err);
}

static void
sup_on_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);

	(void)revents;
	sup_spawn_check(sup, container_of(w, struct sup_spawn, io), false);
	sup_unhold(sup);
}

/*
 * A service died of SIGKILL: if the kernel's OOM killer killed in its
 * cgroup meanwhile (memory.events counts kills by the global OOM killer
 * and at memory_max alike), that is why.
 */
static void
sup_oom_check(struct sup_svc *ss)
{
	uint64_t	oom, kills;

	if (ss->cgfd < 0 || cgroup_events(ss->cgfd, &oom, &kills) < 0)
		return;
	if (kills > ss->oom_kills)
		svc_oom_killed(&ss->svc);
	ss->oom_kills = kills;
}

/*
 * Collect the exit status of a service through its pidfd.  Returns false
 * if it has not exited (a spurious wake-up).  What the service said
 * before it died (READY=1, its readiness line, its output) is read first.
 */
static bool
sup_reap(struct sup *sup, struct sup_svc *ss)
{
	struct svc	*s = &ss->svc;
	siginfo_t	 si;
	int		 code = 0, sig = 0, fd = s->pidfd;
	pid_t		 pid = s->pid;

	if (s->pidfd < 0)
		return false;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)s->pidfd, &si, WEXITED | WNOHANG | WNOWAIT |
	    __WALL) < 0) {
		/* A main process named by MAINPID may not be our child. */
		if (errno == ECHILD && ss->handed && sup_pidfd_exited(fd))
			return sup_gone(sup, ss);
		return false;
	}
	if (si.si_pid == 0)
		return false;
	pressure_died(&sup->pr, ss);		/* while it is still our zombie */
	if (ss->spawn != NULL)
		sup_spawn_check(sup, ss->spawn, true);
	/* What it sent before it died, while its PID is still its own. */
	notifysock_drain(&ss->nsock);
	if (s->pidfd != fd) {
		/* It named its successor (MAINPID) and ended: an orphan of
		 * ours now, our zombie, reaped by its PID. */
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | __WALL);
		return true;
	}
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)s->pidfd, &si, WEXITED | WNOHANG |
	    __WALL) < 0) {
		log_err("%s: waitid: %s", s->def->name, strerror(errno));
		if (errno != ECHILD)
			return false;
		si.si_code = CLD_EXITED;
		si.si_status = 255;
	} else if (si.si_pid == 0) {
		return false;
	}
	sup_process_gone(sup, ss);
	if (si.si_code == CLD_EXITED)
		code = si.si_status;
	else
		sig = si.si_status;
	if (sig == SIGKILL)
		sup_oom_check(ss);
	s->exited_at = real_ms();
	svc_died(s, code, sig);
	sup_unhold(sup);
	return true;
}

/* Has the process of a pidfd exited (readable, without waiting)? */
static bool
sup_pidfd_exited(int fd)
{
	struct pollfd	p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP));
}

/* Forget the main process before the last MAINPID= (it may live on). */
static void
sup_prev_forget(struct sup *sup, struct sup_svc *ss)
{
	if (!ev_is_active(&ss->prev))
		return;
	ev_io_stop(sup->loop, &ss->prev);
	close(ss->prev.fd);
	ev_io_set(&ss->prev, -1, EV_READ);
}

/*
 * The main process has exited (and is reaped, or not ours to reap): what
 * it wrote is read, what it left behind goes (kill_mode group or
 * cgroup), and its pidfd is closed.
 */
static void
sup_process_gone(struct sup *sup, struct sup_svc *ss)
{
	struct svc	*s = &ss->svc;

	sup_ready_drain(sup, ss);
	sup_ready_close(sup, ss);
	output_drain(ss->out);
	if (s->def->kill_mode != KILL_PROCESS)
		sup_send_signal(sup, ss, SIGKILL);
	sup_prev_forget(sup, ss);
	pidmap_del(&sup->pids, &ss->pm);
	ev_io_stop(sup->loop, &ss->death);
	close(s->pidfd);
	s->pidfd = -1;
	ss->handed = false;
}

/*
 * The main process named by MAINPID exited, and it is not our child
 * (its parent is alive and reaps it): no exit status for us.  What it
 * sent last is not read: its parent may have reaped it, and its PID may
 * be another's already (sup_notify_lookup()).
 */
static bool
sup_gone(struct sup *sup, struct sup_svc *ss)
{
	struct svc	*s = &ss->svc;

	sup_process_gone(sup, ss);
	if (s->pending.why == WHY_NONE)
		s->pending.why = WHY_GONE;
	svc_died(s, 0, 0);
	sup_unhold(sup);
	return true;
}

static void
sup_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	sup_reap(ev_userdata(loop), container_of(w, struct sup_svc, death));
}

static void
sup_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	svc_timeout(&container_of(w, struct sup_svc, timer)->svc);
}

/* What a process of the service is started as (its own, reload_exec). */
static void
sup_spawn_req(struct sup *sup, struct sup_svc *ss, struct spawn_req *req)
{
	const struct svc_def	*d = ss->svc.def;
	struct spawn_req	 r = {
		.argv = d->argv,
		.envp = ss->envp ? ss->envp : sup->base_env,
		.path = ss->path, .workdir = d->workdir,
		.groups = d->groups, .ngroups = d->ngroups,
		.uid = d->uid, .gid = d->gid, .set_uid = d->set_uid,
		.set_gid = d->set_gid, .umask = d->umask,
		.set_umask = d->set_umask, .ready_pipe = -1,
		.nofile_cur = d->set_nofile ? d->limit_nofile : sup->nofile_cur,
		.nofile_max = d->set_nofile ? d->limit_nofile : sup->nofile_max,
		.stdio = { -1, -1, -1 }, .cgroup_fd = ss->cgfd,
		.oom_score_adj = d->oom_score_adj,
		.set_oom_score_adj = d->set_oom_score_adj,
		.env_files = d->env_files,
		.env_owner = d->set_uid ? d->uid : geteuid(),
	};

	*req = r;
	if (!d->console) {
		req->stdio[0] = req->stdio[1] = req->stdio[2] = sup->devnull;
		if (ss->out) {
			req->stdio[1] = ss->out->wfd[STREAM_OUT];
			req->stdio[2] = ss->out->wfd[STREAM_ERR];
		}
	}
}

/* svc_ops: start the process of a service. */
static int
sup_op_spawn(struct svc *s)
{
	struct sup_svc		*ss = sup_svc_of(s);
	struct sup		*sup = sup_of(s);
	const struct svc_def	*d = s->def;
	struct spawn_req	 req;
	struct spawn_result	 res;
	struct sup_spawn	*sp = sup_spawn_slot(sup);	/* not busy */
	int			 p[2] = { -1, -1 }, rc;

	if (d->ready == READY_NOTIFY) {
		/* Its socket, its user's; one made for another is made
		 * again.  A datagram from an earlier holder of the PID must
		 * not count. */
		if ((rc = notifysock_open(&ss->nsock, d->set_uid ? d->uid :
		    geteuid(), d->set_gid ? d->gid : getegid())) < 0) {
			log_err("%s: notify socket %s: %s", d->name,
			    ss->notify_path ? ss->notify_path : "(none)",
			    rc == -ENOTCONN ? "no directory for it" :
			    strerror(-rc));
			return rc;
		}
		notifysock_drain(&ss->nsock);
	}
	if (sup->cg.base_fd >= 0 && ss->cgfd < 0) {
		uint64_t	oom;

		if ((ss->cgfd = spawn_fd_keep(cgroup_svc_open(&sup->cg,
		    d))) < 0) {
			log_warn("%s: no cgroup: %s", d->name,
			    strerror(-ss->cgfd));
			ss->cgfd = -1;
		} else {
			cgroup_events(ss->cgfd, &oom, &ss->oom_kills);
		}
	}
	if (!d->console && output_wanted(d) && ss->out == NULL &&
	    (rc = output_new(&sup->output, &ss->svc, &ss->out)) < 0)
		log_warn("%s: no pipes for its output: %s", d->name,
		    strerror(-rc));
	sup_spawn_req(sup, ss, &req);
	req.pid_slot = ss->pid_slot;
	if (d->ready == READY_FD) {
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
			return -errno;
		req.ready_pipe = p[1];	/* the spawn's to close */
		req.ready_fd = d->ready_fd;
	}
	rc = spawn_start(&sp->proc, &req, &res);
	if (ev_time() - ev_now(sup->loop) >= SUP_SPAWN_TIME)
		sup->set.spawns = sup->set.spawn_max;	/* this turn's are spent */
	if (rc < 0) {
		if (p[0] >= 0)
			close(p[0]);
		log_err("%s: spawn: %s", d->name, strerror(-rc));
		return rc;
	}
	sp->ss = ss;
	sp->slow = false;
	ss->spawn = sp;
	ev_io_set(&sp->io, sp->proc.errfd, EV_READ);
	ev_io_start(sup->loop, &sp->io);
	ev_timer_set(&sp->timer, SUP_SPAWN_SLOW, 0.);
	ev_timer_start(sup->loop, &sp->timer);
	s->pidfd = res.pidfd = spawn_fd_keep(res.pidfd);
	s->pid = res.pid;
	s->ran_at = real_ms();
	ss->pm.kind = PM_MAIN;
	if (ss->out)
		ss->out->pid = res.pid;
	pidmap_add(&sup->pids, &ss->pm, res.pid);
	ev_io_set(&ss->death, res.pidfd, EV_READ);
	ev_io_start(sup->loop, &ss->death);
	if (p[0] >= 0) {
		ev_io_set(&ss->ready, spawn_fd_keep(p[0]), EV_READ);
		ev_io_start(sup->loop, &ss->ready);
	}
	return 0;
}

/*
 * Signal the processes of a service as its kill_mode says: the main
 * process, its process group (through the pidfd: the group stays
 * reachable, never by number, even once its leader is gone), or its
 * whole cgroup.  Without kernel support for group signals, or without
 * a cgroup, fall back to what there is.
 */
static int
sup_send_signal(struct sup *sup, struct sup_svc *ss, int sig)
{
	struct svc	*s = &ss->svc;
	int		 mode = s->def->kill_mode;

	if (mode == KILL_CGROUP && ss->cgfd >= 0) {
		int	n;

		if (sig == SIGKILL)
			return cgroup_kill(ss->cgfd);
		n = cgroup_signal(ss->cgfd, sig);
		return n < 0 ? n : 0;
	}
	if (s->pidfd < 0)
		return -ESRCH;
	/* The main before the last MAINPID=, while it lives, goes too. */
	if (ev_is_active(&ss->prev))
		pidfd_signal(ss->prev.fd, sig);
	if (mode != KILL_PROCESS && sup->pgrp_signal &&
	    sys_pidfd_send_signal(s->pidfd, sig,
	    PIDFD_SIGNAL_PROCESS_GROUP) == 0)
		return 0;
	return pidfd_signal(s->pidfd, sig);
}

/* svc_ops: signal the service (for stop, timeouts, the watchdog). */
static int
sup_op_signal(struct svc *s, int sig)
{
	int	rc;

	if ((rc = sup_send_signal(sup_of(s), sup_svc_of(s), sig)) < 0 &&
	    rc != -ESRCH)
		log_warn("%s: signal %d: %s", s->def->name, sig,
		    strerror(-rc));
	return rc;
}

static void
sup_op_timer(struct svc *s, uint32_t ms)
{
	struct sup_svc	*ss = sup_svc_of(s);
	struct sup	*sup = sup_of(s);

	ev_timer_stop(sup->loop, &ss->timer);
	ev_timer_set(&ss->timer, ms / 1000.0, 0.);
	ev_timer_start(sup->loop, &ss->timer);
}

static void
sup_op_timer_stop(struct svc *s)
{
	ev_timer_stop(sup_of(s)->loop, &sup_svc_of(s)->timer);
}

static int64_t
sup_op_now(struct svc_set *set)
{
	(void)set;
	return mono_ms();
}

/*
 * Has a service ended for good, on its own: failed, or exited and not to
 * be restarted?  A stop by command is not an end.
 */
static bool
sup_ended(const struct svc *s)
{
	if (s->state == SVC_FAILED)
		return true;
	return s->state == SVC_STOPPED && s->reason.why != WHY_NONE &&
	    s->reason.why != WHY_STOPPED && s->reason.why != WHY_STOP_KILLED;
}

/*
 * What a shell would say of the service's program run alone: its exit
 * code, 128 + N for signal N, 127 for a program not found and 126 for
 * one that could not be run; 1 if it never ran.
 */
int
sup_exit_status(const struct svc *s)
{
	const struct svc_reason	*r = s->reason.why == WHY_START_LIMIT ?
				    &s->last : &s->reason;

	if (r->why == WHY_EXEC)
		return r->stage == STAGE_EXEC && r->code == ENOENT ? 127 : 126;
	if (r->why == WHY_ENV_FILE)
		return 1;
	if (s->exited_at == 0)
		return 1;
	return s->exit_sig ? 128 + s->exit_sig : s->exit_code;
}

/*
 * An essential service ended: the first decides our exit status, and
 * everything stops (from the loop, not from inside the state machine).
 * PID 1 of a machine powers it off.
 */
static void
sup_essential_ended(struct sup *sup, struct svc *s)
{
	char	why[256];

	if (sup->exit_set || sup->phase != SUP_RUNNING)
		return;
	sup->exit_set = true;
	sup->exit_code = sup_exit_status(s);
	svc_reason_format(s, why, sizeof(why));
	log_info("%s is essential and ended (%s): stopping everything, exit "
	    "status %d", s->def->name, why, sup->exit_code);
	ev_timer_set(&sup->end_w, 0., 0.);
	ev_timer_start(sup->loop, &sup->end_w);
}

static void
sup_on_end(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	sup_shutdown(ev_userdata(loop), RB_POWER_OFF);
}

/* svc_ops: a service changed state (or status text). */
static void
sup_op_changed(struct svc *s, enum svc_state from)
{
	struct sup	*sup = sup_of(s);
	char		 why[256];

	if (from != s->state) {
		svc_reason_format(s, why, sizeof(why));
		if (s->state == SVC_STARTING || s->state == SVC_STOPPING)
			log_debug("%s: %s (%s)", s->def->name,
			    svc_state_name(s->state), why);
		else if (s->state == SVC_READY)
			log_info("%s: ready (pid %d)", s->def->name,
			    (int)s->pid);
		else if (strcmp(why, svc_state_name(s->state)) == 0)
			log_info("%s: %s", s->def->name, why);
		else
			log_info("%s: %s (%s)", s->def->name,
			    svc_state_name(s->state), why);
	}
	ctl_svc_changed(&sup->ctl, s);
	if (from != s->state && s->def->essential && sup_ended(s))
		sup_essential_ended(sup, s);
	if (sup->phase == SUP_STOPPING && from != s->state)
		sup_check_stopped(sup);
	if (sup_svc_of(s)->removing && !svc_has_process(s))
		ev_prepare_start(sup->loop, &sup->gc_w);
}

/* svc_ops: the spawns of this turn are used up; go on next turn. */
static void
sup_op_defer(struct svc_set *set)
{
	struct sup	*sup = container_of(set, struct sup, set);

	ev_timer_set(&sup->spawn_w, 0., 0.);
	ev_timer_start(sup->loop, &sup->spawn_w);
}

static void
sup_on_spawn_more(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	svc_set_unhold(&((struct sup *)ev_userdata(loop))->set);
}

static void
sup_on_turn(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)w;
	(void)revents;
	((struct sup *)ev_userdata(loop))->set.spawns = 0;
}

/* svc_ops: a service killed for memory waits for memory (pressure.c). */
static int64_t
sup_op_hold(struct svc *s, int64_t *until)
{
	return pressure_hold(&sup_of(s)->pr, sup_svc_of(s), until);
}

/* svc.c's hooks into the world: each sup_op_ is called by svc.c. */
static const struct svc_ops sup_ops = {
	.spawn = sup_op_spawn,
	.busy = sup_op_busy,
	.signal = sup_op_signal,
	.timer = sup_op_timer,
	.timer_stop = sup_op_timer_stop,
	.changed = sup_op_changed,
	.now = sup_op_now,
	.defer = sup_op_defer,
	.hold = sup_op_hold,
};

/*
 * Is the main process's PID still its own?  Ours, unreaped, it is (a
 * zombie holds its PID).  A main process named by MAINPID may not be our
 * child: once it exited, its parent may have reaped it and its PID be
 * another's.
 */
static bool
sup_pid_held(const struct sup_svc *ss)
{
	siginfo_t	si;

	if (!ss->handed || !sup_pidfd_exited(ss->svc.pidfd))
		return true;
	memset(&si, 0, sizeof(si));
	return waitid(P_PIDFD, (id_t)ss->svc.pidfd, &si, WEXITED | WNOHANG |
	    WNOWAIT | __WALL) == 0 && si.si_pid != 0;
}

/* notifysock.c's question: which notify service sent this? */
static struct svc *
sup_notify_lookup(void *ctx, pid_t pid)
{
	struct sup_svc	*ss = sup_svc_by_pid(ctx, pid);

	if (ss == NULL || ss->svc.def->ready != READY_NOTIFY ||
	    !sup_pid_held(ss))
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
sup_belongs(struct sup *sup, struct sup_svc *ss, pid_t pid)
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
 * last time again; at most SUP_MAINPID_RATE a second, and a warning at
 * most once a second, with how many were let go meanwhile.
 */
#define SUP_MAINPID_RATE	10

static bool
sup_mainpid_allowed(struct sup_svc *ss, pid_t pid)
{
	int64_t	now = mono_ms();

	if (pid == ss->mainpid_refused)
		return false;
	if (now - ss->mainpid_second >= 1000) {
		ss->mainpid_second = now;
		ss->mainpid_count = 0;
	}
	return ++ss->mainpid_count <= SUP_MAINPID_RATE;
}

/*
 * Say why MAINPID=pid was refused: at most once a second.  Remember it
 * (not looked at again) if it was for good: not for the service's state.
 */
static void
sup_mainpid_refused(struct sup_svc *ss, pid_t pid, const char *why,
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
static void
sup_on_prev_death(struct ev_loop *loop, ev_io *w, int revents)
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
static void
sup_mainpid(void *ctx, struct svc *s, pid_t pid)
{
	struct sup	*sup = ctx;
	struct sup_svc	*ss = sup_svc_of(s);
	const char	*why;
	int		 fd;

	if (pid == s->pid || !sup_mainpid_allowed(ss, pid))
		return;
	/* It sent this: it has exec'd; the report may not be read yet. */
	if (ss->spawn != NULL) {
		sup_spawn_check(sup, ss->spawn, false);
		sup_unhold(sup);
	}
	if ((s->state != SVC_STARTING && s->state != SVC_READY) ||
	    ss->spawn != NULL) {
		sup_mainpid_refused(ss, pid, ss->spawn ? "not exec'd yet" :
		    svc_state_name(s->state), false);
		return;
	}
	if ((fd = (int)sys_pidfd_open(pid, 0)) < 0) {
		sup_mainpid_refused(ss, pid, strerror(errno), true);
		return;
	}
	if ((why = sup_belongs(sup, ss, pid)) != NULL ||
	    pidfd_signal(fd, 0) < 0) {
		sup_mainpid_refused(ss, pid, why ? why : "gone", true);
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

/*
 * reload_exec: its words, "$MAINPID" and "${MAINPID}" in them replaced by
 * the main process's PID (as systemd's ExecReload= says kill -HUP
 * $MAINPID).  The PID stays the main process's while it is our unreaped
 * child; one named by MAINPID may be another's child, and a pidfd does
 * not hold the number of a process we did not fork: the caller checks
 * that it is alive just before the command starts, and a command that
 * can should signal it some other way (its pidfile, its socket).
 */
static char **
sup_reload_argv(char *const *argv, pid_t pid)
{
	char	 num[16], **v, *w, *at;
	size_t	 n = strv_len(argv), i;
	struct buf b;

	snprintf(num, sizeof(num), "%d", (int)pid);
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		memset(&b, 0, sizeof(b));
		for (w = argv[i]; (at = strchr(w, '$')) != NULL;) {
			size_t	skip = strncmp(at, "${MAINPID}", 10) == 0 ? 10 :
				    strncmp(at, "$MAINPID", 8) == 0 ? 8 : 0;

			buf_add(&b, w, (size_t)(at - w) + (skip ? 0 : 1));
			if (skip)
				buf_puts(&b, num);
			w = at + (skip ? skip : 1);
		}
		buf_puts(&b, w);
		if (b.nomem || buf_add(&b, "", 1) < 0) {
			buf_free(&b);
			strv_free(v);
			return NULL;
		}
		v[i] = b.data;
	}
	return v;
}

/* A reload_exec is over (exited, or never ran): tell the state machine. */
static void
sup_reload_end(struct sup *sup, struct sup_svc *ss, int status)
{
	struct sup_reload	*rl = ss->reload;

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
sup_on_reload_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup_reload	*rl = container_of(w, struct sup_reload, io);

	(void)revents;
	if (spawn_poll(&rl->proc))
		ev_io_stop(loop, w);
}

/* Reap a reload_exec process through its pidfd, if it exited. */
static void
sup_reload_reap(struct sup *sup, struct sup_svc *ss)
{
	struct sup_reload	*rl = ss->reload;
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
	sup_reload_end(sup, ss, status);
}

static void
sup_on_reload_death(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup_reload	*rl = container_of(w, struct sup_reload, death);

	(void)revents;
	sup_reload_reap(ev_userdata(loop), rl->ss);
}

/*
 * Reload a ready service: run its reload_exec, or send its
 * reload_signal to its main process.  A notify service is reloaded once
 * its READY=1 comes (after RELOADING=1); svc.c counts reloads, and ctl.c
 * waits on them.  0; -errno with why in err.
 */
int
sup_svc_reload(struct sup *sup, struct svc *s, char *err, size_t n)
{
	struct sup_svc		*ss = sup_svc_of(s);
	const struct svc_def	*d = s->def;
	struct sup_reload	*rl;
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
	    (rl->argv = sup_reload_argv(d->reload_exec, s->pid)) == NULL) {
		free(rl);
		snprintf(err, n, "%s: %s", d->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	spawn_proc_init(&rl->proc);
	sup_spawn_req(sup, ss, &req);
	req.argv = rl->argv;
	if ((rc = spawn_start(&rl->proc, &req, &res)) < 0) {
		strv_free(rl->argv);
		free(rl);
		snprintf(err, n, "%s: reload_exec: %s", d->name, strerror(-rc));
		return rc;
	}
	rl->pid = res.pid;
	rl->ss = ss;
	rl->pm.kind = PM_RELOAD;
	pidmap_add(&sup->pids, &rl->pm, res.pid);
	ev_io_init(&rl->io, sup_on_reload_exec, rl->proc.errfd, EV_READ);
	ev_io_start(sup->loop, &rl->io);
	ev_io_init(&rl->death, sup_on_reload_death, spawn_fd_keep(res.pidfd),
	    EV_READ);
	ev_io_start(sup->loop, &rl->death);
	ss->reload = rl;
	svc_reload_asked(s, false);
	return 0;
}

/*
 * Reap orphans.  Peek at the next zombie; one of our services is reaped
 * through its pidfd, anything else (an orphan we inherited) by its PID,
 * which is safe for a zombie child of ours.  At most SUP_REAP_TURN in one
 * turn of the loop: services restarted at once can die as fast as we
 * reap them, and the loop must go on serving everything else; the rest
 * is taken in the next turn.
 */
#define SUP_REAP_TURN	256

static void
sup_reap_orphans(struct sup *sup)
{
	struct pidmap_node	*e;
	struct sup_svc		*ss;
	siginfo_t		 si;
	pid_t			 pid;
	int			 n;

	ev_timer_stop(sup->loop, &sup->reap_w);
	for (n = 0;; n++) {
		if (n == SUP_REAP_TURN) {
			ev_timer_set(&sup->reap_w, 0., 0.);
			ev_timer_start(sup->loop, &sup->reap_w);
			return;
		}
		memset(&si, 0, sizeof(si));
		/* __WALL: children that never exec'd (exit_signal 0) too,
		 * such as a notify drainer a binary before us started. */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT |
		    __WALL) < 0 || si.si_pid == 0)
			break;
		pid = si.si_pid;
		if ((ss = sup_svc_by_pid(sup, pid)) != NULL) {
			if (!sup_reap(sup, ss))
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
		if (e != NULL) {
			/* A reload_exec: through its pidfd too. */
			ss = container_of(e, struct sup_reload, pm)->ss;
			sup_reload_reap(sup, ss);
			if (ss->reload != NULL)
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

static void
sup_on_reap_more(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	sup_reap_orphans(ev_userdata(loop));
}

/*
 * The terminal we were given changed size (a container runtime with a
 * tty sends SIGWINCH): tell the services that share it (console = yes).
 */
static void
sup_winch(struct sup *sup)
{
	size_t	i;

	for (i = 0; i < sup->set.n; i++)
		if (sup->set.v[i]->def->console &&
		    svc_has_process(sup->set.v[i]))
			sup_op_signal(sup->set.v[i], SIGWINCH);
}

static void
sup_on_signal(struct ev_loop *loop, ev_io *w, int revents)
{
	struct sup			*sup = ev_userdata(loop);
	struct signalfd_siginfo		 si;
	bool				 chld = false;

	(void)w;
	(void)revents;
	while (read(sup->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			chld = true;
			break;
		case SIGTERM:
		case SIGINT:
			sup_shutdown(sup, RB_AUTOBOOT);
			break;
		case SIGUSR1:
		case SIGPWR:
			sup_shutdown(sup, RB_POWER_OFF);
			break;
		case SIGUSR2:
			sup_shutdown(sup, RB_HALT_SYSTEM);
			break;
		case SIGWINCH:
			sup_winch(sup);
			break;
		default:
			if ((int)si.ssi_signo == SUP_SIGREEXEC)
				sup_reexec_signal(sup);
			break;
		case SIGHUP: {
			struct buf	report = { 0 };

			if (sup_reload(sup, &report) == 0)
				log_info("reloaded: %s", report.data ?
				    report.data : "nothing changed");
			buf_free(&report);
			break;
		}
		}
	}
	if (chld)
		sup_reap_orphans(sup);
}

/* The signals we take through the signalfd. */
void
sup_signal_set(sigset_t *set)
{
	size_t	i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(sup_signals); i++)
		sigaddset(set, sup_signals[i]);
	sigaddset(set, SUP_SIGREEXEC);
}

static void
sup_nop(int sig)
{
	(void)sig;
}

/*
 * Take our signals through a signalfd.  They also get a do-nothing
 * handler: PID 1 never receives a signal whose action is SIG_DFL, even
 * a blocked one.  Exec resets handlers, and the child unblocks.
 */
static int
sup_signals_init(struct sup *sup)
{
	struct sigaction	sa;
	sigset_t		set;
	int			sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)	/* drop inherited SIG_IGN */
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sa.sa_handler = sup_nop;
	sup_signal_set(&set);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&set, sig) == 1)
			sigaction(sig, &sa, NULL);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	if ((sup->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return -errno;
	ev_io_init(&sup->sig_w, sup_on_signal, sup->sigfd, EV_READ);
	ev_io_start(sup->loop, &sup->sig_w);
	return 0;
}

/*
 * The environment of a service (env.c): the shared base, ours less our
 * own NOTIFY_SOCKET, unless it has env keys or is a notify service.
 * Its env files are read by its spawn child, on top of this.
 */
static int
sup_svc_env_make(struct sup *sup, struct sup_svc *ss)
{
	const struct svc_def	*d = ss->svc.def;
	const struct env_req	 r = {
		.base = sup->base_env, .keys = d->env,
		.notify = d->ready == READY_NOTIFY ? ss->notify_path : NULL,
		.watchdog_ms = d->watchdog,
	};
	const char		*path;
	int			 rc;

	if ((rc = env_build(&r, &ss->envp, &path, &ss->pid_slot)) < 0)
		return rc;
	ss->path = path ? path : sup->base_path;
	return 0;
}

int
sup_svc_env(struct sup *sup, struct sup_svc *ss)
{
	const struct svc_def	*d = ss->svc.def;

	ss->envp = NULL;
	ss->pid_slot = NULL;
	ss->path = sup->base_path;
	if (d->env == NULL && d->ready != READY_NOTIFY && d->watchdog == 0)
		return 0;
	return sup_svc_env_make(sup, ss);
}

void
sup_svc_env_free(struct sup_svc *ss)
{
	env_free(ss->envp);
	ss->envp = NULL;
	ss->pid_slot = NULL;
	ss->path = NULL;
}

/*
 * A service for a definition, which it owns from now on; not yet in the
 * set.
 */
struct sup_svc *
sup_svc_new(struct sup *sup, struct svc_def *d)
{
	struct sup_svc	*ss = calloc(1, sizeof(*ss));

	if (ss == NULL)
		return NULL;
	svc_init(&ss->svc, d, &sup->set);
	ss->cgfd = -1;
	notifysock_init(&ss->nsock, &sup->notify, &ss->svc);
	if (d->ready == READY_NOTIFY &&
	    (ss->notify_path = notifysock_path(&sup->notify, d->name)) == NULL &&
	    sup->notify.path != NULL) {
		free(ss);
		return NULL;
	}
	ev_io_init(&ss->death, sup_on_death, -1, EV_READ);
	ev_io_init(&ss->prev, sup_on_prev_death, -1, EV_READ);
	ev_io_init(&ss->ready, sup_on_ready, -1, EV_READ);
	ev_init(&ss->timer, sup_on_timer);
	if (sup_svc_env(sup, ss) < 0) {
		free(ss->notify_path);
		free(ss);
		return NULL;
	}
	return ss;
}

/* Forget a service that has no process; its definition goes too. */
static void
sup_svc_free(struct sup *sup, struct sup_svc *ss)
{
	ctl_svc_removed(&sup->ctl, &ss->svc);
	pressure_forget(&sup->pr, ss);
	if (ss->cgfd >= 0) {
		close(ss->cgfd);
		cgroup_svc_remove(&sup->cg, ss->svc.def->name);
	}
	if (ss->spawn != NULL)		/* at exit only: it had a process */
		sup_spawn_end(sup, ss->spawn);
	if (ss->reload != NULL)		/* at exit only: left to run */
		sup_reload_end(sup, ss, -ECANCELED);
	ev_io_stop(sup->loop, &ss->death);
	ev_timer_stop(sup->loop, &ss->timer);
	sup_prev_forget(sup, ss);
	sup_ready_close(sup, ss);
	output_free(ss->out);
	ss->out = NULL;
	if (ss->svc.pidfd >= 0) {
		pidmap_del(&sup->pids, &ss->pm);
		close(ss->svc.pidfd);
	}
	sup_svc_env_free(ss);
	notifysock_close(&ss->nsock);
	free(ss->notify_path);
	svc_release(&ss->svc);
	svc_def_free(ss->svc.def);
	free(ss);
}

/* After the set changed: the dependency graph and the PID map. */
int
sup_relink(struct sup *sup)
{
	size_t	i;

	for (i = 0; i < sup->set.n; i++) {
		struct svc	*s = sup->set.v[i];

		/* A reason may name a service that is gone: forget it.
		 * (v[0..n) are all set; the analyzer cannot tell.) */
		s->reason.dep = NULL;	/* NOLINT(clang-analyzer-core.NullDereference) */
	}
	if (pidmap_reserve(&sup->pids, sup->set.n) < 0)
		return -ENOMEM;
	return svc_set_link(&sup->set);
}

/* Free removed services once they have no process left. */
static void
sup_on_gc(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);
	size_t		 i, j;

	(void)revents;
	ev_prepare_stop(loop, w);
	for (i = j = 0; i < sup->set.n; i++) {
		struct svc	*s = sup->set.v[i];

		if (sup_svc_of(s)->removing && !svc_has_process(s)) {
			log_info("%s: removed", s->def->name);
			sup_svc_free(sup, sup_svc_of(s));
		} else {
			sup->set.v[j++] = s;
		}
	}
	if (j != sup->set.n) {
		sup->set.n = j;
		sup_relink(sup);
	}
}

/*
 * A service made by a command from its template: NAME@INSTANCE.  Its
 * errors (FILE:LINE) go to err; it joins the set, wanting down, and
 * stays across reloads while its template does.  NULL if there is no
 * such template, or the instance is wrong.
 */
struct svc *
sup_instance(struct sup *sup, const char *name, struct buf *err)
{
	const struct conf_tmpl	*t = conf_tmpl_of(&sup->conf, name);
	struct conf		 nc;
	struct svc_def		*d = NULL;
	struct sup_svc		*ss;
	struct svc		**v;
	size_t			 i;

	if (t == NULL)
		return NULL;
	conf_init(&nc);
	nc.sup.log = sup->conf.sup.log;
	nc.etc = sup->conf.etc;
	if (conf_instance(&nc, t, name, &d) == 0) {
		for (i = 0; i < d->nrequires + d->nafter; i++) {
			const struct svc_dep	*e = i < d->nrequires ?
			    &d->requires[i] : &d->after[i - d->nrequires];

			if (svc_find(&sup->set, e->name) == NULL)
				buf_printf(err, "%s:%d: %s: unknown service "
				    "'%s'\n", t->file, e->line, i <
				    d->nrequires ? "requires" : "after",
				    e->name);
		}
	}
	conf_errors(&nc, err);
	if (err->len > 0 || d == NULL ||
	    (v = realloc(sup->set.v, (sup->set.n + 2) * sizeof(*v))) == NULL) {
		conf_free(&nc);
		return NULL;
	}
	sup->set.v = v;
	nc.defs[0] = NULL;
	nc.ndefs = 0;
	conf_free(&nc);
	d->dynamic = true;
	if ((ss = sup_svc_new(sup, d)) == NULL) {
		svc_def_free(d);
		return NULL;
	}
	sup->set.v[sup->set.n++] = &ss->svc;
	if (sup_relink(sup) < 0)
		log_err("%s: %s", name, strerror(ENOMEM));
	log_info("%s: made from %s", name, t->file);
	return &ss->svc;
}

/* Make the services of the loaded configuration; they take its defs. */
static int
sup_svcs_create(struct sup *sup)
{
	struct conf	*c = &sup->conf;
	size_t		 i;

	sup->set.ops = &sup_ops;
	sup->set.ctx = sup;
	TAILQ_INIT(&sup->set.queue);
	TAILQ_INIT(&sup->set.held);
	if ((sup->set.v = calloc(c->ndefs + 1, sizeof(*sup->set.v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < c->ndefs; i++) {
		struct sup_svc	*ss = sup_svc_new(sup, c->defs[i]);

		if (ss == NULL)
			return -ENOMEM;
		c->defs[i] = NULL;
		sup->set.v[sup->set.n++] = &ss->svc;
	}
	free(c->defs);
	c->defs = NULL;
	c->ndefs = 0;
	return sup_relink(sup);
}

/*
 * Choose the socket paths: -s, $PIDVISOR_SOCKET, pidvisor.ini, default.
 * A default place is taken only if its directory is safe (proto.c):
 * where none is, we say which and why, and start no socket at all
 * (-EPERM: a machine's PID 1 runs on without, anyone else exits).
 */
static int
sup_paths(struct sup *sup, const char *sock)
{
	const char	*env = getenv("PIDVISOR_SOCKET"), *slash, *first = NULL;
	char		*dir, buf[CTL_SOCKET_PATH_MAX], why[256];
	struct buf	 whys = { 0 };
	uid_t		 owner;
	int		 n, i;

	if (sock == NULL && env != NULL && *env)
		sock = env;
	if (sock == NULL)
		sock = sup->conf.sup.control_socket;
	for (i = 0; sock == NULL; i++) {
		if ((sock = ctl_socket_default(i, true, buf, sizeof(buf),
		    &owner)) == NULL) {
			log_err("no safe place for the control socket:%s",
			    whys.data ? whys.data : "");
			buf_free(&whys);
			return -EPERM;
		}
		if (ctl_socket_dir(sock, why, sizeof(why)) < 0) {
			log_debug("control socket %s: %s", sock, why);
			buf_printf(&whys, " %s: %s;", sock, why);
			first = first ? first : CTL_SOCKET_DEFAULT;
			sock = NULL;
		}
	}
	/*
	 * Say why not the first place (a client looks there first); not a
	 * warning: a read-only container with a writable /tmp is a setup,
	 * not a fault.
	 */
	if (first != NULL)
		log_info("control socket%s using %s", whys.data, sock);
	buf_free(&whys);
	if ((sup->ctl_path = strdup(sock)) == NULL)
		return -ENOMEM;
	if (sup->conf.sup.notify_dir) {
		sup->notify_path = strdup(sup->conf.sup.notify_dir);
		return sup->notify_path ? 0 : -ENOMEM;
	}
	slash = strrchr(sock, '/');
	n = slash ? (int)(slash - sock) : 1;
	if (asprintf(&dir, "%.*s/notify", n, slash ? sock : ".") < 0)
		return -ENOMEM;
	sup->notify_path = dir;
	return 0;
}

/* fs.nr_open, the most fds a process may have; at least min. */
static rlim_t
sup_nr_open(rlim_t min)
{
	char	buf[32];
	rlim_t	v = 0;

	if (read_small(AT_FDCWD, "/proc/sys/fs/nr_open", buf, sizeof(buf)) > 0)
		v = strtoull(buf, NULL, 10);
	return v > min ? v : min;
}

/*
 * The fds we hold for services: /dev/null for their stdin, /dev/kmsg as
 * PID 1.  Make sure 0, 1 and 2 are open, so that no fd of ours takes
 * their numbers, and raise our own fd limit (services get theirs back).
 */
static int
sup_fds_init(struct sup *sup)
{
	struct rlimit	rl;
	int		fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		sup->nofile_cur = rl.rlim_cur;
		sup->nofile_max = rl.rlim_max;
		/* A service holds up to five of our fds: as root, take as
		 * many as the kernel allows (fs.nr_open), as systemd does. */
		rl.rlim_cur = rl.rlim_max = sup_nr_open(rl.rlim_max);
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			rl.rlim_cur = rl.rlim_max = sup->nofile_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (sup->pid1 && !sup->container)
		sup->output.kmsgfd = open("/dev/kmsg", O_WRONLY | O_NONBLOCK |
		    O_CLOEXEC);
	if ((sup->devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	return 0;
}

/*
 * Machine or container (pid1.c): pidvisor.ini's mode, or as we find
 * ourselves.  Only PID 1 has a mode: otherwise we always exit at the end.
 */
static void
sup_mode(struct sup *sup)
{
	uint8_t	mode = sup->conf.sup.mode;

	if (!sup->pid1)
		return;
	sup->container = mode == MODE_CONTAINER ||
	    (mode == MODE_AUTO && pid1_in_container());
	log_info("PID 1 of a %s%s", sup->container ? "container" : "machine",
	    mode == MODE_AUTO ? "" : " (mode in pidvisor.ini)");
}

/*
 * Everything before the loop runs; failures here are fatal (except as
 * PID 1 of a machine, where a bad configuration leaves us running with
 * no services).
 */
int
sup_init(struct sup *sup, const char *confdir, const char *sock,
    struct sup_restore *rs)
{
	struct buf	errs = { 0 };
	int		rc;

	memset(sup, 0, sizeof(*sup));
	sup->sigfd = sup->ctl.fd = sup->output.kmsgfd = -1;
	sup->ctl.spare = -1;
	sup->devnull = -1;
	sup->confdir = confdir;
	sup->sock = sock;
	sup->pid1 = getpid() == 1;
	LIST_INIT(&sup->ctl.clients);
	sup_reexec_init(sup);
	conf_init(&sup->conf);
	if (rs != NULL) {
		/* A re-exec: everything as the binary before us left it. */
		rc = reexec_load_conf(sup, rs);
		sup->confdir = sup->confdir_own = rs->confdir;
		rs->confdir = NULL;
		if (rc < 0)
			reexec_fail(rs, rs->r.err);
		console_set_format(sup->conf.sup.log_format);
		log_level = sup->log_level;
		return sup_init_rest(sup, rs);
	}
	if (sup->pid1)
		pid1_console();
	rc = conf_load(&sup->conf, confdir);
	console_set_format(sup->conf.sup.log_format);
	sup_mode(sup);
	if (rc < 0) {
		conf_errors(&sup->conf, &errs);
		(void)!write(STDERR_FILENO, errs.data, errs.len);
		buf_free(&errs);
		log_err("%zu error%s in %s; nothing started", sup->conf.nerrs,
		    sup->conf.nerrs == 1 ? "" : "s", confdir);
		/* A machine runs on, to be fixed and reloaded; a container
		 * ends, to be fixed in its image. */
		if (!sup->pid1 || sup->container)
			return -EINVAL;
		conf_free(&sup->conf);
	}
	if (sup->pid1)
		pid1_setup(sup->container);
	sup->log_level = log_level;
	/* Inherited fds must not reach the services. */
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	return sup_init_rest(sup, NULL);
}

/*
 * The rest of sup_init(), shared with a re-exec (rs): what a state gives
 * is taken from it, not made anew.  Sockets and services come from rs;
 * the loop, the signals and the rest are ours.
 */
static int
sup_init_rest(struct sup *sup, struct sup_restore *rs)
{
	size_t	i;
	int	rc;

	if (sup->conf.sup.set_log_level)
		log_level = sup->conf.sup.log_level;
	sup->output.log_dir = sup->conf.sup.log_dir ?
	    sup->conf.sup.log_dir : "/var/log/pidvisor";
	if ((rc = sup_fds_init(sup)) < 0) {
		log_err("/dev/null: %s", strerror(-rc));
		if (!sup->pid1)
			return rc;
	}
	if (!sup->pid1 && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		log_warn("cannot become a subreaper: %s", strerror(errno));
	if ((rc = spawn_init()) < 0)
		log_warn("no separate spawn stack (%s): spawning fork-style",
		    strerror(-rc));
	else if (spawn_no_clone3())
		log_info("clone3 is missing: spawning with clone(CLONE_PIDFD); "
		    "services join their cgroups themselves");
	if ((sup->loop = ev_loop_new(EVBACKEND_EPOLL)) == NULL &&
	    (sup->loop = ev_loop_new(0)) == NULL) {
		log_err("cannot create the event loop");
		return -ENOMEM;
	}
	ev_set_userdata(sup->loop, sup);
	sup->output.loop = sup->loop;
	sup->output.line = sup_on_line;
	sup->output.ctx = sup;
	pid1_init(&sup->p1, sup->loop);
	sup->p1.container = sup->container;
	ev_prepare_init(&sup->gc_w, sup_on_gc);
	ev_init(&sup->reap_w, sup_on_reap_more);
	ev_init(&sup->end_w, sup_on_end);
	ev_init(&sup->shutdown_w, sup_on_shutdown_timeout);
	ev_init(&sup->spawn_w, sup_on_spawn_more);
	for (i = 0; i < SUP_SPAWN_SLOTS; i++) {
		spawn_proc_init(&sup->spawns[i].proc);
		ev_io_init(&sup->spawns[i].io, sup_on_exec, -1, EV_READ);
		ev_init(&sup->spawns[i].timer, sup_on_spawn_timer);
	}
	ev_prepare_init(&sup->turn_w, sup_on_turn);
	ev_prepare_start(sup->loop, &sup->turn_w);
	ev_unref(sup->loop);	/* it does not keep the loop running */
	sup->set.spawn_max = SUP_SPAWNS_PER_TURN;
	console_init(sup->loop);
	if (rs != NULL) {
		/* Ours were raised: the services get those we were given. */
		sup->nofile_cur = rs->nofile_cur;
		sup->nofile_max = rs->nofile_max;
		sup->p1.container = sup->container;
		cgroup_adopt(&sup->cg, rs->cg_base, rs->cg_why);
	} else {
		cgroup_init(&sup->cg, &sup->conf.sup, sup->pid1);
	}
	if (sup->cg.base)
		log_info("cgroups: services under %s", sup->cg.base);
	else
		log_info("cgroups: none (%s)", sup->cg.why);
	sup->pgrp_signal = sys_pidfd_send_signal(-1, 0,
	    PIDFD_SIGNAL_PROCESS_GROUP) < 0 && errno == EBADF;
	sup->pr.loop = sup->loop;
	sup->pr.set = &sup->set;
	sup->pr.cg = &sup->cg;
	sup->pr.sc = &sup->conf.sup;
	pressure_init(&sup->pr);
	{
		const struct env_req	r = { .base = environ };

		rc = env_build(&r, &sup->base_env, &sup->base_path, NULL);
	}
	if (sup->base_path == NULL)
		sup->base_path = PATH_DEFAULT;
	if (rc == 0 && rs == NULL && (rc = sup_paths(sup, sup->sock)) == -EPERM &&
	    sup->pid1 && !sup->container) {
		log_err("running without a control socket or a notify socket");
		rc = 0;
	} else if (rc == -EPERM) {
		return rc;
	}
	if (rc < 0 || (rc = sup_signals_init(sup)) < 0) {
		log_err("setup: %s", strerror(-rc));
		if (rs != NULL)
			reexec_fail(rs, strerror(-rc));
		return rc;
	}
	/*
	 * After sup_signals_init, which resets every handler.  A machine's
	 * init must not die; a container's crash ends the container, and
	 * its runtime's restart policy has the last word.  A re-exec has a
	 * handler of its own until the state is taken (reexec.c).
	 */
	if (sup->pid1 && !sup->container && rs == NULL)
		pid1_crash_setup(&sup->conf.sup, sup->output.kmsgfd);
	else if (rs != NULL)
		reexec_crash_setup();
	sup->ctl.sup = sup;
	sup->ctl.loop = sup->loop;
	sup->ctl.set = &sup->set;
	sup->ctl.pr = &sup->pr;
	sup->ctl.sc = &sup->conf.sup;
	sup->ctl.path = sup->ctl_path;
	sup->ctl.pid1 = sup->pid1;
	sup->notify.loop = sup->loop;
	sup->notify.path = sup->notify_path;
	sup->notify.lookup = sup_notify_lookup;
	sup->notify.mainpid = sup_mainpid;
	sup->notify.ctx = sup;
	if (rs != NULL)
		return sup_restore(sup, rs);
	/*
	 * PID 1 runs its services even without its sockets.  The control
	 * socket first: if another supervisor answers there, we stop
	 * before touching its notify socket.
	 */
	if (sup->ctl_path != NULL && (rc = ctl_listen(&sup->ctl)) < 0 &&
	    !sup->pid1)
		return rc;
	if (sup->notify_path != NULL &&
	    (rc = notifydir_open(&sup->notify)) < 0) {
		log_err("notify sockets %s: %s", sup->notify_path,
		    rc == -EPERM ? "not ours alone (another user owns it or "
		    "may write in it)" : rc == -ENOTDIR ? "not a directory; "
		    "not replaced" : strerror(-rc));
		if (!sup->pid1)
			return rc;
	}
	if ((rc = sup_svcs_create(sup)) < 0) {
		log_err("setup: %s", strerror(-rc));
		return rc;
	}
	sup_kill_modes_check(sup);
	log_info("%zu service%s from %s, control socket %s", sup->set.n,
	    sup->set.n == 1 ? "" : "s", sup->confdir, sup->ctl_path ?
	    sup->ctl_path : "none");
	for (i = 0; i < sup->set.n; i++)
		if (sup->set.v[i]->def->enabled)
			svc_start(sup->set.v[i]);
	return 0;
}

/*
 * A re-exec: the sockets and the services from the state; nothing is
 * started, signalled or read from disk.  Whatever fails here goes back
 * to the binary before us (reexec_fail).
 */
static int
sup_restore(struct sup *sup, struct sup_restore *rs)
{
	if (sup_svcs_create(sup) < 0)
		reexec_fail(rs, strerror(ENOMEM));
	if (reexec_load_rest(sup, rs) < 0)
		reexec_fail(rs, rs->r.err);
	/* Taken: what was close-on-exec is again (only the state's fds
	 * are open; those of spawn_fd_keep() stay inheritable). */
	st_r_cloexec(&rs->r);
	pid1_catch_faults(NULL, NULL, 0, 0);	/* reexec.c's handler goes */
	if (sup->pid1 && !sup->container)
		pid1_crash_setup(&sup->conf.sup, sup->output.kmsgfd);
	reexec_finish(sup, rs);
	/* What the exec's moment left: queued steps, zombies. */
	svc_set_run(&sup->set);
	sup_reap_orphans(sup);
	return 0;
}

/* Is it running (not shutting down)? */
bool
sup_running(const struct sup *sup)
{
	return sup->phase == SUP_RUNNING;
}

/* Why services run without cgroups, or NULL if they have them. */
const char *
sup_cgroup_note(const struct sup *sup)
{
	return sup->cg.base == NULL ? sup->cg.why : NULL;
}

/*
 * The kill_mode a service really has: without a cgroup, cgroup acts as
 * group; without PIDFD_SIGNAL_PROCESS_GROUP, group acts as process (the
 * main process alone gets the signal; what it leaves is not killed).
 */
static enum kill_mode
sup_kill_mode(const struct sup *sup, const struct sup_svc *ss)
{
	int	mode = ss->svc.def->kill_mode;

	if (mode == KILL_CGROUP && ss->cgfd < 0 && sup->cg.base_fd < 0)
		mode = KILL_GROUP;
	if (mode == KILL_GROUP && !sup->pgrp_signal)
		mode = KILL_PROCESS;
	return (enum kill_mode)mode;
}

/* Say once, at start and reload, which services' kill_mode degrades. */
void
sup_kill_modes_check(struct sup *sup)
{
	size_t	i;

	for (i = 0; i < sup->set.n; i++) {
		struct sup_svc	*ss = sup_svc_of(sup->set.v[i]);
		enum kill_mode	 m = sup_kill_mode(sup, ss);

		if (m != ss->svc.def->kill_mode)
			log_warn("%s: kill_mode = %s acts as %s here (%s)",
			    ss->svc.def->name,
			    kill_mode_name(ss->svc.def->kill_mode),
			    kill_mode_name(m), m == KILL_PROCESS ? "this "
			    "kernel has no PIDFD_SIGNAL_PROCESS_GROUP: the main "
			    "process alone gets signals" : "no cgroups: the "
			    "process group gets signals");
	}
}

/* A service's status as plain data, for ctl.c (status.c formats it). */
void
sup_svc_status(struct svc *s, int64_t now, struct svc_status *st)
{
	struct sup_svc	*ss = sup_svc_of(s);

	memset(st, 0, sizeof(*st));
	st->name = s->def->name;
	st->state = s->state;
	if (svc_has_process(s)) {
		st->pid = s->pid;
		st->uptime_ms = now - s->started_at;
	}
	st->restarts = s->restarts;
	svc_reason_format(s, st->reason, sizeof(st->reason));
	st->status_text = s->status_text;
	st->have_memory = ss->cgfd >= 0 && cgroup_read_u64(ss->cgfd,
	    "memory.current", &st->memory) == 0;
	if (st->have_memory)
		cgroup_events(ss->cgfd, &st->oom, &st->oom_kill);
	st->ring = ss->out ? ss->out->ring : NULL;
	st->kill_mode = s->def->kill_mode;
	st->kill_mode_real = sup_kill_mode(s->set->ctx, ss);
	st->essential = s->def->essential;
	st->log_dropped = ss->out ? ss->out->dropped : 0;
	if ((st->exited_at_ms = s->exited_at) != 0) {
		st->exit_code = s->exit_code;
		st->exit_sig = s->exit_sig;
	}
	st->ran_at_ms = s->ran_at;
	/* Ready: its monotonic time, as wall time; done: its exit. */
	if (s->state == SVC_READY && s->ready_at)
		st->ready_at_ms = real_ms() - (now - s->ready_at);
	else if (s->state == SVC_DONE)
		st->ready_at_ms = s->exited_at;
	st->err = s->err;
	st->reloading = s->reloading;
	st->reason_has_exit = s->reason.why == WHY_EXITED ||
	    s->reason.why == WHY_KILLED || s->reason.why == WHY_START_LIMIT;
}

/* Run the loop until the supervisor is told to exit. */
int
sup_run(struct sup *sup)
{
	ev_run(sup->loop, 0);
	return sup->exit_code;
}

/* Stop every service; then exit (or, as PID 1, reboot with cmd). */
void
sup_shutdown(struct sup *sup, unsigned int cmd)
{
	size_t	i;

	sup->p1.reboot_cmd = cmd;
	if (sup->phase != SUP_RUNNING) {
		/* Asked again: do not wait for stop timeouts. */
		log_info("killing the services that are still stopping");
		for (i = 0; i < sup->set.n; i++)
			if (svc_has_process(sup->set.v[i]))
				sup_op_signal(sup->set.v[i], SIGKILL);
		return;
	}
	sup->phase = SUP_STOPPING;
	sup->pr.stopping = true;
	log_info("stopping all services");
	if (sup->conf.sup.shutdown_timeout) {
		ev_timer_set(&sup->shutdown_w,
		    sup->conf.sup.shutdown_timeout / 1000.0, 0.);
		ev_timer_start(sup->loop, &sup->shutdown_w);
	}
	svc_set_stop_all(&sup->set);
	sup_check_stopped(sup);
}

/*
 * shutdown_timeout passed and services still have processes (one that
 * extends its stop, one in D state that SIGKILL cannot end yet): SIGKILL
 * to all of them, and a second later we go on without them, saying
 * which were left.  As a machine's init we sync, remount read-only what
 * we can and power off or reboot anyway; elsewhere we exit.
 */
static void
sup_on_shutdown_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);
	char		 t[32];
	size_t		 i;

	(void)revents;
	if (sup->phase != SUP_STOPPING)
		return;
	for (i = 0; i < sup->set.n; i++) {
		struct svc	*s = sup->set.v[i];

		if (!svc_has_process(s))
			continue;
		if (sup->shutdown_kill) {
			log_err("%s: left behind: pid %d did not die",
			    s->def->name, (int)s->pid);
		} else {
			log_warn("%s: still %s (pid %d): SIGKILL",
			    s->def->name, svc_state_name(s->state),
			    (int)s->pid);
			sup_op_signal(s, SIGKILL);
		}
	}
	if (!sup->shutdown_kill) {
		format_duration(t, sizeof(t), sup->conf.sup.shutdown_timeout);
		log_warn("shutdown_timeout (%s) passed; going on in 1 s "
		    "whatever is left", t);
		sup->shutdown_kill = true;
		ev_timer_set(w, 1., 0.);
		ev_timer_start(loop, w);
		return;
	}
	if (!sup->exit_set)
		sup->exit_code = 1;
	sup_stopped(sup);
}

/* Once no service has a process: exit, or finish PID 1's way. */
static void
sup_check_stopped(struct sup *sup)
{
	size_t	i;

	if (sup->phase != SUP_STOPPING)
		return;
	for (i = 0; i < sup->set.n; i++)
		if (svc_has_process(sup->set.v[i]))
			return;
	log_info("all services stopped");
	sup_stopped(sup);
}

/* The services are stopped (or left behind): the end. */
static void
sup_stopped(struct sup *sup)
{
	size_t	i;

	ev_timer_stop(sup->loop, &sup->shutdown_w);
	sup->phase = SUP_DONE;
	/*
	 * Our exit status (not PID 1, or a container's): an essential
	 * service's, else 1 if a service is left failed, else 0.
	 */
	if (!sup->exit_set && !sup->shutdown_kill) {
		sup->exit_code = 0;
		for (i = 0; i < sup->set.n; i++)
			if (sup->set.v[i]->state == SVC_FAILED)
				sup->exit_code = 1;
	}
	if (!sup->pid1 || sup->container)
		log_info("exit status %d", sup->exit_code);
	if (sup->pid1)
		pid1_finish(&sup->p1);
	else
		ev_break(sup->loop, EVBREAK_ALL);
}

/* Release everything; the services have been stopped. */
void
sup_free(struct sup *sup)
{
	size_t	i;

	sup_reexec_fini(sup);
	ctl_close(&sup->ctl);
	for (i = 0; i < sup->set.n; i++)
		sup_svc_free(sup, sup_svc_of(sup->set.v[i]));
	free(sup->set.v);
	free(sup->set.stack);
	pidmap_free(&sup->pids);
	notifydir_close(&sup->notify);
	if (sup->sigfd >= 0)
		close(sup->sigfd);
	if (sup->devnull >= 0)
		close(sup->devnull);
	pressure_fini(&sup->pr);
	cgroup_fini(&sup->cg);
	if (sup->output.kmsgfd >= 0)
		close(sup->output.kmsgfd);
	console_close();
	if (sup->loop)
		ev_loop_destroy(sup->loop);
	free(sup->ctl_path);
	free(sup->notify_path);
	env_free(sup->base_env);
	conf_free(&sup->conf);
	free(sup->confdir_own);
}
