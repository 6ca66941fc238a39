/*
 * notifysock.c - the sd_notify sockets, one per notify service.
 *
 * A notify service has a datagram socket of its own, DIR/NAME.sock, mode
 * 0600 and owned by the service's user: only that user, and root, may
 * send to it.  A service run as root (without an fd store) gets mode
 * 0666, as systemd's socket is: its daemon may drop its privileges before
 * it says READY=1 (dbus-daemon, unbound).  The kernel stamps each
 * datagram with the
 * sender's PID (SCM_CREDENTIALS); a datagram counts only if that PID is
 * the main process of this very service, unreaped, which cannot be
 * reused, so no other process can pass for it.  notifymsg.c parses; this
 * file receives and applies.
 *
 * A datagram may carry file descriptors (SCM_RIGHTS), which we never
 * want.  Where the kernel has SO_PASSRIGHTS (6.16) every socket refuses
 * them.  Elsewhere a sender could make whoever ends up holding one wait
 * in close(2) for as long as it likes: close always flushes, and the
 * FLUSH of a FUSE file whose server never answers cannot be interrupted;
 * the last close of a TCP socket lingering with unsent data waits out the
 * linger.  So PID 1 never takes them into its fd table.  It peeks at
 * each datagram with room for the credentials alone: fds that do not fit
 * are never installed, and the references the peek took are not the
 * last ones.  A datagram without fds is then taken off the queue; one
 * with fds is applied, and taken off by a drainer: a child of ours that
 * never execs (CLONE_VM, on a stack of its own, raw system calls only),
 * which receives it into an fd table of its own, says so on a pipe, drops
 * the linger of sockets and closes.  If that close never ends, the
 * drainer is stuck, not us.  A socket is read on once its drainer has
 * said so; but the drainers alive are bounded, DRAIN_PER_UID for root's
 * datagrams, as many for each service's user's, as many for all other
 * users' together (one of them may hold a range of subordinate uids), so
 * that nobody can make PID 1 spawn processes without end: past that, a
 * socket whose head is a datagram of a full bucket waits until one of
 * its drainers is gone, and every other socket is read as ever.  So on a
 * kernel before 6.16 a user who can keep drainers stuck (a FUSE file
 * whose server never answers) can hold back the datagrams of root's 0666
 * sockets; from 6.16 the kernel refuses their fds.  A socket that closes
 * with datagrams queued is handed whole to a drainer too: the purge of
 * its queue would otherwise close their fds in our thread.
 *
 * A service with an fd store (fdstore_max) gets the fds its main process
 * stores (FDSTORE=1), but only those whose close cannot wait: a socket
 * (whose linger we take off), a pipe, a memfd or a file of tmpfs, an
 * anonymous file (eventfd, pidfd, ...).  Its socket takes fds whatever
 * the kernel, and is always peeked at; its drainer looks at each fd in
 * its own table, closes there what is not one of those, and forwards the
 * rest to us over a socket pair of its own, with the count refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notifymsg.h"
#include "notifysock.h"
#include "rawsys.h"
#include "st.h"
#include "util.h"

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS	83	/* Linux 6.16, 77cbe1a6d873 */
#endif
#define SCM_MAX_FD	253	/* the most one message carries */
#define DRAIN_SOCK	0	/* the drainer's socket, and its ack pipe */
#define DRAIN_FWD	1	/* ... where it forwards an fd store's fds */
#define DRAIN_ACK	3
#define DRAIN_RETRY	1.	/* s: a drainer could not be started */
#define DRAIN_PER_UID	8	/* drainers alive for one bucket */
#define DRAIN_OTHERS	((uid_t)-2)	/* the bucket of every other user */

/* A drainer: the child that takes datagrams with fds off a socket. */
struct notify_drain {
	struct notifydir	*dir;
	struct notifysock	*ns;		/* whose, until it took its
						 * datagram; NULL: forgotten */
	uid_t			 uid;		/* its sender's user; -1: a
						 * closing socket's */
	struct spawn_proc	 proc;		/* its stack */
	ev_io			 ack;		/* it took the datagram */
	ev_io			 death;		/* its pidfd */
	bool			 acked;
	int			 fwd;		/* FDSTORE=1: what it forwards
						 * comes here; -1 */
	int			 fwd_child;	/* ... the child's end, until it
						 * has it; -1 */
	char			*name;		/* ... its FDNAME=, or NULL */
	size_t			 name_len;
	LIST_ENTRY(notify_drain) entry;
};

/* What a drainer does (its fn_arg). */
static char	drain_one, drain_all, drain_fwd;

static void	notifysock_read(struct notifysock *);
static void	notifysock_on_read(struct ev_loop *, ev_io *, int);

/*
 * Apply one sd_notify datagram from the service's main process: a new
 * main process first (what follows may be about it), the reload before
 * the READY=1 that ends it.
 */
static void
notifysock_apply(struct notifysock *ns, const char *buf, size_t len)
{
	struct svc		*s = ns->svc;
	struct notify_msg	 m;

	if (notify_parse(buf, len, &m) < 0) {
		log_debug("%s: malformed notify message", s->def->name);
		return;
	}
	if (m.err >= 0)
		s->err = m.err;
	if (m.status)
		svc_status_text(s, m.status, m.status_len);
	if (m.mainpid > 0 && ns->dir->mainpid)
		ns->dir->mainpid(ns->dir->ctx, s, m.mainpid);
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
	if (m.fdstore_remove && ns->fds_ok && ns->dir->fdstore)
		ns->dir->fdstore(ns->dir->ctx, s, NULL, 0, m.fdname,
		    m.fdname_len, 0);
}

/* Is a datagram read (or peeked) whole, from the service's main? */
static bool
notifysock_from_main(struct notifysock *ns, ssize_t n, struct msghdr *mh)
{
	const struct ucred	*cred;
	size_t			 nfds, extra;

	cred = notify_cmsgs(mh, NULL, 0, &nfds, &extra);
	if (cred == NULL || (size_t)n > NOTIFY_MSG_MAX ||
	    (mh->msg_flags & MSG_TRUNC))
		return false;
	if (ns->dir->lookup(ns->dir->ctx, cred->pid) != ns->svc) {
		log_debug("%s: notify: ignored a datagram from pid %d",
		    ns->svc->def->name, (int)cred->pid);
		return false;
	}
	return true;
}

/* A datagram read (or peeked): apply it if its sender is the service. */
static void
notifysock_got(struct notifysock *ns, const char *buf, ssize_t n,
    struct msghdr *mh)
{
	if (notifysock_from_main(ns, n, mh))
		notifysock_apply(ns, buf, (size_t)n);
}

/*
 * The drainer, in the child (see the top of the file): in our memory,
 * with an fd table of its own.  Drop what one message brought: sockets
 * lose their linger (an abortive close), then everything is closed.
 */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static void
notifysock_drop(struct msghdr *mh)
{
	struct linger	 none = { .l_onoff = 1, .l_linger = 0 };
	struct cmsghdr	*c;
	socklen_t	 len;
	size_t		 i, n;
	int		 fd, type;

	/* (Filled by a raw recvmsg(2), which the analyzer does not see.) */
	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET ||	/* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		    c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			len = sizeof(type);
			if (RAWSYS(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE,
			    &type, &len) == 0)
				RAWSYS(SYS_setsockopt, fd, SOL_SOCKET,
				    SO_LINGER, &none, sizeof(none));
			RAWSYS(SYS_close, fd);
		}
	}
}

/*
 * In the drainer: may fd stay open in PID 1, its close never waiting?
 * A socket (its linger taken off before any close of ours), a pipe, a
 * file of tmpfs (a memfd), an anonymous file (eventfd, pidfd, ...).  Not
 * a device, nor a file of another file system: its flush may wait.
 */
#ifndef ANON_INODE_FS_MAGIC
#define ANON_INODE_FS_MAGIC	0x09041934
#endif
#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC		0x50494446
#endif
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static bool
notifysock_fd_safe(int fd)
{
	struct stat	st;
	struct statfs	sf;

	/* (Filled by raw system calls, which the analyzer does not see.) */
	if (RAWSYS(SYS_fstat, fd, &st) < 0)
		return false;
	if (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode))	/* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		return true;
	if (RAWSYS(SYS_fstatfs, fd, &sf) < 0)
		return false;
	if ((unsigned long)sf.f_type == ANON_INODE_FS_MAGIC ||
	    (unsigned long)sf.f_type == PIDFS_MAGIC)
		return true;
	return S_ISREG(st.st_mode) && ((unsigned long)sf.f_type ==
	    TMPFS_MAGIC || (unsigned long)sf.f_type == HUGETLBFS_MAGIC);
}

/*
 * In the drainer: forward the fds of a message that may stay open in
 * PID 1 (an FDSTORE=1 of its main process) to DRAIN_FWD, with the count
 * of those refused; the rest stay for notifysock_drop().
 */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static void
notifysock_forward(struct msghdr *mh)
{
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int) * SCM_MAX_FD)];
	}		 out;
	struct cmsghdr	*c;
	struct iovec	 iov;
	struct msghdr	 fm;
	int		 fds[SCM_MAX_FD], refused = 0, fd;
	size_t		 i, n, k = 0;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET ||	/* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		    c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (k < SCM_MAX_FD && notifysock_fd_safe(fd))
				fds[k++] = fd;
			else
				refused++;
		}
	}
	iov.iov_base = &refused;
	iov.iov_len = sizeof(refused);
	fm.msg_name = NULL;
	fm.msg_namelen = 0;
	fm.msg_iov = &iov;
	fm.msg_iovlen = 1;
	fm.msg_control = k ? out.b : NULL;
	fm.msg_controllen = k ? CMSG_SPACE(k * sizeof(int)) : 0;
	fm.msg_flags = 0;
	if (k) {
		out.h.cmsg_level = SOL_SOCKET;
		out.h.cmsg_type = SCM_RIGHTS;
		out.h.cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(&out.h), fds, k * sizeof(int));
	}
	RAWSYS(SYS_sendmsg, DRAIN_FWD, &fm, MSG_DONTWAIT);
}

/*
 * The drainer's work: take one datagram off the socket and say so
 * (&drain_one), forwarding what may be stored first (&drain_fwd); or
 * (&drain_all: the socket is closing) say so and take everything.  Then
 * drop what came: its close may wait, here.
 */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static int
notifysock_drainer(void *arg)
{
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(struct ucred)) +
				  CMSG_SPACE(sizeof(int) * SCM_MAX_FD)];
	}		 cbuf;
	struct iovec	 iov;
	struct msghdr	 mh;
	char		 byte;
	long		 n;
	bool		 all = arg == &drain_all;

	if (all)
		RAWSYS(SYS_write, DRAIN_ACK, "x", 1);
	do {
		iov.iov_base = &byte;
		iov.iov_len = 1;
		mh.msg_name = NULL;
		mh.msg_namelen = 0;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.b;
		mh.msg_controllen = sizeof(cbuf.b);
		mh.msg_flags = 0;
		n = RAWSYS(SYS_recvmsg, DRAIN_SOCK, &mh, MSG_DONTWAIT |
		    MSG_CMSG_CLOEXEC | MSG_TRUNC);
		if (n >= 0 && arg == &drain_fwd)
			notifysock_forward(&mh);
		if (!all)
			RAWSYS(SYS_write, DRAIN_ACK, n >= 0 ? "x" : "-", 1);
		if (n >= 0)
			notifysock_drop(&mh);
	} while (all && n >= 0);
	return 0;
}

/* A drainer is gone: forget it, and read its socket again. */
static void
notifysock_drain_free(struct notify_drain *dr)
{
	struct notifysock	*ns = dr->ns;
	struct ev_loop		*loop = dr->dir->loop;

	ev_io_stop(loop, &dr->ack);
	ev_io_stop(loop, &dr->death);
	if (dr->ack.fd >= 0)
		close(dr->ack.fd);
	if (dr->death.fd >= 0)
		close(dr->death.fd);
	if (dr->fwd >= 0)
		close(dr->fwd);
	if (dr->fwd_child >= 0)
		close(dr->fwd_child);
	free(dr->name);
	spawn_proc_free(&dr->proc);	/* dead: off its stack */
	LIST_REMOVE(dr, entry);
	if (ns == NULL || ns->drain != dr) {
		free(dr);
		return;
	}
	ns->drain = NULL;
	if (ns->waiting && !dr->acked) {
		/* It died without its datagram: not a storm of them. */
		ev_timer_start(loop, &ns->retry);
	} else if (ns->waiting) {
		ns->waiting = false;
		ev_io_start(loop, &ns->w);
		notifysock_read(ns);
	}
	free(dr);
}

/*
 * What a drainer forwarded of an FDSTORE=1: the fds that may be stored,
 * each safe to close here, to the service's store; the count refused.
 */
static void
notifysock_forwarded(struct notify_drain *dr)
{
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int) * SCM_MAX_FD)];
	}			 cbuf;
	int			 fds[SCM_MAX_FD], refused = 0;
	struct iovec		 iov = { &refused, sizeof(refused) };
	struct msghdr		 mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
	};
	size_t			 n = 0, extra, i;
	struct notifysock	*ns = dr->ns;

	if (recvmsg(dr->fwd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0)
		return;
	notify_cmsgs(&mh, fds, SCM_MAX_FD, &n, &extra);
	if (ns != NULL && ns->dir->fdstore) {
		ns->dir->fdstore(ns->dir->ctx, ns->svc, fds, n, dr->name,
		    dr->name_len, (size_t)refused);
		return;
	}
	for (i = 0; i < n; i++)
		fd_close_safe(fds[i]);
}

/* The drainer took its datagram off (or the socket is its now). */
static void
notifysock_on_ack(struct ev_loop *loop, ev_io *w, int revents)
{
	struct notify_drain	*dr = container_of(w, struct notify_drain, ack);
	struct notifysock	*ns = dr->ns;
	char			 c;
	ssize_t			 n;

	(void)revents;
	n = read(w->fd, &c, 1);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	ev_io_stop(loop, w);
	close(w->fd);
	ev_io_set(w, -1, EV_READ);
	dr->acked = true;
	spawn_poll(&dr->proc);		/* it has its fds: ours go */
	if (dr->fwd_child >= 0) {
		close(dr->fwd_child);
		dr->fwd_child = -1;
	}
	if (dr->fwd >= 0)
		notifysock_forwarded(dr);
	if (ns != NULL && ns->drain == dr) {
		/* Its datagram is off: the socket goes on, the drainer
		 * alone. */
		ns->drain = NULL;
		dr->ns = NULL;
		if (ns->waiting) {
			ns->waiting = false;
			ev_io_start(loop, &ns->w);
			notifysock_read(ns);
		}
	}
}

/* The drainer exited (or its close never ends, and it never will). */
static void
notifysock_on_drain_death(struct ev_loop *loop, ev_io *w, int revents)
{
	struct notify_drain	*dr = container_of(w, struct notify_drain,
				    death);
	siginfo_t		 si;

	(void)revents;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)w->fd, &si, WEXITED | WNOHANG | __WALL) ==
	    0 ? si.si_pid == 0 : errno != ECHILD)
		return;
	/* Its ack may be waiting still: the loop may tell its death first. */
	if (!dr->acked && ev_is_active(&dr->ack))
		notifysock_on_ack(loop, &dr->ack, EV_READ);
	notifysock_drain_free(dr);
}

/*
 * Start a drainer for the socket fd of ns: to take the datagram at its
 * head (&drain_one), forwarding what may be stored under name
 * (&drain_fwd), or everything (&drain_all: the socket is closing; ns
 * NULL).  0, or -errno (none started).
 */
static int
notifysock_drain_start(struct notifydir *d, struct notifysock *ns, int fd,
    uid_t uid, char *mode, const char *name, size_t name_len)
{
	struct notify_drain	*dr;
	struct spawn_req	 req = {
		.argv = NULL, .envp = NULL, .cgroup_fd = -1,
		.stdio = { fd, -1, -1 }, .ready_fd = DRAIN_ACK,
		.fn = notifysock_drainer, .fn_arg = mode,
	};
	struct spawn_result	 res;
	struct rlimit		 rl;
	int			 p[2], sp[2] = { -1, -1 }, rc;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		req.nofile_cur = rl.rlim_cur;
		req.nofile_max = rl.rlim_max;
	}
	if ((dr = calloc(1, sizeof(*dr))) == NULL)
		return -ENOMEM;
	dr->fwd = dr->fwd_child = -1;
	if (mode == &drain_fwd && ((name != NULL && (dr->name =
	    strndup(name, name_len)) == NULL) || socketpair(AF_UNIX,
	    SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sp) < 0)) {
		free(dr->name);
		free(dr);
		return -ENOMEM;
	}
	dr->name_len = name_len;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = -errno;
		if (sp[0] >= 0) {
			close(sp[0]);
			close(sp[1]);
		}
		free(dr->name);
		free(dr);
		return rc;
	}
	req.ready_pipe = p[1];		/* the spawn's to close */
	req.stdio[1] = sp[1];
	spawn_proc_init(&dr->proc);
	rc = spawn_start(&dr->proc, &req, &res);
	if (rc < 0) {
		close(p[0]);
		if (sp[0] >= 0) {
			close(sp[0]);
			close(sp[1]);
		}
		spawn_proc_free(&dr->proc);
		free(dr->name);
		free(dr);
		return rc;
	}
	dr->fwd = sp[0] >= 0 ? spawn_fd_keep(sp[0]) : -1;
	dr->fwd_child = sp[1];		/* until the child has its copy */
	dr->dir = d;
	dr->ns = ns;
	dr->uid = uid;
	ev_io_init(&dr->ack, notifysock_on_ack, p[0], EV_READ);
	ev_io_start(d->loop, &dr->ack);
	ev_io_init(&dr->death, notifysock_on_drain_death, res.pidfd, EV_READ);
	ev_io_start(d->loop, &dr->death);
	LIST_INSERT_HEAD(&d->drains, dr, entry);
	if (ns != NULL)
		ns->drain = dr;
	log_info("%s: a notify datagram with file descriptors: a drainer "
	    "(pid %d) takes it", ns ? ns->svc->def->name : "notify",
	    (int)res.pid);
	return 0;
}

/* Take the datagram at the head of the queue off it, unread. */
static void
notifysock_drop_head(int fd)
{
	char	c;

	while (recv(fd, &c, 1, MSG_DONTWAIT | MSG_TRUNC) < 0 && errno == EINTR)
		;
}

/* How many drainers alive took a datagram of uid's. */
static int
notifysock_drainers(const struct notifydir *d, uid_t uid)
{
	const struct notify_drain	*dr;
	int				 n = 0;

	LIST_FOREACH(dr, &d->drains, entry)
		n += dr->uid == uid;
	return n;
}

/* Stop reading ns until its drainer says so, or is gone. */
static void
notifysock_wait(struct notifysock *ns)
{
	ns->waiting = true;
	ev_io_stop(ns->dir->loop, &ns->w);
}

/*
 * Read the datagrams queued on ns and apply them.  Bounded, so that a
 * flood cannot hold the loop.
 */
static void
notifysock_read(struct notifysock *ns)
{
	struct notifydir	*d = ns->dir;
	char			 buf[NOTIFY_MSG_MAX + 1];
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(struct ucred))];
	}			 cbuf;
	int			 i, rc;
	bool			 peek = d->peek || ns->fds_ok, fwd;

	for (i = 0; i < 1024 && ns->fd >= 0 && !ns->waiting; i++) {
		struct iovec	iov = { buf, sizeof(buf) };
		struct msghdr	mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
		};
		ssize_t		n;

		n = recvmsg(ns->fd, &mh, MSG_DONTWAIT | MSG_TRUNC |
		    (peek ? MSG_PEEK : 0));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (peek && !(mh.msg_flags & MSG_CTRUNC)) {
			/* Nothing in it can hold us: off the queue. */
			notifysock_drop_head(ns->fd);
		} else if (peek) {
			/* Fds came with it: a drainer takes it off. */
			struct notify_msg	 m;
			const struct ucred	*cred;
			size_t			 nfds, extra;
			uid_t			 uid;

			if (ns->drain != NULL) {
				notifysock_wait(ns);	/* one at a time */
				return;
			}
			cred = notify_cmsgs(&mh, NULL, 0, &nfds, &extra);
			uid = cred != NULL && (cred->uid == 0 ||
			    cred->uid == ns->uid) ? cred->uid : DRAIN_OTHERS;
			if (notifysock_drainers(d, uid) >= DRAIN_PER_UID) {
				char	who[32] = "other users'";

				if (uid != DRAIN_OTHERS)
					snprintf(who, sizeof(who), "uid %u's",
					    (unsigned)uid);
				if (!ns->held)
					log_warn("%s: notify: %d drainers of "
					    "%s datagrams stuck in a close: "
					    "the next waits", ns->svc->def->name,
					    DRAIN_PER_UID, who);
				ns->held = true;
				notifysock_wait(ns);
				ev_timer_start(d->loop, &ns->retry);
				return;
			}
			ns->held = false;
			/* Its main process's FDSTORE=1: forwarded. */
			fwd = ns->fds_ok && notifysock_from_main(ns, n, &mh) &&
			    notify_parse(buf, (size_t)n, &m) == 0 && m.fdstore;
			if ((rc = notifysock_drain_start(d, ns, ns->fd, uid,
			    fwd ? &drain_fwd : &drain_one, fwd ? m.fdname :
			    NULL, fwd ? m.fdname_len : 0)) < 0) {
				log_err("%s: notify: a drainer: %s; reading "
				    "again in %.0f s", ns->svc->def->name,
				    strerror(-rc), DRAIN_RETRY);
				notifysock_wait(ns);
				ev_timer_start(d->loop, &ns->retry);
				return;
			}
			notifysock_wait(ns);
		}
		notifysock_got(ns, buf, n, &mh);
	}
}

static void
notifysock_on_read(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	notifysock_read(container_of(w, struct notifysock, w));
}

/* A drainer could not be started: try again. */
static void
notifysock_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct notifysock	*ns = container_of(w, struct notifysock, retry);

	(void)revents;
	if (ns->fd < 0 || ns->drain != NULL)
		return;
	ns->waiting = false;
	ev_io_start(loop, &ns->w);
	notifysock_read(ns);
}

/* Read what is queued now (before a spawn; before acting on a death). */
void
notifysock_drain(struct notifysock *ns)
{
	if (ns->fd >= 0)
		notifysock_read(ns);
}

/*
 * Make the directory of the sockets, or find it safe: ours, and writable
 * by no one else.  Then: does this kernel refuse fds for us
 * (SO_PASSRIGHTS)?  PIDVISOR_NO_PASSRIGHTS=1 says no, for the tests of
 * the other way on a kernel that has it.  0, or -errno.
 */
int
notifydir_open(struct notifydir *d)
{
	struct stat	st;
	int		fd, zero = 0, rc;

	LIST_INIT(&d->drains);
	mkdir_parent(d->path, 0755);
	if (mkdir(d->path, geteuid() == 0 ? 0755 : 0700) < 0 &&
	    errno != EEXIST)
		return -errno;
	if ((fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	rc = fstat(fd, &st) < 0 ? -errno : st.st_uid != geteuid() ||
	    (st.st_mode & 022) ? -EPERM : 0;
	close(fd);
	if (rc < 0)
		return rc;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	d->peek = setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &zero,
	    sizeof(zero)) < 0 || getenv("PIDVISOR_NO_PASSRIGHTS") != NULL;
	close(fd);
	if (d->peek)
		log_info("notify sockets: no SO_PASSRIGHTS; a datagram with "
		    "fds is taken off by a drainer of its own");
	d->open = true;
	return 0;
}

/*
 * At exit: forget the drainers.  Their stacks stay: one may still run
 * on it, in our memory.
 */
void
notifydir_close(struct notifydir *d)
{
	struct notify_drain	*dr, *next;

	if (!d->open)
		return;
	for (dr = LIST_FIRST(&d->drains); dr != NULL; dr = next) {
		next = LIST_NEXT(dr, entry);
		ev_io_stop(d->loop, &dr->ack);
		ev_io_stop(d->loop, &dr->death);
		if (dr->ack.fd >= 0)
			close(dr->ack.fd);
		close(dr->death.fd);
		if (dr->fwd >= 0)
			close(dr->fwd);
		if (dr->fwd_child >= 0)
			close(dr->fwd_child);
		free(dr->name);
		spawn_release(&dr->proc);
		if (dr->ns != NULL)
			dr->ns->drain = NULL;
		free(dr);
	}
	LIST_INIT(&d->drains);
	d->open = false;
}

/*
 * Is a drainer yet to take its datagram off?  Then what it took could be
 * read twice, or not at all, across a re-exec.
 */
bool
notifydir_busy(const struct notifydir *d)
{
	const struct notify_drain	*dr;

	LIST_FOREACH(dr, &d->drains, entry)
		if (!dr->acked)
			return true;
	return false;
}

/* DIR/NAME.sock, allocated; NULL without a directory, or memory. */
char *
notifysock_path(const struct notifydir *d, const char *name)
{
	char	*p;

	if (d->path == NULL || asprintf(&p, "%s/%s.sock", d->path, name) < 0)
		return NULL;
	return p;
}

/* The socket of service s, not yet made. */
void
notifysock_init(struct notifysock *ns, struct notifydir *d, struct svc *s)
{
	memset(ns, 0, sizeof(*ns));
	ns->dir = d;
	ns->svc = s;
	ns->fd = -1;
	ev_io_init(&ns->w, notifysock_on_read, -1, EV_READ);
	ev_timer_init(&ns->retry, notifysock_on_retry, DRAIN_RETRY, 0.);
}

/* Watch fd, the socket of ns from now on. */
static void
notifysock_watch(struct notifysock *ns, int fd)
{
	ns->fd = fd;
	ns->waiting = false;
	ev_io_set(&ns->w, fd, EV_READ);
	ev_io_start(ns->dir->loop, &ns->w);
}

/*
 * Make the socket of ns for uid:gid, the service's user (a socket made
 * for another is made again).  Bound as us in our directory, then given
 * to the user: no one else can put anything there meanwhile.  0, or
 * -errno.
 */
int
notifysock_open(struct notifysock *ns, uid_t uid, gid_t gid)
{
	struct notifydir	*d = ns->dir;
	char			*path;
	int			 fd, one = 1, zero = 0, rc = 0;

	if (ns->fd >= 0 && ns->uid == uid && ns->gid == gid &&
	    ns->fds_ok == ns->fdstore)
		return 0;
	notifysock_close(ns);
	if (!d->open)
		return -ENOTCONN;
	if ((path = notifysock_path(d, ns->svc->def->name)) == NULL)
		return -ENOMEM;
	if ((fd = unix_bind(path, SOCK_DGRAM, uid == 0 && !ns->fdstore ?
	    0666 : 0600, (gid_t)-1, &ns->id)) < 0) {
		free(path);
		return fd;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    (!d->peek && !ns->fdstore && setsockopt(fd, SOL_SOCKET,
	    SO_PASSRIGHTS, &zero, sizeof(zero)) < 0) ||
	    ((uid != geteuid() || gid != getegid()) &&
	    fchownat(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW) < 0))
		rc = -errno;
	if (rc < 0) {
		close(fd);
		unix_unlink(path, &ns->id);
		free(path);
		return rc;
	}
	free(path);
	ns->uid = uid;
	ns->gid = gid;
	ns->fds_ok = ns->fdstore;
	notifysock_watch(ns, spawn_fd_keep(fd));
	return 0;
}

/*
 * Close the socket of ns and remove it.  With fds possibly queued (no
 * SO_PASSRIGHTS): no more datagrams come, those without fds are dropped
 * here, and at the first with fds the socket goes whole to a drainer.
 */
void
notifysock_close(struct notifysock *ns)
{
	struct notifydir	*d = ns->dir;
	char			*path;
	bool			 fds = false;
	int			 rc;

	if (ns->fd < 0)
		return;
	ev_io_stop(d->loop, &ns->w);
	ev_timer_stop(d->loop, &ns->retry);
	if ((path = notifysock_path(d, ns->svc->def->name)) != NULL)
		unix_unlink(path, &ns->id);
	free(path);
	if (d->peek || ns->fds_ok) {
		union {
			struct cmsghdr	h;
			char		b[CMSG_SPACE(sizeof(struct ucred))];
		}		cbuf;
		char		c;

		shutdown(ns->fd, SHUT_RD);
		for (;;) {
			struct iovec	iov = { &c, 1 };
			struct msghdr	mh = {
				.msg_iov = &iov, .msg_iovlen = 1,
				.msg_control = cbuf.b,
				.msg_controllen = sizeof(cbuf.b),
			};

			if (recvmsg(ns->fd, &mh, MSG_DONTWAIT | MSG_PEEK |
			    MSG_TRUNC) < 0)
				break;
			if ((fds = mh.msg_flags & MSG_CTRUNC))
				break;
			notifysock_drop_head(ns->fd);
		}
	}
	if (fds && (rc = notifysock_drain_start(d, NULL, ns->fd, (uid_t)-1,
	    &drain_all, NULL, 0)) < 0)
		/* Left open: its close could hold us. */
		log_err("%s: notify socket: a drainer: %s; its socket is left "
		    "open", ns->svc->def->name, strerror(-rc));
	else
		close(ns->fd);
	if (ns->drain != NULL)
		ns->drain->ns = NULL;	/* it goes on alone */
	ns->drain = NULL;
	ns->fd = -1;
	ns->waiting = false;
}

/* The socket, for the next binary (reexec.c). */
void
notifysock_state_save(const struct notifysock *ns, struct st_w *w)
{
	st_begin(w, "nsock");
	st_fd_kept(w, "fd", ns->fd);
	st_u64(w, "dev", (uint64_t)ns->id.dev);
	st_u64(w, "ino", (uint64_t)ns->id.ino);
	st_u32(w, "uid", (uint32_t)ns->uid);
	st_u32(w, "gid", (uint32_t)ns->gid);
	st_end(w);
}

/* Take over the socket of the binary before us. */
int
notifysock_state_load(struct notifysock *ns, struct st_r *r)
{
	uint64_t	dev = 0, ino = 0;
	uint32_t	uid = (uint32_t)ns->uid, gid = (uint32_t)ns->gid;
	int		fd = -1;

	if (!st_enter(r, "nsock"))
		return st_bad(r) ? -EINVAL : 0;
	st_get_fd_kept(r, "fd", &fd);
	st_get_u64(r, "dev", &dev);
	st_get_u64(r, "ino", &ino);
	st_get_u32(r, "uid", &uid);
	st_get_u32(r, "gid", &gid);
	st_leave(r);
	ns->id.dev = (dev_t)dev;
	ns->id.ino = (ino_t)ino;
	ns->uid = (uid_t)uid;
	ns->gid = (gid_t)gid;
	if (st_bad(r))
		return -EINVAL;
	if (fd >= 0)
		notifysock_watch(ns, fd);
	return 0;
}
