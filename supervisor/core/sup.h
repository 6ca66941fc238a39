/* sup.h - the supervisor: one libev loop around the service state machine */
#ifndef PIDVISOR_SUP_H
#define PIDVISOR_SUP_H

/* The PATH of services when we have none. */
#define PATH_DEFAULT	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:" \
			"/sbin:/bin"

#include <sys/queue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "conf.h"
#include "core.h"
#include "ctl.h"
#include "httpd.h"
#include "notifysock.h"
#include "output.h"
#include "pid1.h"
#include "pidmap.h"
#include "pressure.h"
#include "service.h"
#include "spawn.h"
#include "st.h"
#include "status.h"
#include "svc.h"
#include "svclog.h"
#include "unitwatch.h"

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
	int64_t		 start_real;	/* timers count from (core.h) */
	int64_t		 start_mono;
	uint64_t	 nofile_max;
	int64_t		 t0_us;		/* the binary before: asked at */
	int64_t		 t_check_us;	/* ... checked at */
	int64_t		 t_write_us;	/* ... wrote the state at */
};

enum sup_phase {
	SUP_RUNNING,
	SUP_STOPPING,		/* services stopping before exit/reboot */
	SUP_DONE,		/* all stopped: exit, or PID 1's end (pid1.c) */
};

struct sup {
	struct core	  core;		/* the service layer's (first: a
					 * struct sup is its struct core) */
	struct conf	  conf;
	struct svc_set	  set;
	const char	 *confdir;
	const char	 *sock;		/* -s, or NULL */
	char		 *notify_path;	/* the directory of the sockets */
	int		  sigfd;
	struct notifydir  notify;	/* sd_notify (notifysock.c) */
	struct ctl	  ctl;		/* the control socket (ctl.c) */
	char		 *ctl_path;
	struct output	  output;	/* what services print (output.c) */
	ev_timer	  reap_w;	/* more zombies than one turn takes */
	struct service_spawn  spawn_slots[SERVICE_SPAWN_SLOTS];
	struct cgroups	  cg;
	struct pressure	  pr;
	ev_io		  sig_w;
	struct pidmap	  pids;		/* live service processes by PID */
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
	struct httpd	  httpd;	/* metrics_listen (httpd.c) */
	struct unitwatch  uw;		/* watch_units (unitwatch.c) */
	int64_t		  start_ms;	/* our process's start, real */
};

extern const struct ctl_ops	 sup_ctl_ops;	/* sup_ops.c */
extern const struct pressure_ops sup_pressure_ops;

int	sup_init(struct sup *sup, const char *confdir, const char *sock,
	    struct sup_restore *rs);
int	sup_run(struct sup *sup);
void	sup_free(struct sup *sup);
void	sup_shutdown(struct sup *sup, unsigned int cmd);
void	sup_changed(struct sup *sup, struct svc *s, enum svc_state from);
int	sup_relink(struct sup *sup);
int	confreload(struct sup *sup, struct buf *report);
void	confreload_units(void *ctx);
struct svc *sup_instance(struct sup *sup, const char *name, struct buf *err,
	    bool quiet);
bool	sup_running(const struct sup *sup);
const char *sup_cgroup_note(const struct sup *sup);
int	sup_exit_status(const struct svc *s);
void	sup_log_apply(struct sup *sup);
int	sup_metrics_apply(struct sup *sup, const char *spec, char *err,
	    size_t n);
void	sup_signal_set(sigset_t *set);

/* reexec.c */
void	sup_reexec_init(struct sup *sup);
void	sup_reexec_fini(struct sup *sup);
int	sup_reexec(struct sup *sup, const char *binary, char *err, size_t n);
void	sup_reexec_signal(struct sup *sup);
void	sup_reexec_reaped(struct sup *sup);
int	reexec_open(struct sup_restore *rs, int fd, int prev,
	    const char *fallback, char *argv0);

/* snapshot.c */
void	snapshot_write(struct sup *sup, struct st_w *w);
int	snapshot_load_conf(struct sup *sup, struct sup_restore *rs);
int	snapshot_load_rest(struct sup *sup, struct sup_restore *rs);
void	reexec_finish(struct sup *sup, struct sup_restore *rs);
void	reexec_fail(struct sup_restore *rs, const char *why)
	    __attribute__((noreturn));
int	reexec_versions(void);
void	reexec_crash_setup(void);

#define SUP_SIGREEXEC	(SIGRTMIN + 1)	/* pidvisor.8 */



#endif
