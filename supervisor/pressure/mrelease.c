/*
 * mrelease.c - process_mrelease() off the loop.
 *
 * process_mrelease() takes the victim's mmap_lock, and a victim whose
 * lock a writer holds or waits for (a stuck FUSE or NFS page fault, a
 * core dump) keeps the caller asleep for as long as that lasts.  PID 1
 * ignores SIGKILL, so nothing would ever wake it: the loop must never
 * make that call.  A thread of its own does, as Android's lmkd does,
 * and the loop learns the result as an event on a pipe.
 *
 * One request at a time: while the thread is stuck on one victim, the
 * next kill goes without a reap (mrelease_submit says -EBUSY) rather than
 * queue behind it.  The thread takes no signal, touches nothing of the
 * loop's but the two pipes, and closes the pidfd it was given.  It is
 * never joined: a stuck one would hold the exit too.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mrelease.h"
#include "sys.h"
#include "util.h"

struct mrelease_req {
	int32_t		fd;		/* a dup of the victim's pidfd */
	uint32_t	seq;
};

/* Before the thread runs: close what was opened. */
static void
mrelease_close(struct mrelease *r)
{
	int	i;

	for (i = 0; i < 2; i++) {
		if (r->req[i] >= 0)
			close(r->req[i]);
		if (r->res[i] >= 0)
			close(r->res[i]);
		r->req[i] = r->res[i] = -1;
	}
}

/* The thread: one blocking process_mrelease() per request. */
static void *
mrelease_main(void *arg)
{
	struct mrelease		*r = arg;
	struct mrelease_req	 q;
	struct mrelease_result	 res;
	int64_t			 t0;
	ssize_t			 n;

	/*
	 * At nice -20, as the kernel's own reaps run (the OOM reaper, and
	 * our kernel's reap asked for at -20): on a busy machine a reaper
	 * at nice 0 waits its turn while the memory it is to free is
	 * wanted.  On Linux, this sets the calling thread's alone.  (It
	 * logs nothing if it cannot: the log is the loop's.)
	 */
	(void)setpriority(PRIO_PROCESS, 0, -20);
	for (;;) {
		n = read(r->req[0], &q, sizeof(q));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(q))
			break;		/* the loop closed its end */
		t0 = mono_us();
		res.seq = q.seq;
		res.err = sys_process_mrelease(q.fd, 0) < 0 ? errno : 0;
		res.took_us = mono_us() - t0;
		close(q.fd);
		while (write(r->res[1], &res, sizeof(res)) < 0 &&
		    errno == EINTR)
			;
	}
	/* Its own ends: the loop never closes them under it. */
	close(r->req[0]);
	close(r->res[1]);
	return NULL;
}

static void
mrelease_on_result(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mrelease		*r = container_of(w, struct mrelease, w);
	struct mrelease_result	 res;

	(void)loop;
	(void)revents;
	while (read(r->res[0], &res, sizeof(res)) == (ssize_t)sizeof(res)) {
		r->busy = false;
		r->done(r, &res);
	}
}

/* Start the thread; done() is called in the loop for every result. */
int
mrelease_start(struct mrelease *r, struct ev_loop *loop,
    void (*done)(struct mrelease *, const struct mrelease_result *))
{
	sigset_t	all, old;
	int		err;

	memset(r, 0, sizeof(*r));
	r->req[0] = r->req[1] = r->res[0] = r->res[1] = -1;
	r->done = done;
	if (pipe2(r->req, O_CLOEXEC) < 0 || pipe2(r->res, O_CLOEXEC) < 0 ||
	    fcntl(r->req[1], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(r->res[0], F_SETFL, O_NONBLOCK) < 0) {
		err = errno;
		mrelease_close(r);
		return -err;
	}
	/* Every signal stays with the loop's signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&r->thread, NULL, mrelease_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		mrelease_close(r);
		return -err;
	}
	pthread_detach(r->thread);
	r->running = true;
	ev_io_init(&r->w, mrelease_on_result, r->res[0], EV_READ);
	ev_io_start(loop, &r->w);
	return 0;
}

/*
 * Ask for process_mrelease(pidfd); the result comes as done(seq).  0,
 * or -EBUSY while the thread is on another victim (or -errno).
 */
int
mrelease_submit(struct mrelease *r, int pidfd, uint32_t seq)
{
	struct mrelease_req	q = { .seq = seq };

	if (!r->running)
		return -ENOSYS;
	if (r->busy)
		return -EBUSY;
	if ((q.fd = fcntl(pidfd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	if (write(r->req[1], &q, sizeof(q)) != (ssize_t)sizeof(q)) {
		int	err = errno ? errno : EIO;

		close(q.fd);
		return -err;
	}
	r->busy = true;
	return 0;
}

/*
 * Stop: the thread ends once it reads EOF, and closes its own ends.  One
 * stuck in the kernel is left to the process's exit.
 */
void
mrelease_stop(struct mrelease *r, struct ev_loop *loop)
{
	if (!r->running)
		return;
	ev_io_stop(loop, &r->w);
	close(r->req[1]);
	close(r->res[0]);
	r->req[1] = r->res[0] = -1;
	r->running = false;
}
