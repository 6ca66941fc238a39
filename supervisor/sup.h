/* sup.h - the supervisor: one libev loop around the service state machine */
#ifndef PIDVISOR_SUP_H
#define PIDVISOR_SUP_H

#include <sys/queue.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "conf.h"
#include "pressure.h"
#include "spawn.h"
#include "svc.h"
#include "svclog.h"

/*
 * A loop turn does at most this many spawns, for at most this long, then
 * serves the other events (the control socket first).
 */
#define SUP_SPAWNS_PER_TURN	32
#define SUP_SPAWN_TIME		0.003

/*
 * Spawns in flight: children that have not exec'd yet.  We do not wait
 * for them, but each needs a CPU before it is a service.  In a crash
 * storm on 2 CPUs, 2 at once gave 250 restarts/s and a status p99 of
 * 10.5 ms; 1 gave 184/s and 8.2 ms: the services had the CPUs, not us.
 */
#define SUP_SPAWNS		1

struct sup_svc;

/*
 * What a service prints: two pipes, made at its first start and kept
 * across restarts (so that what an orphan writes is still caught), whose
 * write ends become the stdout and stderr of every instance.
 */
struct svc_out {
	struct sup_svc	 *owner;
	ev_io		  io[2];	/* read ends: stdout, stderr */
	int		  wfd[2];
	char		 *part[2];	/* the line being put together */
	uint32_t	  plen[2];
	pid_t		  pid;		/* the instance that writes */
	uint64_t	  seq;		/* lines so far */
	struct log_ring	 *ring;		/* made at the first line */
	struct log_file	  file;
};

/* A spawn in flight: the child's report pipe, and what it reads. */
struct sup_spawn {
	ev_io			 io;
	struct spawn_proc	 proc;
	struct sup_svc		*ss;		/* NULL: free */
	struct svc_def		*old_def;	/* replaced meanwhile (reload) */
	char			**old_envp;
};

/* A service as the supervisor holds it: the state plus its watchers. */
struct sup_svc {
	struct svc	  svc;
	ev_io		  death;	/* the pidfd: readable once it exits */
	ev_io		  ready;	/* the read end of the fd:N pipe */
	ev_timer	  timer;	/* whatever svc.c armed */
	char		**envp;		/* NULL: the supervisor's environ */
	const char	 *path;		/* PATH searched for exec */
	struct sup_svc	 *hnext;	/* pid map chain */
	struct svc_out	 *out;		/* NULL until it first runs */
	struct sup_spawn *spawn;	/* until its child has exec'd */
	int		  cgfd;		/* its cgroup; -1: none yet */
	uint64_t	  oom_kills;	/* its cgroup's oom_kill, last seen */
	uint64_t	  mem_need;	/* what it held when killed for memory */
	bool		  removing;	/* gone from the configuration */
	uint8_t		  fate;		/* reload.c: what happens to it */
};

struct ctl_client;
LIST_HEAD(ctl_clients, ctl_client);

enum sup_phase {
	SUP_RUNNING,
	SUP_STOPPING,		/* services stopping before exit/reboot */
	SUP_KILLING,		/* PID 1: leftover processes get TERM, KILL */
	SUP_DONE,
};

struct sup {
	struct ev_loop	 *loop;
	struct conf	  conf;
	struct svc_set	  set;
	const char	 *confdir;
	char		 *ctl_path;
	char		 *notify_path;
	const char	 *base_path;	/* PATH of our own environment */
	int		  sigfd;
	int		  ctlfd;
	int		  ctl_spare;	/* held for a client when out of fds */
	int		  notifyfd;
	int		  devnull;	/* stdin of services */
	int		  kmsgfd;	/* PID 1: the kmsg sink */
	const char	 *log_dir;
	uint64_t	  nofile_cur;	/* our RLIMIT_NOFILE as we found it */
	uint64_t	  nofile_max;
	ev_prepare	  gc_w;		/* frees removed services once down */
	ev_timer	  reap_w;	/* more zombies than one turn takes */
	ev_prepare	  turn_w;	/* a new turn: a new spawn budget */
	ev_timer	  spawn_w;	/* more spawns than one turn takes */
	struct sup_spawn  spawns[SUP_SPAWNS];
	struct cgroups	  cg;
	struct pressure	  pr;
	bool		  pgrp_signal;	/* PIDFD_SIGNAL_PROCESS_GROUP */
	ev_io		  sig_w;
	ev_io		  ctl_w;
	ev_timer	  ctl_retry_w;	/* out of fds: accept again later */
	ev_io		  notify_w;
	ev_timer	  phase_timer;
	struct sup_svc	**pidmap;	/* live service processes by PID */
	size_t		  pidmap_size;
	size_t		  pidmap_n;
	struct ctl_clients clients;
	unsigned	  nclients;
	bool		  pid1;
	enum sup_phase	  phase;
	unsigned int	  reboot_cmd;	/* PID 1: what to do at the end */
	int		  kill_stage;	/* PID 1: 0 TERM sent, 1 KILL sent */
	int		  exit_code;
};

int	sup_init(struct sup *, const char *, const char *);
int	sup_run(struct sup *);
void	sup_free(struct sup *);
void	sup_shutdown(struct sup *, unsigned int);
struct sup_svc *sup_svc_of(struct svc *);
struct sup_svc *sup_svc_new(struct sup *, struct svc_def *);
int	sup_svc_env(struct sup *, struct sup_svc *);
void	sup_svc_env_free(struct sup_svc *);
void	sup_env_free(char **);
int	sup_relink(struct sup *);
int	sup_reload(struct sup *, struct buf *);

/* ctl.c */
int	ctl_listen(struct sup *);
void	ctl_close(struct sup *);
void	ctl_svc_changed(struct sup *, struct svc *);
void	ctl_svc_line(struct sup *, struct svc *, const struct log_line *);
void	ctl_svc_removed(struct sup *, struct svc *);

/* pid1.c */
int	pid1_setup(struct sup *);
void	pid1_kill_all(int);
int	pid1_count(void);
void	pid1_finish(struct sup *);

#endif
