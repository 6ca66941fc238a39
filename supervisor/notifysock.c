/*
 * notifysock.c - the sd_notify socket: a datagram socket any local
 * process may send to.  The kernel stamps each datagram with the
 * sender's PID (SCM_CREDENTIALS); a datagram counts only if that PID is
 * the main process of a notify service that we have not reaped, which
 * cannot be reused, so no other process can pass for it.  notify.c
 * parses; this file receives and applies.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "notifysock.h"
#include "util.h"

/* Apply one sd_notify datagram from the service's main process. */
static void
notifysock_apply(struct svc *s, const char *buf, size_t len)
{
	struct notify_msg	m;

	if (notify_parse(buf, len, &m) < 0) {
		log_debug("%s: malformed notify message", s->def->name);
		return;
	}
	if (m.status)
		svc_status_text(s, m.status, m.status_len);
	if (m.ready)
		svc_ready(s);
	if (m.watchdog)
		svc_watchdog(s);
	if (m.watchdog_trigger && s->state == SVC_READY)
		svc_timeout(s);
	if (m.stopping)
		svc_stopping(s);
}

/*
 * Read queued datagrams.  Any fds passed along are closed.  Bounded, so
 * that a flood cannot hold the loop.
 */
void
notifysock_drain(struct notifysock *ns)
{
	char		 buf[NOTIFY_MSG_MAX + 1];
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(struct ucred)) +
				  CMSG_SPACE(sizeof(int) * 32)];
	}		 cbuf;
	struct svc	*s;
	int		 i;

	if (ns->fd < 0)
		return;
	for (i = 0; i < 1024; i++) {
		struct iovec	 iov = { buf, sizeof(buf) };
		struct msghdr	 mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
		};
		struct ucred	*cred = NULL;
		struct cmsghdr	*c;
		ssize_t		 n;

		n = recvmsg(ns->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC |
		    MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET)
				continue;
			if (c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len == CMSG_LEN(sizeof(*cred))) {
				cred = (struct ucred *)(void *)CMSG_DATA(c);
			} else if (c->cmsg_type == SCM_RIGHTS) {
				int	*fds = (int *)(void *)CMSG_DATA(c);
				size_t	 k, nfd = (c->cmsg_len -
				    CMSG_LEN(0)) / sizeof(int);

				for (k = 0; k < nfd; k++)
					close(fds[k]);
			}
		}
		if (cred == NULL || (size_t)n > NOTIFY_MSG_MAX ||
		    (mh.msg_flags & MSG_TRUNC))
			continue;
		if ((s = ns->lookup(ns->ctx, cred->pid)) == NULL) {
			log_debug("notify: ignored a datagram from pid %d",
			    (int)cred->pid);
			continue;
		}
		notifysock_apply(s, buf, (size_t)n);
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

	ns->fd = -1;
	mkdir_parent(ns->path, 0755);
	if ((fd = unix_bind(ns->path, SOCK_DGRAM, 0666, &ns->id)) < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		int	err = errno;

		close(fd);
		unix_unlink(ns->path, &ns->id);
		return -err;
	}
	ns->fd = fd;
	ev_io_init(&ns->w, notifysock_on_read, fd, EV_READ);
	ev_io_start(ns->loop, &ns->w);
	return 0;
}

/* Close the socket and remove it. */
void
notifysock_close(struct notifysock *ns)
{
	if (ns->fd < 0)
		return;
	ev_io_stop(ns->loop, &ns->w);
	close(ns->fd);
	unix_unlink(ns->path, &ns->id);
	ns->fd = -1;
}
