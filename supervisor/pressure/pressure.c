/*
 * pressure.c - a low-memory killer, as Android's lmkd, for our services.
 *
 * Two PSI triggers (`pressure`, medium; `pressure_critical`) on the
 * services' cgroup's memory.pressure where there is a cgroup v2 tree,
 * else on /proc/pressure/memory, are fds of an epoll set of their own
 * whose fd the loop watches (libev watches only for read and write, and
 * PSI reports with EPOLLPRI).  An event does not kill: it opens the
 * fast path, and decide.c decides from fresh snapshots (the PSI totals,
 * /proc/meminfo, /proc/vmstat) taken every 10 ms for a window, and near
 * the memory floor (pressure_min_available) sooner than far from it.
 *
 * On a decision, victim.c picks among the services that may die at that
 * level (at medium pressure, only kill_priority >= pressure_min_priority)
 * by what a kill frees (anon + swap); the victim's CPU limits are lifted,
 * a cgroup of several processes is frozen and each of them killed and
 * reaped, the rest by cgroup.kill; the memory comes back by the best path
 * the kernel has (probed once, or pressure_reclaim): our kernel's
 * PIDFD_SIGNAL_LOCAL_REAP, asked for at nice -20 so that its worker runs
 * at -20; else SIGKILL, then process_mrelease() in a thread of its own
 * at nice -20 (mrelease.c); else SIGKILL alone.  Nothing here ever waits
 * for a victim's mmap_lock on the loop, nor for a victim at all: the
 * next kill may go once the victim's pidfd reports its death or after
 * pressure_kill_timeout.  Deaths and memory coming back are timed.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "pressure.h"
#include "spawn.h"
#include "sys.h"
#include "victim.h"

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


/* A /proc file read again at offset 0 of an fd kept open; 0 or -1. */
static int
pressure_pread(int fd, char *buf, size_t len)
{
	ssize_t	n;

	if (fd < 0 || (n = pread(fd, buf, len - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Does a service stall by its own memory_high or memory_max? */
static bool
pressure_self_limited(const struct svc *s)
{
	return svc_has_process(s) && (s->def->memory_high ||
	    (s->def->memory_max && s->def->memory_max != SIZE_MAX_UNSET));
}

/* The stall of the services held at their own limits, summed. */
static void
pressure_self(struct pressure *pr, struct snap *s)
{
	char		buf[256];
	uint64_t	some, full;
	size_t		i;
	int		fd;

	for (i = 0; i < pr->set->n; i++) {
		const struct svc	*v = pr->set->v[i];

		if (!pressure_self_limited(v) ||
		    (fd = pr->ops->cgroup(pr->ctx, v)) < 0 ||
		    read_small(fd, "memory.pressure", buf, sizeof(buf)) <= 0 ||
		    psi_parse(buf, &some, &full) < 0)
			continue;
		s->self_some_us += some;
		s->self_full_us += full;
	}
}

/*
 * What the services may still take (MemAvailable, and no more than is
 * left under their parent cgroup's memory.high and memory.max), and of
 * how much (MemTotal, or that limit).
 */
static void
pressure_limits(struct pressure *pr, struct snap *s)
{
	uint64_t	v, cur, lim = UINT64_MAX;

	s->room = s->avail;
	s->limit = s->total == UINT64_MAX ? 0 : s->total;
	if (pr->cg->base_fd < 0 ||
	    cgroup_read_u64(pr->cg->base_fd, "memory.current", &cur) < 0)
		return;
	if (cgroup_read_limit(pr->cg->base_fd, "memory.high", &v) == 0)
		lim = v;
	if (cgroup_read_limit(pr->cg->base_fd, "memory.max", &v) == 0 &&
	    v < lim)
		lim = v;
	if (lim == UINT64_MAX)
		return;
	v = lim > cur ? lim - cur : 0;
	if (v < s->room)
		s->room = v;
	if (lim < s->limit || s->limit == 0)
		s->limit = lim;
}

/*
 * A snapshot for decide.c.  What cannot be read counts as no pressure
 * and plenty of memory: a killer that misreads kills nothing.
 */
/* lmkd's watermarks, from /proc/zoneinfo, once a minute as lmkd. */
static void
pressure_wmarks(struct pressure *pr, int64_t now)
{
	uint64_t	 w[3];
	size_t		 len = 0;
	ssize_t		 n;
	char		*p;
	int		 fd;

	if (pr->wmarks_at && now - pr->wmarks_at < 60000000)
		return;
	pr->wmarks_at = now;
	if ((fd = open("/proc/zoneinfo", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	for (;;) {
		if (len + 1 >= pr->zoneinfo_cap) {
			if ((p = realloc(pr->zoneinfo, pr->zoneinfo_cap ?
			    pr->zoneinfo_cap * 2 : 16384)) == NULL)
				break;
			pr->zoneinfo = p;
			pr->zoneinfo_cap = pr->zoneinfo_cap ?
			    pr->zoneinfo_cap * 2 : 16384;
		}
		if ((n = read(fd, pr->zoneinfo + len,
		    pr->zoneinfo_cap - 1 - len)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > 0) {
		pr->zoneinfo[len] = '\0';
		if (lmkd_wmarks(pr->zoneinfo, w) == 0)
			memcpy(pr->dec.lk.wmark, w, sizeof(w));
	}
}

void
pressure_snap(struct pressure *pr, struct snap *s)
{
	const struct sup_conf	*sc = pr->sc;
	char			 buf[8192];

	memset(s, 0, sizeof(*s));
	s->t_us = mono_us();
	s->avail = s->total = UINT64_MAX;
	if (pressure_pread(pr->psi_fd, buf, sizeof(buf)) == 0)
		psi_parse(buf, &s->some_us, &s->full_us);
	if (pressure_pread(pr->meminfo_fd, buf, sizeof(buf)) < 0 ||
	    meminfo_parse(buf, s) < 0)
		s->avail = s->total = UINT64_MAX;
	if (pressure_pread(pr->vmstat_fd, buf, sizeof(buf)) == 0)
		vmstat_parse(buf, s);
	pressure_self(pr, s);
	pressure_limits(pr, s);
	pr->dc.lmkd = sc->pressure_policy == 1;
	if (pr->dc.lmkd)
		pressure_wmarks(pr, s->t_us);
	pr->dc.kill_timeout = sc->pressure_kill_timeout;
	pr->dc.floor = 0;
	if (sc->pressure_min_pct && s->total != UINT64_MAX)
		pr->dc.floor = s->total / 10000 * sc->pressure_min_pct;
	else if (!sc->pressure_min_pct)
		pr->dc.floor = sc->pressure_min_available;
	pr->last = *s;
}

/* "some avg10=X full avg10=Y" of the PSI file, for a kill's record. */
static void
pressure_psi_text(struct pressure *pr, char *out, size_t n)
{
	char	buf[256], some[16] = "?", full[16] = "?", *p;

	if (pressure_pread(pr->psi_fd, buf, sizeof(buf)) == 0 ||
	    (pr->psi_fd < 0 && read_small(AT_FDCWD, "/proc/pressure/memory",
	    buf, sizeof(buf)) > 0)) {
		if ((p = strstr(buf, "some avg10=")) != NULL)
			sscanf(p, "some avg10=%15s", some);
		if ((p = strstr(buf, "full avg10=")) != NULL)
			sscanf(p, "full avg10=%15s", full);
	}
	snprintf(out, n, "some avg10=%s full avg10=%s", some, full);
}

/* The main process's anon + swap, from its status, checked alive. */
static uint64_t
pressure_proc_anon(const struct svc *s)
{
	char		path[64], buf[4096], *p;
	uint64_t	anon = 0, swap = 0;

	if (s->pidfd < 0 || s->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)s->pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) <= 0 ||
	    pidfd_signal(s->pidfd, 0) < 0)
		return 0;
	if ((p = strstr(buf, "\nRssAnon:")) != NULL)
		sscanf(p + 9, "%" SCNu64, &anon);
	if ((p = strstr(buf, "\nVmSwap:")) != NULL)
		sscanf(p + 8, "%" SCNu64, &swap);
	return (anon + swap) << 10;
}

/*
 * What killing a service frees: its cgroup's anon and swap where the
 * kill takes the whole cgroup, else its main process's.  Not page cache
 * nor kernel memory (memory.current has both): a kill frees neither.
 */
static uint64_t
pressure_freed(struct pressure *pr, const struct svc *s)
{
	int		fd = pr->ops->cgroup(pr->ctx, s);
	char		buf[4096];
	uint64_t	anon, swap;

	if (s->def->kill_mode == KILL_CGROUP && fd >= 0 &&
	    read_small(fd, "memory.stat", buf, sizeof(buf)) > 0 &&
	    memstat_anon(buf, &anon) == 0) {
		if (cgroup_read_u64(fd, "memory.swap.current", &swap) < 0)
			swap = 0;
		return anon + swap;
	}
	return pressure_proc_anon(s);
}

/* Room for the candidates, as the set grows (never per event). */
static int
pressure_grow(struct pressure *pr)
{
	struct victim	 *c;
	struct svc	**w;
	size_t		  n = pr->set->n;

	if (n <= pr->cap)
		return 0;
	n += 16;
	if ((c = realloc(pr->cand, n * sizeof(*c))) == NULL)
		return -ENOMEM;
	pr->cand = c;
	if ((w = realloc(pr->who, n * sizeof(*w))) == NULL)
		return -ENOMEM;
	pr->who = w;
	pr->cap = n;
	return 0;
}

/* A kill in flight for s: its index in pr->open, or -1. */
static int
pressure_open_find(const struct pressure *pr, const struct svc *s)
{
	unsigned	i;

	for (i = 0; i < pr->nopen; i++)
		if (pr->open[i].s == s)
			return (int)i;
	return -1;
}

static bool
pressure_candidate(const struct pressure *pr, const struct svc *s,
    int32_t min)
{
	return (s->state == SVC_READY || s->state == SVC_STARTING) &&
	    s->pidfd >= 0 && s->pending.why == WHY_NONE &&
	    s->def->kill_priority >= 0 && s->def->kill_priority >= min &&
	    pressure_open_find(pr, s) < 0;
}

/*
 * Whom to kill at level lv: candidates by kill_priority, their sizes
 * read a band of equal priority at a time, the highest first, until one
 * would free the deficit (or any, without one).  NULL: nobody.
 */
static struct svc *
pressure_pick(struct pressure *pr, enum level lv, uint64_t deficit,
    uint64_t *freed)
{
	int32_t		 min = lv == LEVEL_MEDIUM ?
			     pr->sc->pressure_min_priority : 0;
	size_t		 i, j, n = 0;
	ssize_t		 pick = -1;

	if (pressure_grow(pr) < 0)
		return NULL;
	for (i = 0; i < pr->set->n; i++) {
		struct svc	*s = pr->set->v[i];

		if (!pressure_candidate(pr, s, min))
			continue;
		for (j = n++; j > 0 && pr->who[j - 1]->def->kill_priority <
		    s->def->kill_priority; j--)
			pr->who[j] = pr->who[j - 1];
		pr->who[j] = s;
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && pr->who[j]->def->kill_priority ==
		    pr->who[i]->def->kill_priority; j++) {
			struct svc	*s = pr->who[j];
			uint64_t	 m = pressure_freed(pr, s);

			pr->cand[j].priority = s->def->kill_priority;
			pr->cand[j].memory = m;
			/* lmkd's: the heaviest of the band, no tie */
			pr->cand[j].growth = s->mem_seen && !pr->dc.lmkd ?
			    (int64_t)m - (int64_t)s->mem_seen : 0;
			s->mem_seen = m;
		}
		pick = victim_pick(pr->cand, j, min, deficit);
		if (pick >= 0 && (deficit == 0 ||
		    pr->cand[pick].memory >= deficit))
			break;
	}
	if (pick < 0)
		return NULL;
	*freed = pr->cand[pick].memory;
	return pr->who[pick];
}

struct kill_rec *
pressure_rec(struct pressure *pr, unsigned seq)
{
	return &pr->hist[seq % KILL_HISTORY];
}

/* An open kill is over (dead and its memory back, or watched long
 * enough): log how it went, and forget it. */
static void
pressure_close(struct pressure *pr, unsigned i)
{
	struct kill_rec	*k = pressure_rec(pr, pr->open[i].seq);
	char		 death[32], back[32];

	if (k->death_us >= 0)
		snprintf(death, sizeof(death), "%.1f ms", k->death_us / 1000.0);
	else
		snprintf(death, sizeof(death), "not within 10 s");
	if (k->back_us >= 0)
		snprintf(back, sizeof(back), "%.1f ms", k->back_us / 1000.0);
	else
		snprintf(back, sizeof(back), "not within 10 s");
	log_info("pressure: %s: dead after %s, memory back after %s%s%s%s",
	    k->name, death, back, k->reap_err ? " (no reap: " : "",
	    k->reap_err ? strerror(k->reap_err) : "",
	    k->reap_err ? ")" : "");
	pr->open[i] = pr->open[--pr->nopen];
}

/*
 * Is a victim's memory back: its address space down to a tenth of
 * what it was?  (Not memory.current: memcg counts lag behind, and page
 * tables leave only at exit.)  Once it is dead, it is.
 */
static void
pressure_watch_open(struct pressure *pr, int64_t now_us)
{
	unsigned	i = 0;

	while (i < pr->nopen) {
		struct open_kill	*o = &pr->open[i];
		struct kill_rec		*k = pressure_rec(pr, o->seq);

		if (k->back_us < 0 && pressure_rss(o->s) <= k->rss / 10)
			k->back_us = now_us - o->t0_us;
		if ((k->back_us >= 0 && k->death_us >= 0) ||
		    now_us - o->t0_us > KILL_WATCH_US)
			pressure_close(pr, i);
		else
			i++;
	}
}

/*
 * SIGKILL to one process through its pidfd, by the path of kill record
 * k: 0 or -errno.  Never waits for the victim: the kernel's reap is
 * queued (asked for at nice -20, so that it runs on the kernel's
 * high-priority queue, as process_mrelease() runs in our thread at
 * -20); our process_mrelease() is the mrelease thread's.  Where a reap
 * cannot be had, k says why and the kill is a plain one.
 */
static int
pressure_sigkill(struct pressure *pr, struct kill_rec *k, int pidfd,
    bool main)
{
	int	rc, nice;

	if (k->path == RECLAIM_REAP) {
		errno = 0;
		nice = getpriority(PRIO_PROCESS, 0);
		setpriority(PRIO_PROCESS, 0, -20);
		rc = sys_pidfd_send_signal(pidfd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) == 0 ? 0 : errno;
		setpriority(PRIO_PROCESS, 0, nice);
		if (rc == 0)
			return 0;
		/* EINVAL: its memory may not be reaped (shared with a
		 * process outside it, a core dump); nothing was sent.  The
		 * probe made sure we have CAP_SYS_NICE (else EPERM). */
		if (rc != EINVAL)
			return -rc;
		if (main) {
			k->reap_err = rc;
			k->path = RECLAIM_KILL;
		}
	}
	if ((rc = pidfd_signal(pidfd, SIGKILL)) < 0)
		return rc;
	if (main && k->path == RECLAIM_MRELEASE &&
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
	unsigned	 i;

	for (i = 0; i < pr->nopen; i++) {
		struct kill_rec	*k = pressure_rec(pr, pr->open[i].seq);

		if (pr->open[i].seq != res->seq)
			continue;
		k->reaped_us = mono_us() - pr->open[i].t0_us;
		/* ESRCH, EINVAL: it had let go of its memory itself. */
		if (res->err && res->err != ESRCH && res->err != EINVAL)
			k->reap_err = res->err;
		return;
	}
	log_debug("pressure: a reap came back after %.1f ms, its kill over",
	    res->took_us / 1000.0);
}

/*
 * The other processes of a cgroup being killed, frozen so that none
 * forks meanwhile: each killed and reaped through a pidfd of its own
 * (the main process has had its kill).  How many.
 */
static uint32_t
pressure_kill_rest(struct pressure *pr, struct kill_rec *k, int cgfd,
    const struct svc *s)
{
	int		fds[CGROUP_PIDFDS_MAX];
	pid_t		pids[CGROUP_PIDFDS_MAX];
	struct kill_rec	one;
	uint32_t	n = 0;
	int		i, m;

	m = cgroup_pidfds(cgfd, fds, pids, CGROUP_PIDFDS_MAX);
	for (i = 0; i < m; i++) {
		one = *k;
		if (pids[i] != s->pid &&
		    pressure_sigkill(pr, &one, fds[i], false) == 0)
			n++;
		close(fds[i]);
	}
	return n;
}

/*
 * Kill a service for memory pressure at level lv, for why, and take its
 * memory back.  0, or -errno if nothing was killed.
 */
static int
pressure_kill_at(struct pressure *pr, struct svc *s, enum level lv,
    const char *why, uint64_t freed)
{
	int		 cgfd = pr->ops->cgroup(pr->ctx, s);
	bool		 group = s->def->kill_mode == KILL_CGROUP && cgfd >= 0;
	struct kill_rec	*k;
	int64_t		 t0;
	int		 rc;

	if (!svc_has_process(s) || s->pidfd < 0)
		return -ESRCH;
	if (pressure_open_find(pr, s) >= 0)
		return -EBUSY;
	if (pr->nopen == KILL_OPEN)
		pressure_close(pr, 0);
	k = pressure_rec(pr, pr->nkills);
	memset(k, 0, sizeof(*k));
	k->when_ms = real_ms();
	snprintf(k->name, sizeof(k->name), "%s", s->def->name);
	snprintf(k->reason, sizeof(k->reason), "%s", why);
	pressure_psi_text(pr, k->psi, sizeof(k->psi));
	k->priority = s->def->kill_priority;
	k->memory = s->mem_need = freed;
	k->rss = pressure_rss(s);
	k->avail = pr->last.avail;
	k->swap_free = pr->last.swap_free;
	k->level = (uint8_t)lv;
	k->thrash_pct = lv == LEVEL_NONE ? 0 : pr->dec.thrash_pct;
	k->death_us = k->back_us = k->reaped_us = -1;
	k->path = pr->path;
	k->procs = 1;
	/* As lmkd boosts its victims: let it run to its end. */
	if (cgfd >= 0) {
		cgroup_write(cgfd, "cpu.max", "max");
		cgroup_write(cgfd, "cpu.weight", "10000");
	}
	if (group)
		cgroup_freeze(cgfd, true);
	t0 = mono_us();
	if ((rc = pressure_sigkill(pr, k, s->pidfd, true)) < 0) {
		if (group)
			cgroup_freeze(cgfd, false);
		return rc;
	}
	if (group) {
		k->procs += pressure_kill_rest(pr, k, cgfd, s);
		cgroup_kill(cgfd);
		cgroup_freeze(cgfd, false);
	}
	pr->open[pr->nopen++] = (struct open_kill){ .s = s,
	    .seq = pr->nkills, .t0_us = t0 };
	pr->nkills++;
	if (lv == LEVEL_NONE)
		pr->nkills_req++;
	log_info("pressure: killed %s (kill_priority %d, %.1f MiB, %u "
	    "process%s) %s%s%s%s; %s; MemAvailable %.1f MiB, SwapFree %.1f "
	    "MiB; reclaim by %s", k->name, (int)k->priority,
	    k->memory / 1048576.0, k->procs, k->procs > 1 ? "es" : "",
	    lv == LEVEL_NONE ? "" : "at ", lv == LEVEL_NONE ? "" :
	    level_name(lv), lv == LEVEL_NONE ? "" : " pressure: ", k->reason,
	    k->psi, k->avail == UINT64_MAX ? -1.0 : k->avail / 1048576.0,
	    k->swap_free / 1048576.0, reclaim_path_name(k->path));
	if (pr->ops->killed)
		pr->ops->killed(pr->ctx, s, k);
	svc_pressure_killed(s);
	ev_timer_stop(pr->loop, &pr->tick);
	ev_timer_set(&pr->tick, DECIDE_FAST_MS / 1000.0, 0);
	ev_timer_start(pr->loop, &pr->tick);
	return 0;
}

/* `pressure kill NAME`: kill as the killer would, now. */
int
pressure_kill(struct pressure *pr, struct svc *s, const char *why)
{
	struct snap	sn;

	if (!svc_has_process(s) || s->pidfd < 0)
		return -ESRCH;
	pressure_snap(pr, &sn);
	return pressure_kill_at(pr, s, LEVEL_NONE, why, pressure_freed(pr, s));
}

/* Why the decision was what it was, in words. */
static void
pressure_why(struct pressure *pr, enum level lv, char *out, size_t n)
{
	const struct trigger	*t = lv == LEVEL_CRITICAL &&
				    pr->dc.critical.stall ? &pr->dc.critical :
				    &pr->dc.medium;

	if (lv != LEVEL_FLOOR && pr->dc.lmkd && pr->dec.lk.why != NULL)
		snprintf(out, n, "lmkd's rule: %s (refaults %u%%)",
		    pr->dec.lk.why, pr->dec.thrash_pct);
	else if (lv == LEVEL_FLOOR)
		snprintf(out, n, "MemAvailable and SwapFree %.1f MiB under the "
		    "floor of %.1f MiB", (pr->last.avail + pr->last.swap_free) /
		    1048576.0, pr->dc.floor / 1048576.0);
	else if (lv == LEVEL_CRITICAL && pr->dec.thrash_pct >=
	    DECIDE_THRASH_PCT)
		snprintf(out, n, "thrashing (refaults %u%% of the file "
		    "cache a window)", pr->dec.thrash_pct);
	else if (lv == LEVEL_CRITICAL && t == &pr->dc.medium)
		snprintf(out, n, "swap nearly out, at medium pressure");
	else
		snprintf(out, n, "%s stall at %u ms a %u ms window",
		    t->full ? "full" : "some", t->stall / 1000,
		    t->window / 1000);
}

/*
 * One call into decide.c as a line of the log at log_level = debug, so
 * that a run's decisions can be replayed (tests/unit/traces): what was
 * called ("event LEVEL", "look LEVEL [killed|none]", "over"), on which
 * snapshot, under which live keys.
 */
static void
pressure_trace(const struct pressure *pr, const char *what,
    const struct snap *s)
{
	char	t[512];

	if (log_level < LOG_DEBUG)
		return;
	snap_text(s, t, sizeof(t));
	log_debug("pressure: trace %s %s floor=%llu timeout=%u lmkd=%d "
	    "wmark=%llu,%llu,%llu", what, t, (unsigned long long)pr->dc.floor,
	    pr->dc.kill_timeout, (int)pr->dc.lmkd,
	    (unsigned long long)pr->dec.lk.wmark[0],
	    (unsigned long long)pr->dec.lk.wmark[1],
	    (unsigned long long)pr->dec.lk.wmark[2]);
}

/* Look: decide, kill if it is time, and say when to look again. */
static void
pressure_look(struct pressure *pr, const struct snap *s)
{
	enum level	 lv = LEVEL_NONE;
	struct svc	*v;
	uint64_t	 freed = 0;
	char		 why[80], what[32];
	int64_t		 ms, now = mono_ms();
	unsigned	 i;

	pressure_watch_open(pr, s->t_us);
	if (pr->dec.kill_at && s->t_us - pr->dec.kill_at >=
	    (int64_t)pr->sc->pressure_kill_timeout * 1000)
		pr->ntimeouts++;	/* decide_tick() ends it */
	if (pr->on && !pr->stopping &&
	    (lv = decide_tick(&pr->dec, s)) == LEVEL_NONE)
		pressure_trace(pr, "look none", s);
	else if (pr->on && !pr->stopping) {
		pr->last_event = now;	/* victims wait for calm from here */
		pr->last_level = lv;
		v = pressure_pick(pr, lv, pr->dec.deficit, &freed);
		pressure_why(pr, lv, why, sizeof(why));
		v = v != NULL && pressure_kill_at(pr, v, lv, why, freed) == 0 ?
		    v : NULL;
		snprintf(what, sizeof(what), "look %s %s", level_name(lv),
		    v != NULL ? "killed" : "none");
		pressure_trace(pr, what, s);
		if (v != NULL) {
			decide_killed(&pr->dec, s);
		} else {
			if (now - pr->warned_at >= 10000) {
				log_warn("pressure: %s (%s), and no service "
				    "may be killed at that level", why,
				    level_name(lv));
				pr->warned_at = now;
			}
			decide_none(&pr->dec, s);
		}
	}
	ms = decide_next_ms(&pr->dec, s);
	for (i = 0; i < pr->nopen; i++) {
		int64_t	age = s->t_us - pr->open[i].t0_us, want;

		want = age < (int64_t)pr->sc->pressure_kill_timeout * 1000 ?
		    DECIDE_FAST_MS : 100;
		if (ms < 0 || want < ms)
			ms = want;
	}
	ev_timer_stop(pr->loop, &pr->tick);
	if (ms >= 0) {
		ev_timer_set(&pr->tick, (double)ms / 1000.0, 0);
		ev_timer_start(pr->loop, &pr->tick);
	}
}

static void
pressure_on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pressure	*pr = container_of(w, struct pressure, tick);
	struct snap	 s;

	(void)loop;
	(void)revents;
	pressure_snap(pr, &s);
	pressure_look(pr, &s);
}

/* Look at once (its keys may have changed: a new floor is watched). */
void
pressure_look_now(struct pressure *pr)
{
	if (!pr->on)
		return;
	ev_timer_stop(pr->loop, &pr->tick);
	ev_timer_set(&pr->tick, 0, 0);
	ev_timer_start(pr->loop, &pr->tick);
}

/*
 * A trigger fired: look closely for a window.  Which one is told by
 * the watcher, not by the epoll set: the loop's own poll of the set
 * polls the trigger, and PSI reports an event to one poll only, so the
 * set may have nothing left to say.
 */
static void
pressure_on_psi(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pressure		*pr = w->data;
	enum level		 lv = w == &pr->w[1] ? LEVEL_CRITICAL :
				    LEVEL_MEDIUM;
	struct epoll_event	 ev;
	struct snap		 s;

	(void)loop;
	(void)revents;
	while (epoll_wait(w->fd, &ev, 1, 0) > 0)
		;
	pressure_snap(pr, &s);
	pressure_trace(pr, lv == LEVEL_CRITICAL ? "event critical" :
	    "event medium", &s);
	decide_event(&pr->dec, lv, &s);
	pressure_look(pr, &s);
}

/*
 * The service being killed has died (it is a zombie, not yet reaped).
 * Its memory is back by now, if not before: exit_mm() comes before the
 * exit is reported.  The latest decided kill being over, the next may
 * be decided: at once if the floor is still breached.
 */
void
pressure_died(struct pressure *pr, struct svc *s)
{
	int		 i = pressure_open_find(pr, s);
	struct kill_rec	*k;
	struct snap	 sn;

	if (i < 0)
		return;
	k = pressure_rec(pr, pr->open[i].seq);
	k->death_us = mono_us() - pr->open[i].t0_us;
	if (k->back_us < 0)
		k->back_us = k->death_us;
	if (pr->open[i].seq + 1 == pr->nkills && pr->dec.kill_at &&
	    k->level != LEVEL_NONE) {
		pressure_snap(pr, &sn);
		pressure_trace(pr, "over", &sn);
		decide_over(&pr->dec, &sn);
	}
	pressure_close(pr, (unsigned)i);
	ev_timer_stop(pr->loop, &pr->tick);
	ev_timer_set(&pr->tick, 0, 0);
	ev_timer_start(pr->loop, &pr->tick);
}

/* A service is going away: stop watching it. */
void
pressure_forget(struct pressure *pr, struct svc *s)
{
	int	i = pressure_open_find(pr, s);

	if (i >= 0)
		pressure_close(pr, (unsigned)i);
}

/*
 * Memory that a victim may have now without pressure: MemAvailable
 * above the floor, and no more than is left under the services' parent
 * cgroup's memory.high and memory.max.  Its need (what a kill freed:
 * anon and swap, not page cache) counts its swapped memory too.
 */
static uint64_t
pressure_room(struct pressure *pr, const struct snap *s)
{
	uint64_t	floor = pr->dc.floor;

	if (s->room == s->avail)	/* not the cgroup's: MemAvailable */
		return s->room > floor ? s->room - floor : 0;
	return s->room;
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
 * The pressure now, as the killer saw it at its last look: that look's
 * level, until pressure_calm (at least its window) has passed since;
 * then none.  The tests' daemon (PV_FAKE_PRESSURE) takes it from the
 * file $PIDVISOR_FAKE_PRESSURE instead: "none", "medium", "critical".
 */
enum level
pressure_level(const struct pressure *pr)
{
	int64_t	calm = pr->sc->pressure_calm;

#ifdef PV_FAKE_PRESSURE
	const char	*fake = getenv("PIDVISOR_FAKE_PRESSURE");
	char		 word[16] = "";
	int		 fd;

	if (fake != NULL) {
		if ((fd = open_regular(AT_FDCWD, fake)) < 0)
			return LEVEL_NONE;
		(void)!read(fd, word, sizeof(word) - 1);
		close(fd);
		return strncmp(word, "medium", 6) == 0 ? LEVEL_MEDIUM :
		    strncmp(word, "critical", 8) == 0 ? LEVEL_CRITICAL :
		    LEVEL_NONE;
	}
#endif
	if (calm < pr->sc->pressure_window / 1000)
		calm = pr->sc->pressure_window / 1000;
	if (!pr->on || pr->last_event == 0 || mono_ms() - pr->last_event >= calm)
		return LEVEL_NONE;
	return (enum level)pr->last_level;
}

/*
 * svc_ops' hold, for a service killed for memory (by us or by the
 * kernel's OOM killer) whose restart is due: how many ms it must still
 * wait.  It restarts once no pressure has been seen for pressure_calm
 * (at least a window; a trigger's event counts only once a look has
 * found the stall going on), there is room for what a kill freed of
 * it, and no more important victim is still waiting; one such restart
 * per pressure_calm, so that the next one sees whether this one brought
 * the pressure back.  Not so by pressure_calm_max from its death
 * (*until): -1, it is not restarted blindly into the pressure.
 */
int64_t
pressure_hold(struct pressure *pr, struct svc *s, int64_t *until)
{
	const struct sup_conf	*sc = pr->sc;
	int64_t			 now = mono_ms(), calm, wait = 0, t;
	struct snap		 sn;
	size_t			 i;

	*until = s->since + sc->pressure_calm_max;
	if (!pr->on || sc->pressure_calm == 0)
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
		pressure_snap(pr, &sn);
		if (i < pr->set->n || pressure_room(pr, &sn) < s->mem_need)
			wait = 1000;	/* look again */
	}
	if (wait == 0) {
		pr->last_grant = now;
		return 0;
	}
	if (now >= *until)
		return -1;
	log_debug("pressure: %s waits %lld ms for memory", s->def->name,
	    (long long)wait);
	return wait < *until - now ? wait : *until - now;
}

/*
 * Set trigger i (0 medium, 1 critical) on the PSI file, in an epoll set
 * of its own (libev watches for read and write, PSI reports EPOLLPRI),
 * which the loop watches.
 */
static int
pressure_trigger(struct pressure *pr, const struct trigger *t, int i)
{
	struct epoll_event	ev = { .events = EPOLLPRI };
	char			trig[64];
	int			n, fd;

	n = snprintf(trig, sizeof(trig), "%s %u %u", t->full ? "full" :
	    "some", t->stall, t->window);
	if ((pr->trig_fd[i] = fd = open(pr->file, O_RDWR | O_NONBLOCK |
	    O_CLOEXEC)) < 0 || write(fd, trig, (size_t)n + 1) < 0 ||
	    (pr->ep_fd[i] = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(pr->ep_fd[i], EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	ev_io_init(&pr->w[i], pressure_on_psi, pr->ep_fd[i], EV_READ);
	pr->w[i].data = pr;
	return 0;
}

/* Which PSI file: pressure_file, else the services' cgroup's. */
static int
pressure_file(struct pressure *pr)
{
	const char	*f = pr->sc->pressure_file;

	if ((f == NULL || strcmp(f, "cgroup") == 0) && pr->cg->base) {
		snprintf(pr->file, sizeof(pr->file), "%s/memory.pressure",
		    pr->cg->base);
		return 0;
	}
	if (f != NULL && strcmp(f, "cgroup") == 0) {
		snprintf(pr->why, sizeof(pr->why), "pressure_file = cgroup, "
		    "but there are no cgroups");
		return -1;
	}
	snprintf(pr->file, sizeof(pr->file), "%s", f ? f :
	    "/proc/pressure/memory");
	return 0;
}

/* Set up the triggers, as pidvisor.ini says; probe the reclaim path. */
void
pressure_init(struct pressure *pr)
{
	const struct sup_conf	*sc = pr->sc;
	struct snap		 s;
	int			 rc;

	pr->trig_fd[0] = pr->trig_fd[1] = pr->ep_fd[0] = pr->ep_fd[1] = -1;
	pr->psi_fd = -1;
	pr->meminfo_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	pr->vmstat_fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	pr->best = (uint8_t)reclaim_probe();
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
	pr->dc.medium = (struct trigger){ sc->pressure_stall,
	    sc->pressure_window, sc->pressure_full };
	pr->dc.critical = (struct trigger){ sc->pressure_crit_stall,
	    sc->pressure_crit_window, sc->pressure_crit_full };
	decide_init(&pr->dec, &pr->dc);
	ev_init(&pr->tick, pressure_on_tick);
	if (sc->pressure_stall == 0) {
		snprintf(pr->why, sizeof(pr->why), "pressure = off");
		return;
	}
	if (pressure_file(pr) < 0) {
		log_warn("pressure: off: %s", pr->why);
		return;
	}
	pr->psi_fd = open(pr->file, O_RDONLY | O_CLOEXEC);
	if (pr->psi_fd < 0 ? (rc = -errno) < 0 :
	    (rc = pressure_trigger(pr, &pr->dc.medium, 0)) < 0 ||
	    (pr->dc.critical.stall &&
	    (rc = pressure_trigger(pr, &pr->dc.critical, 1)) < 0)) {
		snprintf(pr->why, sizeof(pr->why), "%.80s: %s", pr->file,
		    strerror(-rc));
		log_warn("pressure: off: %s", pr->why);
		pressure_fini(pr);
		return;
	}
	pr->on = true;
	ev_io_start(pr->loop, &pr->w[0]);
	if (pr->ep_fd[1] >= 0)
		ev_io_start(pr->loop, &pr->w[1]);
	pressure_snap(pr, &s);
	log_info("pressure: %s %u %u%s on %s; floor %.0f MiB; reclaim by %s",
	    sc->pressure_full ? "full" : "some", sc->pressure_stall,
	    sc->pressure_window, sc->pressure_crit_stall ? ", critical at "
	    "pressure_critical" : "", pr->file, pr->dc.floor / 1048576.0,
	    reclaim_path_name(pr->path));
	log_debug("pressure: trace conf medium=%s %u %u critical=%s %u %u",
	    pr->dc.medium.full ? "full" : "some", pr->dc.medium.stall,
	    pr->dc.medium.window, pr->dc.critical.full ? "full" : "some",
	    pr->dc.critical.stall, pr->dc.critical.window);
	pressure_look(pr, &s);		/* the floor's polling, if any */
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
	int	i;

	if (pr->loop) {
		ev_io_stop(pr->loop, &pr->w[0]);
		ev_io_stop(pr->loop, &pr->w[1]);
		ev_timer_stop(pr->loop, &pr->tick);
		mrelease_stop(&pr->mrelease, pr->loop);
	}
	for (i = 0; i < 2; i++) {
		if (pr->trig_fd[i] >= 0)
			close(pr->trig_fd[i]);
		if (pr->ep_fd[i] >= 0)
			close(pr->ep_fd[i]);
		pr->trig_fd[i] = pr->ep_fd[i] = -1;
	}
	if (pr->psi_fd >= 0)
		close(pr->psi_fd);
	pr->psi_fd = -1;
	pr->on = false;
	free(pr->cand);
	free(pr->who);
	free(pr->zoneinfo);
	pr->cand = NULL;
	pr->who = NULL;
	pr->zoneinfo = NULL;
	pr->cap = pr->zoneinfo_cap = 0;
}
