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
	SVC_SKIPPED,		/* a condition did not hold (systemd's
				 * inactive, its job done) */
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
	WHY_PID_FILE,		/* ready = forking: no daemon found: s->fail */
	WHY_CONDITION,		/* stage 0: the checker's code (cond.h);
				 * 1: condition_exec's exit status */
	WHY_ASSERT,		/* code: the checker's (cond.h) */
	WHY__COUNT		/* new reasons go above: the re-exec state
				 * has them by number */
};

/*
 * The commands run around a service (hook.c): the first four in the
 * state machine's steps (svc.hook says which runs), the others beside.
 */
/*
 * A start's conditions that did not hold, as a hook's status tells it
 * (hook.c): the checker's exit status, or a condition_exec's (1-254).
 */
#define HOOK_ST_CHECKER		0x10000
#define HOOK_ST_CONDITION	0x20000

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
	STAGE_TTY,		/* tty */
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
 * A service as the state machine sees it.  A re-exec's state holds the
 * fields SVC_STATE lists (svc_save, svc_load); each other field says
 * how the next binary makes it again.  tests/unit/test_svc.c checks that
 * every field is one or the other, and a round trip through the state.
 */
struct svc {
	/* made again from the configuration, by svc_set_link() */
	struct svc_def		*def;
	struct svc_set		*set;
	struct svc		**reqs;		/* what we require */
	struct svc		**afters;	/* what we come after */
	struct svc		**req_by;	/* what requires us */
	struct svc		**after_by;	/* what comes after us */
	char			*status_text;	/* sd_notify STATUS= */
	char			*fail;		/* WHY_ENV_FILE: what is wrong */
	int64_t			 since;		/* entered the current state */
	int64_t			 started_at;	/* last spawn */
	int64_t			 ready_at;	/* 0: not ready since spawn */
	int64_t			 due_at;	/* BACKOFF: restart time */
	int64_t			 limit_begin;
	int64_t			 exited_at;	/* last exit, real ms; 0: none */
	int64_t			 ran_at;	/* last spawn, real ms; 0: none */
	int64_t			 deadline;	/* the timer's, mono ms; 0: none */
	int64_t			 watch_due;	/* READY: the watchdog's; 0: none */
	int64_t			 reload_due;	/* READY: a reload's end, at most */
	uint64_t		 mem_need;	/* what it held when killed for
						 * memory (pressure.c) */
	uint64_t		 mem_seen;	/* what a kill would free, at the
						 * killer's last look; looked at
						 * afresh after a re-exec */
	int32_t			 exit_code;	/* of the last process */
	int32_t			 exit_sig;	/* 0: it exited */
	int32_t			 err;		/* sd_notify ERRNO=; 0: none */
	int			 pidfd;		/* -1: no process */
	pid_t			 pid;		/* for display only */
	uint32_t		 nreqs;		/* svc_set_link()'s */
	uint32_t		 nafters;
	uint32_t		 nreq_by;
	uint32_t		 nafter_by;
	uint32_t		 restarts;	/* automatic restarts */
	uint32_t		 starts;	/* spawns, ever */
	uint32_t		 delay;		/* next back-off, ms */
	uint32_t		 limit_count;
	uint32_t		 mark;		/* a walk's scratch */
	uint32_t		 reloads;	/* reloads completed */
	uint32_t		 reload_fails;	/* reloads that failed */
	int32_t			 reload_status;	/* of the last failed one */
	struct svc_reason	 reason;	/* why it is in its state */
	struct svc_reason	 last;		/* how the last process ended */
	struct svc_reason	 pending;	/* why we are killing it */
	uint8_t			 state;		/* enum svc_state */
	bool			 want_up;
	bool			 restart_req;
	bool			 kill_sent;
	bool			 due;		/* BACKOFF: delay is over */
	/* in the queue or held: saved as "to be stepped", and kicked */
	bool			 queued;
	bool			 held;		/* waiting for a spawn */
	/* spawned, exec not yet seen: a re-exec waits for none */
	bool			 execing;
	bool			 mem_wait;	/* BACKOFF: held for memory */
	bool			 mem_waived;	/* a command: do not hold */
	bool			 ready_seen;	/* STARTING: ready, settling */
	bool			 reloading;	/* READY: RELOADING=1 was sent */
	bool			 reload_asked;	/* READY: a reload is under way */
	bool			 reload_ready;	/* ... which READY=1 ends */
	/* a re-exec waits until no hook runs */
	uint8_t			 hook;		/* enum hook_kind, of the steps */
	bool			 died_clean;	/* STOP_POST: how the main ended */
	bool			 died_stopped;	/* ... stopped by request */
	/* STARTING: start_pre_exec done, its spawn waits for room */
	bool			 pre_done;
	bool			 triggered;	/* LISTENING: a client came */
	bool			 paused;	/* timed: a command stopped it */
	TAILQ_ENTRY(svc)	 q;		/* the queue's link */
#ifdef PV_TEST_FIELD
	/* A release one ahead (tests/host/test_reexec.sh): a field added
	 * (42 unless the state says), reloads no longer kept. */
	uint32_t		 test_field;
#endif
};

/*
 * What a re-exec's state holds of struct svc, in the order version 6
 * wrote it: the field, how (U8, BOOL, I32, U32, I64, U64, STR (owned),
 * FD (a kept fd), REASON) and the version that first wrote it.
 */
#define SVC_STATE(X)							\
	X(status_text, STR, 6)	X(fail, STR, 6)	X(since, I64, 6)	\
	X(started_at, I64, 6)	X(ready_at, I64, 6) X(due_at, I64, 6)	\
	X(limit_begin, I64, 6)	X(exited_at, I64, 6) X(ran_at, I64, 6)	\
	X(deadline, I64, 6)	X(watch_due, I64, 6)			\
	X(reload_due, I64, 6)	X(mem_need, U64, 6)			\
	X(exit_code, I32, 6)	X(exit_sig, I32, 6) X(err, I32, 6)	\
	X(pidfd, FD, 6)		X(pid, I32, 6)	X(restarts, U32, 6)	\
	X(starts, U32, 6)	X(delay, U32, 6) X(limit_count, U32, 6)	\
	SVC_RELOADS(X)		X(reload_fails, U32, 6)			\
	X(reload_status, I32, 6) X(reason, REASON, 6)			\
	X(last, REASON, 6)	X(pending, REASON, 6) X(state, U8, 6)	\
	X(want_up, BOOL, 6)	X(restart_req, BOOL, 6)			\
	X(kill_sent, BOOL, 6)	X(due, BOOL, 6)	X(mem_wait, BOOL, 6)	\
	X(mem_waived, BOOL, 6)	X(ready_seen, BOOL, 6)			\
	X(reloading, BOOL, 6)	X(reload_asked, BOOL, 6)		\
	X(reload_ready, BOOL, 6) X(pre_done, BOOL, 6)			\
	X(triggered, BOOL, 6) X(paused, BOOL, 10) SVC_STATE_TEST(X)

#ifdef PV_TEST_FIELD
#define SVC_STATE_TEST(X)	X(test_field, U32, STATE_VERSION)
#define SVC_RELOADS(X)
#define SVC_SKIPPED_TEST(X)	X(reloads)
#else
#define SVC_STATE_TEST(X)
#define SVC_RELOADS(X)		X(reloads, U32, 6)
#define SVC_SKIPPED_TEST(X)
#endif

/* ... and what it does not, each made again as its field says. */
#define SVC_SKIPPED(X)							\
	X(def) X(set) X(reqs) X(afters) X(req_by) X(after_by)		\
	X(mem_seen) X(nreqs) X(nafters) X(nreq_by) X(nafter_by) X(mark)	\
	X(queued) X(held) X(execing) X(hook) X(died_clean)		\
	X(died_stopped) X(q) SVC_SKIPPED_TEST(X)

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
	uint32_t	 batch;		/* svc_set_batch() depth */
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
void		 svc_set_batch(struct svc_set *set, bool on);
void		 svc_set_unhold(struct svc_set *set);
void		 svc_kick(struct svc *s);

void		 svc_start(struct svc *s);
void		 svc_stop(struct svc *s);
void		 svc_restart(struct svc *s);
void		 svc_reset_failed(struct svc *s);
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
bool		 svc_timed(const struct svc *s);
bool		 svc_starts_at_once(const struct svc *s);
bool		 svc_timer_ok(const struct svc *s);
int		 svc_trigger(struct svc *s);
void		 svc_triggered(struct svc *s);
void		 svc_trigger_limit(struct svc *s);
const char	*svc_state_name(enum svc_state st);
void		 svc_reason_format(const struct svc *s, char *out, size_t n);
const char	*spawn_stage_name(enum spawn_stage st);

#endif
