/* service.h - a service as the supervisor runs it (service.c) */
#ifndef PIDVISOR_SERVICE_H
#define PIDVISOR_SERVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "hook.h"
#include "notifysock.h"
#include "output.h"
#include "pidmap.h"
#include "socks.h"
#include "spawn.h"
#include "status.h"
#include "svc.h"

struct sup;
struct svcreload;
struct st_w;
struct st_r;

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
	char			**old_envp;
	char			**envp;		/* with LISTEN_FDS: this spawn's */
};

enum { PM_MAIN, PM_RELOAD, PM_CHECK, PM_HOOK };	/* pidmap_node.kind */

/*
 * A service as the supervisor holds it: the state plus its watchers.
 * Each field with how a re-exec's state holds it (service_save,
 * service_load), as SVC_FIELDS does for struct svc: SVC (svc_save),
 * WATCH (an ev_io: its fd, if it is watched), OUT (output.c's), NSOCK
 * (notifysock.c's), NS (spawn.h's fds), FD, U64, BOOL; or SKIP, and
 * why.
 */
#define SERVICE_FIELDS(X)						\
	X(struct svc, svc, SVC)						\
	/* the pidfd's watcher: started again on svc.pidfd */		\
	X(ev_io, death, SKIP)						\
	X(ev_io, ready, WATCH)		/* the read end of the fd:N pipe */ \
	/* whatever svc.c armed: armed again from svc.deadline */	\
	X(ev_timer, timer, SKIP)					\
	/* made again from the definition in force */			\
	X(char **, envp, SKIP)		/* NULL: the supervisor's environ */ \
	X(char *, pid_slot, SKIP)	/* in envp: WATCHDOG_PID's digits */ \
	X(const char *, path, SKIP)	/* PATH searched for exec */	\
	X(char *, notify_path, SKIP)	/* NOTIFY_SOCKET */		\
	/* a re-exec waits until none is in flight */			\
	X(struct svcreload *, reload, SKIP) /* its reload_exec */	\
	X(struct hookrun *, hooks[HOOK_SLOTS], SKIP) /* its hooks */	\
	X(struct hookrun *, dying, SKIP) /* ... killed, not yet reaped */ \
	/* health checks start afresh after a re-exec (health.c) */	\
	X(ev_timer, health_w, SKIP)	/* the next check */		\
	X(uint8_t, health, SKIP)	/* enum health_state */		\
	X(uint32_t, health_fails, SKIP)	/* in a row */			\
	X(int32_t, health_status, SKIP)	/* of the last failed check */ \
	X(struct service_spawn *, spawn, SKIP) /* until it exec'd */	\
	X(struct pidmap_node, pm, SKIP)	/* made again from svc.pid */	\
	X(struct svc_out *, out, OUT)	/* NULL until it first runs */	\
	X(struct notifysock, nsock, NSOCK) /* a notify service's socket */ \
	X(struct socks *, socks, SOCKS)	/* fds held for it; NULL: none */ \
	X(int, cgfd, FD)		/* its cgroup; -1: none yet */	\
	X(struct spawn_ns, ns, NS)	/* its main's, for its hooks */	\
	X(uint64_t, oom_kills, U64)	/* its cgroup's oom_kill, last seen */ \
	X(bool, removing, BOOL)		/* gone from the configuration */ \
	X(bool, quiet, BOOL)		/* an accept instance not logged */ \
	X(bool, handed, BOOL)		/* MAINPID: maybe not our child */ \
	X(ev_io, prev, WATCH)		/* the main before MAINPID=, alive */ \
	/* MAINPID= rate and warnings: start afresh */			\
	X(pid_t, mainpid_refused, SKIP)	/* MAINPID= refused last */	\
	X(int64_t, mainpid_second, SKIP) /* this second's */		\
	X(int64_t, mainpid_warned, SKIP) /* last warned at */		\
	X(uint32_t, mainpid_count, SKIP)				\
	X(uint32_t, mainpid_quiet, SKIP) /* not warned of since */	\
	X(uint8_t, fate, SKIP)		/* confreload.c's, while it runs */ \
	X(struct svc *, fate_via, SKIP)	/* ... and why it restarts */

struct service {
	SERVICE_FIELDS(SVC_MEMBER)
};

extern const struct svc_ops service_ops;

struct service	*service_of(struct svc *s);
struct service	*service_by_pid(struct sup *sup, pid_t pid);
struct service	*service_new(struct sup *sup, struct svc_def *d);
void		 service_free(struct sup *sup, struct service *ss);
void		 service_loop_init(struct sup *sup);
int		 service_env(struct sup *sup, struct service *ss);
void		 service_env_free(struct service *ss);
int		 service_env_socks(struct sup *sup, struct service *ss,
		     struct service_spawn *sp, int *pass, int *n,
		     char **slots);
void		 service_prepare(struct sup *sup, struct service *ss);
int		 service_spawn_req(struct sup *sup, struct service *ss,
		     struct spawn_req *req);
void		 service_spawn_check(struct sup *sup,
		     struct service_spawn *sp, bool dead);
void		 service_unhold(struct sup *sup);
bool		 service_reap(struct sup *sup, struct service *ss);
bool		 service_pidfd_exited(int fd);
void		 service_prev_forget(struct sup *sup, struct service *ss);
int		 service_signal(struct svc *s, int sig);
int		 service_kill(struct sup *sup, struct service *ss, int sig,
		     bool all);
enum kill_mode	 service_kill_mode(const struct sup *sup,
		     const struct service *ss);
void		 service_kill_modes_check(struct sup *sup);
void		 service_status(struct svc *s, int64_t now,
		     struct svc_status *st);
void		 service_save(const struct service *ss, struct st_w *w);
int		 service_load(struct sup *sup, struct service *ss,
		     struct st_r *r, int64_t now_us);

#endif
