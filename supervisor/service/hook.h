/* hook.h - the commands run around a service (hook.c) */
#ifndef PIDVISOR_HOOK_H
#define PIDVISOR_HOOK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "pidmap.h"
#include "spawn.h"

struct core;
struct sandbox;
struct service;

/*
 * A service runs at most one chain of each slot at a time: the steps
 * of its state machine (start_pre_exec, start_post_exec, stop_exec,
 * stop_post_exec), its on_failure_exec, and its health_exec.
 */
enum hook_slot { HOOK_SLOT_STEP, HOOK_SLOT_FAILURE, HOOK_SLOT_HEALTH,
	HOOK_SLOTS };

/* A chain of commands, run one after the other while each exits 0. */
struct hookrun {
	struct spawn_proc	 proc;
	ev_io			 io;		/* its spawn report */
	ev_io			 death;		/* its pidfd */
	ev_timer		 timer;		/* the command's time-out */
	struct pidmap_node	 pm;
	char			**cmds;		/* command lines, or NULL */
	char			**argv;		/* the one that runs */
	char			**envp;		/* the service's, and ours */
	struct sandbox		*sb;		/* what its child reads */
	struct service		*ss;
	uint32_t		 timeout;	/* ms, each; 0: none */
	uint32_t		 next;		/* in cmds */
	pid_t			 pid;		/* 0: none runs */
	uint8_t			 kind;		/* enum hook_kind */
	bool			 cancelled;	/* reaped in silence */
	bool			 timed_out;
	bool			 ignore;	/* its '-': a failure is none */
	bool			 bare;		/* the conditions' checker */
	bool			 killed;	/* by a signal (status 256+) */
	uint32_t		 ncond;		/* a start's: the commands of
						 * its conditions, first */
	int32_t			 cleanup;	/* a stop's removal, in cmds */
	bool			 rmdirs;	/* ... of its runtime_directory */
	bool			 ipc;		/* ... of its user's IPC too */
	int			 failed;	/* ... the status before it */
	struct hookrun		*dying;		/* cancelled: the next */
};

char	**hook_mainpid(char *const *argv, pid_t pid);
int	hook_start(struct core *core, struct service *ss, int kind);
void	hook_cancel(struct core *core, struct service *ss, int slot);
void	hook_reap(struct core *core, struct hookrun *hr);
bool	hook_busy(const struct service *ss);
void	hook_end_all(struct core *core, struct service *ss);

/* A reload_exec process, while it runs. */
struct hook_reload {
	struct spawn_proc	 proc;
	ev_io			 io;		/* its spawn report */
	ev_io			 death;		/* its pidfd */
	struct pidmap_node	 pm;
	char			**lines;	/* reload_exec's, as written */
	uint32_t		 next;		/* ... the one after argv's */
	bool			 ignore;	/* argv's began with '-' */
	char			**argv;		/* $MAINPID put in */
	struct sandbox		*sb;		/* what its child reads */
	struct service		*ss;		/* whose it is */
	pid_t			 pid;		/* 0: none runs */
	uint32_t		 fails;		/* svc.reload_fails at start */
	bool			 killed;	/* hook_reload_cancel() */
};

int	hook_reload_start(struct core *core, struct svc *s, char *err, size_t n);
void	hook_reload_reap(struct core *core, struct service *ss);
void	hook_reload_end(struct core *core, struct service *ss, int status);
void	hook_reload_cancel(struct service *ss);

#endif
