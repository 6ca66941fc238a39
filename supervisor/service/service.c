/*
 * service.c - a service as the supervisor runs it: its process, from the
 * spawn (the slots of spawns in flight, the child's report pipe) to its
 * death (its pidfd), its readiness pipe, its timer and its environment;
 * and svc.c's hooks into the world (svc_ops), which svc.c calls and
 * which change nothing but this service's fds and watchers.
 *
 * A service is reaped only through its pidfd (service_reap); orphans
 * are reaper.c's.  What a change of state means for the whole
 * supervisor is core.c's (sup_changed).
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
#include "env.h"
#include "mainpid.h"
#include "notifysock.h"
#include "output.h"
#include "pressure.h"
#include "service.h"
#include "spawn.h"
#include "core.h"
#include "st.h"
#include "health.h"
#include "hook.h"
#include "sys.h"
#include "sandbox.h"


static void	service_process_gone(struct core *, struct service *);
static bool	service_handed_gone(struct core *, struct service *);
static bool	service_fork_begin(struct core *, struct service *);

/* The supervisor's view of a service. */
struct service *
service_of(struct svc *s)
{
	return container_of(s, struct service, svc);
}

/* The service layer's world, of a service. */
struct core *
service_core(struct svc *s)
{
	return s->set->ctx;
}

/* The service whose unreaped main process has this PID, or NULL. */
struct service *
service_by_pid(struct core *core, pid_t pid)
{
	struct pidmap_node	*e = pidmap_get(core->pids, pid);

	return e && e->kind == PM_MAIN ? container_of(e, struct service, pm) :
	    NULL;
}

/* Stop watching and close the readiness pipe. */
static void
service_ready_close(struct core *core, struct service *ss)
{
	if (!ev_is_active(&ss->ready))
		return;
	ev_io_stop(core->loop, &ss->ready);
	close(ss->ready.fd);
	ev_io_set(&ss->ready, -1, EV_READ);
}

/* Read what the service wrote on its readiness fd; a newline: ready. */
static void
service_ready_drain(struct core *core, struct service *ss)
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
		service_ready_close(core, ss);
		if (n > 0)
			svc_ready(&ss->svc);
	}
}

static void
service_on_ready(struct ev_loop *loop, ev_io *w, int revents)
{
	struct service	*ss = container_of(w, struct service, ready);

	(void)revents;
	service_ready_drain(ev_userdata(loop), ss);
}

/* output.c's hook: a line of a service, for those who follow it. */
static void
service_on_line(struct output *o, struct svc *s, const struct svclog_line *l)
{
	ctl_svc_line(((struct core *)o->ctx)->ctl, s, l);
}

/* The spawn is over: its slot is free for the next. */
static void
service_spawn_end(struct core *core, struct service_spawn *sp)
{
	ev_io_stop(core->loop, &sp->io);
	ev_timer_stop(core->loop, &sp->timer);
	spawn_end(&sp->proc);
	sp->ss->spawn = NULL;
	sp->ss = NULL;
	svc_def_free(sp->old_def);
	sp->old_def = NULL;
	sandbox_unref(sp->sb);
	sp->sb = NULL;
	env_free(sp->old_envp);
	strv_free(sp->old_keys);
	sp->old_envp = NULL;
	sp->old_keys = NULL;
	env_free(sp->envp);
	sp->envp = NULL;
}

/*
 * A free spawn slot; NULL while SERVICE_SPAWNS are in flight and not slow,
 * or every slot is taken.
 */
static struct service_spawn *
service_spawn_slot(struct core *core)
{
	struct service_spawn	*free = NULL;
	size_t			 i, fresh = 0;

	for (i = 0; i < SERVICE_SPAWN_SLOTS; i++) {
		if (core->spawns[i].ss == NULL)
			free = free ? free : &core->spawns[i];
		else if (!core->spawns[i].slow)
			fresh++;
	}
	return fresh < SERVICE_SPAWNS ? free : NULL;
}


/*
 * A spawn's timer: it is slow now (the next spawn may go), or, the
 * second time, past its deadline (its child is killed).
 */
static void
service_on_spawn_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct service_spawn	*sp = container_of(w, struct service_spawn, timer);
	struct core		*core = ev_userdata(loop);

	(void)revents;
	if (sp->ss == NULL)
		return;
	if (!sp->slow) {
		sp->slow = true;
		ev_timer_set(w, SERVICE_SPAWN_TIMEOUT - SERVICE_SPAWN_SLOW, 0.);
		ev_timer_start(loop, w);
		service_unhold(core);
		return;
	}
	log_warn("%s: its child did not exec within %.0f s: killed",
	    sp->ss->svc.def->name, SERVICE_SPAWN_TIMEOUT);
	svc_spawn_timeout(&sp->ss->svc);
}

/* svc_ops: no spawn can start while SERVICE_SPAWNS are in flight. */
static bool
service_op_busy(struct svc_set *set)
{
	struct core	*core = set->ctx;

	return core->quiesce || service_spawn_slot(core) == NULL;
}

/*
 * A spawn ended, or a re-exec that held spawns back failed: the
 * services held for one go on.
 */
void
service_unhold(struct core *core)
{
	if (!TAILQ_EMPTY(&core->set->held) && !service_op_busy(core->set))
		svc_set_unhold(core->set);
}

/*
 * The child found an env file wrong: s->fail says which, where and what
 * (of the definition it was spawned with: a reload may have replaced
 * it), never what the file holds.
 */
static void
service_env_fail(struct service_spawn *sp)
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
 * A mount of its plan failed: which key asked for it, and where; or
 * which of its limits could not be set.
 */
static void
service_sandbox_fail(struct service_spawn *sp)
{
	struct svc		*s = &sp->ss->svc;
	const struct sandbox	*sb = sp->sb;
	const struct sb_op	*op;
	char			 msg[512], why[128];

	if (sb == NULL)
		return;
	if (sp->proc.stage == STAGE_LIMIT) {
		snprintf(msg, sizeof(msg), "%s: %s", sandbox_limit_key(sb,
		    sp->proc.at), strerror(sp->proc.err));
	} else {
		if (sp->proc.at < 0 || (size_t)sp->proc.at >= sb->nops)
			return;
		op = &sb->ops[sp->proc.at];
		if (sp->proc.fail.what == ENV_SYMLINK)
			snprintf(why, sizeof(why), "a symlink on its path is "
			    "owned by uid %d; not followed",
			    (int)sp->proc.fail.uid);
		else if (sp->proc.err == ESTALE && op->kind == SB_PUT)
			snprintf(why, sizeof(why), "it changed while the "
			    "mounts were made; not mounted");
		else
			snprintf(why, sizeof(why), "%s", strerror(sp->proc.err));
		snprintf(msg, sizeof(msg), "%s %s: %s", op->key ? op->key :
		    "mount", op->path && op->path[0] ? op->path : "/", why);
	}
	log_err("%s: %s", s->def->name, msg);
	free(s->fail);
	s->fail = strdup(msg);
}

/*
 * What the child of a spawn said: it exec'd, or why it could not.  Once
 * dead (its pidfd said so), the spawn ends, whatever it said.
 */
void
service_spawn_check(struct core *core, struct service_spawn *sp, bool dead)
{
	struct spawn_proc	*p = &sp->proc;
	struct service		*ss = sp->ss;
	struct svc		*s = &ss->svc;

	if (!spawn_poll(p) && !dead)
		return;
	if (p->err && p->stage == STAGE_ENV_FILE)
		service_env_fail(sp);
	if (p->err && (p->stage == STAGE_MOUNT || p->stage == STAGE_LIMIT))
		service_sandbox_fail(sp);
	if (p->over && !p->err && p->errsock &&
	    spawn_ns_take(p, &ss->ns) < 0)
		log_warn("%s: its namespaces are another user namespace's; "
		    "its hooks make their own", s->def->name);
	service_spawn_end(core, sp);
	socks_spawned(&ss->svc);
	if (p->over || p->err)
		svc_exec(s, p->stage, p->err);
}

static void
service_on_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct core	*core = ev_userdata(loop);

	(void)revents;
	service_spawn_check(core, container_of(w, struct service_spawn, io), false);
	service_unhold(core);
}

/*
 * A service died of SIGKILL: if the kernel's OOM killer killed in its
 * cgroup meanwhile (memory.events counts kills by the global OOM killer
 * and at memory_max alike), that is why.
 */
static void
service_oom_check(struct service *ss)
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
bool
service_reap(struct core *core, struct service *ss)
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
		if (errno == ECHILD && ss->handed && pidfd_exited(fd))
			return service_handed_gone(core, ss);
		return false;
	}
	if (si.si_pid == 0)
		return false;
	pressure_died(core->pr, &ss->svc);	/* while it is still our zombie */
	if (ss->spawn != NULL)
		service_spawn_check(core, ss->spawn, true);
	/* ready = forking: its first process exited 0; its daemon next. */
	if (si.si_code == CLD_EXITED && si.si_status == 0 && !ss->handed &&
	    forking_wanted(&ss->fork))
		return service_fork_begin(core, ss);
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
	if (si.si_code == CLD_EXITED)
		code = si.si_status;
	else
		sig = si.si_status;
	if (sig == SIGKILL)
		service_oom_check(ss);
	service_died(core, ss, code, sig);
	return true;
}

/*
 * ready = forking: the first process of ss exited 0; it is reaped (a
 * zombie kept would hold the orphan reaper's peeks), and its daemon is
 * searched for (forking.c).  Its pidfd stays the service's process
 * until then; its PID is no longer ours: out of the PID map, and a
 * re-exec meanwhile finds it gone (handed).
 */
static bool
service_fork_begin(struct core *core, struct service *ss)
{
	siginfo_t	si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)ss->svc.pidfd, &si, WEXITED | WNOHANG |
	    __WALL) < 0 || si.si_pid == 0)
		return false;
	pidmap_del(core->pids, &ss->pm);
	ev_io_stop(core->loop, &ss->death);	/* readable for ever now */
	ss->handed = true;
	forking_start(&ss->fork);
	return true;
}

/* core->forked: the daemon, pid with its pidfd fd, is the main process. */
static void
service_forked(struct core *core, struct svc *s, pid_t pid, int fd)
{
	struct service	*ss = service_of(s);

	close(s->pidfd);
	s->pidfd = spawn_fd_keep(fd);
	s->pid = pid;
	if (ss->out)
		ss->out->pid = pid;
	ss->pm.kind = PM_MAIN;
	pidmap_add(core->pids, &ss->pm, pid);
	ev_io_set(&ss->death, s->pidfd, EV_READ);
	ev_io_start(core->loop, &ss->death);
}

/* core->fork_failed: no daemon; the first process's exit 0 is told. */
static void
service_fork_failed(struct core *core, struct svc *s)
{
	service_died(core, service_of(s), 0, 0);
}

/*
 * The main process of ss is gone (reaped), with code or of sig: what it
 * left goes, and the machine hears it.
 */
void
service_died(struct core *core, struct service *ss, int code, int sig)
{
	service_process_gone(core, ss);
	ss->svc.exited_at = real_ms();
	svc_died(&ss->svc, code, sig);
	service_unhold(core);
}

/* The main process before the last MAINPID= has exited: forget it. */
static void
service_on_prev_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	ev_io_stop(loop, w);
	close(w->fd);
	ev_io_set(w, -1, EV_READ);
}

/* notifysock.c's question: which notify service sent this? */
struct svc *
service_mainpid_lookup(void *ctx, pid_t pid)
{
	struct service	*ss = service_by_pid(ctx, pid);

	if (ss == NULL || !ready_kinds[ss->svc.def->ready].notify ||
	    !mainpid_held(&ss->svc, ss->handed))
		return NULL;
	return &ss->svc;
}

/*
 * notifysock.c's MAINPID=pid, from the main process of s: pid is its
 * main process from now on, if it belongs to the service (mainpid.c).
 * A pidfd is taken first, then pid is checked, then the pidfd's process
 * is checked alive: alive, it held pid throughout, so what was checked
 * was it.  From then on the service is that process, known by that pidfd
 * alone: its death ends the service, its signals go through it.  The
 * process it replaces, while it lives, is still the service's: stop
 * signals go to it too (an orphan of ours, reaped by PID once it exits).
 */
void
service_mainpid_set(void *ctx, struct svc *s, pid_t pid)
{
	struct core	*core = ctx;
	struct service	*ss = service_of(s);
	const char	*why;
	int		 fd;

	if (pid == s->pid || !mainpid_allowed(&ss->mainpid, pid))
		return;
	/* It sent this: it has exec'd; the report may not be read yet. */
	if (ss->spawn != NULL) {
		service_spawn_check(core, ss->spawn, false);
		service_unhold(core);
	}
	if ((s->state != SVC_STARTING && s->state != SVC_READY) ||
	    ss->spawn != NULL) {
		mainpid_refused(&ss->mainpid, s->def->name, pid, ss->spawn ?
		    "not exec'd yet" : svc_state_name(s->state), false);
		return;
	}
	if ((fd = (int)sys_pidfd_open(pid, 0)) < 0) {
		mainpid_refused(&ss->mainpid, s->def->name, pid,
		    strerror(errno), true);
		return;
	}
	if ((why = mainpid_belongs(s, ss->cgfd >= 0 ? core->cg : NULL,
	    pid, false)) != NULL || pidfd_signal(fd, 0) < 0) {
		mainpid_refused(&ss->mainpid, s->def->name, pid, why ? why :
		    "gone", true);
		close(fd);
		return;
	}
	log_info("%s: main process %d -> %d (MAINPID)", s->def->name,
	    (int)s->pid, (int)pid);
	pidmap_del(core->pids, &ss->pm);
	ev_io_stop(core->loop, &ss->death);
	if (ev_is_active(&ss->prev)) {		/* one before: only one kept */
		ev_io_stop(core->loop, &ss->prev);
		close(ss->prev.fd);
	}
	ev_io_set(&ss->prev, s->pidfd, EV_READ);
	ev_io_start(core->loop, &ss->prev);
	s->pidfd = spawn_fd_keep(fd);
	s->pid = pid;
	ss->handed = true;
	ss->mainpid.refused = 0;
	if (ss->out)
		ss->out->pid = pid;
	ss->pm.kind = PM_MAIN;
	pidmap_add(core->pids, &ss->pm, pid);
	ev_io_set(&ss->death, s->pidfd, EV_READ);
	ev_io_start(core->loop, &ss->death);
	ctl_svc_changed(core->ctl, s);
}

/* Forget the main process before the last MAINPID= (it may live on). */
void
service_prev_forget(struct core *core, struct service *ss)
{
	if (!ev_is_active(&ss->prev))
		return;
	ev_io_stop(core->loop, &ss->prev);
	close(ss->prev.fd);
	ev_io_set(&ss->prev, -1, EV_READ);
}

/*
 * The main process has exited (and is reaped, or not ours to reap): what
 * it wrote is read, what it left behind goes (kill_mode group or
 * cgroup), and its pidfd is closed.
 */
static void
service_process_gone(struct core *core, struct service *ss)
{
	struct svc	*s = &ss->svc;

	service_ready_drain(core, ss);
	service_ready_close(core, ss);
	output_drain(ss->out);
	if (s->def->kill_mode != KILL_PROCESS)
		service_send_signal(core, ss, SIGKILL);
	service_prev_forget(core, ss);
	pidmap_del(core->pids, &ss->pm);
	ev_io_stop(core->loop, &ss->death);
	close(s->pidfd);
	s->pidfd = -1;
	ss->handed = false;
	spawn_ns_close(&ss->ns);	/* a later hook makes its own */
}

/*
 * The main process named by MAINPID exited, and it is not our child
 * (its parent is alive and reaps it): no exit status for us.  What it
 * sent last is not read: its parent may have reaped it, and its PID may
 * be another's already (mainpid_lookup()).
 */
static bool
service_handed_gone(struct core *core, struct service *ss)
{
	struct svc	*s = &ss->svc;

	service_process_gone(core, ss);
	if (s->pending.why == WHY_NONE)
		s->pending.why = WHY_GONE;
	svc_died(s, 0, 0);
	service_unhold(core);
	return true;
}

static void
service_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	service_reap(ev_userdata(loop), container_of(w, struct service, death));
}

static void
service_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	svc_timeout(&container_of(w, struct service, timer)->svc);
}

/*
 * What any process of the service runs in, made once it first needs
 * them: its cgroup and its output pipes.  Without them it runs all the
 * same (in ours, its output to /dev/null), which is said.
 */
void
service_prepare(struct core *core, struct service *ss)
{
	const struct svc_def	*d = ss->svc.def;
	uint64_t		 oom;
	int			 rc;

	if (core->cg->base_fd >= 0 && ss->cgfd < 0) {
		if ((ss->cgfd = spawn_fd_keep(cgroup_svc_open(core->cg,
		    d))) < 0) {
			log_warn("%s: no cgroup: %s", d->name,
			    strerror(-ss->cgfd));
			ss->cgfd = -1;
		} else {
			cgroup_events(ss->cgfd, &oom, &ss->oom_kills);
			/* Its MEMORY_PRESSURE_WATCH: a trigger is its to set. */
			if ((d->set_uid || d->set_gid) && fchownat(ss->cgfd,
			    "memory.pressure", d->set_uid ? d->uid : (uid_t)-1,
			    d->set_gid ? d->gid : (gid_t)-1, 0) < 0)
				log_warn("%s: memory.pressure: %s", d->name,
				    strerror(errno));
		}
	}
	if (!d->console && output_wanted(d) && ss->out == NULL &&
	    (rc = output_new(core->output, &ss->svc, &ss->out)) < 0)
		log_warn("%s: no pipes for its output: %s", d->name,
		    strerror(-rc));
}

/*
 * What the service may not do, made once per definition it runs (each
 * spawn in flight holds it too, until its child is done with it:
 * sandbox_ref()).  0, or -errno, said.
 */
static int
service_sandbox(struct service *ss)
{
	struct svc_def	*d = ss->svc.def;
	char		 err[256];

	if (ss->sb != NULL || !sandbox_wanted(d))
		return 0;
	if ((ss->sb = sandbox_new(d, err, sizeof(err))) == NULL) {
		log_err("%s: %s", d->name, err);
		return -EINVAL;
	}
	return 0;
}

/* Its definition changes: what it may not do is made again. */
void
service_sandbox_drop(struct service *ss)
{
	sandbox_unref(ss->sb);
	ss->sb = NULL;
}

/*
 * What a process of the service is started as (its own, a hook's).
 * 0, or -errno: what it may not do could not be made.
 */
int
service_spawn_req(struct core *core, struct service *ss, struct spawn_req *req)
{
	const struct svc_def	*d = ss->svc.def;
	int			 rc;
	struct spawn_req	 r = {
		.argv = d->argv,
		.envp = ss->envp ? ss->envp : core->base_env,
		.path = ss->path, .workdir = d->workdir,
		.groups = d->groups, .ngroups = d->ngroups,
		.uid = d->uid, .gid = d->gid, .set_uid = d->set_uid,
		.set_gid = d->set_gid, .umask = d->umask,
		.set_umask = d->set_umask, .ready_pipe = -1,
		.nofile_cur = d->set_nofile ? d->limit_nofile : core->nofile_cur,
		.nofile_max = d->set_nofile ? d->limit_nofile : core->nofile_max,
		.stdio = { -1, -1, -1 }, .cgroup_fd = ss->cgfd,
		.oom_score_adj = d->oom_score_adj,
		.set_oom_score_adj = d->set_oom_score_adj,
		.env_files = d->env_files,
		.env_owner = d->set_uid ? d->uid : geteuid(),
		.ns = SPAWN_NS_NONE, .ignore_sigpipe = d->ignore_sigpipe,
	};

	*req = r;
	if (!d->console) {
		req->stdio[0] = req->stdio[1] = req->stdio[2] = core->devnull;
		if (ss->out) {
			req->stdio[1] = ss->out->wfd[STREAM_OUT];
			req->stdio[2] = ss->out->wfd[STREAM_ERR];
		}
	}
	if ((rc = service_sandbox(ss)) < 0)
		return rc;
	if (ss->sb != NULL && !sandbox_empty(ss->sb))
		req->sb = ss->sb;
	return 0;
}


/* Does d run commands beside its main process (hooks, checks)? */
static bool
service_hooked(const struct svc_def *d)
{
	return d->start_post_exec || d->stop_exec || d->stop_post_exec ||
	    d->on_failure_exec || d->health_exec || d->reload_exec;
}

/* svc_ops: watch its sockets for a client (socks.c), or stop. */
static int
service_op_listen(struct svc *s, bool on)
{
	return socks_watch(s, on);
}

/* svc_ops: start the process of a service. */
static int
service_op_spawn(struct svc *s)
{
	struct service		*ss = service_of(s);
	struct core		*core = service_core(s);
	const struct svc_def	*d = s->def;
	struct spawn_req	 req;
	struct spawn_result	 res;
	struct service_spawn	*sp = service_spawn_slot(core);	/* not busy */
	int			 p[2] = { -1, -1 }, rc;
	int			 pass[SPAWN_PASS_MAX], npass = 0;
	char			*slots[2] = { NULL, NULL };

	if (ready_kinds[d->ready].notify) {
		/* Its socket, its user's; one made for another is made
		 * again.  A datagram from an earlier holder of the PID must
		 * not count. */
		ss->nsock.fdstore = d->fdstore_max > 0;
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
	service_prepare(core, ss);
	/* Its sockets, its fd store (socks.c), from fd 3 on. */
	if ((rc = socks_open(&ss->svc)) < 0)
		return rc;
	if ((rc = service_spawn_req(core, ss, &req)) < 0)
		return rc;
	req.pid_slot = ss->pid_slot;
	if (ss->socks != NULL) {
		if ((rc = service_env_socks(core, ss, sp, pass, &npass,
		    slots)) < 0)
			return rc;
		req.envp = sp->envp;
		req.pid_slot = slots[0];
		req.listen_slot = slots[1];
	}
	req.pass = pass;
	req.npass = npass;
	req.ns_keep = service_hooked(d);	/* for them to join */
	if (ss->socks != NULL && ss->socks->conn >= 0 && !d->console)
		req.stdio[0] = req.stdio[1] = ss->socks->conn;
	req.tty = d->tty;		/* its own, not its hooks' */
	req.tty_flags = (d->tty_reset ? SPAWN_TTY_RESET : 0) |
	    (d->tty_vhangup ? SPAWN_TTY_VHANGUP : 0) |
	    (d->tty_vt_disallocate ? SPAWN_TTY_VT : 0) |
	    (d->tty_busy == TTY_STEAL ? SPAWN_TTY_STEAL : 0) |
	    (d->tty_busy == TTY_FAIL ? SPAWN_TTY_FAIL : 0);
	if (ready_kinds[d->ready].pipe) {
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
			env_free(sp->envp);
			sp->envp = NULL;
			return -errno;
		}
		req.ready_pipe = p[1];	/* the spawn's to close */
		req.ready_fd = d->ready_fd;
	}
	rc = spawn_start(&sp->proc, &req, &res);
	if (ev_time() - ev_now(core->loop) >= SERVICE_SPAWN_TIME)
		core->set->spawns = core->set->spawn_max;	/* this turn's are spent */
	if (rc < 0) {
		if (p[0] >= 0)
			close(p[0]);
		env_free(sp->envp);
		sp->envp = NULL;
		log_err("%s: spawn: %s", d->name, strerror(-rc));
		return rc;
	}
	sp->sb = req.sb != NULL ? sandbox_ref(ss->sb) : NULL;
	sp->ss = ss;
	sp->slow = false;
	ss->spawn = sp;
	ev_io_set(&sp->io, sp->proc.errfd, EV_READ);
	ev_io_start(core->loop, &sp->io);
	ev_timer_set(&sp->timer, SERVICE_SPAWN_SLOW, 0.);
	ev_timer_start(core->loop, &sp->timer);
	s->pidfd = res.pidfd = spawn_fd_keep(res.pidfd);
	s->pid = res.pid;
	s->ran_at = real_ms();
	ss->pm.kind = PM_MAIN;
	if (ss->out)
		ss->out->pid = res.pid;
	pidmap_add(core->pids, &ss->pm, res.pid);
	ev_io_set(&ss->death, res.pidfd, EV_READ);
	ev_io_start(core->loop, &ss->death);
	if (p[0] >= 0) {
		ev_io_set(&ss->ready, spawn_fd_keep(p[0]), EV_READ);
		ev_io_start(core->loop, &ss->ready);
	}
	return 0;
}

static void
service_op_timer(struct svc *s, uint32_t ms)
{
	struct service	*ss = service_of(s);
	struct core	*core = service_core(s);

	ev_timer_stop(core->loop, &ss->timer);
	ev_timer_set(&ss->timer, ms / 1000.0, 0.);
	ev_timer_start(core->loop, &ss->timer);
}

static void
service_op_timer_stop(struct svc *s)
{
	ev_timer_stop(service_core(s)->loop, &service_of(s)->timer);
}

static int64_t
service_op_now(struct svc_set *set)
{
	(void)set;
	return mono_ms();
}

/* svc_ops: a service changed state (or status text): core.c's news. */
static void
service_op_changed(struct svc *s, enum svc_state from)
{
	struct service	*ss = service_of(s);

	/* It failed: its on_failure_exec, beside the rest. */
	if (s->state == SVC_FAILED && from != SVC_FAILED)
		hook_start(service_core(s), ss, HOOK_ON_FAILURE);
	health_changed(&ss->health, from);
	forking_changed(&ss->fork);
	/* A reload_exec outlived its reload (its deadline passed, or the
	 * service left READY): it goes. */
	if (ss->reload != NULL && !s->reload_asked &&
	    (s->state != SVC_READY || s->reload_fails != ss->reload->fails))
		hook_reload_cancel(ss);
	service_core(s)->changed(service_core(s), s, from);
}

/* svc_ops: the spawns of this turn are used up; go on next turn. */
static void
service_op_defer(struct svc_set *set)
{
	struct core	*core = set->ctx;

	ev_timer_set(&core->spawn_w, 0., 0.);
	ev_timer_start(core->loop, &core->spawn_w);
}

static void
service_on_spawn_more(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	svc_set_unhold(((struct core *)ev_userdata(loop))->set);
}

static void
service_on_turn(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)w;
	(void)revents;
	((struct core *)ev_userdata(loop))->set->spawns = 0;
}

/* socks.c's: where the fds held for s are. */
static struct socks **
service_socks_of(struct svc *s)
{
	return &service_of(s)->socks;
}

/* socks.c's: an accept instance served its client: once down, it goes. */
static void
service_remove(struct core *core, struct svc *s)
{
	(void)core;
	service_of(s)->removing = true;	/* sup_changed() frees it */
}

/* health.c's check of s: started (a hook), or the one that runs ended. */
static int
service_check(struct core *core, struct svc *s, bool run)
{
	if (!run) {
		hook_cancel(core, service_of(s), HOOK_SLOT_HEALTH);
		return 0;
	}
	return hook_start(core, service_of(s), HOOK_HEALTH);
}

/* The spawn slots and the spawn budget's watchers, on core's loop. */
void
service_loop_init(struct core *core)
{
	size_t	i;

	core->output->line = service_on_line;
	ev_init(&core->spawn_w, service_on_spawn_more);
	for (i = 0; i < SERVICE_SPAWN_SLOTS; i++) {
		spawn_proc_init(&core->spawns[i].proc);
		ev_io_init(&core->spawns[i].io, service_on_exec, -1, EV_READ);
		ev_init(&core->spawns[i].timer, service_on_spawn_timer);
	}
	ev_prepare_init(&core->turn_w, service_on_turn);
	ev_prepare_start(core->loop, &core->turn_w);
	ev_unref(core->loop);	/* it does not keep the loop running */
	core->set->spawn_max = SERVICE_SPAWNS_PER_TURN;
	core->check = service_check;
	core->forked = service_forked;
	core->fork_failed = service_fork_failed;
	core->socks_of = service_socks_of;
	core->remove = service_remove;
}

/* svc_ops: a service killed for memory waits for memory (pressure.c). */
static int64_t
service_op_hold(struct svc *s, int64_t *until)
{
	return pressure_hold(service_core(s)->pr, s, until);
}

/* svc.c's hooks into the world: each sup_op_ is called by svc.c. */
/* svc_ops: run the commands of a step of the state machine (hook.c). */
static int
service_op_hook(struct svc *s, int kind)
{
	return hook_start(service_core(s), service_of(s), kind);
}

static void
service_op_hook_stop(struct svc *s)
{
	hook_cancel(service_core(s), service_of(s), HOOK_SLOT_STEP);
}

const struct svc_ops service_ops = {
	.spawn = service_op_spawn,
	.busy = service_op_busy,
	.signal = service_signal,
	.timer = service_op_timer,
	.timer_stop = service_op_timer_stop,
	.changed = service_op_changed,
	.now = service_op_now,
	.defer = service_op_defer,
	.hold = service_op_hold,
	.hook = service_op_hook,
	.hook_stop = service_op_hook_stop,
	.listen = service_op_listen,
};

/*
 * A service for a definition, which it owns from now on; not yet in the
 * set.
 */
struct service *
service_new(struct core *core, struct svc_def *d)
{
	struct service	*ss = calloc(1, sizeof(*ss));

	if (ss == NULL)
		return NULL;
	svc_init(&ss->svc, d, core->set);
	ss->cgfd = -1;
	ss->ns = SPAWN_NS_NONE;
	notifysock_init(&ss->nsock, core->notify, &ss->svc);
	if (ready_kinds[d->ready].notify &&
	    (ss->notify_path = notifysock_path(core->notify, d->name)) == NULL &&
	    core->notify->path != NULL) {
		free(ss);
		return NULL;
	}
	ev_io_init(&ss->death, service_on_death, -1, EV_READ);
	ev_io_init(&ss->prev, service_on_prev_death, -1, EV_READ);
	ev_io_init(&ss->ready, service_on_ready, -1, EV_READ);
	ev_init(&ss->timer, service_on_timer);
	health_init(&ss->health, core, &ss->svc);
	forking_init(&ss->fork, core, &ss->svc, &ss->cgfd);
	timer_init(&ss->sched, core, &ss->svc);
	if (service_env(core, ss) < 0) {
		free(ss->notify_path);
		free(ss);
		return NULL;
	}
	return ss;
}

/* Forget a service that has no process; its definition goes too. */
void
service_free(struct core *core, struct service *ss)
{
	ctl_svc_removed(core->ctl, &ss->svc);
	pressure_forget(core->pr, &ss->svc);
	if (ss->cgfd >= 0) {
		close(ss->cgfd);
		cgroup_svc_remove(core->cg, ss->svc.def->name);
	}
	if (ss->spawn != NULL)		/* at exit only: it had a process */
		service_spawn_end(core, ss->spawn);
	if (ss->reload != NULL)		/* at exit only: left to run */
		hook_reload_end(core, ss, -ECANCELED);
	hook_end_all(core, ss);
	health_end(&ss->health);
	forking_stop(&ss->fork);
	timer_free(&ss->sched);
	ev_io_stop(core->loop, &ss->death);
	ev_timer_stop(core->loop, &ss->timer);
	service_prev_forget(core, ss);
	service_ready_close(core, ss);
	output_free(ss->out);
	ss->out = NULL;
	if (ss->svc.pidfd >= 0) {
		pidmap_del(core->pids, &ss->pm);
		close(ss->svc.pidfd);
	}
	service_env_free(ss);
	service_sandbox_drop(ss);
	spawn_ns_close(&ss->ns);
	notifysock_close(&ss->nsock);
	socks_free(&ss->svc);
	free(ss->notify_path);
	svc_release(&ss->svc);
	svc_def_free(ss->svc.def);
	free(ss);
}

/* The keys a service gave that only a cgroup can do, into out. */
static void
service_cgroup_keys(const struct svc_def *d, char *out, size_t n)
{
	static const unsigned	cg[] = {
		K_MEMORY_MAX, K_MEMORY_HIGH, K_PIDS_MAX,
	};
	size_t			i, len = 0;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(cg); i++) {
		if (!keyset_has(&d->given, cg[i]))
			continue;
		len += (size_t)snprintf(out + len, n - len, "%s%s",
		    len ? ", " : "", conf_keys[cg[i]].name);
		if (len >= n)
			break;
	}
}

/* A service's status as plain data, for ctl.c (status.c formats it). */
void
service_status(struct svc *s, int64_t now, struct svc_status *st)
{
	struct service	*ss = service_of(s);

	memset(st, 0, sizeof(*st));
	st->name = s->def->name;
	st->state = s->state;
	if (svc_has_process(s)) {
		st->pid = s->pid;
		st->uptime_ms = now - s->started_at;
	}
	st->restarts = s->restarts;
	st->starts = s->starts;
	st->ready_ms = s->ready_at && s->started_at &&
	    s->ready_at >= s->started_at ? s->ready_at - s->started_at : -1;
	svc_reason_format(s, st->reason, sizeof(st->reason));
	st->status_text = s->status_text;
	st->have_memory = ss->cgfd >= 0 && cgroup_read_u64(ss->cgfd,
	    "memory.current", &st->memory) == 0;
	if (st->have_memory)
		cgroup_events(ss->cgfd, &st->oom, &st->oom_kill);
	st->ring = ss->out ? ss->out->ring : NULL;
	st->kill_mode = s->def->kill_mode;
	st->kill_mode_real = service_kill_mode(s->set->ctx, ss);
	st->kill_mode_given = keyset_has(&s->def->given, K_KILL_MODE);
	service_cgroup_keys(s->def, st->cgroup_keys, sizeof(st->cgroup_keys));
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
	st->health = health_name((enum health_state)ss->health.state);
	timer_status(&ss->sched, &st->timer);
	st->reason_has_exit = s->reason.why == WHY_EXITED ||
	    s->reason.why == WHY_KILLED || s->reason.why == WHY_START_LIMIT;
}
