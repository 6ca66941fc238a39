/* service.h - a service as the supervisor runs it (service.c) */
#ifndef PIDVISOR_SERVICE_H
#define PIDVISOR_SERVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "forking.h"
#include "health.h"
#include "hook.h"
#include "mainpid.h"
#include "notifysock.h"
#include "output.h"
#include "pidmap.h"
#include "socks.h"
#include "spawn.h"
#include "status.h"
#include "svc.h"
#include "timer.h"

struct core;
struct hook_reload;
struct st_w;
struct st_r;
struct sandbox;

/*
 * A loop turn does at most this many spawns, for at most this long, then
 * serves the other events (the control socket first).
 */
#define SERVICE_SPAWNS_PER_TURN	32
#define SERVICE_SPAWN_TIME		0.003

/*
 * Spawns in flight: children that have not exec'd yet.  We do not wait
 * for them, but each needs a CPU before it is a service.  In a crash
 * storm on 2 CPUs, 2 at once gave 250 restarts/s and a status p99 of
 * 10.5 ms; 1 gave 184/s and 8.2 ms: the services had the CPUs, not us.
 * So one at a time; but one that has not exec'd after SERVICE_SPAWN_SLOW
 * (stopped by its user, a binary on a hung mount) no longer holds the
 * others back, up to SERVICE_SPAWN_SLOTS in flight; after SERVICE_SPAWN_TIMEOUT
 * it is killed ("spawn timed out").
 */
#define SERVICE_SPAWNS		1
#define SERVICE_SPAWN_SLOTS		8
#define SERVICE_SPAWN_SLOW		0.05	/* s */
#define SERVICE_SPAWN_TIMEOUT	10.	/* s */

struct service;

/* A spawn in flight: the child's report pipe, and what it reads. */
struct service_spawn {
	ev_io			 io;
	ev_timer		 timer;		/* slow, then the deadline */
	bool			 slow;
	struct spawn_proc	 proc;
	struct service		*ss;		/* NULL: free */
	struct svc_def		*old_def;	/* replaced meanwhile (reload) */
	struct sandbox		*sb;		/* what its child reads */
	char			**old_envp;
	char			**old_keys;	/* what old_envp points into */
	char			**envp;		/* with LISTEN_FDS: this spawn's */
};


/*
 * A service as the supervisor holds it: the state plus its watchers.
 * A re-exec's state holds the fields SERVICE_STATE lists (service_save,
 * service_load); each other field says how the next binary makes it.
 */
struct service {
	struct svc		 svc;		/* the state machine's */
	/* the pidfd's watcher: started again on svc.pidfd */
	ev_io			 death;
	ev_io			 ready;		/* the read end of the fd:N pipe */
	/* whatever svc.c armed: armed again from svc.deadline */
	ev_timer		 timer;
	/* made again from the definition in force */
	char			**envp;		/* NULL: the supervisor's environ */
	char			*pid_slot;	/* in envp: WATCHDOG_PID's digits */
	char			**env_keys;	/* envp's keys, when they are not
						 * its def's env (service_env.c) */
	const char		*path;		/* PATH searched for exec */
	char			*notify_path;	/* NOTIFY_SOCKET */
	/* a re-exec waits until none is in flight */
	struct hook_reload	*reload;	/* its reload_exec */
	struct hookrun		*hooks[HOOK_SLOTS]; /* its hooks */
	struct hookrun		*dying;		/* ... killed, not yet reaped */
	/* health checks start afresh after a re-exec (health.c) */
	struct health		 health;
	/* ready = forking: its search (forking.c), across a re-exec too */
	struct forking		 fork;
	struct timer		 sched;		/* when it runs by itself */
	struct service_spawn	*spawn;		/* until it exec'd */
	struct pidmap_node	 pm;		/* made again from svc.pid */
	struct svc_out		*out;		/* NULL until it first runs */
	struct notifysock	 nsock;		/* a notify service's socket */
	struct socks		*socks;		/* fds held for it; NULL: none */
	int			 cgfd;		/* its cgroup; -1: none yet */
	struct spawn_ns		 ns;		/* its main's, for its hooks */
	struct sandbox		*sb;		/* made again at its next spawn */
	uint64_t		 oom_kills;	/* its cgroup's oom_kill, last seen */
	bool			 removing;	/* gone from the configuration */
	bool			 quiet;		/* an accept instance not logged */
	bool			 handed;	/* MAINPID: maybe not our child */
	ev_io			 prev;		/* the main before MAINPID=, alive */
	/* MAINPID= rate and warnings: start afresh */
	struct mainpid		 mainpid;
	uint8_t			 fate;		/* confreload.c's, while it runs */
	struct svc		*fate_via;	/* ... and why it restarts */
};

/*
 * What a re-exec's state holds of struct service, in the order version
 * 6 wrote it: the field, how (SVC: svc_save; WATCH: an ev_io's fd, if it
 * is watched; OUT: output.c's; NSOCK: notifysock.c's; SOCKS: socks.c's;
 * NS: spawn.h's fds; FD, U64, BOOL) and the version that first wrote it.
 */
#define SERVICE_STATE(X)						\
	X(svc, SVC, 6)	X(ready, WATCH, 6) X(out, OUT, 6)		\
	X(nsock, NSOCK, 6) X(socks, SOCKS, 6) X(cgfd, FD, 6)		\
	X(ns, NS, 8)	X(oom_kills, U64, 6) X(removing, BOOL, 6)	\
	X(quiet, BOOL, 8) X(handed, BOOL, 6) X(prev, WATCH, 6)		\
	X(fork, FORK, 9)	X(sched, TIMER, 10)

/* ... and what it does not, each made again as its field says. */
#define SERVICE_SKIPPED(X)						\
	X(death) X(timer) X(envp) X(pid_slot) X(env_keys) X(path)	\
	X(notify_path) X(reload) X(hooks) X(dying) X(health) X(spawn)	\
	X(pm)								\
	X(mainpid) X(fate) X(fate_via) X(sb)

extern const struct svc_ops service_ops;

struct service	*service_of(struct svc *s);
struct core	*service_core(struct svc *s);
struct service	*service_by_pid(struct core *core, pid_t pid);
struct service	*service_new(struct core *core, struct svc_def *d);
void		 service_free(struct core *core, struct service *ss);
void		 service_loop_init(struct core *core);
int		 service_env(struct core *core, struct service *ss);
void		 service_env_free(struct service *ss);
void		 service_sandbox_drop(struct service *ss);
int		 service_env_socks(struct core *core, struct service *ss,
		     struct service_spawn *sp, int *pass, int *n,
		     char **slots);
void		 service_prepare(struct core *core, struct service *ss);
int		 service_spawn_req(struct core *core, struct service *ss,
		     struct spawn_req *req);
void		 service_spawn_check(struct core *core,
		     struct service_spawn *sp, bool dead);
void		 service_unhold(struct core *core);
void		 service_died(struct core *core, struct service *ss, int code,
		     int sig);
bool		 service_reap(struct core *core, struct service *ss);
void		 service_prev_forget(struct core *core, struct service *ss);
int		 service_signal(struct svc *s, int sig);
int		 service_send_signal(struct core *core, struct service *ss,
		     int sig);
struct svc	*service_mainpid_lookup(void *ctx, pid_t pid);
void		 service_mainpid_set(void *ctx, struct svc *s, pid_t pid);
int		 service_kill(struct core *core, struct service *ss, int sig,
		     bool all);
enum kill_mode	 service_kill_mode(const struct core *core,
		     const struct service *ss);
void		 service_kill_modes_check(struct core *core);
void		 service_status(struct svc *s, int64_t now,
		     struct svc_status *st);
void		 service_save(const struct service *ss, struct st_w *w);
int		 service_load(struct core *core, struct service *ss,
		     struct st_r *r, int64_t now_us);

#endif
