/*
 * hook.c - the commands run around a service: start_pre_exec,
 * start_post_exec, stop_exec, stop_post_exec (svc.c waits on them),
 * on_failure_exec, health_exec (health.c's), and reload_exec (a
 * service's own reload, `pidvisorctl reload NAME`: hook_reload_start()).  Each is spawned as
 * the service runs (its user, cgroup, environment and log), with
 * $MAINPID while there is a main process, never run on the loop; one
 * that outlives its time-out is killed.  The commands of a kind run one
 * after the other while each exits 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "health.h"
#include "hook.h"
#include "sandbox.h"
#include "service.h"
#include "core.h"

/* The slot a kind runs in. */
static int
hook_slot(int kind)
{
	if (kind == HOOK_ON_FAILURE)
		return HOOK_SLOT_FAILURE;
	if (kind == HOOK_HEALTH)
		return HOOK_SLOT_HEALTH;
	return HOOK_SLOT_STEP;
}

/* The command lines of a kind, as its key gave them; NULL: none. */
static char *const *
hook_cmds(const struct svc_def *d, int kind)
{
	switch (kind) {
	case HOOK_START_PRE:
		return d->start_pre_exec;
	case HOOK_START_POST:
		return d->start_post_exec;
	case HOOK_STOP:
		return d->stop_exec;
	case HOOK_STOP_POST:
		return d->stop_post_exec;
	case HOOK_ON_FAILURE:
		return d->on_failure_exec;
	}
	return NULL;
}

/*
 * How long each command of a kind may run: a start's within
 * ready_timeout and a stop's within stop_timeout, as systemd bounds
 * them (svc.c's timer bounds the step too); a check within its
 * health_timeout; SVC_EXTEND_MAX where the key says 0 (for ever).
 */
static uint32_t
hook_timeout(const struct svc_def *d, int kind)
{
	uint32_t	ms;

	switch (kind) {
	case HOOK_START_PRE:
	case HOOK_START_POST:
		ms = d->ready_timeout;
		break;
	case HOOK_HEALTH:
		ms = d->health_timeout;
		break;
	default:
		ms = d->stop_timeout;
	}
	return ms ? ms : SVC_EXTEND_MAX;
}

/*
 * A copy of argv with $MAINPID and ${MAINPID} put in, anywhere in a
 * word (as systemd's ExecReload= says kill -HUP $MAINPID; the rest of
 * $VARIABLES is the spawn's, env_expand_argv()).  The PID stays the
 * main process's while it is our unreaped child; one named by MAINPID
 * may be another's child, and a pidfd does not hold the number of a
 * process we did not fork: a command that can should signal it some
 * other way (its pidfile, its socket).  NULL without memory.
 */
char **
hook_mainpid(char *const *argv, pid_t pid)
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

/* The words of a command line, $MAINPID put in (if pid > 0); or NULL. */
static char **
hook_words(const char *line, pid_t mainpid)
{
	char		**v, **w;
	const char	 *why;

	if (argv_split(line, &v, &why) < 0)
		return NULL;
	if (mainpid <= 0)
		return v;
	w = hook_mainpid(v, mainpid);
	strv_free(v);
	return w;
}

/*
 * The environment of a hook: the service's, with MAINPID while it has
 * a main process, and for on_failure_exec what failed and why
 * (PIDVISOR_SERVICE, PIDVISOR_REASON, EXIT_CODE and EXIT_STATUS, as
 * systemd names the last two).
 */
static char **
hook_env(struct core *core, struct service *ss, int kind)
{
	struct svc	*s = &ss->svc;
	char *const	*base = ss->envp ? ss->envp : core->base_env;
	char		**v = NULL, line[512], why[256];
	size_t		  i;

	for (i = 0; base && base[i]; i++)
		if (strncmp(base[i], "MAINPID=", 8) != 0 &&
		    (v = strv_add(v, base[i])) == NULL)
			return NULL;
	if (s->pidfd >= 0) {
		snprintf(line, sizeof(line), "MAINPID=%d", (int)s->pid);
		if ((v = strv_add(v, line)) == NULL)
			return NULL;
	}
	if (kind == HOOK_ON_FAILURE) {
		svc_reason_format(s, why, sizeof(why));
		snprintf(line, sizeof(line), "PIDVISOR_SERVICE=%s",
		    s->def->name);
		if ((v = strv_add(v, line)) == NULL)
			return NULL;
		snprintf(line, sizeof(line), "PIDVISOR_REASON=%s", why);
		if ((v = strv_add(v, line)) == NULL)
			return NULL;
		if (s->exit_sig)
			snprintf(line, sizeof(line), "EXIT_CODE=killed");
		else
			snprintf(line, sizeof(line), "EXIT_CODE=exited");
		if ((v = strv_add(v, line)) == NULL)
			return NULL;
		snprintf(line, sizeof(line), "EXIT_STATUS=%d", s->exit_sig ?
		    s->exit_sig : s->exit_code);
		if ((v = strv_add(v, line)) == NULL)
			return NULL;
	}
	if (v == NULL)
		v = calloc(1, sizeof(*v));
	return v;
}

/*
 * The checker of a start's conditions: this program again (cond.c's
 * cond_main()), given the tests; its exit status says which failed.
 */
static char **
hook_checker(const struct svc_def *d)
{
	char	**v = NULL;
	size_t	  i;

	if ((v = strv_add(v, "/proc/self/exe")) == NULL ||
	    (v = strv_add(v, "--test-conditions")) == NULL)
		return NULL;
	for (i = 0; d->conditions && d->conditions[i]; i++)
		if ((v = strv_add(v, "condition")) == NULL ||
		    (v = strv_add(v, d->conditions[i])) == NULL)
			return NULL;
	for (i = 0; d->asserts && d->asserts[i]; i++)
		if ((v = strv_add(v, "assert")) == NULL ||
		    (v = strv_add(v, d->asserts[i])) == NULL)
			return NULL;
	return v;
}

/*
 * The remover of a stopped service's runtime_directory (dirs): this
 * program again (rmtree.c's rmtree_main()), given the paths; and of its
 * user's IPC objects (ipc: uid, gid or -1).
 */
static char **
hook_remover(const struct svc_def *d, bool dirs, const int64_t *ipc)
{
	char	**v = NULL, path[512];
	size_t	  i;

	if ((v = strv_add(v, "/proc/self/exe")) == NULL ||
	    (v = strv_add(v, "--remove-directories")) == NULL)
		return NULL;
	for (i = 0; dirs && d->dirs[DIR_RUNTIME] && d->dirs[DIR_RUNTIME][i];
	    i++) {
		snprintf(path, sizeof(path), "%s/%s", dir_kinds[DIR_RUNTIME].base,
		    d->dirs[DIR_RUNTIME][i]);
		if ((v = strv_add(v, path)) == NULL)
			return NULL;
	}
	if (ipc != NULL && ipc[0] > 0) {
		char	gid[16];

		snprintf(path, sizeof(path), "%lld", (long long)ipc[0]);
		snprintf(gid, sizeof(gid), "%lld", (long long)ipc[1]);
		if ((v = strv_add(v, "--remove-ipc")) == NULL ||
		    (v = strv_add(v, path)) == NULL ||
		    (v = strv_add(v, gid)) == NULL)
			return NULL;
	}
	return v;
}

/*
 * remove_ipc: are its user's IPC objects to go now, and its group's?
 * ipc[0] the uid, or 0: not; ipc[1] the gid, or -1.  For a user (a
 * group) other than root's, once the service is not to start again and
 * no other service of that user (group) has a process or is to start
 * again: as systemd, when the last unit of the user stops, not across
 * an automatic restart.
 */
static void
hook_ipc_due(const struct core *core, const struct service *ss, int64_t *ipc)
{
	const struct svc_def	*d = ss->svc.def, *o;
	const struct svc	*s;
	size_t			 i;

	ipc[0] = 0;
	ipc[1] = d->gid != 0 ? (int64_t)d->gid : -1;
	if (!d->remove_ipc || !d->set_uid || d->uid == 0 || ss->svc.want_up)
		return;
	for (i = 0; i < core->set->n; i++) {
		s = core->set->v[i];
		o = s->def;
		if (s == &ss->svc || !(svc_has_process(s) || s->want_up))
			continue;
		if (o->set_uid && o->uid == d->uid)
			return;
		if ((o->set_uid || o->set_gid) && o->gid == d->gid)
			ipc[1] = -1;
	}
	ipc[0] = (int64_t)d->uid;
}

/*
 * A death's chain: its stop_post_exec, then ("-", hook_spawn's mark,
 * run even if one of those failed) the removal of its runtime_directory
 * when systemd would remove it: at every end, or with
 * runtime_directory_preserve = restart only when it is not to start
 * again; *cleanup its index, or -1.  NULL if none; NULL without memory.
 */
static char **
hook_stop_chain(const struct service *ss, bool ipc, bool *dirs,
    int32_t *cleanup)
{
	const struct svc_def	*d = ss->svc.def;
	char			**v = NULL;
	size_t			  i;

	*cleanup = -1;
	for (i = 0; d->stop_post_exec && d->stop_post_exec[i]; i++)
		if ((v = strv_add(v, d->stop_post_exec[i])) == NULL)
			return NULL;
	*dirs = d->dirs[DIR_RUNTIME] != NULL && (d->runtime_preserve ==
	    PRESERVE_NO || (d->runtime_preserve == PRESERVE_RESTART &&
	    !ss->svc.want_up));
	if (ipc || *dirs) {
		*cleanup = (int32_t)i;
		if ((v = strv_add(v, "-")) == NULL)
			return NULL;
	}
	return v;
}

/*
 * A start's chain: its conditions' checker ("", hook_spawn's mark), its
 * condition_exec, then its start_pre_exec; *ncond: how many come before
 * start_pre_exec.  NULL with *ncond 0 if none; NULL without memory.
 */
static char **
hook_start_chain(const struct svc_def *d, uint32_t *ncond)
{
	char	**v = NULL;
	size_t	  i;

	*ncond = 0;
	if (d->conditions || d->asserts) {
		if ((v = strv_add(v, "")) == NULL)
			return NULL;
		(*ncond)++;
	}
	for (i = 0; d->condition_exec && d->condition_exec[i]; i++, (*ncond)++)
		if ((v = strv_add(v, d->condition_exec[i])) == NULL)
			return NULL;
	for (i = 0; d->start_pre_exec && d->start_pre_exec[i]; i++)
		if ((v = strv_add(v, d->start_pre_exec[i])) == NULL)
			return NULL;
	return v;
}

static void	hook_on_exec(struct ev_loop *, ev_io *, int);
static void	hook_on_death(struct ev_loop *, ev_io *, int);
static void	hook_on_timer(struct ev_loop *, ev_timer *, int);

/* Spawn the next command of the chain.  0, or -errno. */
static int
hook_spawn(struct core *core, struct hookrun *hr)
{
	struct service		*ss = hr->ss;
	struct spawn_req	 req;
	struct spawn_result	 res;
	int			 rc;

	strv_free(hr->argv);
	hr->ignore = hr->cmds != NULL && hr->cmds[hr->next][0] == '-';
	hr->bare = hr->cmds != NULL && hr->cmds[hr->next][hr->ignore] == '\0';
	if (hr->bare && hr->kind == HOOK_START_PRE) {
		hr->argv = hook_checker(ss->svc.def);
	} else if (hr->bare) {
		/* Asked again: another service of its user may have
		 * started while its stop_post_exec ran. */
		int64_t	ipc[2] = { 0, -1 };

		if (hr->ipc)
			hook_ipc_due(core, ss, ipc);
		hr->argv = hook_remover(ss->svc.def, hr->rmdirs, ipc);
	} else if (hr->cmds != NULL)
		hr->argv = hook_words(hr->cmds[hr->next] + hr->ignore,
		    ss->svc.pidfd >= 0 ? ss->svc.pid : 0);
	else			/* health_exec: its words, kept */
		hr->argv = strv_dup(ss->svc.def->health_exec);
	if (hr->argv == NULL)
		return -ENOMEM;
	hr->next++;
	spawn_proc_init(&hr->proc);
	if ((rc = service_spawn_req(core, ss, &req)) < 0)
		return rc;
	req.argv = hr->argv;
	req.envp = hr->envp;
	req.pid_slot = NULL;
	/* In the namespaces its main process was given, while it runs. */
	req.ns = ss->ns;
	if (hr->bare) {
		/* The tests see the system as we do (systemd's: the
		 * manager checks them), not as the service would. */
		req.envp = core->base_env;
		req.path = NULL;
		req.workdir = NULL;
		req.groups = NULL;
		req.ngroups = 0;
		req.set_uid = req.set_gid = false;
		req.env_files = NULL;
		req.sb = NULL;
		req.cgroup_fd = -1;
		req.ns = SPAWN_NS_NONE;
	}
	if ((rc = spawn_start(&hr->proc, &req, &res)) < 0)
		return rc;
	sandbox_unref(hr->sb);		/* its child reads it until exec */
	hr->sb = req.sb != NULL ? sandbox_ref(ss->sb) : NULL;
	hr->pid = res.pid;
	hr->timed_out = false;
	pidmap_add(core->pids, &hr->pm, res.pid);
	ev_io_init(&hr->io, hook_on_exec, hr->proc.errfd, EV_READ);
	ev_io_start(core->loop, &hr->io);
	ev_io_init(&hr->death, hook_on_death, spawn_fd_keep(res.pidfd),
	    EV_READ);
	ev_io_start(core->loop, &hr->death);
	ev_timer_init(&hr->timer, hook_on_timer, hr->timeout / 1000., 0.);
	ev_timer_start(core->loop, &hr->timer);
	return 0;
}

/* Free a chain whose command is not running (or reaped). */
static void
hook_free(struct hookrun *hr)
{
	sandbox_unref(hr->sb);
	strv_free(hr->cmds);
	strv_free(hr->argv);
	strv_free(hr->envp);
	free(hr);
}

/*
 * Start the commands of a kind for the service: 1 if it has none, 0 if
 * they run (their end is told as hook_done says), or -errno.  A chain
 * of the same slot that runs is killed first.
 */
int
hook_start(struct core *core, struct service *ss, int kind)
{
	const struct svc_def	*d = ss->svc.def;
	char *const		*cmds = hook_cmds(d, kind);
	struct hookrun		*hr;
	int			 slot = hook_slot(kind), rc;

	bool			 start = kind == HOOK_START_PRE &&
				    (d->conditions || d->asserts ||
				    d->condition_exec);
	int64_t			 due[2] = { 0, -1 };
	bool			 ipc, stop;

	if (kind == HOOK_STOP_POST)
		hook_ipc_due(core, ss, due);
	ipc = due[0] > 0;
	stop = kind == HOOK_STOP_POST && (ipc || (d->dirs[DIR_RUNTIME] !=
	    NULL && d->runtime_preserve != PRESERVE_YES));

	if (kind == HOOK_HEALTH ? d->health_exec == NULL : cmds == NULL &&
	    !start && !stop)
		return 1;
	hook_cancel(core, ss, slot);
	if ((hr = calloc(1, sizeof(*hr))) == NULL)
		return -ENOMEM;
	hr->ss = ss;
	hr->kind = (uint8_t)kind;
	hr->pm.kind = PM_HOOK;
	hr->timeout = hook_timeout(d, kind);
	hr->cleanup = -1;
	hr->ipc = ipc;
	if (start)
		hr->cmds = hook_start_chain(d, &hr->ncond);
	else if (stop)
		hr->cmds = hook_stop_chain(ss, ipc, &hr->rmdirs,
		    &hr->cleanup);
	else if (cmds != NULL)
		hr->cmds = strv_dup(cmds);
	if (stop && hr->cmds == NULL && hr->cleanup < 0 && cmds == NULL) {
		free(hr);
		return 1;		/* kept this time: nothing to run */
	}
	if ((hr->cmds == NULL && (cmds != NULL || start || stop)) ||
	    (hr->envp = hook_env(core, ss, kind)) == NULL) {
		hook_free(hr);
		return -ENOMEM;
	}
	service_prepare(core, ss);
	if ((rc = hook_spawn(core, hr)) < 0) {
		log_warn("%s: %s: %s", d->name, hook_name(kind),
		    strerror(-rc));
		hook_free(hr);
		return rc;
	}
	ss->hooks[slot] = hr;
	return 0;
}

/* The chain is over, with status: tell whoever waits on it. */
static void
hook_done(struct core *core, struct service *ss, int kind, int status)
{
	char	how[128];

	/* A condition that did not hold: the state it leads to says so. */
	if (status < 0 || (status > 0 &&
	    !(status & (HOOK_ST_CHECKER | HOOK_ST_CONDITION)))) {
		hook_status_format(kind, status, how, sizeof(how));
		if (kind == HOOK_HEALTH)
			log_debug("%s: %s", ss->svc.def->name, how);
		else
			log_warn("%s: %s", ss->svc.def->name, how);
	}
	switch (kind) {
	case HOOK_ON_FAILURE:
		break;
	case HOOK_HEALTH:
		health_result(&ss->health, status);
		break;
	default:
		svc_hook_done(&ss->svc, kind, status);
		service_unhold(core);
	}
	if (ss->removing && !svc_has_process(&ss->svc) && !hook_busy(ss))
		ev_prepare_start(core->loop, &core->gc_w);
}

/*
 * The status of a condition's command that did not exit 0: the
 * checker's status, or a condition_exec's 1 to 254 (systemd's "skip"),
 * marked so; anything else (255, a signal, no exec, its time out) is a
 * failure as start_pre_exec's.
 */
static int
hook_condition_status(const struct hookrun *hr, int status)
{
	if (hr->killed || status < 0)
		return status;
	if (hr->bare)
		return HOOK_ST_CHECKER | status;
	if (status >= 1 && status <= 254 && !hr->ignore)
		return HOOK_ST_CONDITION | status;
	return status;
}

/* The command is gone (reaped): the chain goes on, or ends. */
static void
hook_over(struct core *core, struct hookrun *hr, int status)
{
	struct service	*ss = hr->ss;
	int		 kind = hr->kind, slot = hook_slot(kind);

	ev_io_stop(core->loop, &hr->io);
	ev_io_stop(core->loop, &hr->death);
	ev_timer_stop(core->loop, &hr->timer);
	spawn_poll(&hr->proc);
	spawn_proc_free(&hr->proc);	/* off its stack */
	close(hr->death.fd);
	pidmap_del(core->pids, &hr->pm);
	hr->pid = 0;
	if (hr->cancelled) {
		struct hookrun	**pp;

		for (pp = &ss->dying; *pp != NULL; pp = &(*pp)->dying)
			if (*pp == hr) {
				*pp = hr->dying;
				break;
			}
		hook_free(hr);
		if (ss->removing && !svc_has_process(&ss->svc) &&
		    !hook_busy(ss))
			ev_prepare_start(core->loop, &core->gc_w);
		return;
	}
	/* One of a start's conditions did not hold: the start ends here,
	 * skipped (or failed, by an assertion: svc_hook_done() tells). */
	if (status != 0 && hr->next <= hr->ncond)
		status = hook_condition_status(hr, status);
	/* A command after '-' that failed or never ran counts as done
	 * (systemd's prefix); one that ran out of time does not. */
	if (hr->bare && hr->kind == HOOK_STOP_POST && status != 0) {
		log_warn("%s: %s: not all removed (%d; the service's log "
		    "says why)", ss->svc.def->name, !hr->ipc ?
		    "runtime_directory" : hr->rmdirs ?
		    "runtime_directory, remove_ipc" : "remove_ipc", status);
		status = 0;
	} else if (hr->ignore && status != 0 && status != -ETIMEDOUT) {
		char	how[128];

		hook_status_format(kind, status, how, sizeof(how));
		log_info("%s: %s (ignored: its command begins with '-')",
		    ss->svc.def->name, how);
		status = 0;
	}
	/* A stop's removal runs whatever came before it; the chain's
	 * status is then the first failure's. */
	if (status != 0 && hr->cleanup >= 0 &&
	    hr->next <= (uint32_t)hr->cleanup) {
		hr->failed = status;
		hr->next = (uint32_t)hr->cleanup;
		status = 0;
	}
	if (status == 0 && hr->cmds != NULL && hr->cmds[hr->next] != NULL) {
		if ((status = hook_spawn(core, hr)) == 0)
			return;
	}
	if (status == 0)
		status = hr->failed;
	ss->hooks[slot] = NULL;
	hook_free(hr);
	hook_done(core, ss, kind, status);
}

/* Reap a hook's command through its pidfd, if it exited. */
void
hook_reap(struct core *core, struct hookrun *hr)
{
	siginfo_t	si;
	int		status;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)hr->death.fd, &si, WEXITED | WNOHANG |
	    __WALL) < 0 || si.si_pid == 0)
		return;
	spawn_poll(&hr->proc);
	if (hr->proc.err)
		status = -hr->proc.err;		/* it never ran */
	else if (hr->timed_out)
		status = -ETIMEDOUT;
	else if (si.si_code == CLD_EXITED)
		status = si.si_status;
	else
		status = 256 + si.si_status;
	hr->killed = si.si_code != CLD_EXITED;
	hook_over(core, hr, status);
}

static void
hook_on_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct hookrun	*hr = container_of(w, struct hookrun, io);

	(void)revents;
	if (spawn_poll(&hr->proc))
		ev_io_stop(loop, w);
}

static void
hook_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)revents;
	hook_reap(ev_userdata(loop), container_of(w, struct hookrun, death));
}

/* Its time is up: killed; its death ends it, as timed out. */
static void
hook_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct hookrun	*hr = container_of(w, struct hookrun, timer);

	(void)loop;
	(void)revents;
	hr->timed_out = true;
	pidfd_signal(hr->death.fd, SIGKILL);
}

/*
 * Kill the chain of a slot, if one runs; its death is reaped in
 * silence (nothing is told).
 */
void
hook_cancel(struct core *core, struct service *ss, int slot)
{
	struct hookrun	*hr = ss->hooks[slot];

	(void)core;
	if (hr == NULL)
		return;
	ss->hooks[slot] = NULL;
	hr->cancelled = true;
	hr->dying = ss->dying;
	ss->dying = hr;
	pidfd_signal(hr->death.fd, SIGKILL);
}

/* Does a command of the service's hooks run, or a cancelled one live? */
bool
hook_busy(const struct service *ss)
{
	size_t	i;

	for (i = 0; i < HOOK_SLOTS; i++)
		if (ss->hooks[i] != NULL)
			return true;
	return ss->dying != NULL;
}

/* Forget a chain, running or not. */
static void
hook_forget(struct core *core, struct hookrun *hr)
{
	ev_io_stop(core->loop, &hr->io);
	ev_io_stop(core->loop, &hr->death);
	ev_timer_stop(core->loop, &hr->timer);
	spawn_poll(&hr->proc);
	if (hr->proc.over)
		spawn_proc_free(&hr->proc);
	else
		spawn_release(&hr->proc);	/* it may be on it */
	close(hr->death.fd);
	pidmap_del(core->pids, &hr->pm);
	hook_free(hr);
}

/*
 * At exit, or as the service goes: forget its chains, running or not
 * (a command left running is the end's to kill, as any process).
 */
void
hook_end_all(struct core *core, struct service *ss)
{
	size_t	i;

	struct hookrun	*hr;

	for (i = 0; i < HOOK_SLOTS; i++) {
		if ((hr = ss->hooks[i]) == NULL)
			continue;
		ss->hooks[i] = NULL;
		hook_forget(core, hr);
	}
	while ((hr = ss->dying) != NULL) {
		ss->dying = hr->dying;
		hook_forget(core, hr);
	}
}

/* A command of the reload's chain is gone (or at exit, forgotten). */
static void
hook_reload_proc_end(struct core *core, struct hook_reload *rl, int status)
{
	ev_io_stop(core->loop, &rl->io);
	ev_io_stop(core->loop, &rl->death);
	spawn_poll(&rl->proc);
	if (status != -ECANCELED || rl->proc.over)
		spawn_proc_free(&rl->proc);	/* off its stack */
	else
		spawn_release(&rl->proc);	/* at exit: it may be on it */
	if (rl->death.fd >= 0)
		close(rl->death.fd);
	rl->death.fd = -1;
	pidmap_del(core->pids, &rl->pm);
	rl->pid = 0;
}

/* A reload_exec is over (exited, or never ran): tell the state machine. */
void
hook_reload_end(struct core *core, struct service *ss, int status)
{
	struct hook_reload	*rl = ss->reload;

	if (rl->pid != 0)
		hook_reload_proc_end(core, rl, status);
	sandbox_unref(rl->sb);
	strv_free(rl->argv);
	strv_free(rl->lines);
	free(rl);
	ss->reload = NULL;
	svc_reload_done(&ss->svc, status);
}

static void	hook_reload_on_exec(struct ev_loop *, ev_io *, int);
static void	hook_reload_on_death(struct ev_loop *, ev_io *, int);

/*
 * Spawn the next command of a reload's chain (reload_exec's lines, '-'
 * first: its failure ignored), $MAINPID the main process's now.  0, or
 * -errno.
 */
static int
hook_reload_spawn(struct core *core, struct service *ss,
    struct hook_reload *rl)
{
	const char		*line = rl->lines[rl->next];
	struct spawn_req	 req;
	struct spawn_result	 res;
	int			 rc;

	rl->ignore = line[0] == '-';
	strv_free(rl->argv);
	if ((rl->argv = hook_words(line + rl->ignore, ss->svc.pid)) == NULL)
		return -ENOMEM;
	rl->next++;
	spawn_proc_init(&rl->proc);
	if ((rc = service_spawn_req(core, ss, &req)) < 0)
		return rc;
	req.argv = rl->argv;
	req.ns = ss->ns;
	if ((rc = spawn_start(&rl->proc, &req, &res)) < 0)
		return rc;
	sandbox_unref(rl->sb);		/* its child reads it until exec */
	rl->sb = req.sb != NULL ? sandbox_ref(ss->sb) : NULL;
	rl->pid = res.pid;
	pidmap_add(core->pids, &rl->pm, res.pid);
	ev_io_init(&rl->io, hook_reload_on_exec, rl->proc.errfd, EV_READ);
	ev_io_start(core->loop, &rl->io);
	ev_io_init(&rl->death, hook_reload_on_death, spawn_fd_keep(res.pidfd),
	    EV_READ);
	ev_io_start(core->loop, &rl->death);
	return 0;
}

/* The reload_exec child's report: it exec'd, or why it could not. */
static void
hook_reload_on_exec(struct ev_loop *loop, ev_io *w, int revents)
{
	struct hook_reload	*rl = container_of(w, struct hook_reload, io);

	(void)revents;
	if (spawn_poll(&rl->proc))
		ev_io_stop(loop, w);
}

/* Reap a reload_exec process through its pidfd, if it exited. */
void
hook_reload_reap(struct core *core, struct service *ss)
{
	struct hook_reload	*rl = ss->reload;
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
		status = 256 + si.si_status;
	if (status != 0) {
		char	how[128];

		hook_status_format(HOOK_RELOAD, status, how, sizeof(how));
		if (rl->ignore && !rl->killed)
			log_info("%s: %s (ignored: its command begins with "
			    "'-')", ss->svc.def->name, how);
		else
			log_warn("%s: %s", ss->svc.def->name, how);
	}
	if (rl->ignore && !rl->killed)
		status = 0;
	/* The next command of the chain once one exited 0 (systemd's
	 * ExecReload= lines, in order). */
	if (status == 0 && !rl->killed && rl->lines[rl->next] != NULL) {
		hook_reload_proc_end(core, rl, status);
		if ((status = hook_reload_spawn(core, ss, rl)) == 0)
			return;
	}
	hook_reload_end(core, ss, status);
}

/*
 * The reload is over without its reload_exec (its deadline passed, or
 * the service left READY): kill the command; its death is reaped as
 * any other, and counts for nothing.
 */
void
hook_reload_cancel(struct service *ss)
{
	struct hook_reload	*rl = ss->reload;

	if (rl->killed)
		return;
	rl->killed = true;
	log_warn("%s: reload_exec (pid %d) outlived its reload: killed",
	    ss->svc.def->name, (int)rl->pid);
	pidfd_signal(rl->death.fd, SIGKILL);
}

static void
hook_reload_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	struct hook_reload	*rl = container_of(w, struct hook_reload, death);

	(void)revents;
	hook_reload_reap(ev_userdata(loop), rl->ss);
}

/*
 * Reload a ready service: run its reload_exec, or send its
 * reload_signal to its main process.  A notify service is reloaded once
 * its READY=1 comes (after RELOADING=1); svc.c counts reloads, and ctl.c
 * waits on them.  0; -errno with why in err.
 */
int
hook_reload_start(struct core *core, struct svc *s, char *err, size_t n)
{
	struct service		*ss = service_of(s);
	const struct svc_def	*d = s->def;
	struct hook_reload	*rl;
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
		svc_reload_asked(s, ready_kinds[d->ready].notify);
		if (!ready_kinds[d->ready].notify)
			svc_reload_done(s, 0);	/* nothing tells us more */
		return 0;
	}
	if (pidfd_signal(s->pidfd, 0) < 0) {
		snprintf(err, n, "%s: its main process is gone", d->name);
		return -ESRCH;
	}
	if ((rl = calloc(1, sizeof(*rl))) == NULL ||
	    (rl->lines = strv_dup(d->reload_exec)) == NULL) {
		free(rl);
		snprintf(err, n, "%s: %s", d->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	rl->ss = ss;
	rl->fails = s->reload_fails;
	rl->pm.kind = PM_RELOAD;
	rl->death.fd = -1;
	if ((rc = hook_reload_spawn(core, ss, rl)) != 0) {
		sandbox_unref(rl->sb);
		strv_free(rl->argv);
		strv_free(rl->lines);
		free(rl);
		snprintf(err, n, "%s: reload_exec: %s", d->name, strerror(-rc));
		return rc;
	}
	ss->reload = rl;
	svc_reload_asked(s, false);
	return 0;
}
