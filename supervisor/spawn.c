/*
 * spawn.c - start a service process.
 *
 * clone3() with CLONE_PIDFD hands us the pidfd atomically with the child:
 * there is no moment in which we know the process only by its PID.
 * CLONE_VM | CLONE_VFORK (what posix_spawn does) makes the spawn cost
 * independent of the supervisor's own size: no page tables are copied,
 * and we resume only once the child has exec'd or died.  The child runs
 * on a small stack of its own and shares our memory, so it does nothing
 * but raw system calls, and reports a failure through a CLOEXEC pipe:
 * EOF on the pipe means exec succeeded.
 *
 * The child shares our fd table too (CLONE_FILES), and takes a private
 * copy of only its low fds with close_range(CLOSE_RANGE_UNSHARE) before
 * it changes anything.  Without that, each spawn copied all our fds (a
 * pidfd and pipes per service) and exec closed them one by one: at
 * 10,000 services that was 1.8 ms of every spawn.  sup.c keeps the fds
 * it holds for long above SPAWN_FD_LOW, so that those the child needs
 * are low.
 *
 * exit_signal is 0: a child that dies before exec sends no SIGCHLD and
 * is invisible to waitid(P_ALL).  Note that exec resets exit_signal to
 * SIGCHLD (fs/exec.c, de_thread), so a running service is visible to
 * P_ALL; sup.c keeps the orphan reaper from stealing it.
 *
 * Where clone3 answers ENOSYS (Linux 5.2, seccomp sandboxes that refuse
 * what they cannot inspect, valgrind), the old clone(2) takes
 * CLONE_PIDFD too, fork-style; the child then joins its cgroup itself,
 * before it execs.  Without CLONE_PIDFD (before 5.2) there is no spawn.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"
#include "svc.h"
#include "sys.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#define SPAWN_STACK	(64 * 1024)

static char	*spawn_stack;		/* NULL: fork-style clone */
static bool	 spawn_clone3_enosys;	/* clone(2) instead */

struct spawn_child {
	const struct spawn_req	*req;
	int			 errfd;
	bool			 shared_fds;	/* CLONE_FILES */
	bool			 join_cgroup;	/* not CLONE_INTO_CGROUP */
};

struct spawn_report {
	int32_t	stage;
	int32_t	err;
};

#if defined(__x86_64__)
/*
 * long spawn_clone3(struct clone_args *, size_t, int (*fn)(void *), void *)
 *
 * clone3 with a new stack returns in the child on that stack, so the
 * child cannot return through C frames: call fn there and exit.
 */
__asm__(
	".text\n"
	".type spawn_clone3, @function\n"
	"spawn_clone3:\n"
	"	mov %rdx, %r8\n"
	"	mov %rcx, %r9\n"
	"	mov $" "435" ", %eax\n"		/* __NR_clone3 */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	xor %ebp, %ebp\n"
	"	mov %r9, %rdi\n"
	"	call *%r8\n"
	"	mov %eax, %edi\n"
	"	mov $" "60" ", %eax\n"		/* __NR_exit */
	"	syscall\n"
	"	hlt\n"
	".size spawn_clone3, .-spawn_clone3\n");
long	spawn_clone3(struct clone_args *, size_t, int (*)(void *), void *);
#endif

/* Send sig to the process behind pidfd. */
int
pidfd_signal(int pidfd, int sig)
{
	if (sys_pidfd_send_signal(pidfd, sig, 0) < 0)
		return -errno;
	return 0;
}

/* Whether spawn_init() found clone3 missing. */
bool
spawn_no_clone3(void)
{
	return spawn_clone3_enosys;
}

/*
 * Probe clone3 (a zero size is EINVAL where it exists); allocate the
 * child stack once, with a guard page below it.
 */
int
spawn_init(void)
{
	char	*p;

	spawn_clone3_enosys = syscall(SYS_clone3, NULL, 0) < 0 &&
	    errno == ENOSYS;
	if (spawn_clone3_enosys)
		return 0;
#if defined(__x86_64__)
	p = mmap(NULL, SPAWN_STACK + 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (mprotect(p, 4096, PROT_NONE) < 0) {
		munmap(p, SPAWN_STACK + 4096);
		return -errno;
	}
	spawn_stack = p + 4096;
#else
	(void)p;
#endif
	return 0;
}

/* Child: report where and why we failed, then exit. */
__attribute__((noreturn, no_sanitize_address, no_sanitize("undefined")))
static void
spawn_fail(int fd, int stage, int err)
{
	struct spawn_report	rep = { stage, err };

	syscall(SYS_write, fd, &rep, sizeof(rep));
	syscall(SYS_exit_group, 127);
	__builtin_unreachable();
}

/* Child: execve argv[0], searching path like execvp but without malloc. */
__attribute__((no_sanitize_address, no_sanitize("undefined")))
static int
spawn_exec(const struct spawn_req *r)
{
	const char	*file = r->argv[0], *p = r->path, *end;
	char		 buf[4096];
	size_t		 flen = strlen(file), dlen;
	int		 err = ENOENT;
	bool		 eacces = false;

	if (strchr(file, '/') != NULL) {
		syscall(SYS_execve, file, r->argv, r->envp);
		return errno;
	}
	while (*p) {
		end = strchr(p, ':');
		dlen = end ? (size_t)(end - p) : strlen(p);
		if (dlen + flen + 2 <= sizeof(buf)) {
			memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
			if (dlen == 0)
				dlen = 1;
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen + 1);
			syscall(SYS_execve, buf, r->argv, r->envp);
			err = errno;
			if (err == EACCES)
				eacces = true;
			else if (err != ENOENT && err != ENOTDIR && err != ESTALE)
				return err;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return eacces ? EACCES : err;
}

/*
 * Child: set up the process, then exec.  Runs on the spawn stack in our
 * memory: raw system calls only, no malloc, no locks.
 */
__attribute__((noinline, no_sanitize_address, no_sanitize("undefined")))
static int
spawn_child(void *arg)
{
	const struct spawn_child *c = arg;
	const struct spawn_req	*r = c->req;
	struct rlimit		 rl;
	uint64_t		 none = 0;
	int			 fd = c->errfd, i, top = fd;

	/*
	 * The fd table is still ours: take a private copy of the fds below
	 * the highest one we need, leaving the rest behind.  Nothing of
	 * ours may change before that.  Older kernels: copy all of it.
	 */
	if (c->shared_fds) {
		for (i = 0; i < 3; i++)
			if (r->stdio[i] > top)
				top = r->stdio[i];
		if (r->ready_pipe > top)
			top = r->ready_pipe;
		if (syscall(SYS_close_range, top + 1, ~0U,
		    CLOSE_RANGE_UNSHARE) < 0 && syscall(SYS_unshare,
		    CLONE_FILES) < 0)
			spawn_fail(fd, STAGE_FDS, errno);
	}
	/* The readiness fd's number may be where our error pipe is. */
	if (r->ready_pipe >= 0 && fd == r->ready_fd) {
		if ((i = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC,
		    fd + 1)) < 0)
			spawn_fail(fd, STAGE_FDS, errno);
		fd = i;
	}
	if (c->join_cgroup) {
		/* Writing 0 to cgroup.procs moves the writer. */
		if ((i = (int)syscall(SYS_openat, r->cgroup_fd, "cgroup.procs",
		    O_WRONLY | O_CLOEXEC)) < 0)
			spawn_fail(fd, STAGE_CGROUP, errno);
		if (syscall(SYS_write, i, "0", 1) < 0)
			spawn_fail(fd, STAGE_CGROUP, errno);
		syscall(SYS_close, i);
	}
	if (syscall(SYS_setsid) < 0)
		spawn_fail(fd, STAGE_SETSID, errno);

	/* Standard input, output and error: /dev/null, the log pipes. */
	for (i = 0; i < 3; i++)
		if (r->stdio[i] >= 0 && r->stdio[i] != i &&
		    syscall(SYS_dup3, r->stdio[i], i, 0) < 0)
			spawn_fail(fd, STAGE_FDS, errno);

	/* Only 0, 1, 2 and the readiness fd survive exec. */
	if (r->ready_pipe >= 0) {
		if (r->ready_pipe == r->ready_fd) {
			if (syscall(SYS_fcntl, r->ready_fd, F_SETFD, 0) < 0)
				spawn_fail(fd, STAGE_FDS, errno);
		} else if (syscall(SYS_dup3, r->ready_pipe, r->ready_fd,
		    0) < 0) {
			spawn_fail(fd, STAGE_FDS, errno);
		}
		if (r->ready_fd > 3)
			syscall(SYS_close_range, 3, r->ready_fd - 1,
			    CLOSE_RANGE_CLOEXEC);
		syscall(SYS_close_range, r->ready_fd + 1, ~0U,
		    CLOSE_RANGE_CLOEXEC);
	} else {
		syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	}
	/* Ours was raised for our own fds; the service gets its own. */
	rl.rlim_cur = r->nofile_cur;
	rl.rlim_max = r->nofile_max;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL) < 0)
		spawn_fail(fd, STAGE_RLIMIT, errno);
	if (r->set_umask)
		syscall(SYS_umask, r->umask);
	if (r->workdir && syscall(SYS_chdir, r->workdir) < 0)
		spawn_fail(fd, STAGE_CHDIR, errno);
	if (r->set_uid && syscall(SYS_setgroups, r->ngroups, r->groups) < 0)
		spawn_fail(fd, STAGE_SETGROUPS, errno);
	if (r->set_gid && syscall(SYS_setresgid, r->gid, r->gid, r->gid) < 0)
		spawn_fail(fd, STAGE_SETGID, errno);
	if (r->set_uid && syscall(SYS_setresuid, r->uid, r->uid, r->uid) < 0)
		spawn_fail(fd, STAGE_SETUID, errno);

	/* Our blocked signals are the signalfd's, not the service's. */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
	spawn_fail(fd, STAGE_EXEC, spawn_exec(r));
}

/* Move an fd we keep for long above SPAWN_FD_LOW; the fd to use. */
int
spawn_fd_keep(int fd)
{
	int	nfd;

	if (fd < 0 || fd >= SPAWN_FD_LOW ||
	    (nfd = fcntl(fd, F_DUPFD_CLOEXEC, SPAWN_FD_LOW)) < 0)
		return fd;	/* a low limit: it works, only slower */
	close(fd);
	return nfd;
}

/* A low copy of an fd the child needs, or fd itself; *dup: to close. */
static int
spawn_fd_low(int fd, int *dup)
{
	int	nfd;

	*dup = -1;
	if (fd < SPAWN_FD_LOW || (nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return fd;
	if (nfd > fd) {
		close(nfd);
		return fd;
	}
	*dup = nfd;
	return nfd;
}

/*
 * Start the process.  0: res->pidfd is the child (res->err != 0 if it
 * could not exec; it exits with 127).  -errno: there is no child.
 */
int
spawn_start(const struct spawn_req *req, struct spawn_result *res)
{
	struct spawn_req	low = *req, *r = &low;
	struct spawn_child	c = { .req = r };
	struct spawn_report	rep;
	struct clone_args	args;
	int			errpipe[2], pidfd = -1, err, dups[4], i;
	long			pid;
	ssize_t			n;

	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return -errno;
	c.errfd = errpipe[1];
	for (i = 0; i < 3; i++)
		low.stdio[i] = spawn_fd_low(req->stdio[i], &dups[i]);
	low.ready_pipe = spawn_fd_low(req->ready_pipe, &dups[3]);
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = 0;
	if (r->cgroup_fd >= 0) {
		/* The child never runs outside its cgroup, not even briefly. */
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)r->cgroup_fd;
	}
#if defined(__x86_64__)
	if (spawn_stack != NULL) {
		/* We are suspended until it execs or dies: the child may
		 * share our fd table until it has copied what it needs. */
		args.flags |= CLONE_VM | CLONE_VFORK | CLONE_FILES;
		c.shared_fds = true;
		args.stack = (uint64_t)(uintptr_t)spawn_stack;
		args.stack_size = SPAWN_STACK;
		pid = spawn_clone3(&args, sizeof(args), spawn_child, &c);
		if (pid < 0) {
			errno = (int)-pid;
			pid = -1;
		}
	} else
#endif
	{
		/* clone(flags, stack, parent_tid: the pidfd, child_tid,
		 * tls); exit_signal 0, as above. */
		c.join_cgroup = spawn_clone3_enosys && r->cgroup_fd >= 0;
		pid = spawn_clone3_enosys ? syscall(SYS_clone, CLONE_PIDFD,
		    NULL, &pidfd, NULL, 0) : syscall(SYS_clone3, &args,
		    sizeof(args));
		if (pid == 0)
			_exit(spawn_child(&c));
	}
	err = errno;
	close(errpipe[1]);
	for (i = 0; i < 4; i++)
		if (dups[i] >= 0)
			close(dups[i]);
	if (pid < 0) {
		close(errpipe[0]);
		return -err;
	}
	do {
		n = read(errpipe[0], &rep, sizeof(rep));
	} while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	res->pidfd = pidfd;
	res->pid = (pid_t)pid;
	res->stage = 0;
	res->err = 0;
	if (n == (ssize_t)sizeof(rep)) {
		res->stage = rep.stage;
		res->err = rep.err ? rep.err : EIO;
	}
	return 0;
}
