/* ctl.h - the control socket */
#ifndef PIDVISOR_CTL_H
#define PIDVISOR_CTL_H

#include <sys/queue.h>
#include <stdbool.h>

#include <ev.h>

#include "conf.h"
#include "svc.h"
#include "svclog.h"

struct sup;
struct pressure;
struct ctl_client;
LIST_HEAD(ctl_clients, ctl_client);

struct ctl {
	/* What it works with: sup.c's, set before ctl_listen(). */
	struct sup		*sup;	/* for sup_reload, sup_shutdown */
	struct ev_loop		*loop;
	struct svc_set		*set;
	struct pressure		*pr;
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
};

struct st_w;
struct st_r;

int	ctl_listen(struct ctl *ctl);
void	ctl_close(struct ctl *ctl);
void	ctl_svc_changed(struct ctl *ctl, struct svc *s);
void	ctl_svc_line(struct ctl *ctl, struct svc *s, const struct svclog_line *l);
void	ctl_svc_removed(struct ctl *ctl, struct svc *s);
void	ctl_reexec_end(struct ctl *ctl, int code, const char *msg);
void	ctl_reexec_drop(struct ctl *ctl);
void	ctl_reexec_undo(struct ctl *ctl);
void	ctl_state_save(struct ctl *ctl, struct st_w *w);
int	ctl_state_load(struct ctl *ctl, struct st_r *r);

#endif
