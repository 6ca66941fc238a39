/*
 * sup.c - the supervisor: one libev loop, everything an fd, and what it
 * does as a whole: start-up (from a configuration, or from a re-exec's
 * state), signals, what a service's change of state means for everyone,
 * and the end (shutdown, exit, or PID 1's reboot).
 *
 *   signalfd   SIGCHLD (orphans: reaper.c), TERM/INT/USR1/USR2/PWR
 *              (shutdown), HUP (reload), SIGRTMIN+1 (re-exec)
 *   pidfd[i]   service i exited (service.c)
 *   ready[i]   service i wrote its readiness line (service.c)
 *   notify[i]  service i's sd_notify datagrams (notifysock.c, mainpid.c)
 *   control    pidvisorctl (ctl.c, through ctl_ops)
 *   psi        the low-memory killer (pressure.c, through pressure_ops)
 *   timers     one per service, armed by svc.c
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
#include "mainpid.h"
#include "notifysock.h"
#include "output.h"
#include "pid1.h"
#include "pidmap.h"
#include "proto.h"
#include "reaper.h"
#include "victim.h"
#include "spawn.h"
#include "sup.h"
#include "syslogmsg.h"
#include "metrics.h"
#include "sys.h"
#include "security.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

extern char **environ;

static const int sup_signals[] = {
	SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGPWR, SIGWINCH,
};

static void	sup_check_stopped(struct sup *);
static void	sup_stopped(struct sup *);
static void	sup_on_shutdown_timeout(struct ev_loop *, ev_timer *, int);
static int	sup_init_rest(struct sup *, struct sup_restore *);
static int	sup_restore(struct sup *, struct sup_restore *);
static int	sup_metrics_body(void *, struct buf *);

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
	ev_timer_start(sup->core.loop, &sup->end_w);
}

/*
 * A service changed state (or status text), as service.c's svc_ops say:
 * the log, those who wait or follow (ctl.c), an essential service's end,
 * a shutdown's progress, a removed service's end.
 */
void
sup_changed(struct sup *sup, struct svc *s, enum svc_state from)
{
	char	why[256];

	if (from != s->state) {
		svc_reason_format(s, why, sizeof(why));
		if (service_of(s)->quiet)
			;	/* one of a storm of instances (socks.c) */
		else if (s->state == SVC_STARTING || s->state == SVC_STOPPING ||
		    ((from == SVC_DONE || from == SVC_SKIPPED) &&
		    s->state == SVC_STOPPED))
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
		ctl_event(&sup->ctl, &(struct ctl_event){ .kind = EV_STATE,
		    .svc = s, .from = svc_state_name(from),
		    .to = svc_state_name(s->state), .reason = why,
		    .pid = s->pid });
	}
	ctl_svc_changed(&sup->ctl, s);
	if (from != s->state && s->def->essential && sup_ended(s))
		sup_essential_ended(sup, s);
	if (sup->phase == SUP_STOPPING && from != s->state)
		sup_check_stopped(sup);
	socks_changed(s);
	timer_changed(&service_of(s)->sched, from);
	if (service_of(s)->removing && !svc_has_process(s))
		ev_prepare_start(sup->core.loop, &sup->core.gc_w);
}

static void
sup_on_end(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	sup_shutdown(ev_userdata(loop), RB_POWER_OFF);
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
			service_signal(sup->set.v[i], SIGWINCH);
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

			if (confreload(sup, &report) == 0)
				log_info("reloaded: %s", report.data ?
				    report.data : "nothing changed");
			buf_free(&report);
			break;
		}
		}
	}
	if (chld)
		reaper_reap(sup);
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
	ev_io_start(sup->core.loop, &sup->sig_w);
	return 0;
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

/* The service layer's way up (core.h). */
static void
sup_core_changed(struct core *c, struct svc *s, enum svc_state from)
{
	sup_changed(container_of(c, struct sup, core), s, from);
}

static void
sup_core_timer_event(struct core *c, struct svc *s, const char *what)
{
	ctl_event(&container_of(c, struct sup, core)->ctl, &(struct ctl_event){
	    .kind = EV_ELAPSE, .svc = s, .reason = what });
}

static struct svc *
sup_core_instance(struct core *c, const char *name, struct buf *err,
    bool quiet)
{
	return sup_instance(container_of(c, struct sup, core), name, err,
	    quiet);
}

_Static_assert(offsetof(struct sup, core) == 0, "a struct sup is its core: "
    "the loop's userdata and the set's context are either");

/* What the service layer works with: ours (core.h). */
static void
sup_core_init(struct sup *sup)
{
	struct core	*c = &sup->core;

	c->set = &sup->set;
	c->pids = &sup->pids;
	c->output = &sup->output;
	c->notify = &sup->notify;
	c->cg = &sup->cg;
	c->pr = &sup->pr;
	c->ctl = &sup->ctl;
	c->spawns = sup->spawn_slots;
	c->changed = sup_core_changed;
	c->instance = sup_core_instance;
	c->timer_event = sup_core_timer_event;
	c->sc = &sup->conf.sup;
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

		if (service_of(s)->removing && !svc_has_process(s) &&
		    !hook_busy(service_of(s))) {
			if (!service_of(s)->quiet)
				log_info("%s: removed", s->def->name);
			service_free(&sup->core, service_of(s));
		} else {
			sup->set.v[j++] = s;
		}
	}
	if (j != sup->set.n) {
		sup->set.n = j;
		sup_relink(sup);
	}
}

/* FDSTORE=1, FDSTOREREMOVE=1 from the main process of s (socks.c). */
static void
sup_fdstore(void *ctx, struct svc *s, int *fds, size_t n, const char *name,
    size_t len, size_t refused)
{
	size_t	i;

	(void)ctx;
	for (i = 0; name && i < len; i++)
		if (name[i] <= ' ' || name[i] >= 127 || name[i] == ':')
			break;
	if (name && (i < len || len == 0 || len > 255)) {
		log_warn("%s: fd store: FDNAME= is not a name (printable, no "
		    "':', at most 255 bytes): refused", s->def->name);
		for (i = 0; i < n; i++)
			fd_close_safe(fds[i]);
		return;
	}
	if (fds == NULL)
		socks_store_remove(s, name ? name : "stored",
		    name ? len : 6);
	else
		socks_store_add(s, fds, n, name, len, refused);
}

/*
 * A service made by a command from its template: NAME@INSTANCE.  Its
 * errors (FILE:LINE) go to err; it joins the set, wanting down, and
 * stays across reloads while its template does.  NULL if there is no
 * such template, or the instance is wrong.  A quiet one (one of a
 * storm of accept's) is not logged.
 */
struct svc *
sup_instance(struct sup *sup, const char *name, struct buf *err, bool quiet)
{
	const struct conf_tmpl	*t = conf_tmpl_of(&sup->conf, name);
	struct conf		 nc;
	struct svc_def		*d = NULL;
	struct service		*ss;
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
	if ((ss = service_new(&sup->core, d)) == NULL) {
		svc_def_free(d);
		return NULL;
	}
	sup->set.v[sup->set.n++] = &ss->svc;
	if (sup_relink(sup) < 0)
		log_err("%s: %s", name, strerror(ENOMEM));
	ss->quiet = quiet;
	if (!quiet)
		log_info("%s: made from %s", name, t->file);
	timer_start(&ss->sched);	/* a timed template's instance */
	return &ss->svc;
}

/* Make the services of the loaded configuration; they take its defs. */
static int
sup_svcs_create(struct sup *sup)
{
	struct conf	*c = &sup->conf;
	size_t		 i;

	sup->set.ops = &service_ops;
	sup->set.ctx = &sup->core;
	TAILQ_INIT(&sup->set.queue);
	TAILQ_INIT(&sup->set.held);
	if ((sup->set.v = calloc(c->ndefs + 1, sizeof(*sup->set.v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < c->ndefs; i++) {
		struct service	*ss = service_new(&sup->core, c->defs[i]);

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
		sup->core.nofile_cur = rl.rlim_cur;
		sup->core.nofile_max = rl.rlim_max;
		/* A service holds up to five of our fds: as root, take as
		 * many as the kernel allows (fs.nr_open), as systemd does. */
		rl.rlim_cur = rl.rlim_max = sup_nr_open(rl.rlim_max);
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			rl.rlim_cur = rl.rlim_max = sup->core.nofile_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (sup->pid1 && !sup->container)
		sup->output.kmsgfd = open("/dev/kmsg", O_WRONLY | O_NONBLOCK |
		    O_CLOEXEC);
	if ((sup->core.devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
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
	size_t		i;
	int		rc;

	memset(sup, 0, sizeof(*sup));
	sup->sigfd = sup->ctl.fd = sup->output.kmsgfd = -1;
	sup->output.syslogfd = -1;
	httpd_init(&sup->httpd);
	sup->ctl.spare = -1;
	sup->core.devnull = -1;
	sup->uw.fd = -1;
	sup->confdir = confdir;
	sup->sock = sock;
	sup->pid1 = getpid() == 1;
	LIST_INIT(&sup->ctl.clients);
	sup_reexec_init(sup);
	conf_init(&sup->conf);
	if (rs != NULL) {
		/* A re-exec: everything as the binary before us left it. */
		rc = snapshot_load_conf(sup, rs);
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
	sup->conf.check_def = security_conf_check;
	rc = conf_load(&sup->conf, confdir);
	console_set_format(sup->conf.sup.log_format);
	sup_mode(sup);
	for (i = 0; sup->conf.warns && sup->conf.warns[i]; i++)
		log_warn("%s", sup->conf.warns[i]);
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

/* The process: log settings, /dev/null, subreaper, the spawn stack. */
static int
sup_init_process(struct sup *sup)
{
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
	return 0;
}

/* The loop and the watchers that are ours, not a part's. */
static int
sup_init_loop(struct sup *sup)
{
	if ((sup->core.loop = ev_loop_new(EVBACKEND_EPOLL)) == NULL &&
	    (sup->core.loop = ev_loop_new(0)) == NULL) {
		log_err("cannot create the event loop");
		return -ENOMEM;
	}
	ev_set_userdata(sup->core.loop, sup);
	sup->output.loop = sup->core.loop;
	sup->output.ctx = sup;
	pid1_init(&sup->p1, sup->core.loop);
	sup->p1.container = sup->container;
	sup_core_init(sup);
	ev_prepare_init(&sup->core.gc_w, sup_on_gc);
	ev_init(&sup->reap_w, reaper_on_more);
	ev_init(&sup->end_w, sup_on_end);
	ev_init(&sup->shutdown_w, sup_on_shutdown_timeout);
	service_loop_init(&sup->core);
	console_init(sup->core.loop);
	return 0;
}

/*
 * The services' cgroup tree (a re-exec's, adopted as it was), the limit
 * of open files they get, and the kill of a process group by pidfd.
 */
static void
sup_init_cgroups(struct sup *sup, struct sup_restore *rs)
{
	if (rs != NULL) {
		/* Ours were raised: the services get those we were given. */
		sup->core.nofile_cur = rs->nofile_cur;
		sup->core.nofile_max = rs->nofile_max;
		cgroup_adopt(&sup->cg, rs->cg_base, rs->cg_why);
	} else {
		cgroup_init(&sup->cg, &sup->conf.sup, sup->pid1);
	}
	if (sup->cg.base)
		log_info("cgroups: services under %s", sup->cg.base);
	else
		log_info("cgroups: none (%s)", sup->cg.why);
	sup->core.pgrp_signal = sys_pidfd_send_signal(-1, 0,
	    PIDFD_SIGNAL_PROCESS_GROUP) < 0 && errno == EBADF;
}

/* The killer, wired to the supervisor. */
static void
sup_init_pressure(struct sup *sup)
{
	sup->pr.ops = &sup_pressure_ops;
	sup->pr.ctx = sup;
	sup->pr.loop = sup->core.loop;
	sup->pr.set = &sup->set;
	sup->pr.cg = &sup->cg;
	sup->pr.sc = &sup->conf.sup;
	pressure_init(&sup->pr);
}

/*
 * The services' base environment, our paths (a fresh start's: a re-exec
 * has its sockets), the signals and the crash handler.
 */
static int
sup_init_env(struct sup *sup, struct sup_restore *rs)
{
	const struct env_req	r = { .base = environ };
	int			rc;

	rc = env_build(&r, &sup->core.base_env, &sup->core.base_path, NULL);
	if (sup->core.base_path == NULL)
		sup->core.base_path = PATH_DEFAULT;
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
	return 0;
}

/* The control socket, the notify sockets and the metrics, wired. */
static void
sup_init_parts(struct sup *sup)
{
	sup->ctl.ops = &sup_ctl_ops;
	sup->ctl.ctx = sup;
	sup->ctl.loop = sup->core.loop;
	sup->ctl.set = &sup->set;
	sup->ctl.sc = &sup->conf.sup;
	sup->ctl.path = sup->ctl_path;
	sup->ctl.pid1 = sup->pid1;
	sup->notify.loop = sup->core.loop;
	sup->notify.path = sup->notify_path;
	sup->notify.lookup = service_mainpid_lookup;
	sup->notify.mainpid = service_mainpid_set;
	sup->notify.fdstore = sup_fdstore;
	sup->notify.ctx = sup;
	sup->httpd.loop = sup->core.loop;
	sup->httpd.body = sup_metrics_body;
	sup->httpd.ctx = sup;
	sup->httpd.timeout_ms = &sup->conf.sup.client_timeout;
	sup->httpd.users = &sup->conf.sup.metrics_uids;
	sup->httpd.nusers = &sup->conf.sup.nmetrics_uids;
	sup->start_ms = proc_start_ms();
	timer_core_init(&sup->core, sup->start_ms, sup->container);
	sup->output.syslogfd = syslog_open();
	sup->output.syslog_path = &sup->conf.sup.syslog_socket;
	unitwatch_init(&sup->uw, sup->core.loop, &sup->conf.sup,
	    confreload_units, sup);
	sup_log_apply(sup);
}

/*
 * A fresh start: our sockets, the services of the configuration, the
 * enabled ones started.  PID 1 runs its services even without its
 * sockets.  The control socket first: if another supervisor answers
 * there, we stop before touching its notify socket.
 */
static int
sup_start_fresh(struct sup *sup)
{
	char	err[160];
	size_t	i;
	int	rc;

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
	/* As the control socket: PID 1 runs on without it. */
	if ((rc = sup_metrics_apply(sup, sup->conf.sup.metrics_listen, err,
	    sizeof(err))) < 0) {
		log_err("metrics_listen: %s", err);
		if (!sup->pid1)
			return rc;
	}
	service_kill_modes_check(&sup->core);
	log_info("%zu service%s from %s, control socket %s", sup->set.n,
	    sup->set.n == 1 ? "" : "s", sup->confdir, sup->ctl_path ?
	    sup->ctl_path : "none");
	svc_set_batch(&sup->set, true);
	for (i = 0; i < sup->set.n; i++) {
		timer_start(&service_of(sup->set.v[i])->sched);
		if (svc_starts_at_once(sup->set.v[i]))
			svc_start(sup->set.v[i]);
	}
	svc_set_batch(&sup->set, false);
	return 0;
}

/*
 * The rest of sup_init(), shared with a re-exec (rs): what a state gives
 * is taken from it, not made anew.  Sockets and services come from rs
 * (sup_restore); the loop, the signals and the rest are ours.
 */
static int
sup_init_rest(struct sup *sup, struct sup_restore *rs)
{
	int	rc;

	if ((rc = sup_init_process(sup)) < 0 || (rc = sup_init_loop(sup)) < 0)
		return rc;
	sup_init_cgroups(sup, rs);
	sup_init_pressure(sup);
	if ((rc = sup_init_env(sup, rs)) < 0)
		return rc;
	sup_init_parts(sup);
	if (rs != NULL && rs->start_mono > 0) {	/* as the first binary saw it */
		sup->core.start_real = rs->start_real;
		sup->core.start_mono = rs->start_mono;
	}
	if ((rc = rs != NULL ? sup_restore(sup, rs) : sup_start_fresh(sup)) ==
	    0)
		unitwatch_apply(&sup->uw);
	return rc;
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
	if (snapshot_load_rest(sup, rs) < 0)
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
	reaper_reap(sup);
	return 0;
}

/* GET /metrics (httpd.c): what `pidvisorctl metrics` says. */
static int
sup_metrics_body(void *ctx, struct buf *b)
{
	return ctl_metrics(&((struct sup *)ctx)->ctl, b);
}

/*
 * Listen for metrics on spec (metrics_listen), unless we do already;
 * the socket before stays if the new one cannot be had.  0 or -errno
 * with why in err.
 */
int
sup_metrics_apply(struct sup *sup, const char *spec, char *err, size_t n)
{
	const char	*now = sup->httpd.spec;

	if (strcmp(spec ? spec : "none", now ? now : "none") == 0)
		return 0;
	return httpd_listen(&sup->httpd, spec, err, n);
}

static struct sup	*sup_syslog;	/* whose own messages go to syslog */

/* [supervisor] log = syslog: our own messages at their own levels. */
static void
sup_log_syslog(int level, const char *msg, size_t n)
{
	static const int	pri[] = {
		[LOG_ERR] = 3, [LOG_WARN] = 4, [LOG_INFO] = 6, [LOG_DEBUG] = 7,
	};
	struct sup		*sup = sup_syslog;
	const char		*path = sup->conf.sup.syslog_socket ?
				    sup->conf.sup.syslog_socket : SYSLOG_PATH;

	(void)syslog_send(sup->output.syslogfd, path, 3 * 8 + pri[level],
	    "pidvisor", getpid(), msg, n);
}

/* Where our own messages go besides the console, as configured. */
void
sup_log_apply(struct sup *sup)
{
	bool	on = sup->conf.sup.log.sink == SINK_SYSLOG &&
		    sup->output.syslogfd >= 0;

	sup_syslog = on ? sup : NULL;
	log_also = on ? sup_log_syslog : NULL;
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

/* Run the loop until the supervisor is told to exit. */
int
sup_run(struct sup *sup)
{
	ev_run(sup->core.loop, 0);
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
				service_signal(sup->set.v[i], SIGKILL);
		return;
	}
	sup->phase = SUP_STOPPING;
	sup->pr.stopping = true;
	log_info("stopping all services");
	for (i = 0; i < sup->set.n; i++)	/* no elapse starts one now */
		timer_stop(&service_of(sup->set.v[i])->sched);
	if (sup->conf.sup.shutdown_timeout) {
		ev_timer_set(&sup->shutdown_w,
		    sup->conf.sup.shutdown_timeout / 1000.0, 0.);
		ev_timer_start(sup->core.loop, &sup->shutdown_w);
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
			service_signal(s, SIGKILL);
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

	ev_timer_stop(sup->core.loop, &sup->shutdown_w);
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
		ev_break(sup->core.loop, EVBREAK_ALL);
}

/* Release everything; the services have been stopped. */
void
sup_free(struct sup *sup)
{
	size_t	i;

	sup_reexec_fini(sup);
	unitwatch_close(&sup->uw);
	ctl_close(&sup->ctl);
	httpd_close(&sup->httpd);
	log_also = NULL;
	if (sup->output.syslogfd >= 0)
		close(sup->output.syslogfd);
	for (i = 0; i < sup->set.n; i++)
		service_free(&sup->core, service_of(sup->set.v[i]));
	free(sup->set.v);
	free(sup->set.stack);
	pidmap_free(&sup->pids);
	notifydir_close(&sup->notify);
	if (sup->sigfd >= 0)
		close(sup->sigfd);
	if (sup->core.devnull >= 0)
		close(sup->core.devnull);
	pressure_fini(&sup->pr);
	cgroup_fini(&sup->cg);
	if (sup->output.kmsgfd >= 0)
		close(sup->output.kmsgfd);
	console_close();
	if (sup->core.loop)
		ev_loop_destroy(sup->core.loop);
	free(sup->ctl_path);
	free(sup->notify_path);
	env_free(sup->core.base_env);
	conf_free(&sup->conf);
	free(sup->confdir_own);
}

