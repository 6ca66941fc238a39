/*
 * pressure.c - a low-memory killer, as Android's lmkd, for our services.
 *
 * A PSI trigger (/proc/pressure/memory, or the memory.pressure of the
 * services' cgroup) is an fd in the loop.  libev watches only for read
 * and write, and PSI reports with EPOLLPRI, so the trigger sits in an
 * epoll set of its own whose fd the loop watches.  On a trigger, with no
 * kill in flight and past the cool-down, the killer picks the service
 * with the highest kill_priority (then the most memory), kills it
 * through its pidfd and has its memory taken back at once by the best
 * path the kernel has (probed once, or pressure_reclaim): our kernel's
 * PIDFD_SIGNAL_LOCAL_REAP, which kills and has a kernel worker reap the
 * victim at once; else SIGKILL, then process_mrelease() in a thread
 * of its own (mrelease.c); else SIGKILL alone.  Nothing here ever waits
 * for a victim's mmap_lock on the loop.  Then it times the death (from
 * the pidfd) and the memory coming back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "pressure.h"
#include "st.h"
#include "spawn.h"
#include "sys.h"
#include "victim.h"

#define BACK_TIMEOUT_US	(10 * 1000 * 1000)

const char *
reclaim_path_name(enum reclaim_path p)
{
	switch (p) {
	case RECLAIM_REAP:	return "reap";
	case RECLAIM_MRELEASE:	return "mrelease";
	default:		return "kill";
	}
}

/* A child for the probe: it waits to be killed. */
static int
pressure_probe_child(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* Start one, sharing our memory or not; its pidfd, or -1. */
static int
pressure_probe_spawn(char *stack, size_t size, bool share_vm)
{
	int	pidfd = -1;

	/* exit_signal 0: nobody but its pidfd hears of its death. */
	if (clone(pressure_probe_child, stack + size, CLONE_PIDFD |
	    (share_vm ? CLONE_VM : 0), NULL, &pidfd) < 0)
		return -1;
	return pidfd;
}

/* Kill (if need be) and reap a probe child. */
static void
pressure_probe_end(int pidfd, bool kill)
{
	siginfo_t	si;

	if (kill)
		sys_pidfd_send_signal(pidfd, SIGKILL, 0);
	waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | __WALL);
	close(pidfd);
}

/*
 * Has this kernel our PIDFD_SIGNAL_LOCAL_REAP, meaning what it means in
 * our series?  Bit 30 is a local extension: that it is taken (EBADF on
 * no fd) is not enough, another kernel could give it another meaning.
 * So ask it of two children: one that shares our memory (CLONE_VM),
 * whose memory must not be reaped, so the call must fail with EINVAL and
 * send nothing; and one that does not, which it must kill.
 */
static bool
pressure_probe_reap(void)
{
	struct pollfd	 pfd = { .events = POLLIN };
	const size_t	 size = 64 * 1024;
	char		*stack;
	siginfo_t	 si;
	bool		 ok = false;
	int		 fd;

	if (sys_pidfd_send_signal(-1, SIGKILL, PIDFD_SIGNAL_LOCAL_REAP) == 0 ||
	    errno != EBADF)
		return false;
#ifdef PV_MEMCHECK
	return true;		/* no CLONE_VM children under valgrind */
#endif
	/* cppcheck-suppress invalidFunctionArg ; -1: MAP_ANONYMOUS */
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return false;
	if ((fd = pressure_probe_spawn(stack, size, true)) >= 0) {
		ok = sys_pidfd_send_signal(fd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) < 0 && errno == EINVAL;
		pfd.fd = fd;
		ok = ok && poll(&pfd, 1, 0) == 0;	/* still alive */
		pressure_probe_end(fd, true);
	}
	if (ok && (fd = pressure_probe_spawn(stack, size, false)) >= 0) {
		ok = sys_pidfd_send_signal(fd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) == 0;
		memset(&si, 0, sizeof(si));
		ok = ok && waitid(P_PIDFD, (id_t)fd, &si, WEXITED | WNOWAIT |
		    __WALL) == 0 && si.si_code == CLD_KILLED &&
		    si.si_status == SIGKILL;
		pressure_probe_end(fd, !ok);
	} else {
		ok = false;
	}
	munmap(stack, size);
	return ok;
}

/*
 * The best reclaim path this kernel has.  The process_mrelease() probe
 * uses fd -1: flags are checked before the fd, so EBADF means "there",
 * EINVAL or ENOSYS "not here".
 */
static enum reclaim_path
pressure_probe(void)
{
	if (pressure_probe_reap())
		return RECLAIM_REAP;
	if (sys_process_mrelease(-1, 0) < 0 && errno == EBADF)
		return RECLAIM_MRELEASE;
	return RECLAIM_KILL;
}

/*
 * The resident set of a service's main process; a zombie has none.  An
 * unreaped child of ours holds its PID, but a main process named by
 * MAINPID may be another's child, reaped by it, its PID reused: what
 * was read counts only if its pidfd says it is still there after the
 * read (a process that exists holds its PID).
 */
static uint64_t
pressure_rss(const struct svc *s)
{
	char		path[64], buf[128];
	long		pages = 0, size;

	if (s->pidfd < 0 || s->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)s->pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) <= 0 ||
	    pidfd_signal(s->pidfd, 0) < 0)
		return 0;
	if (sscanf(buf, "%ld %ld", &size, &pages) != 2)
		return 0;
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* What a service holds: its cgroup's memory.current, else its RSS. */
uint64_t
pressure_svc_memory(const struct pressure *pr, const struct svc *s)
{
	int		cgfd = pr->ops->cgroup(pr->ctx, s);
	uint64_t	v;

	if (cgfd >= 0 && cgroup_read_u64(cgfd, "memory.current", &v) == 0)
		return v;
	return pressure_rss(s);
}

/* The first line of the PSI file, short: "some avg10=12.34". */
static void
pressure_now(struct pressure *pr, char *out, size_t n)
{
	char	buf[256], *e;

	snprintf(out, n, "?");
	if (read_small(AT_FDCWD, pr->file, buf, sizeof(buf)) <= 0)
		return;
	if ((e = strstr(buf, " avg60")) != NULL)
		*e = '\0';
	snprintf(out, n, "%.*s", (int)n - 1, buf);
}

/*
 * The total stall (us) of the trigger's kind, from the PSI file; -1 if
 * it cannot be read.
 */
static int64_t
pressure_total(struct pressure *pr)
{
	char		 buf[256], *p;
	long long	 v;

	if (read_small(AT_FDCWD, pr->file, buf, sizeof(buf)) <= 0)
		return -1;
	p = pr->sc->pressure_full ? strstr(buf, "full ") : buf;
	if (p == NULL || (p = strstr(p, "total=")) == NULL ||
	    sscanf(p, "total=%lld", &v) != 1)
		return -1;
	return v;
}

/* The record of the kill in flight. */
static struct kill_rec *
pressure_cur(struct pressure *pr)
{
	return &pr->hist[(pr->nkills - 1) % KILL_HISTORY];
}

/* Once its memory is back (or never will be): log it, allow the next. */
static void
pressure_done(struct pressure *pr)
{
	struct kill_rec	*k = pressure_cur(pr);
	char		 death[32], back[32];

	ev_timer_stop(pr->loop, &pr->poll);
	if (k->death_us >= 0)
		snprintf(death, sizeof(death), "%.1f ms", k->death_us / 1000.0);
	else
		snprintf(death, sizeof(death), "not yet");
	if (k->back_us >= 0)
		snprintf(back, sizeof(back), "%.1f ms", k->back_us / 1000.0);
	else
		snprintf(back, sizeof(back), "not within 10 s");
	log_info("pressure: killed %s (kill_priority %d, %.1f MiB) on %s; "
	    "reclaim by %s%s%s%s; dead after %s, memory back after %s",
	    k->name, (int)k->priority, k->memory / 1048576.0, k->psi,
	    reclaim_path_name(k->path), k->reap_err ? " (no reap: " : "",
	    k->reap_err ? strerror(k->reap_err) : "",
	    k->reap_err ? ")" : "", death, back);
	pr->inflight = NULL;
	pr->quiet_until = mono_ms() + pr->sc->pressure_cooldown;
	pr->total_done = pressure_total(pr);
}

/*
 * Does this event come from stall after the last kill took effect?  The
 * kernel reports a window's stall once the window is over, so an event
 * may come after a kill for stall that happened before it: a kill on
 * that would take one victim too many.  It counts only if, since the
 * last kill's memory came back, at least the trigger's stall happened.
 */
static bool
pressure_fresh(struct pressure *pr)
{
	int64_t		 t;

	if (pr->total_done < 0 || (t = pressure_total(pr)) < 0)
		return true;
	return t - pr->total_done >= (int64_t)pr->sc->pressure_stall;
}

/*
 * Is the victim's memory back: its address space down to a tenth of
 * what it was?  (Not memory.current: memcg counts lag behind, and page
 * tables leave only at exit.)  Once it is dead, it is.
 */
static bool
pressure_back(struct pressure *pr, const struct svc *s)
{
	return pressure_rss(s) <= pressure_cur(pr)->rss / 10;
}

/* Note the time if it is back; finish once death and memory are known. */
static void
pressure_check(struct pressure *pr)
{
	struct kill_rec	*k = pressure_cur(pr);
	int64_t		 t = mono_us() - pr->t0_us;

	if (pr->inflight == NULL)
		return;
	if (k->back_us < 0 && pressure_back(pr, pr->inflight))
		k->back_us = t;
	if ((k->back_us >= 0 && k->death_us >= 0) || t > BACK_TIMEOUT_US)
		pressure_done(pr);
}

static void
pressure_on_poll(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	pressure_check(container_of(w, struct pressure, poll));
}

/*
 * SIGKILL through pidfd, by the path of the kill record k; 0 or -errno.
 * Never waits for the victim: the kernel's reap is queued, our
 * process_mrelease() is the mrelease thread's.  Where a reap cannot be
 * had, k says why and the kill is a plain one.
 */
static int
pressure_sigkill(struct pressure *pr, struct kill_rec *k, int pidfd)
{
	int	rc;

	if (k->path == RECLAIM_REAP) {
		if (sys_pidfd_send_signal(pidfd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) == 0)
			return 0;
		/* EINVAL: its memory may not be reaped (shared with a
		 * process outside it, a core dump); nothing was sent.  The
		 * probe made sure we have CAP_SYS_NICE (else EPERM). */
		if ((rc = errno) != EINVAL)
			return -rc;
		k->reap_err = rc;
		k->path = RECLAIM_KILL;
	}
	if ((rc = pidfd_signal(pidfd, SIGKILL)) < 0)
		return rc;
	if (k->path == RECLAIM_MRELEASE &&
	    (rc = mrelease_submit(&pr->mrelease, pidfd, pr->nkills)) < 0) {
		k->reap_err = -rc;	/* EBUSY: stuck on an earlier one */
		k->path = RECLAIM_KILL;
	}
	return 0;
}

/* The mrelease thread's process_mrelease() came back. */
static void
pressure_on_reaped(struct mrelease *r, const struct mrelease_result *res)
{
	struct pressure	*pr = container_of(r, struct pressure, mrelease);
	struct kill_rec	*k = pressure_cur(pr);

	if (res->seq != pr->nkills || pr->inflight == NULL) {
		log_debug("pressure: a reap of an earlier kill came back after "
		    "%.1f ms", res->took_us / 1000.0);
		return;
	}
	k->reaped_us = mono_us() - pr->t0_us;
	/* ESRCH, EINVAL: it had already let go of its memory itself. */
	if (res->err && res->err != ESRCH && res->err != EINVAL)
		k->reap_err = res->err;
	pressure_check(pr);
}

/*
 * Kill a service for memory pressure and take its memory back.  psi
 * says what triggered it.  0, or -errno if nothing was killed.
 */
int
pressure_kill(struct pressure *pr, struct svc *s, const char *psi)
{
	int		 cgfd = pr->ops->cgroup(pr->ctx, s);
	struct kill_rec	*k;
	int		 rc;

	if (pr->inflight)
		return -EBUSY;
	if (!svc_has_process(s) || s->pidfd < 0)
		return -ESRCH;
	k = &pr->hist[pr->nkills++ % KILL_HISTORY];
	memset(k, 0, sizeof(*k));
	k->when_ms = real_ms();
	snprintf(k->name, sizeof(k->name), "%s", s->def->name);
	snprintf(k->psi, sizeof(k->psi), "%s", psi);
	k->priority = s->def->kill_priority;
	k->memory = s->mem_need = pressure_svc_memory(pr, s);
	k->rss = pressure_rss(s);
	k->death_us = k->back_us = k->reaped_us = -1;
	k->path = pr->path;
	pr->t0_us = mono_us();
	rc = pressure_sigkill(pr, k, s->pidfd);
	if (rc < 0) {
		pr->nkills--;
		return rc;
	}
	if (s->def->kill_mode == KILL_CGROUP && cgfd >= 0)
		cgroup_kill(cgfd);
	if (strcmp(psi, PRESSURE_BY_REQUEST) == 0)
		pr->nkills_req++;
	if (pr->ops->killed)
		pr->ops->killed(pr->ctx, s, k);
	svc_pressure_killed(s);
	pr->inflight = s;
	pressure_check(pr);
	if (pr->inflight) {
		ev_timer_set(&pr->poll, 0.001, 0.001);
		ev_timer_start(pr->loop, &pr->poll);
	}
	return 0;
}

/*
 * The service being killed has died (it is a zombie, not yet reaped):
 * that is half of what we wait for.  Its memory is back by now, if not
 * before: exit_mm() comes before the exit is reported.
 */
void
pressure_died(struct pressure *pr, struct svc *s)
{
	struct kill_rec	*k = pressure_cur(pr);

	if (pr->inflight != s)
		return;
	k->death_us = mono_us() - pr->t0_us;
	pressure_check(pr);
	if (pr->inflight && k->back_us < 0) {
		k->back_us = k->death_us;
		pressure_done(pr);
	}
}

/* A service is going away: stop watching its memory. */
void
pressure_forget(struct pressure *pr, struct svc *s)
{
	if (pr->inflight == s)
		pressure_done(pr);
}

/*
 * Memory that could be had now without pressure: MemAvailable, and no
 * more than is left under the services' parent cgroup's memory.high
 * and memory.max.
 */
static uint64_t
pressure_room(struct pressure *pr)
{
	uint64_t	 room = UINT64_MAX, v, cur, lim = UINT64_MAX;
	char		 buf[4096], *p;

	if (read_small(AT_FDCWD, "/proc/meminfo", buf, sizeof(buf)) > 0 &&
	    (p = strstr(buf, "MemAvailable:")) != NULL &&
	    sscanf(p, "MemAvailable: %" SCNu64, &v) == 1)
		room = v << 10;
	if (pr->cg->base_fd < 0 ||
	    cgroup_read_u64(pr->cg->base_fd, "memory.current", &cur) < 0)
		return room;
	if (cgroup_read_limit(pr->cg->base_fd, "memory.high", &v) == 0)
		lim = v;
	if (cgroup_read_limit(pr->cg->base_fd, "memory.max", &v) == 0 &&
	    v < lim)
		lim = v;
	if (lim != UINT64_MAX)
		v = lim > cur ? lim - cur : 0;
	return lim != UINT64_MAX && v < room ? v : room;
}

/* Rank for restarts after a kill: the most important first. */
static bool
pressure_before(const struct svc *a, const struct svc *b)
{
	int32_t	pa = a->def->kill_priority, pb = b->def->kill_priority;

	if (pa != pb)
		return pa < pb;		/* never (-1) first */
	return a->since < b->since;
}

/*
 * svc_ops' hold, for a service killed for memory pressure whose restart
 * is due: how many ms it must still wait.  It restarts once the trigger
 * has been quiet for pressure_calm (at least one window), there is room
 * for what it held when it was killed, and no more important victim is
 * still waiting; one such restart per pressure_calm, so that the next
 * one sees whether this one brought the pressure back.  It waits at most
 * pressure_calm_max from its death (*until), then restarts anyway.
 */
int64_t
pressure_hold(struct pressure *pr, struct svc *s, int64_t *until)
{
	const struct sup_conf	*sc = pr->sc;
	int64_t			 now = mono_ms(), calm, wait = 0, t;
	size_t			 i;

	*until = s->since + sc->pressure_calm_max;
	if (pr->psi_fd < 0 || sc->pressure_calm == 0 || now >= *until)
		return 0;
	calm = sc->pressure_calm;
	if (calm < sc->pressure_window / 1000)
		calm = sc->pressure_window / 1000;
	if (pr->last_event && (t = pr->last_event + calm - now) > wait)
		wait = t;
	if (pr->last_grant && (t = pr->last_grant + calm - now) > wait)
		wait = t;
	if (wait == 0) {
		for (i = 0; i < pr->set->n; i++) {
			struct svc	*o = pr->set->v[i];

			if (o != s && o->mem_wait && pressure_before(o, s))
				break;
		}
		if (i < pr->set->n || pressure_room(pr) < s->mem_need)
			wait = 1000;	/* look again */
	}
	if (wait == 0) {
		pr->last_grant = now;
		return 0;
	}
	log_debug("pressure: %s waits %lld ms for memory", s->def->name,
	    (long long)wait);
	return wait < *until - now ? wait : *until - now;
}

/* The trigger fired: pick a victim, unless a kill is under way. */
static void
pressure_on_psi(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pressure		*pr = container_of(w, struct pressure, w);
	struct epoll_event	 ev;
	struct victim		*cand;
	struct svc		**who;
	char			 psi[48];
	size_t			 i, n = 0;
	ssize_t			 pick;

	(void)loop;
	(void)revents;
	while (epoll_wait(pr->ep_fd, &ev, 1, 0) > 0)
		;
	pr->last_event = mono_ms();	/* victims wait for calm from here */
	if (pr->inflight || mono_ms() < pr->quiet_until ||
	    pr->stopping)
		return;
	if (!pressure_fresh(pr)) {
		pr->nstale++;
		log_debug("pressure: an event for stall from before the last "
		    "kill; no kill");
		return;
	}
	cand = calloc(pr->set->n + 1, sizeof(*cand));
	who = calloc(pr->set->n + 1, sizeof(*who));
	if (cand == NULL || who == NULL)
		goto out;
	for (i = 0; i < pr->set->n; i++) {
		struct svc	*s = pr->set->v[i];

		if ((s->state != SVC_READY && s->state != SVC_STARTING) ||
		    s->pidfd < 0 || s->pending.why != WHY_NONE)
			continue;
		cand[n].priority = s->def->kill_priority;
		cand[n].memory = pressure_svc_memory(pr, s);
		who[n++] = s;
	}
	pressure_now(pr, psi, sizeof(psi));
	if ((pick = victim_pick(cand, n)) < 0) {
		log_warn("pressure: %s, and no service may be killed", psi);
		pr->quiet_until = mono_ms() + pr->sc->pressure_cooldown;
		goto out;
	}
	pressure_kill(pr, who[pick], psi);
out:
	free(cand);
	free(who);
}

/* Set up the trigger, as pidvisor.ini says; probe the reclaim path. */
void
pressure_init(struct pressure *pr)
{
	const struct sup_conf	*sc = pr->sc;
	struct epoll_event	 ev = { .events = EPOLLPRI };
	char			 trig[64];
	int			 n, rc;

	pr->psi_fd = pr->ep_fd = -1;
	pr->total_done = -1;
	pr->best = (uint8_t)pressure_probe();
	pr->path = pr->best;
	if (sc->pressure_reclaim) {
		pr->path = sc->pressure_reclaim - 1;
		if (pr->path > pr->best)
			log_warn("pressure: reclaim by %s asked for, but this "
			    "kernel has %s at best", reclaim_path_name(
			    pr->path), reclaim_path_name(pr->best));
	}
	if (pr->path == RECLAIM_MRELEASE &&
	    (rc = mrelease_start(&pr->mrelease, pr->loop, pressure_on_reaped)) < 0) {
		log_warn("pressure: no mrelease thread (%s): reclaim by kill",
		    strerror(-rc));
		pr->path = RECLAIM_KILL;
	}
	ev_init(&pr->poll, pressure_on_poll);
	if (sc->pressure_stall == 0) {
		snprintf(pr->why, sizeof(pr->why), "pressure = off");
		return;
	}
	if (sc->pressure_file && strcmp(sc->pressure_file, "cgroup") == 0) {
		if (pr->cg->base == NULL) {
			snprintf(pr->why, sizeof(pr->why), "pressure_file = "
			    "cgroup, but there are no cgroups");
			log_warn("pressure: off: %s", pr->why);
			return;
		}
		snprintf(pr->file, sizeof(pr->file), "%s/memory.pressure",
		    pr->cg->base);
	} else {
		snprintf(pr->file, sizeof(pr->file), "%s", sc->pressure_file ?
		    sc->pressure_file : "/proc/pressure/memory");
	}
	n = snprintf(trig, sizeof(trig), "%s %u %u", sc->pressure_full ?
	    "full" : "some", sc->pressure_stall, sc->pressure_window);
	pr->psi_fd = open(pr->file, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (pr->psi_fd < 0 || write(pr->psi_fd, trig, (size_t)n + 1) < 0 ||
	    (pr->ep_fd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(pr->ep_fd, EPOLL_CTL_ADD, pr->psi_fd, &ev) < 0) {
		snprintf(pr->why, sizeof(pr->why), "%.80s: %s", pr->file,
		    strerror(errno));
		log_warn("pressure: off: %s", pr->why);
		pressure_fini(pr);
		return;
	}
	ev_io_init(&pr->w, pressure_on_psi, pr->ep_fd, EV_READ);
	ev_io_start(pr->loop, &pr->w);
	log_info("pressure: %s on %s; reclaim by %s", trig, pr->file,
	    reclaim_path_name(pr->path));
#if !defined(__SANITIZE_ADDRESS__) && !defined(PV_MEMCHECK)
	/*
	 * A killer whose own pages are swapped out stalls like everyone
	 * else, just when it must act: lock ours, as lmkd does.  (Not in
	 * the sanitizer and memcheck builds, which map terabytes.)
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) < 0)
		log_warn("pressure: mlockall: %s: our own memory may be "
		    "swapped out", strerror(errno));
#endif
}

void
pressure_fini(struct pressure *pr)
{

	if (pr->loop) {
		ev_io_stop(pr->loop, &pr->w);
		ev_timer_stop(pr->loop, &pr->poll);
		mrelease_stop(&pr->mrelease, pr->loop);
	}
	if (pr->ep_fd >= 0)
		close(pr->ep_fd);
	if (pr->psi_fd >= 0)
		close(pr->psi_fd);
	pr->ep_fd = pr->psi_fd = -1;
}

/* What `pidvisorctl pressure` shows. */
void
pressure_report(struct pressure *pr, struct buf *b, bool json)
{
	const struct sup_conf	*sc = pr->sc;
	char			 psi[512] = "", when[40], trig[64] = "off";
	unsigned		 i, first;

	if (read_small(AT_FDCWD, pr->psi_fd >= 0 ? pr->file :
	    "/proc/pressure/memory", psi, sizeof(psi)) < 0)
		psi[0] = '\0';
	if (pr->psi_fd >= 0)
		snprintf(trig, sizeof(trig), "%s %u %u", sc->pressure_full ?
		    "full" : "some", sc->pressure_stall, sc->pressure_window);
	first = pr->nkills > KILL_HISTORY ? pr->nkills - KILL_HISTORY : 0;
	if (json) {
		buf_puts(b, "{\"trigger\":");
		buf_json_str(b, pr->psi_fd >= 0 ? trig : NULL);
		buf_puts(b, ",\"file\":");
		buf_json_str(b, pr->psi_fd >= 0 ? pr->file : NULL);
		buf_puts(b, ",\"off_because\":");
		buf_json_str(b, pr->psi_fd >= 0 ? NULL : pr->why);
		buf_printf(b, ",\"cooldown_ms\":%u,\"reclaim\":\"%s\","
		    "\"reclaim_best\":\"%s\",\"cgroups\":",
		    sc->pressure_cooldown, reclaim_path_name(pr->path),
		    reclaim_path_name(pr->best));
		buf_json_str(b, pr->cg->base);
		buf_puts(b, ",\"psi\":");
		buf_json_str(b, psi);
		buf_printf(b, ",\"stale_events\":%u,\"kills_total\":%u,"
		    "\"kills\":[", pr->nstale, pr->nkills);
		for (i = first; i < pr->nkills; i++) {
			struct kill_rec	*k = &pr->hist[i % KILL_HISTORY];

			buf_printf(b, "%s{\"when_ms\":%lld,\"service\":",
			    i > first ? "," : "", (long long)k->when_ms);
			buf_json_str(b, k->name);
			buf_printf(b, ",\"kill_priority\":%d,\"memory\":%llu,"
			    "\"pressure\":", (int)k->priority,
			    (unsigned long long)k->memory);
			buf_json_str(b, k->psi);
			buf_printf(b, ",\"path\":\"%s\",\"death_us\":%lld,"
			    "\"back_us\":%lld,\"reaped_us\":%lld,"
			    "\"no_reap\":", reclaim_path_name(k->path),
			    (long long)k->death_us, (long long)k->back_us,
			    (long long)k->reaped_us);
			buf_json_str(b, k->reap_err ? strerror(k->reap_err) :
			    NULL);
			buf_puts(b, "}");
		}
		buf_puts(b, "]}\n");
		return;
	}
	if (pr->psi_fd >= 0)
		buf_printf(b, "trigger: %s on %s; cool-down %ums\n", trig,
		    pr->file, sc->pressure_cooldown);
	else
		buf_printf(b, "trigger: off (%s)\n", pr->why);
	buf_printf(b, "reclaim: %s\ncgroups: %s\n%s", reclaim_path_name(pr->path),
	    pr->cg->base ? pr->cg->base : pr->cg->why, psi);
	if (psi[0] && psi[strlen(psi) - 1] != '\n')
		buf_puts(b, "\n");
	buf_printf(b, "kills: %u\n", pr->nkills);
	if (pr->nstale)
		buf_printf(b, "events ignored (stall from before a kill): "
		    "%u\n", pr->nstale);
	for (i = first; i < pr->nkills; i++) {
		struct kill_rec	*k = &pr->hist[i % KILL_HISTORY];
		time_t		 t = (time_t)(k->when_ms / 1000);
		struct tm	 tm;

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		buf_printf(b, "%s %s priority %d, %.1f MiB, %s, %s, dead %.1f ms, "
		    "memory back %.1f ms%s%s%s\n", when, k->name,
		    (int)k->priority, k->memory / 1048576.0, k->psi,
		    reclaim_path_name(k->path), k->death_us / 1000.0,
		    k->back_us / 1000.0, k->reap_err ? " (no reap: " : "",
		    k->reap_err ? strerror(k->reap_err) : "",
		    k->reap_err ? ")" : "");
	}
}

/*
 * The killer's memory, for the next binary (reexec.c): its cool-down,
 * what it granted last, the kills it made.  Never with a kill in flight:
 * a re-exec waits for it to end.
 */
void
pressure_state_save(const struct pressure *pr, struct st_w *w)
{
	unsigned	i;

	st_i64(w, pr->quiet_until);
	st_i64(w, pr->last_event);
	st_i64(w, pr->last_grant);
	st_i64(w, pr->total_done);
	st_u32(w, pr->nkills);
	st_u32(w, pr->nstale);
	st_u32(w, pr->nkills_req);
	st_u32(w, KILL_HISTORY);
	for (i = 0; i < KILL_HISTORY; i++) {
		const struct kill_rec	*k = &pr->hist[i];

		st_i64(w, k->when_ms);
		st_u64(w, k->memory);
		st_u64(w, k->rss);
		st_i64(w, k->death_us);
		st_i64(w, k->back_us);
		st_i64(w, k->reaped_us);
		st_u32(w, (uint32_t)k->priority);
		st_u32(w, (uint32_t)k->reap_err);
		st_u8(w, k->path);
		st_str(w, k->name);
		st_str(w, k->psi);
	}
}

int
pressure_state_load(struct pressure *pr, struct st_r *r)
{
	unsigned	i, n;

	pr->quiet_until = st_get_i64(r);
	pr->last_event = st_get_i64(r);
	pr->last_grant = st_get_i64(r);
	pr->total_done = st_get_i64(r);
	pr->nkills = st_get_u32(r);
	pr->nstale = st_get_u32(r);
	pr->nkills_req = st_get_u32(r);
	if ((n = st_get_u32(r)) != KILL_HISTORY && !st_bad(r))
		st_fail(r, "a kill history of %u, not %d", n, KILL_HISTORY);
	for (i = 0; i < KILL_HISTORY && !st_bad(r); i++) {
		struct kill_rec	*k = &pr->hist[i];
		uint32_t	 len;
		const char	*p;

		k->when_ms = st_get_i64(r);
		k->memory = st_get_u64(r);
		k->rss = st_get_u64(r);
		k->death_us = st_get_i64(r);
		k->back_us = st_get_i64(r);
		k->reaped_us = st_get_i64(r);
		k->priority = (int32_t)st_get_u32(r);
		k->reap_err = (int32_t)st_get_u32(r);
		k->path = st_get_u8(r);
		if ((p = st_get_bytes(r, &len)) != NULL)
			snprintf(k->name, sizeof(k->name), "%.*s", (int)len, p);
		if ((p = st_get_bytes(r, &len)) != NULL)
			snprintf(k->psi, sizeof(k->psi), "%.*s", (int)len, p);
	}
	return st_bad(r) ? -EINVAL : 0;
}
