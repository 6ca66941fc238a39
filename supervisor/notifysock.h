/* notifysock.h - the sd_notify socket */
#ifndef PIDVISOR_NOTIFYSOCK_H
#define PIDVISOR_NOTIFYSOCK_H

#include <sys/types.h>

#include <ev.h>

#include "closer.h"
#include "svc.h"
#include "util.h"

struct notifysock {
	struct ev_loop	*loop;
	const char	*path;
	int		 fd;		/* -1: none */
	struct file_id	 id;		/* its file, to remove ours only */
	bool		 no_rights;	/* SO_PASSRIGHTS off: no fds come */
	struct closer	 closer;	/* else passed fds are closed there */
	int		*pending;	/* fds the closer could not take yet */
	size_t		 npending;
	ev_io		 closer_w;	/* its pipe has room again */
	ev_io		 w;
	/* The notify service whose unreaped main process is pid, or NULL. */
	struct svc	*(*lookup)(void *ctx, pid_t pid);
	/* MAINPID=pid came from the main process of s. */
	void		 (*mainpid)(void *ctx, struct svc *s, pid_t pid);
	void		*ctx;
};

struct st_w;
struct st_r;

int	notifysock_open(struct notifysock *ns);
void	notifysock_state_save(struct notifysock *ns, struct st_w *w);
int	notifysock_state_load(struct notifysock *ns, struct st_r *r);
void	notifysock_drain(struct notifysock *ns);
void	notifysock_close(struct notifysock *ns);

#endif
