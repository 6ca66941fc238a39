/* notifysock.h - the sd_notify sockets: one per notify service */
#ifndef PIDVISOR_NOTIFYSOCK_H
#define PIDVISOR_NOTIFYSOCK_H

#include <sys/queue.h>
#include <sys/types.h>

#include <ev.h>

#include "spawn.h"
#include "svc.h"
#include "util.h"

struct notify_drain;
LIST_HEAD(notify_drains, notify_drain);

/* Where the sockets are, and what they tell. */
struct notifydir {
	struct ev_loop		*loop;
	const char		*path;		/* the directory */
	bool			 open;		/* made, or found safe */
	bool			 peek;		/* no SO_PASSRIGHTS: fds can come */
	struct notify_drains	 drains;	/* drainers alive */
	/* The notify service whose unreaped main process is pid, or NULL. */
	struct svc		*(*lookup)(void *ctx, pid_t pid);
	/* MAINPID=pid came from the main process of s. */
	void			 (*mainpid)(void *ctx, struct svc *s, pid_t pid);
	/* The main process of s, whose socket takes fds, stored fds (the
	 * drainer let through; refused: how many it did not) under name
	 * (FDNAME=, or NULL), which are its; or (fds NULL) removed them. */
	void			 (*fdstore)(void *ctx, struct svc *s, int *fds,
				    size_t n, const char *name, size_t len,
				    size_t refused);
	void			*ctx;
};

/* The socket of one service: PATH/NAME.sock, its user's alone. */
struct notifysock {
	struct notifydir	*dir;
	struct svc		*svc;
	int			 fd;		/* -1: none */
	struct file_id		 id;		/* its file, to remove ours only */
	uid_t			 uid;		/* whose it is */
	gid_t			 gid;
	ev_io			 w;
	ev_timer		 retry;		/* a drainer could not start */
	struct notify_drain	*drain;		/* its drainer, while alive */
	bool			 waiting;	/* for it: not read meanwhile */
	bool			 held;		/* ... for a user's drainers to
						 * go (said once) */
	bool			 fdstore;	/* its service has an fd store:
						 * its FDSTORE=1 fds are kept */
	bool			 fds_ok;	/* ... the socket open takes them */
};

struct st_w;
struct st_r;

int	notifydir_open(struct notifydir *d);
void	notifydir_close(struct notifydir *d);
bool	notifydir_busy(const struct notifydir *d);
char	*notifysock_path(const struct notifydir *d, const char *name);
void	notifysock_init(struct notifysock *ns, struct notifydir *d,
	    struct svc *s);
int	notifysock_open(struct notifysock *ns, uid_t uid, gid_t gid);
void	notifysock_drain(struct notifysock *ns);
void	notifysock_close(struct notifysock *ns);
void	notifysock_state_save(const struct notifysock *ns, struct st_w *w);
int	notifysock_state_load(struct notifysock *ns, struct st_r *r);

#endif
