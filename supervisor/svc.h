/* svc.h - the service state machine and its scheduler */
#ifndef PIDVISOR_SVC_H
#define PIDVISOR_SVC_H

#include <sys/queue.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"

/*
 * A service has a state and, apart from it, a want (up or down).
 * Commands change the want; the scheduler moves the state toward it once
 * what it depends on allows:
 *
 *   STOPPED  + want up    start when every `requires` is READY and no
 *                         `after` is still coming up
 *   STARTING/READY + down stop once every service that requires it (or
 *                         comes after it and is going down) has stopped
 *   BACKOFF  + want up    start again when the back-off timer is due
 *   BACKOFF  + down       STOPPED at once
 *   FAILED                stays until a command wants it up again
 *   DONE                  a run-once service (ready = exit) that exited 0:
 *                         it satisfies what requires it or comes after it,
 *                         wants nothing, and runs again only on a command
 *   LISTENING             wanted up, with no process: an on_demand service
 *                         until a client comes (its sockets are held, so
 *                         it satisfies what requires it); an accept
 *                         listener for ever (its instances run)
 *
 * A service counts as READY once its readiness kind says so and, with
 * settle, once it has stayed up that long since its spawn; a death before
 * is a failed start.  A READY service may be reloading (RELOADING=1, or a
 * reload asked for) until its READY=1.
 * Every transition records its reason, so status can say why.
 */
enum svc_state {
	SVC_STOPPED,
	SVC_STARTING,
	SVC_READY,
	SVC_STOPPING,
	SVC_BACKOFF,
	SVC_FAILED,
	SVC_DONE,		/* ready = exit: exited 0 */
	SVC_LISTENING,		/* on_demand: its sockets wait for a client */
	SVC__STATES
};

enum svc_why {
	WHY_NONE,		/* never started */
	WHY_WAITING,		/* dep: not ready yet */
	WHY_DEP_FAILED,		/* dep: a required service failed */
	WHY_STARTED,		/* running, readiness not reported yet */
	WHY_READY,
	WHY_EXITED,		/* code: exit status */
	WHY_KILLED,		/* code: signal */
	WHY_EXEC,		/* stage, code: errno in the child */
	WHY_SPAWN,		/* code: errno of clone3 */
	WHY_READY_TIMEOUT,
	WHY_WATCHDOG,
	WHY_START_LIMIT,
	WHY_STOPPED,		/* stopped by request */
	WHY_STOP_KILLED,	/* ... and needed SIGKILL */
	WHY_SELF_STOPPING,	/* the service sent STOPPING=1 */
	WHY_PRESSURE,		/* killed for memory pressure */
	WHY_OOM,		/* killed by the kernel's OOM killer */
	WHY_SPAWN_TIMEOUT,	/* its child did not reach exec in time */
	WHY_ENV_FILE,		/* an env_file is wrong: s->fail */
	WHY_WATCHDOG_TRIGGER,	/* the service sent WATCHDOG=trigger */
	WHY_GONE,		/* a main process not our child is gone */
	WHY_HOOK,		/* stage: its hook failed; code: status */
	WHY_IN_HOOK,		/* stage: the hook running */
	WHY_UNHEALTHY,		/* code: its last check's status */
	WHY_LISTEN,		/* code: errno binding: s->fail */
	WHY_ON_DEMAND,		/* listening until a client comes */
	WHY_NO_MEMORY,		/* killed for memory, and no room for it
				 * within pressure_calm_max */
	WHY_TRIGGER_LIMIT,	/* too many clients in trigger_limit_interval */
};

/*
 * The commands run around a service (hook.c): the first four in the
 * state machine's steps (svc.hook says which runs), the others beside.
 */
enum hook_kind {
	HOOK_NONE,
	HOOK_START_PRE,		/* before the spawn; a failure fails it */
	HOOK_START_POST,	/* after readiness, before READY */
	HOOK_STOP,		/* stop_exec, in place of stop_signal */
	HOOK_STOP_POST,		/* after the main process is gone */
	HOOK_ON_FAILURE,	/* when it enters failed */
	HOOK_RELOAD,		/* reload_exec */
	HOOK_HEALTH,		/* health_exec */
	HOOK__KINDS
};

/* Where in the child set-up a spawn failed (WHY_EXEC). */
enum spawn_stage {
	STAGE_EXEC,
	STAGE_SETSID,
	STAGE_FDS,
	STAGE_RLIMIT,
	STAGE_CHDIR,
	STAGE_SETGROUPS,
	STAGE_SETGID,
	STAGE_SETUID,
	STAGE_CGROUP,		/* joining it, where clone3 is missing */
	STAGE_OOM_SCORE_ADJ,
	STAGE_ENV_FILE,		/* s->fail says which, where, what */
	STAGE_MOUNT,		/* s->fail says which key and path */
	STAGE_NETWORK,		/* private_network's loopback */
	STAGE_LIMIT,		/* limit_* */
	STAGE_NICE,
	STAGE_AFFINITY,
	STAGE_IOPRIO,
	STAGE_ROOT,		/* root_directory */
	STAGE_BSET,		/* capabilities: the bounding set */
	STAGE_CAPS,		/* capabilities, no_new_privs */
	STAGE_SECCOMP,		/* syscall_filter */
	STAGE__COUNT
};

struct svc_reason {
	uint8_t		 why;		/* enum svc_why */
	uint8_t		 stage;		/* enum spawn_stage */
	bool		 early;		/* a death before it settled */
	int32_t		 code;
	struct svc	*dep;
};

struct svc;
struct svc_set;

/* What the state machine needs from the world; unit tests fake it. */
struct svc_ops {
	/* Start the process: 0 with a process, which goes on to exec
	 * (svc_exec() says how that went), or -errno with no process. */
	int	(*spawn)(struct svc *);
	/* No spawn can start now (NULL: always one can): services that
	 * would spawn are held until svc_set_unhold(). */
	bool	(*busy)(struct svc_set *);
	int	(*signal)(struct svc *, int);
	void	(*timer)(struct svc *, uint32_t);	/* arm, in ms */
	void	(*timer_stop)(struct svc *);
	void	(*changed)(struct svc *, enum svc_state);
	int64_t	(*now)(struct svc_set *);
	/* Work is left over (spawn_max reached): call svc_set_run() again
	 * soon, after other events had their turn. */
	void	(*defer)(struct svc_set *);
	/* A service killed for memory is due to restart: how many ms it
	 * must still wait for memory (0: none; NULL: never), and in *until
	 * the latest it will wait; -1: it waited so long, and still no. */
	int64_t	(*hold)(struct svc *, int64_t *until);
	/* Run the service's commands of one kind (NULL: none ever): 1 if
	 * it has none, 0 if they run (svc_hook_done() says how they
	 * ended), or -errno.  hook_stop: kill the ones that run; no
	 * svc_hook_done() follows. */
	int	(*hook)(struct svc *, int kind);
	void	(*hook_stop)(struct svc *);
	/* Watch its sockets for a client (on), or stop (NULL: never one):
	 * 0, or -errno (they could not be bound: s->fail says why). */
	int	(*listen)(struct svc *, bool on);
};

/*
 * The fields of a service's state, each with how a re-exec's state holds
 * it (svc_save, svc_load; st.h): U8, BOOL, I32, U32, I64, U64, STR
 * (owned), FD (a kept fd), REASON; or SKIP, and why.  struct svc is made
 * of this list and nothing else, so that no field can be added without
 * saying what a re-exec does with it (tests/unit/test_svc.c checks the
 * struct against it, and a round trip through the state).
 */
#define SVC_FIELDS(X)							\
	/* made again from the configuration, by svc_set_link() */	\
	X(struct svc_def *, def, SKIP)					\
	X(struct svc_set *, set, SKIP)					\
	X(struct svc **, reqs, SKIP)	/* what we require */		\
	X(struct svc **, afters, SKIP)	/* what we come after */	\
	X(struct svc **, req_by, SKIP)	/* what requires us */		\
	X(struct svc **, after_by, SKIP) /* what comes after us */	\
	X(char *, status_text, STR)	/* sd_notify STATUS= */		\
	X(char *, fail, STR)		/* WHY_ENV_FILE: what is wrong */ \
	X(int64_t, since, I64)		/* entered the current state */	\
	X(int64_t, started_at, I64)	/* last spawn */		\
	X(int64_t, ready_at, I64)	/* 0: not ready since spawn */	\
	X(int64_t, due_at, I64)		/* BACKOFF: restart time */	\
	X(int64_t, limit_begin, I64)					\
	X(int64_t, exited_at, I64)	/* last exit, real ms; 0: none */ \
	X(int64_t, ran_at, I64)		/* last spawn, real ms; 0: none */ \
	X(int64_t, deadline, I64)	/* the timer's, mono ms; 0: none */ \
	X(int64_t, watch_due, I64)	/* READY: the watchdog's; 0: none */ \
	X(int64_t, reload_due, I64)	/* READY: a reload's end, at most */ \
	X(uint64_t, mem_need, U64)	/* what it held when killed for	\
					 * memory (pressure.c) */	\
	X(uint64_t, mem_seen, SKIP)	/* what a kill would free, at the \
					 * killer's last look; looked at \
					 * afresh after a re-exec */	\
	X(int32_t, exit_code, I32)	/* of the last process */	\
	X(int32_t, exit_sig, I32)	/* 0: it exited */		\
	X(int32_t, err, I32)		/* sd_notify ERRNO=; 0: none */	\
	X(int, pidfd, FD)		/* -1: no process */		\
	X(pid_t, pid, I32)		/* for display only */		\
	X(uint32_t, nreqs, SKIP)	/* svc_set_link()'s */		\
	X(uint32_t, nafters, SKIP)					\
	X(uint32_t, nreq_by, SKIP)					\
	X(uint32_t, nafter_by, SKIP)					\
	X(uint32_t, restarts, U32)	/* automatic restarts */	\
	X(uint32_t, starts, U32)	/* spawns, ever */		\
	X(uint32_t, delay, U32)		/* next back-off, ms */		\
	X(uint32_t, limit_count, U32)					\
	X(uint32_t, mark, SKIP)		/* a walk's scratch */		\
	X(uint32_t, reloads, U32)	/* reloads completed */		\
	X(uint32_t, reload_fails, U32)	/* reloads that failed */	\
	X(int32_t, reload_status, I32)	/* of the last failed one */	\
	X(struct svc_reason, reason, REASON) /* why it is in its state */ \
	X(struct svc_reason, last, REASON) /* how the last process ended */ \
	X(struct svc_reason, pending, REASON) /* why we are killing it */ \
	X(uint8_t, state, U8)		/* enum svc_state */		\
	X(bool, want_up, BOOL)						\
	X(bool, restart_req, BOOL)					\
	X(bool, kill_sent, BOOL)					\
	X(bool, due, BOOL)		/* BACKOFF: delay is over */	\
	/* in the queue or held: saved as "to be stepped", and kicked */ \
	X(bool, queued, SKIP)						\
	X(bool, held, SKIP)		/* waiting for a spawn */	\
	/* spawned, exec not yet seen: a re-exec waits for none */	\
	X(bool, execing, SKIP)						\
	X(bool, mem_wait, BOOL)		/* BACKOFF: held for memory */	\
	X(bool, mem_waived, BOOL)	/* a command: do not hold */	\
	X(bool, ready_seen, BOOL)	/* STARTING: ready, settling */	\
	X(bool, reloading, BOOL)	/* READY: RELOADING=1 was sent */ \
	X(bool, reload_asked, BOOL)	/* READY: a reload is under way */ \
	X(bool, reload_ready, BOOL)	/* ... which READY=1 ends */	\
	/* a re-exec waits until no hook runs */			\
	X(uint8_t, hook, SKIP)		/* enum hook_kind, of the steps */ \
	X(bool, died_clean, SKIP)	/* STOP_POST: how the main ended */ \
	X(bool, died_stopped, SKIP)	/* ... stopped by request */	\
	/* STARTING: start_pre_exec done, its spawn waits for room */	\
	X(bool, pre_done, BOOL)						\
	X(bool, triggered, BOOL)	/* LISTENING: a client came */	\
	X(TAILQ_ENTRY(svc), q, SKIP)	/* the queue's link */

#define SVC_MEMBER(type, name, how)	type name;

struct svc {
	SVC_FIELDS(SVC_MEMBER)
};

TAILQ_HEAD(svc_queue, svc);

struct svc_set {
	const struct svc_ops	 *ops;
	void			 *ctx;
	struct svc		**v;		/* sorted by name */
	size_t			  n;
	struct svc_queue	  queue;
	struct svc_queue	  held;		/* to spawn, when not busy */
	struct svc		**stack;	/* for propagation */
	uint32_t		  round;
	uint32_t		  spawn_max;	/* per turn; 0: no bound */
	uint32_t		  spawns;	/* this turn; the owner resets */
	bool			  running;
	bool			  deferred;
};

#define SVC_STABLE_MS	10000	/* ready this long: back-off resets */
#define SVC_EXTEND_MAX	90000	/* EXTEND_TIMEOUT_USEC: at least this */

struct st_w;
struct st_r;

void		 svc_init(struct svc *s, struct svc_def *d, struct svc_set *set);
void		 svc_save(const struct svc *s, struct st_w *w);
int		 svc_load(struct svc *s, struct st_r *r);
void		 svc_release(struct svc *s);
int		 svc_set_link(struct svc_set *set);
struct svc	*svc_find(const struct svc_set *set, const char *name);
void		 svc_set_run(struct svc_set *set);
void		 svc_set_unhold(struct svc_set *set);
void		 svc_kick(struct svc *s);

void		 svc_start(struct svc *s);
void		 svc_stop(struct svc *s);
void		 svc_restart(struct svc *s);
void		 svc_set_stop_all(struct svc_set *set);
void		 svc_dependents(struct svc *s, bool running,
		     void (*cb)(struct svc *, struct svc *, void *), void *arg);

void		 svc_exec(struct svc *s, int stage, int err);
void		 svc_spawn_timeout(struct svc *s);
void		 svc_ready(struct svc *s);
void		 svc_died(struct svc *s, int code, int sig);
void		 svc_timeout(struct svc *s);
void		 svc_watchdog(struct svc *s);
void		 svc_watchdog_trigger(struct svc *s);
void		 svc_unhealthy(struct svc *s, int status);
void		 svc_extend(struct svc *s, uint32_t ms);
void		 svc_reload_asked(struct svc *s, bool until_ready);
void		 svc_reload_done(struct svc *s, int status);
void		 svc_hook_done(struct svc *s, int kind, int status);
const char	*hook_name(int kind);
void		 hook_status_format(int kind, int status, char *out, size_t n);
uint32_t	 svc_reload_limit(const struct svc *s);
void		 svc_reloading(struct svc *s);
void		 svc_stopping(struct svc *s);
void		 svc_pressure_killed(struct svc *s);
void		 svc_oom_killed(struct svc *s);
int		 svc_status_text(struct svc *s, const char *text, size_t len);

bool		 svc_has_process(const struct svc *s);
bool		 svc_is_task(const struct svc *s);
bool		 svc_satisfies(const struct svc *s);
bool		 svc_is_listener(const struct svc *s);
void		 svc_triggered(struct svc *s);
void		 svc_trigger_limit(struct svc *s);
const char	*svc_state_name(enum svc_state st);
void		 svc_reason_format(const struct svc *s, char *out, size_t n);
const char	*spawn_stage_name(enum spawn_stage st);

#endif
