/*
 * notifysock.c - the sd_notify socket: a datagram socket any local
 * process may send to.  The kernel stamps each datagram with the
 * sender's PID (SCM_CREDENTIALS); a datagram counts only if that PID is
 * the main process of a notify service that we have not reaped, which
 * cannot be reused, so no other process can pass for it.  notify.c
 * parses; this file receives and applies.
 *
 * A datagram may carry file descriptors (SCM_RIGHTS), which we never
 * want; closing one can wait for as long as its sender likes (see
 * closer.c).  Where the kernel has SO_PASSRIGHTS the socket refuses
 * them; elsewhere they go to the closer thread, and while it is behind
 * the socket is not read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "notifysock.h"
#include "state.h"
#include "util.h"

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS	83	/* Linux 6.16, 77cbe1a6d873 */
#endif
#define SCM_MAX_FD	253	/* the most one message carries */

static void	notifysock_on_room(struct ev_loop *, ev_io *, int);
static int	notifysock_watch(struct notifysock *, int);

/*
 * Apply one sd_notify datagram from the service's main process: a new
 * main process first (what follows may be about it), the reload before
 * the READY=1 that ends it.
 */
static void
notifysock_apply(struct notifysock *ns, struct svc *s, const char *buf,
    size_t len)
{
	struct notify_msg	m;

	if (notify_parse(buf, len, &m) < 0) {
		log_debug("%s: malformed notify message", s->def->name);
		return;
	}
	if (m.err >= 0)
		s->err = m.err;
	if (m.status)
		svc_status_text(s, m.status, m.status_len);
	if (m.mainpid > 0 && ns->mainpid)
		ns->mainpid(ns->ctx, s, m.mainpid);
	if (m.reloading)
		svc_reloading(s);
	if (m.ready)
		svc_ready(s);
	if (m.watchdog)
		svc_watchdog(s);
	if (m.extend_usec)
		svc_extend(s, m.extend_usec / 1000 > UINT32_MAX ? UINT32_MAX :
		    (uint32_t)(m.extend_usec / 1000));
	if (m.watchdog_trigger)
		svc_watchdog_trigger(s);
	if (m.stopping)
		svc_stopping(s);
}

/*
 * Hand fds that came with a datagram to the closer; those it cannot
 * take yet wait, and the socket is not read until they are gone.
 */
static void
notifysock_drop_fds(struct notifysock *ns, const int *fds, size_t n)
{
	size_t	i;
	int	*p;

	for (i = 0; i < n; i++) {
		if (ns->npending == 0 && closer_give(&ns->closer, fds[i]) == 0)
			continue;
		/* Room for every fd of a message was made at open. */
		p = ns->pending;
		p[ns->npending++] = fds[i];
	}
	if (ns->npending > 0 && !ev_is_active(&ns->closer_w)) {
		ev_io_stop(ns->loop, &ns->w);
		ev_io_start(ns->loop, &ns->closer_w);
	}
}

/* The closer's pipe has room: give it what waits, then read again. */
static void
notifysock_on_room(struct ev_loop *loop, ev_io *w, int revents)
{
	struct notifysock	*ns = container_of(w, struct notifysock,
				    closer_w);
	size_t			 i = 0;

	(void)revents;
	while (i < ns->npending && closer_give(&ns->closer,
	    ns->pending[i]) == 0)
		i++;
	memmove(ns->pending, ns->pending + i, (ns->npending - i) *
	    sizeof(*ns->pending));
	ns->npending -= i;
	if (ns->npending == 0) {
		ev_io_stop(loop, &ns->closer_w);
		ev_io_start(loop, &ns->w);
		notifysock_drain(ns);
	}
}

/*
 * Read queued datagrams.  Fds passed along go to the closer.  Bounded,
 * so that a flood cannot hold the loop.
 */
void
notifysock_drain(struct notifysock *ns)
{
	char		 buf[NOTIFY_MSG_MAX + 1];
	union {
		struct cmsghdr	h;
		/* Every fd a message may carry: those that did not fit
		 * would be closed by the kernel here, in our thread. */
		char		b[CMSG_SPACE(sizeof(struct ucred)) +
				  CMSG_SPACE(sizeof(int) * SCM_MAX_FD)];
	}		 cbuf;
	struct svc	*s;
	int		 i;

	if (ns->fd < 0)
		return;
	for (i = 0; i < 1024 && ns->npending == 0; i++) {
		struct iovec	 iov = { buf, sizeof(buf) };
		struct msghdr	 mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
		};
		const struct ucred	*cred;
		int			 fds[SCM_MAX_FD];
		size_t			 nfds, extra;
		ssize_t			 n;

		n = recvmsg(ns->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC |
		    MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		cred = notify_cmsgs(&mh, fds, SCM_MAX_FD, &nfds, &extra);
		if (nfds > 0)
			notifysock_drop_fds(ns, fds, nfds);
		if (cred == NULL || (size_t)n > NOTIFY_MSG_MAX ||
		    (mh.msg_flags & MSG_TRUNC))
			continue;
		if ((s = ns->lookup(ns->ctx, cred->pid)) == NULL) {
			log_debug("notify: ignored a datagram from pid %d",
			    (int)cred->pid);
			continue;
		}
		notifysock_apply(ns, s, buf, (size_t)n);
	}
}

static void
notifysock_on_read(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	notifysock_drain(container_of(w, struct notifysock, w));
}

/*
 * Bind the socket at ns->path, mode 0666: any local process may send,
 * creds decide.  Never over a live socket or a file that is not one.
 */
int
notifysock_open(struct notifysock *ns)
{
	int	fd, one = 1;

	int	zero = 0, rc;

	ns->fd = -1;
	mkdir_parent(ns->path, 0755);
	if ((fd = unix_bind(ns->path, SOCK_DGRAM, 0666, (gid_t)-1, &ns->id)) < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		rc = -errno;
		goto fail;
	}
	/* No fds at all where the kernel can refuse them for us. */
	ns->no_rights = setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &zero,
	    sizeof(zero)) == 0;
	if ((rc = notifysock_watch(ns, fd)) < 0)
		goto fail;
	return 0;
fail:
	close(fd);
	unix_unlink(ns->path, &ns->id);
	return rc;
}

/*
 * Watch the socket fd: with SO_PASSRIGHTS refused, what services pass
 * is closed in a thread of its own.
 */
static int
notifysock_watch(struct notifysock *ns, int fd)
{
	int	rc;

	if (!ns->no_rights) {
		if ((rc = closer_start(&ns->closer)) < 0 ||
		    (ns->pending = calloc(SCM_MAX_FD, sizeof(int))) == NULL) {
			rc = rc < 0 ? rc : -ENOMEM;
			closer_stop(&ns->closer);
			return rc;
		}
		ev_io_init(&ns->closer_w, notifysock_on_room,
		    ns->closer.pipe[1], EV_WRITE);
		log_info("notify socket: no SO_PASSRIGHTS; fds passed to it "
		    "are closed in a thread of their own");
	}
	ns->fd = fd;
	ev_io_init(&ns->w, notifysock_on_read, fd, EV_READ);
	ev_io_start(ns->loop, &ns->w);
	return 0;
}

/* The socket, for the next binary (reexec.c). */
void
notifysock_state_save(struct notifysock *ns, struct st_w *w)
{
	st_fd(w, ns->fd);
	st_u64(w, (uint64_t)ns->id.dev);
	st_u64(w, (uint64_t)ns->id.ino);
	st_u8(w, ns->no_rights);
}

/* Take over the socket of the binary before us. */
int
notifysock_state_load(struct notifysock *ns, struct st_r *r)
{
	int	fd = st_get_fd(r);

	ns->fd = -1;
	ns->id.dev = (dev_t)st_get_u64(r);
	ns->id.ino = (ino_t)st_get_u64(r);
	ns->no_rights = st_get_u8(r);
	if (st_bad(r))
		return -EINVAL;
	if (fd < 0)
		return 0;
	return notifysock_watch(ns, fd);
}

/* Close the socket and remove it. */
void
notifysock_close(struct notifysock *ns)
{
	if (ns->fd < 0)
		return;
	ev_io_stop(ns->loop, &ns->w);
	if (!ns->no_rights) {
		ev_io_stop(ns->loop, &ns->closer_w);
		closer_stop(&ns->closer);
		/* What the closer never took: ours to leave open, at exit. */
		free(ns->pending);
		ns->pending = NULL;
		ns->npending = 0;
	}
	close(ns->fd);
	unix_unlink(ns->path, &ns->id);
	ns->fd = -1;
}
