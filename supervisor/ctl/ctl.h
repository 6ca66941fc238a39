/* ctl.h - the control socket */
#ifndef PIDVISOR_CTL_H
#define PIDVISOR_CTL_H

#include <sys/queue.h>
#include <stdbool.h>

#include <ev.h>

#include "conf.h"
#include "svc.h"
#include "svclog.h"
#include "util.h"

struct ctl_client;
struct svc_status;
struct metrics_own;
LIST_HEAD(ctl_clients, ctl_client);

/*
 * What the control socket asks of the supervisor: its only way in (as
 * svc_ops is the state machine's way out).  ctx is the first argument of
 * each.  Each that can fail returns 0 or -errno with why in err.
 */
struct ctl_ops {
	/* NAME@INSTANCE, made from its template; NULL with why in err. */
	struct svc	*(*instance)(void *ctx, const char *name,
			    struct buf *err);
	/* A service's status, as plain data. */
	void		 (*status)(void *ctx, struct svc *s, int64_t now,
			    struct svc_status *st);
	/* Why services run without cgroups, or NULL. */
	const char	*(*cgroup_note)(void *ctx);
	/* The units not run: "NAME\tWHY" lines, NULL-ended, or NULL. */
	char *const	*(*refused)(void *ctx);
	/* Running (not shutting down)? */
	bool		 (*running)(void *ctx);
	/* Stop everything; then exit, or (PID 1) reboot(2) with cmd. */
	void		 (*shutdown)(void *ctx, unsigned int cmd);
	/* Reload the configuration; what changed in report. */
	int		 (*reload)(void *ctx, struct buf *report);
	/* A service's own reload. */
	int		 (*svc_reload)(void *ctx, struct svc *s, char *err,
			    size_t n);
	/* Signal a service's main process, or every process of it (all:
	 * its cgroup, else its process group); -errno. */
	int		 (*send)(void *ctx, struct svc *s, int sig, bool all);
	/* Kill it as the low-memory killer would (pressure kill NAME). */
	int		 (*pressure_kill)(void *ctx, struct svc *s);
	/* The killer's report (pressure [--json]). */
	void		 (*pressure_report)(void *ctx, struct buf *b, bool json);
	/* What a service that does not say gets from us: a umask, a limit
	 * of open files (soft, hard), an oom_score_adj. */
	void		 (*inherited)(void *ctx, mode_t *umask, uint64_t *nofile,
			    uint64_t *nofile_max, int *oom_score_adj);
	/* The supervisor's part of the metrics (metrics.h). */
	void		 (*metrics)(void *ctx, struct metrics_own *m);
	/* Begin a re-exec (binary NULL: ourselves). */
	int		 (*reexec)(void *ctx, const char *binary, char *err,
			    size_t n);
};

/*
 * Something that happened, for `pidvisorctl events`: a service's change
 * of state, a pressure kill, a reload, a re-exec.
 */
enum ctl_event_kind {
	EV_STATE,		/* svc, from, to, reason, pid */
	EV_PRESSURE_KILL,	/* svc, reason (the pressure), pid, memory */
	EV_RELOAD,		/* ok, reason (a summary) */
	EV_REEXEC,		/* reason (the binary): it begins */
	EV_REEXEC_DONE,		/* ok, reason: who took over, or why not */
	EV_ELAPSE,		/* svc, reason: what its timer's elapse did */
};

struct ctl_event {
	enum ctl_event_kind	 kind;
	const struct svc	*svc;	/* or NULL */
	const char		*from, *to;
	const char		*reason;
	pid_t			 pid;	/* 0: none */
	uint64_t		 memory;
	bool			 ok;
};

struct ctl {
	/* What it works with, set before ctl_listen(). */
	const struct ctl_ops	*ops;
	void			*ctx;
	struct ev_loop		*loop;
	struct svc_set		*set;
	const struct sup_conf	*sc;	/* live: reload changes it */
	const char		*path;
	bool			 pid1;
	/* Its own. */
	int			 fd;		/* the listening socket; -1 */
	struct file_id		 id;		/* its file, to remove ours only */
	int			 spare;		/* held for a client when out
						 * of fds */
	ev_io			 w;
	ev_timer		 retry_w;	/* out of fds: accept later */
	struct ctl_clients	 clients;
	unsigned		 nclients;
	struct ctl_client	*reexec_client;	/* asked for the re-exec */
	unsigned		 nevents;	/* clients of `events` */
	uint64_t		 events_dropped; /* ... that did not read */
};

struct st_w;
struct st_r;

int	ctl_listen(struct ctl *ctl);
struct svc	*ctl_lookup(const struct ctl *ctl, const char *name);
void	ctl_close(struct ctl *ctl);
void	ctl_svc_changed(struct ctl *ctl, struct svc *s);
void	ctl_svc_line(struct ctl *ctl, struct svc *s, const struct svclog_line *l);
void	ctl_svc_removed(struct ctl *ctl, struct svc *s);
void	ctl_event(struct ctl *ctl, const struct ctl_event *e);
int	ctl_metrics(struct ctl *ctl, struct buf *b);
void	ctl_reexec_end(struct ctl *ctl, int code, const char *msg);
void	ctl_reexec_drop(struct ctl *ctl);
void	ctl_reexec_undo(struct ctl *ctl);
void	ctl_state_save(struct ctl *ctl, struct st_w *w);
int	ctl_state_load(struct ctl *ctl, struct st_r *r);

#endif
