/* notifysock.h - the sd_notify socket */
#ifndef PIDVISOR_NOTIFYSOCK_H
#define PIDVISOR_NOTIFYSOCK_H

#include <sys/types.h>

#include <ev.h>

#include "svc.h"
#include "util.h"

struct notifysock {
	struct ev_loop	*loop;
	const char	*path;
	int		 fd;		/* -1: none */
	struct file_id	 id;		/* its file, to remove ours only */
	ev_io		 w;
	/* The notify service whose unreaped main process is pid, or NULL. */
	struct svc	*(*lookup)(void *ctx, pid_t pid);
	void		*ctx;
};

int	notifysock_open(struct notifysock *ns);
void	notifysock_drain(struct notifysock *ns);
void	notifysock_close(struct notifysock *ns);

#endif
