/*
 * closer.c - close file descriptors off the loop.
 *
 * A descriptor that another process passed us (SCM_RIGHTS on the
 * notify socket) may be the last reference to something whose close
 * waits: a TCP socket lingering with unsent data, a file on a FUSE or
 * NFS mount whose flush never ends.  PID 1 must not wait on that, and
 * signals cannot interrupt it.  Where the kernel has SO_PASSRIGHTS
 * (6.16) no such descriptor reaches us; elsewhere the loop hands them to
 * this thread, which drops a socket's linger first (an abortive close)
 * and then closes.  If the thread itself is stuck, its pipe fills and
 * closer_give says -EAGAIN: the caller stops taking new ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "closer.h"

static void *
closer_main(void *arg)
{
	struct closer	*c = arg;
	struct linger	 none = { .l_onoff = 1, .l_linger = 0 };
	int		 fd, type;
	socklen_t	 len;
	ssize_t		 n;

	for (;;) {
		n = read(c->pipe[0], &fd, sizeof(fd));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(fd))
			break;		/* the loop closed its end */
		len = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &none,
			    sizeof(none));
		close(fd);
	}
	close(c->pipe[0]);
	return NULL;
}

/* Start the thread.  0, or -errno. */
int
closer_start(struct closer *c)
{
	sigset_t	all, old;
	int		err;

	memset(c, 0, sizeof(*c));
	if (pipe2(c->pipe, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(c->pipe[1], F_SETFL, O_NONBLOCK) < 0) {
		err = errno;
		goto fail;
	}
	/* Every signal stays with the loop's signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&c->thread, NULL, closer_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto fail;
	pthread_detach(c->thread);
	c->running = true;
	return 0;
fail:
	close(c->pipe[0]);
	close(c->pipe[1]);
	return -err;
}

/*
 * Have fd closed, now or later, never here.  0 (the fd is the thread's),
 * or -EAGAIN while the thread is behind, -ENOSYS without a thread: the
 * fd is still the caller's.
 */
int
closer_give(struct closer *c, int fd)
{
	if (!c->running)
		return -ENOSYS;
	if (write(c->pipe[1], &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		return errno == EAGAIN ? -EAGAIN : -EIO;
	return 0;
}

/* Stop: the thread ends at EOF; one stuck in a close is left to exit. */
void
closer_stop(struct closer *c)
{
	if (!c->running)
		return;
	close(c->pipe[1]);
	c->running = false;
}

/* Are fds still waiting in the pipe for the thread? */
bool
closer_queued(const struct closer *c)
{
	int	n = 0;

	return c->running && ioctl(c->pipe[0], FIONREAD, &n) == 0 && n > 0;
}
