/*
 * core.h - what the service layer (service.c and the modules of a
 * service's processes: hook.c, health.c, mainpid.c, socks.c) works
 * with, and its way back up: the supervisor (sup.c)
 * owns it, sets it up and answers the calls.  None of them includes
 * sup.h: the layer calls down, and up only through these.
 */
#ifndef PIDVISOR_CORE_H
#define PIDVISOR_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "svc.h"

struct buf;
struct cgroups;
struct ctl;
struct notifydir;
struct output;
struct pidmap;
struct pressure;
struct service_spawn;
struct socks;
struct sup_conf;

struct core {
	struct ev_loop		 *loop;
	/* The supervisor's parts it reaches (sup.c's). */
	struct svc_set		 *set;
	struct pidmap		 *pids;		/* live processes by PID */
	struct output		 *output;	/* what services print */
	struct notifydir	 *notify;	/* sd_notify sockets */
	struct cgroups		 *cg;
	struct pressure		 *pr;		/* the killer */
	struct ctl		 *ctl;		/* the control socket */
	/* Its own. */
	struct service_spawn	 *spawns;	/* SERVICE_SPAWN_SLOTS */
	ev_prepare		  turn_w;	/* a new turn: a new spawn budget */
	ev_timer		  spawn_w;	/* more spawns than one turn takes */
	ev_prepare		  gc_w;		/* frees removed services (sup.c) */
	char			**base_env;	/* ours, less our NOTIFY_SOCKET */
	const char		 *base_path;	/* PATH of our own environment */
	int			  devnull;	/* stdin of services */
	uint64_t		  nofile_cur;	/* our RLIMIT_NOFILE as found */
	uint64_t		  nofile_max;
	bool			  pgrp_signal;	/* PIDFD_SIGNAL_PROCESS_GROUP */
	bool			  quiesce;	/* a re-exec waits for quiet:
						 * no new spawn, no new check */
	/* What timers count from (timer.c). */
	const struct sup_conf	 *sc;		/* live: reload changes it */
	int64_t			  start_real;	/* our start (an exec keeps
						 * it), us */
	int64_t			  start_mono;	/* ... on CLOCK_MONOTONIC */
	int64_t			  perturb;	/* this boot's, us: where in a
						 * minute coalesced timers wake */
	char			  machine_id[33]; /* or the boot's id */
	bool			  container;	/* a boot is our start */
	/* Up: a service changed state (or status text). */
	void			(*changed)(struct core *, struct svc *,
				    enum svc_state from);
	/* Across (service.c's): start a check of s (health_exec), or
	 * cancel the one that runs; 0, or -errno. */
	int			(*check)(struct core *, struct svc *, bool run);
	/* Across (service.c's): ready = forking found the daemon of s, pid
	 * with its pidfd fd: its main process now; or found none: the
	 * death of its first process (exited 0) is told. */
	void			(*forked)(struct core *, struct svc *, pid_t,
				    int fd);
	void			(*fork_failed)(struct core *, struct svc *);
	/* Across: where the fds held for s are (socks.c's). */
	struct socks		**(*socks_of)(struct svc *);
	/* Across: s is no longer wanted: once down, it goes (an accept
	 * instance that served its client). */
	void			(*remove)(struct core *, struct svc *);
	/* Up: a timer elapsed, and what came of it (`events`). */
	void			(*timer_event)(struct core *, struct svc *,
				    const char *what);
	/* Up: NAME@INSTANCE made from its template; NULL with why. */
	struct svc		*(*instance)(struct core *, const char *name,
				    struct buf *err, bool quiet);
};

/* The world of a service (its set's context). */
static inline struct core *
core_of(const struct svc *s)
{
	return s->set->ctx;
}

#endif
