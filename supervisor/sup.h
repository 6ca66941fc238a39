/* sup.h - the supervisor: one libev loop around the service state machine */
#ifndef PIDVISOR_SUP_H
#define PIDVISOR_SUP_H

#include <sys/queue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "conf.h"
#include "ctl.h"
#include "notifysock.h"
#include "output.h"
#include "pid1.h"
#include "pidmap.h"
#include "pressure.h"
#include "spawn.h"
#include "state.h"
#include "status.h"
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
 * So one at a time; but one that has not exec'd after SUP_SPAWN_SLOW
 * (stopped by its user, a binary on a hung mount) no longer holds the
 * others back, up to SUP_SPAWN_SLOTS in flight; after SUP_SPAWN_TIMEOUT
 * it is killed ("spawn timed out").
 */
#define SUP_SPAWNS		1
#define SUP_SPAWN_SLOTS		8
#define SUP_SPAWN_SLOW		0.05	/* s */
#define SUP_SPAWN_TIMEOUT	10.	/* s */

struct sup_svc;

/* A spawn in flight: the child's report pipe, and what it reads. */
struct sup_spawn {
	ev_io			 io;
	ev_timer		 timer;		/* slow, then the deadline */
	bool			 slow;
	struct spawn_proc	 proc;
	struct sup_svc		*ss;		/* NULL: free */
	struct svc_def		*old_def;	/* replaced meanwhile (reload) */
	char			**old_envp;
};

/* A reload_exec process, while it runs (sup.c). */
struct sup_reload {
	struct spawn_proc	 proc;
	ev_io			 io;		/* its spawn report */
	ev_io			 death;		/* its pidfd */
	struct pidmap_node	 pm;
	char			**argv;		/* $MAINPID put in */
	struct sup_svc		*ss;		/* whose it is */
	pid_t			 pid;
};

enum { PM_MAIN, PM_RELOAD, PM_CHECK };	/* pidmap_node.kind */

/* A re-exec under way (reexec.c). */
enum { RX_IDLE, RX_CHECK, RX_QUIESCE };

struct sup_rx {
	uint8_t			 phase;
	char			*binary;	/* what we will exec, as asked */
	int			 binfd;		/* ... opened once (O_PATH); -1 */
	char			*argv[3];	/* its check's */
	struct spawn_proc	 proc;		/* its check: --state-versions */
	ev_io			 death;		/* the check's pidfd */
	ev_timer		 timer;		/* the check's deadline, then
						 * the quiesce's */
	ev_prepare		 turn;		/* quiescing: nothing in flight? */
	struct pidmap_node	 pm;
	int			 outfd;		/* what the check prints */
	int			 wfd;		/* the check's end of it */
	int64_t			 t0_us;		/* asked at, mono */
	int64_t			 t_check_us;	/* the check was over */
};

/* A state to take over (main.c's --restore; reexec.c). */
struct sup_restore {
	int		 fd;		/* the state's memfd */
	int		 prev;		/* the binary before us; -1 */
	const char	*fallback;	/* we are it, back again: why */
	void		*map;
	size_t		 len;
	struct st_r	 r;
	char		*confdir;	/* the sup's from then on */
	char		*prev_version;
	char		*binary;
	char		*cg_base;
	char		*cg_why;
	uint64_t	 nofile_cur;
	uint64_t	 nofile_max;
	int64_t		 t0_us;		/* the binary before: asked at */
	int64_t		 t_check_us;	/* ... checked at */
	int64_t		 t_write_us;	/* ... wrote the state at */
};

/* A service as the supervisor holds it: the state plus its watchers. */
struct sup_svc {
	struct svc	  svc;
	ev_io		  death;	/* the pidfd: readable once it exits */
	ev_io		  ready;	/* the read end of the fd:N pipe */
	ev_timer	  timer;	/* whatever svc.c armed */
	char		**envp;		/* NULL: the supervisor's environ */
	char		 *pid_slot;	/* in envp: WATCHDOG_PID's digits */
	struct sup_reload *reload;	/* its reload_exec, while it runs */
	const char	 *path;		/* PATH searched for exec */
	struct pidmap_node pm;		/* in the PID map while it runs */
	struct svc_out	 *out;		/* NULL until it first runs */
	struct sup_spawn *spawn;	/* until its child has exec'd */
	struct notifysock nsock;	/* a notify service's socket */
	char		 *notify_path;	/* ... its path, NOTIFY_SOCKET */
	int		  cgfd;		/* its cgroup; -1: none yet */
	uint64_t	  oom_kills;	/* its cgroup's oom_kill, last seen */
	uint64_t	  mem_need;	/* what it held when killed for memory */
	bool		  removing;	/* gone from the configuration */
	bool		  handed;	/* MAINPID: maybe not our child */
	ev_io		  prev;		/* the main before MAINPID=, alive */
	pid_t		  mainpid_refused; /* MAINPID= refused last */
	int64_t		  mainpid_second; /* MAINPID= rate: this second's */
	int64_t		  mainpid_warned; /* ... last warned at */
	uint32_t	  mainpid_count;
	uint32_t	  mainpid_quiet;	/* not warned of since */
	uint8_t		  fate;		/* reload.c: what happens to it */
};

enum sup_phase {
	SUP_RUNNING,
	SUP_STOPPING,		/* services stopping before exit/reboot */
	SUP_DONE,		/* all stopped: exit, or PID 1's end (pid1.c) */
};

struct sup {
	struct ev_loop	 *loop;
	struct conf	  conf;
	struct svc_set	  set;
	const char	 *confdir;
	const char	 *sock;		/* -s, or NULL */
	char		 *notify_path;	/* the directory of the sockets */
	const char	 *base_path;	/* PATH of our own environment */
	int		  sigfd;
	struct notifydir  notify;	/* sd_notify (notifysock.c) */
	struct ctl	  ctl;		/* the control socket (ctl.c) */
	char		 *ctl_path;
	int		  devnull;	/* stdin of services */
	struct output	  output;	/* what services print (output.c) */
	uint64_t	  nofile_cur;	/* our RLIMIT_NOFILE as we found it */
	uint64_t	  nofile_max;
	ev_prepare	  gc_w;		/* frees removed services once down */
	ev_timer	  reap_w;	/* more zombies than one turn takes */
	ev_prepare	  turn_w;	/* a new turn: a new spawn budget */
	ev_timer	  spawn_w;	/* more spawns than one turn takes */
	struct sup_spawn  spawns[SUP_SPAWN_SLOTS];
	struct cgroups	  cg;
	struct pressure	  pr;
	bool		  pgrp_signal;	/* PIDFD_SIGNAL_PROCESS_GROUP */
	ev_io		  sig_w;
	struct pidmap	  pids;		/* live service processes by PID */
	char		**base_env;	/* ours, less our NOTIFY_SOCKET */
	bool		  pid1;
	bool		  container;	/* PID 1 of a container: exits */
	enum sup_phase	  phase;
	struct pid1	  p1;		/* PID 1's end (pid1.c) */
	int		  exit_code;	/* see sup_check_stopped() */
	bool		  exit_set;	/* by an essential service */
	ev_timer	  end_w;	/* an essential service ended */
	ev_timer	  shutdown_w;	/* shutdown_timeout, then SIGKILL's */
	bool		  shutdown_kill; /* ... SIGKILL sent: go on next */
	int		  log_level;	/* -q, -v: where pidvisor.ini says none */
	struct sup_rx	  rx;		/* a re-exec (reexec.c) */
	char		 *argv0;	/* ours: the new binary's too */
	char		 *confdir_own;	/* confdir, from a state */
};

int	sup_init(struct sup *sup, const char *confdir, const char *sock,
	    struct sup_restore *rs);
int	sup_run(struct sup *sup);
void	sup_free(struct sup *sup);
void	sup_shutdown(struct sup *sup, unsigned int cmd);
struct sup_svc *sup_svc_of(struct svc *s);
struct sup_svc *sup_svc_new(struct sup *sup, struct svc_def *d);
int	sup_svc_env(struct sup *sup, struct sup_svc *ss);
void	sup_svc_env_free(struct sup_svc *ss);
int	sup_relink(struct sup *sup);
int	sup_reload(struct sup *sup, struct buf *report);
int	sup_svc_reload(struct sup *sup, struct svc *s, char *err, size_t n);
struct svc *sup_instance(struct sup *sup, const char *name, struct buf *err);
bool	sup_running(const struct sup *sup);
const char *sup_cgroup_note(const struct sup *sup);
void	sup_kill_modes_check(struct sup *sup);
int	sup_exit_status(const struct svc *s);
void	sup_svc_status(struct svc *s, int64_t now, struct svc_status *st);
void	sup_resume(struct sup *sup);
void	sup_signal_set(sigset_t *set);

/* reexec.c */
void	sup_reexec_init(struct sup *sup);
void	sup_reexec_fini(struct sup *sup);
int	sup_reexec(struct sup *sup, const char *binary, char *err, size_t n);
void	sup_reexec_signal(struct sup *sup);
bool	sup_reexec_holds(const struct sup *sup);
void	sup_reexec_reaped(struct sup *sup);
int	reexec_open(struct sup_restore *rs, int fd, int prev,
	    const char *fallback, char *argv0);
int	reexec_load_conf(struct sup *sup, struct sup_restore *rs);
int	reexec_load_rest(struct sup *sup, struct sup_restore *rs);
void	reexec_finish(struct sup *sup, struct sup_restore *rs);
void	reexec_fail(struct sup_restore *rs, const char *why)
	    __attribute__((noreturn));
int	reexec_versions(void);
void	reexec_crash_setup(void);

#define SUP_SIGREEXEC	(SIGRTMIN + 1)	/* pidvisor.8 */



#endif
