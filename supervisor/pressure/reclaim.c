/*
 * reclaim.c - which reclaim path this kernel has for the low-memory killer
 * (pressure.c): our kernel's PIDFD_SIGNAL_LOCAL_REAP, process_mrelease(),
 * or a plain SIGKILL.  Probed once, at start.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pressure.h"
#include "spawn.h"
#include "sys.h"

const char *
reclaim_path_name(enum reclaim_path p)
{
	switch (p) {
	case RECLAIM_REAP:	return "reap";
	case RECLAIM_MRELEASE:	return "mrelease";
	default:		return "kill";
	}
}

/* A child for the probe: it waits to be killed. */
static int
reap_probe_child(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* Start one, sharing our memory or not; its pidfd, or -1. */
static int
reap_probe_spawn(char *stack, size_t size, bool share_vm)
{
	int	pidfd = -1;

	/* exit_signal 0: nobody but its pidfd hears of its death. */
	if (clone(reap_probe_child, stack + size, CLONE_PIDFD |
	    (share_vm ? CLONE_VM : 0), NULL, &pidfd) < 0)
		return -1;
	return pidfd;
}

/* Kill (if need be) and reap a probe child. */
static void
reap_probe_end(int pidfd, bool kill)
{
	siginfo_t	si;

	if (kill)
		sys_pidfd_send_signal(pidfd, SIGKILL, 0);
	waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | __WALL);
	close(pidfd);
}

/*
 * Has this kernel our PIDFD_SIGNAL_LOCAL_REAP, meaning what it means in
 * our series?  Bit 30 is a local extension: that it is taken (EBADF on
 * no fd) is not enough, another kernel could give it another meaning.
 * So ask it of two children: one that shares our memory (CLONE_VM),
 * whose memory must not be reaped, so the call must fail with EINVAL and
 * send nothing; and one that does not, which it must kill.
 */
static bool
reap_probe_reap(void)
{
	struct pollfd	 pfd = { .events = POLLIN };
	const size_t	 size = 64 * 1024;
	char		*stack;
	siginfo_t	 si;
	bool		 ok = false;
	int		 fd;

	if (sys_pidfd_send_signal(-1, SIGKILL, PIDFD_SIGNAL_LOCAL_REAP) == 0 ||
	    errno != EBADF)
		return false;
#ifdef PV_MEMCHECK
	return true;		/* no CLONE_VM children under valgrind */
#endif
	/* cppcheck-suppress invalidFunctionArg ; -1: MAP_ANONYMOUS */
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return false;
	if ((fd = reap_probe_spawn(stack, size, true)) >= 0) {
		ok = sys_pidfd_send_signal(fd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) < 0 && errno == EINVAL;
		pfd.fd = fd;
		ok = ok && poll(&pfd, 1, 0) == 0;	/* still alive */
		reap_probe_end(fd, true);
	}
	if (ok && (fd = reap_probe_spawn(stack, size, false)) >= 0) {
		ok = sys_pidfd_send_signal(fd, SIGKILL,
		    PIDFD_SIGNAL_LOCAL_REAP) == 0;
		memset(&si, 0, sizeof(si));
		ok = ok && waitid(P_PIDFD, (id_t)fd, &si, WEXITED | WNOWAIT |
		    __WALL) == 0 && si.si_code == CLD_KILLED &&
		    si.si_status == SIGKILL;
		reap_probe_end(fd, !ok);
	} else {
		ok = false;
	}
	munmap(stack, size);
	return ok;
}

/*
 * The best reclaim path this kernel has.  The process_mrelease() probe
 * uses fd -1: flags are checked before the fd, so EBADF means "there",
 * EINVAL or ENOSYS "not here".
 */
enum reclaim_path
reclaim_probe(void)
{
	if (reap_probe_reap())
		return RECLAIM_REAP;
	if (sys_process_mrelease(-1, 0) < 0 && errno == EBADF)
		return RECLAIM_MRELEASE;
	return RECLAIM_KILL;
}

