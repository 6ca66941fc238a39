/* pressure.h - the low-memory killer */
#ifndef PIDVISOR_PRESSURE_H
#define PIDVISOR_PRESSURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "conf.h"
#include "mrelease.h"
#include "svc.h"
#include "util.h"

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
	uint64_t	memory;		/* at the kill, bytes */
	uint64_t	rss;		/* the victim's, at the kill */
	int64_t		death_us;	/* kill to pidfd death; -1 not yet */
	int64_t		back_us;	/* kill to memory back; -1 not yet */
	int64_t		reaped_us;	/* kill to process_mrelease's return */
	int32_t		priority;
	int32_t		reap_err;	/* why there was no reap; 0: none */
	uint8_t		path;		/* enum reclaim_path: what was done */
	char		name[SVC_NAME_MAX + 1];
	char		psi[48];	/* the pressure that triggered it */
};

#define KILL_HISTORY	32

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
	int		 psi_fd;	/* the PSI trigger; -1: off */
	int		 ep_fd;		/* an epoll set for its EPOLLPRI */
	ev_io		 w;
	ev_timer	 poll;		/* watches the memory come back */
	char		 file[PATH_MAX];
	char		 why[128];	/* why the killer is off */
	uint8_t		 path;		/* the best this kernel has, or the
					 * one pressure_reclaim asks for */
	uint8_t		 best;		/* the best this kernel has */
	struct mrelease	 mrelease;	/* process_mrelease() off the loop */
	struct svc	*inflight;	/* never more than one kill */
	int64_t		 t0_us;
	int64_t		 quiet_until;	/* cool-down, mono ms */
	int64_t		 last_event;	/* the last trigger, mono ms */
	int64_t		 last_grant;	/* a victim last restarted, mono ms */
	int64_t		 total_done;	/* stall total (us) at the last kill's
					 * end; -1: none yet */
	unsigned	 nkills;
	unsigned	 nstale;	/* events from before the last kill */
	unsigned	 nkills_req;	/* of nkills: by `pressure kill` */
	struct kill_rec	 hist[KILL_HISTORY];
};

void		 pressure_init(struct pressure *pr);
void		 pressure_fini(struct pressure *pr);
int		 pressure_kill(struct pressure *pr, struct svc *s,
		     const char *psi);
#define PRESSURE_BY_REQUEST	"by request"	/* pressure_kill's psi */
void		 pressure_died(struct pressure *pr, struct svc *s);
void		 pressure_forget(struct pressure *pr, struct svc *s);
void		 pressure_report(struct pressure *pr, struct buf *b, bool json);
const char	*reclaim_path_name(enum reclaim_path p);
uint64_t	 pressure_svc_memory(const struct pressure *pr,
		     const struct svc *s);
int64_t		 pressure_hold(struct pressure *pr, struct svc *s,
		     int64_t *until);

struct st_w;
struct st_r;
void		 pressure_state_save(const struct pressure *pr, struct st_w *w);
int		 pressure_state_load(struct pressure *pr, struct st_r *r);

#endif
