/* status.h - a service's status as plain data, and its two formats */
#ifndef PIDVISOR_STATUS_H
#define PIDVISOR_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "svc.h"
#include "svclog.h"
#include "util.h"

/* Why an elapse started nothing (pidvisor_timer_skipped_total). */
enum timer_skip {
	SKIP_RUNNING,		/* the run before still runs */
	SKIP_STOPPED,		/* a command stopped the service */
	SKIP__COUNT
};

extern const char *const timer_skip_names[SKIP__COUNT];

/* A timer as status, timers and metrics show it. */
struct timer_status {
	bool		 timed;		/* it has a timer */
	bool		 armed;
	bool		 deferred;	/* held for memory pressure */
	int64_t		 next_real;	/* us; 0: none */
	int64_t		 last_real;	/* us; 0: never */
	uint64_t	 triggers;
	uint64_t	 skipped[SKIP__COUNT];
};

/* One service, as `status` shows it: filled by service_status(). */
struct svc_status {
	const char		*name;
	enum svc_state		 state;
	bool			 refused;	/* a unit not run: no state */
	pid_t			 pid;		/* 0: no process */
	int64_t			 uptime_ms;	/* with a process */
	uint32_t		 restarts;
	uint32_t		 starts;	/* spawns, ever */
	int64_t			 ready_ms;	/* last spawn to ready; -1: not */
	char			 reason[256];
	const char		*status_text;	/* STATUS=, or NULL */
	bool			 have_memory;	/* it has a cgroup */
	uint64_t		 memory;	/* memory.current, bytes */
	uint64_t		 oom;		/* memory.events */
	uint64_t		 oom_kill;
	const struct svclog_ring	*ring;		/* its lines, or NULL */
	uint8_t			 kill_mode;	/* enum kill_mode, as set */
	uint8_t			 kill_mode_real; /* as this system does it */
	bool			 kill_mode_given; /* its file says it */
	char			 cgroup_keys[64]; /* given, needing a cgroup */
	bool			 essential;
	uint64_t		 log_dropped;	/* lines no sink took */
	int64_t			 exited_at_ms;	/* last exit, real; 0: none */
	bool			 reason_has_exit; /* the reason says it */
	int32_t			 exit_code;	/* of the last process */
	int32_t			 exit_sig;	/* 0: it exited */
	int64_t			 ran_at_ms;	/* last spawn, real; 0: none */
	int64_t			 ready_at_ms;	/* ready, or done, real; 0: not */
	int32_t			 err;		/* sd_notify ERRNO=; 0: none */
	bool			 reloading;	/* RELOADING=1 until READY=1 */
	const char		*health;	/* its checks say; NULL, "": none */
	struct timer_status	 timer;		/* when it runs by itself */
};

int	status_width(const struct svc_status *v, size_t n);
void	status_text_header(struct buf *b, int width);
void	status_text(struct buf *b, const struct svc_status *st, int width);
void	status_json(struct buf *b, const struct svc_status *st);

#endif
