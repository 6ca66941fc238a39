/* pressure.h - the low-memory killer */
#ifndef PIDVISOR_PRESSURE_H
#define PIDVISOR_PRESSURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "decide.h"
#include "conf.h"
#include "mrelease.h"
#include "svc.h"
#include "util.h"
#include "victim.h"

/* How the victim's memory comes back (pressure_reclaim counts from 1). */
enum reclaim_path {
	RECLAIM_KILL,		/* SIGKILL; the victim frees it as it exits */
	RECLAIM_MRELEASE,	/* SIGKILL, then process_mrelease() in the
				 * mrelease thread */
	RECLAIM_REAP,		/* PIDFD_SIGNAL_LOCAL_REAP: the kernel's OOM
				 * reaper, at once */
	RECLAIM__COUNT
};

struct kill_rec {
	int64_t		when_ms;	/* CLOCK_REALTIME */
	uint64_t	memory;		/* what it was to free: anon + swap */
	uint64_t	rss;		/* the main process's, at the kill */
	uint64_t	avail;		/* MemAvailable at the kill */
	uint64_t	swap_free;	/* SwapFree at the kill */
	int64_t		death_us;	/* kill to pidfd death; -1 not yet */
	int64_t		back_us;	/* kill to memory back; -1 not yet */
	int64_t		reaped_us;	/* kill to process_mrelease's return */
	int32_t		priority;
	int32_t		reap_err;	/* why there was no reap; 0: none */
	uint32_t	procs;		/* processes killed with it */
	uint32_t	thrash_pct;	/* refaults against the file LRU */
	uint8_t		path;		/* enum reclaim_path: what was done */
	uint8_t		level;		/* enum level; NONE: by request */
	char		name[SVC_NAME_MAX + 1];
	char		psi[64];	/* "some avg10=X full avg10=Y" */
	char		reason[80];	/* why, in words */
};

#define KILL_HISTORY	32
#define KILL_OPEN	8	/* kills whose end is still watched */
#define KILL_WATCH_US	(10 * 1000 * 1000)	/* for at most this */

/* A kill whose victim's death or memory is not yet seen. */
struct open_kill {
	struct svc	*s;
	unsigned	 seq;		/* its record: hist[seq % KILL_HISTORY] */
	int64_t		 t0_us;
};

/* What the killer needs of a service that svc.h does not say. */
struct pressure_ops {
	/* The service's cgroup (an open directory), or -1. */
	int	(*cgroup)(void *ctx, const struct svc *s);
	/* A kill was sent (for `events`). */
	void	(*killed)(void *ctx, const struct svc *s,
		    const struct kill_rec *k);
};

struct pressure {
	/* What it works with (sup.c's, set before pressure_init). */
	const struct pressure_ops *ops;
	void			*ctx;
	struct ev_loop		*loop;
	struct svc_set		*set;
	const struct cgroups	*cg;
	const struct sup_conf	*sc;	/* live: reload changes it */
	bool			 stopping;	/* shutting down: no kills */
	bool			 on;		/* a trigger is set */
	int		 trig_fd[2];	/* medium, critical triggers; -1 */
	int		 ep_fd[2];	/* an epoll set for each's EPOLLPRI */
	int		 psi_fd;	/* the PSI file, to read totals */
	int		 meminfo_fd;
	int		 vmstat_fd;
	char		*zoneinfo;	/* a buffer for /proc/zoneinfo */
	size_t		 zoneinfo_cap;
	int64_t		 wmarks_at;	/* mono us; read once a minute */
	ev_io		 w[2];
	ev_timer	 tick;		/* decide_next_ms()'s look */
	char		 file[PATH_MAX];
	char		 why[128];	/* why the killer is off */
	uint8_t		 path;		/* the best this kernel has, or the
					 * one pressure_reclaim asks for */
	uint8_t		 best;		/* the best this kernel has */
	struct mrelease	 mrelease;	/* process_mrelease() off the loop */
	struct decide_conf dc;
	struct decide	 dec;
	struct snap	 last;		/* the last snapshot taken */
	struct open_kill open[KILL_OPEN];
	unsigned	 nopen;
	/* Candidates, grown with the set, never per event. */
	struct victim	*cand;
	struct svc	**who;
	size_t		 cap;
	int64_t		 last_event;	/* pressure last seen, mono ms */
	uint8_t		 last_level;	/* ... at which level */
	int64_t		 last_grant;	/* a victim last restarted, mono ms */
	int64_t		 warned_at;	/* "nobody to kill", mono ms */
	unsigned	 nkills;
	unsigned	 nkills_req;	/* of nkills: by `pressure kill` */
	unsigned	 ntimeouts;	/* kills over by pressure_kill_timeout */
	struct kill_rec	 hist[KILL_HISTORY];
};

void		 pressure_init(struct pressure *pr);
void		 pressure_fini(struct pressure *pr);
int		 pressure_kill(struct pressure *pr, struct svc *s,
		     const char *why);
#define PRESSURE_BY_REQUEST	"by request"	/* pressure_kill's why */
void		 pressure_died(struct pressure *pr, struct svc *s);
void		 pressure_look_now(struct pressure *pr);
enum level	 pressure_level(const struct pressure *pr);
void		 pressure_forget(struct pressure *pr, struct svc *s);
void		 pressure_report(struct pressure *pr, struct buf *b, bool json);
/* Of pressure.c, for pressure_report.c. */
void		 pressure_snap(struct pressure *pr, struct snap *s);
struct kill_rec	*pressure_rec(struct pressure *pr, unsigned seq);
const char	*reclaim_path_name(enum reclaim_path p);
enum reclaim_path reclaim_probe(void);
int64_t		 pressure_hold(struct pressure *pr, struct svc *s,
		     int64_t *until);

struct st_w;
struct st_r;
void		 pressure_state_save(const struct pressure *pr, struct st_w *w);
int		 pressure_state_load(struct pressure *pr, struct st_r *r);

#endif
