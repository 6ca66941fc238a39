/*
 * spawn.c - start a service process.
 *
 * clone3() with CLONE_PIDFD hands us the pidfd atomically with the child:
 * there is no moment in which we know the process only by its PID.
 * CLONE_VM makes the spawn cost independent of the supervisor's own
 * size: no page tables are copied.  The child runs on a small stack of
 * its own (one per spawn in flight) and shares our memory, so it does
 * nothing but raw system calls (not even errno: that is our thread's),
 * and reports a failure through a CLOEXEC pipe: EOF on the pipe means
 * exec succeeded.
 *
 * There is no CLONE_VFORK: we do not wait for the child to reach exec.
 * On a busy machine that wait is for the child to get a CPU, and it was
 * most of our time: a status request waited behind it.  spawn_poll()
 * reads the pipe when the loop says it is readable; until it is over,
 * the child may read the spawn_proc, and what req points to must stay.
 *
 * The child shares our fd table too (CLONE_FILES), and takes a private
 * copy of only its low fds with close_range(CLOSE_RANGE_UNSHARE) before
 * it changes anything.  Without that, each spawn copied all our fds (a
 * pidfd and pipes per service) and exec closed them one by one: at
 * 10,000 services that was 1.8 ms of every spawn.  The supervisor
 * keeps the fds it holds for long above SPAWN_FD_LOW, so that those the
 * child needs are low.  Until the child has its copy, we keep the fds
 * it needs open; it says when it has them (SPAWN_HELLO), and closes the
 * low fds it does not need: we go on meanwhile, and the peer of a
 * client socket or a pipe we close must not wait for its exec to see
 * EOF.
 *
 * exit_signal is 0: a child that dies before exec sends no SIGCHLD and
 * is invisible to waitid(P_ALL).  Note that exec resets exit_signal to
 * SIGCHLD (fs/exec.c, de_thread), so a running service is visible to
 * P_ALL; reaper.c leaves every pid a service holds to its pidfd.
 *
 * A service's own oom_score_adj is written by the child before it drops
 * its credentials.  The kernel (__set_oom_adj() in fs/proc/base.c)
 * writes the value into every process that shares the writer's memory,
 * except the global init: a CLONE_VM child would write it into us too.
 * So as the global init the child writes it; anywhere else (a container,
 * a PID namespace, under another init) such a service is spawned
 * fork-style, with memory of its own.
 *
 * A child that shares our memory and then takes a service's user must
 * not be open to that user between setuid() and exec: stopped, it could
 * be traced and our memory written through it.  The kernel clears the
 * shared memory's dumpable flag when the credentials change (to
 * fs.suid_dumpable: 0 by default, or 2, "root only"), and a process
 * that is not dumpable cannot be traced or have its /proc/PID/mem
 * opened by that user.  With fs.suid_dumpable = 1 it could: then a
 * service that changes user is spawned fork-style.  (Stopping the child
 * is all that user can do: the spawn deadline ends that.)
 *
 * Where clone3 answers ENOSYS (Linux 5.2, seccomp sandboxes that refuse
 * what they cannot inspect, valgrind), the old clone(2) takes
 * CLONE_PIDFD too, fork-style; the child then joins its cgroup itself,
 * before it execs.  Without CLONE_PIDFD (before 5.2) there is no spawn.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawsys.h"
#include "sandbox.h"
#include "spawn.h"
#include "spawnint.h"
#include "svc.h"
#include "sys.h"
#include "util.h"

#define SPAWN_STACK	(64 * 1024)
#define SPAWN_MAP	(MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK)
#define SPAWN_ANON	(MAP_PRIVATE | MAP_ANONYMOUS)
#define SPAWN_ARGX	(SPAWN_ANON | MAP_NORESERVE)

static bool	spawn_vm;		/* CLONE_VM on a stack of its own */
static bool	spawn_clone3_enosys;	/* clone(2) instead */
static bool	spawn_oom_shared;	/* an oom_score_adj write reaches us */
static struct stat spawn_userns;	/* our user namespace */

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
 * Are we the global init, PID 1 of the initial PID namespace?  Its
 * /proc/self/ns/pid has the fixed inode PROC_PID_INIT_INO.
 */
bool
spawn_global_init(void)
{
	struct stat	st;

	return getpid() == 1 && stat("/proc/self/ns/pid", &st) == 0 &&
	    st.st_ino == 0xeffffffcU;
}

/* Would a child that takes a service's user be traceable by it? */
static bool
spawn_user_may_trace(void)
{
	char	buf[8];

	return read_small(AT_FDCWD, "/proc/sys/fs/suid_dumpable", buf,
	    sizeof(buf)) > 0 && buf[0] == '1';
}

/* Probe clone3 (a zero size is EINVAL where it exists). */
int
spawn_init(void)
{
	spawn_oom_shared = !spawn_global_init();
	if (stat("/proc/self/ns/user", &spawn_userns) < 0)
		memset(&spawn_userns, 0, sizeof(spawn_userns));
	spawn_clone3_enosys = syscall(SYS_clone3, NULL, 0) < 0 &&
	    errno == ENOSYS;
#if defined(__x86_64__)
	spawn_vm = !spawn_clone3_enosys;
#endif
	return 0;
}

/* A child stack, with a guard page below it; NULL if out of memory. */
static char *
spawn_stack_new(void)
{
	size_t	 len = SPAWN_STACK + 4096;
	char	*p;

	/* cppcheck-suppress invalidFunctionArg ; -1: MAP_ANONYMOUS */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, SPAWN_MAP, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p, 4096, PROT_NONE) < 0) {
		munmap(p, len);
		return NULL;
	}
	return p + 4096;
}

/*
 * Unmap the room for env files and for a command line's variables (only
 * once the child is done with them).
 */
static void
spawn_env_unmap(struct spawn_proc *p)
{
	if (p->env_map != NULL)
		munmap(p->env_map, p->env_maplen);
	p->env_map = NULL;
	p->env_maplen = 0;
	memset(&p->env, 0, sizeof(p->env));
	if (p->argx_map != NULL)
		munmap(p->argx_map, p->argx_maplen);
	p->argx_map = NULL;
	p->argx_maplen = 0;
	memset(&p->argx, 0, sizeof(p->argx));
}

/*
 * Room for the child to expand the variables of its command line into
 * (env_expand_argv), once its env files are read: each value is at most
 * the environment we give it and what the files may add.  Mapped: only
 * what is written is taken.  0, or -ENOMEM.
 */
static int
spawn_argx_map(struct spawn_proc *p, const struct spawn_req *req)
{
	size_t	maxval = req->env_files ? ENV_FILES_MAX : 0, i, cap, len, ptrs,
		maplen;
	char	*m;

	for (i = 0; req->envp && req->envp[i]; i++)
		maxval += strlen(req->envp[i]);
	env_expand_room(req->argv, maxval, &cap, &len);
	ptrs = cap * sizeof(char *);
	maplen = (ptrs + len + 4095) & ~(size_t)4095;
	/* cppcheck-suppress invalidFunctionArg ; -1: MAP_ANONYMOUS */
	m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, SPAWN_ARGX, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	p->argx_map = m;
	p->argx_maplen = maplen;
	p->argx.argv = (char **)(void *)m;
	p->argx.cap = cap;
	p->argx.buf = m + ptrs;
	p->argx.buflen = len;
	return 0;
}

/*
 * Room for the child to read env files into: the environment's
 * pointers, with room for ENV_FILE_VARS more, then the files' text.
 * Mapped, not allocated: only the pages the child writes are ever
 * taken.  0, or -ENOMEM.
 */
static int
spawn_env_map(struct spawn_proc *p, const struct spawn_req *req)
{
	size_t	nenv = 0, nfiles = 0, ptrs, len;
	char	*m;

	while (req->envp[nenv] != NULL)
		nenv++;
	while (req->env_files[nfiles] != NULL)
		nfiles++;
	ptrs = (nenv + ENV_FILE_VARS + 1) * sizeof(char *);
	len = ptrs + ENV_LOAD_BUF(nfiles);
	len = (len + 4095) & ~(size_t)4095;
	/* cppcheck-suppress invalidFunctionArg ; -1: MAP_ANONYMOUS */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, SPAWN_ANON, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	p->env_map = m;
	p->env_maplen = len;
	p->env.files = req->env_files;
	p->env.envp = (char **)(void *)m;
	memcpy(p->env.envp, req->envp, nenv * sizeof(char *));
	p->env.nenv = nenv;
	p->env.cap = nenv + ENV_FILE_VARS;
	p->env.buf = m + ptrs;
	p->env.buflen = ENV_LOAD_BUF(nfiles);
	p->env.owner = req->env_owner;
	return 0;
}

/* Give back the stack of a spawn whose child is gone or has exec'd. */
void
spawn_proc_free(struct spawn_proc *p)
{
	spawn_release(p);
	spawn_env_unmap(p);
	if (p->stack != NULL)
		munmap(p->stack - 4096, SPAWN_STACK + 4096);
	p->stack = NULL;
}

/*
 * The child has exec'd or is dead: forget the spawn and what it read
 * (its env files); the stack stays for the next.
 */
void
spawn_end(struct spawn_proc *p)
{
	spawn_release(p);
	spawn_env_unmap(p);
}

/*
 * Move an fd we keep for long above SPAWN_FD_LOW; the fd to use.  It is
 * not close-on-exec: no child gets it (each closes what it does not
 * need, spawn_child()), and our own exec, a re-exec, passes it on
 * without a call per fd then (reexec.c).
 */
int
spawn_fd_keep(int fd)
{
	int	nfd;

	if (fd < 0)
		return fd;
	if (fd >= SPAWN_FD_LOW || (nfd = fcntl(fd, F_DUPFD, SPAWN_FD_LOW)) < 0) {
		fcntl(fd, F_SETFD, 0);	/* a low limit: it works, slower */
		return fd;
	}
	close(fd);
	return nfd;
}

/* A low copy of an fd the child needs (to close later), or fd itself. */
static int
spawn_fd_low(struct spawn_proc *p, int fd)
{
	int	nfd;

	if (fd < SPAWN_FD_LOW || (nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return fd;
	if (nfd > fd) {
		close(nfd);
		return fd;
	}
	p->keep[p->nkeep++] = nfd;
	return nfd;
}

/* Close the fds the child needed from us. */
static void
spawn_close_keep(struct spawn_proc *p)
{
	while (p->nkeep > 0)
		close(p->keep[--p->nkeep]);
}

void
spawn_proc_init(struct spawn_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->errfd = p->wfd = -1;
	p->ns = SPAWN_NS_NONE;
}

/*
 * Start the process: 0 with res->pidfd, the child, which goes on by
 * itself; watch p->errfd and call spawn_poll().  -errno: there is no
 * child.  Either way, req->ready_pipe is ours to close.
 */
int
spawn_start(struct spawn_proc *p, const struct spawn_req *req,
    struct spawn_result *res)
{
	struct spawn_req	*r = &p->req;
	struct clone_args	 args;
	int			 errpipe[2], pidfd = -1, err, i;
	long			 pid;
	bool			 vm;

	p->req = *req;
	if (req->npass > SPAWN_PASS_MAX) {
		if (req->ready_pipe >= 0)
			close(req->ready_pipe);
		return -EMFILE;
	}
	if (req->npass > 0) {		/* the child reads them from here */
		memcpy(p->pass, req->pass, (size_t)req->npass * sizeof(int));
		r->pass = p->pass;
	}
	if (req->set_oom_score_adj)
		snprintf(p->oom_adj, sizeof(p->oom_adj), "%d",
		    req->oom_score_adj);
	/* Memory of its own where its oom_score_adj would be ours too, or
	 * where its user could trace it before exec. */
	vm = spawn_vm && !(req->set_oom_score_adj && spawn_oom_shared) &&
	    !((req->set_uid || req->set_gid) && spawn_user_may_trace());
	p->nkeep = 0;
	p->over = false;
	p->stage = p->err = 0;
	if (req->ready_pipe >= 0)
		p->keep[p->nkeep++] = req->ready_pipe;
	spawn_env_unmap(p);
	if ((req->env_files != NULL && spawn_env_map(p, req) < 0) ||
	    (req->fn == NULL && env_argv_has_vars(req->argv) &&
	    spawn_argx_map(p, req) < 0)) {
		spawn_env_unmap(p);
		spawn_close_keep(p);
		return -ENOMEM;
	}
	/* A socket where the child passes us its namespaces' fds. */
	p->errsock = req->ns_keep && req->sb != NULL &&
	    req->sb->clone_flags != 0 && !spawn_ns_any(&req->ns);
	p->ns = SPAWN_NS_NONE;
	if ((p->errsock ? socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0, errpipe) : pipe2(errpipe, O_CLOEXEC |
	    O_NONBLOCK)) < 0) {
		err = errno;
		spawn_close_keep(p);
		return -err;
	}
	p->errfd = errpipe[0];
	p->keep[p->nkeep++] = p->wfd = errpipe[1];
	for (i = 0; i < 3; i++)
		r->stdio[i] = spawn_fd_low(p, req->stdio[i]);
	r->ready_pipe = spawn_fd_low(p, req->ready_pipe);
	if (r->exec_at)
		r->exec_fd = spawn_fd_low(p, req->exec_fd);
	if (r->sb == NULL || r->sb->clone_flags == 0)
		r->ns = SPAWN_NS_NONE;
	r->ns.mnt = spawn_fd_low(p, r->ns.mnt);
	r->ns.net = spawn_fd_low(p, r->ns.net);
	r->ns.root = spawn_fd_low(p, r->ns.root);
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = 0;
	if (r->sb != NULL && !spawn_ns_any(&r->ns))
		args.flags |= r->sb->clone_flags;
	if (r->cgroup_fd >= 0) {
		/* The child never runs outside its cgroup, not even briefly. */
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)r->cgroup_fd;
	}
	p->shared_fds = vm;
	p->join_cgroup = spawn_clone3_enosys && r->cgroup_fd >= 0;
	if (vm && p->stack == NULL && (p->stack = spawn_stack_new()) == NULL) {
		pid = -1;
		errno = ENOMEM;
	} else if (vm) {
#if defined(__x86_64__)
		args.flags |= CLONE_VM | CLONE_FILES;
		args.stack = (uint64_t)(uintptr_t)p->stack;
		args.stack_size = SPAWN_STACK;
		pid = spawn_clone3(&args, sizeof(args), spawn_child, p);
		if (pid < 0) {
			errno = (int)-pid;
			pid = -1;
		}
#else
		pid = -1;
		errno = ENOSYS;
#endif
	} else {
		/* clone(flags, stack, parent_tid: the pidfd, child_tid,
		 * tls); exit_signal 0, as above. */
		pid = spawn_clone3_enosys ? syscall(SYS_clone, CLONE_PIDFD |
		    (args.flags & (CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS)),
		    NULL, &pidfd,
		    NULL, 0) :
		    syscall(SYS_clone3, &args,
		    sizeof(args));
		if (pid == 0)
			_exit(spawn_child(p));
	}
	if (pid < 0) {
		err = errno;
		spawn_release(p);
		return -err;
	}
	if (!p->shared_fds)
		spawn_close_keep(p);	/* it has copies of its own */
	res->pidfd = pidfd;
	res->pid = (pid_t)pid;
	return 0;
}

/* Close what ns holds. */
void
spawn_ns_close(struct spawn_ns *ns)
{
	if (ns->mnt >= 0)
		close(ns->mnt);
	if (ns->net >= 0)
		close(ns->net);
	if (ns->root >= 0)
		close(ns->root);
	*ns = SPAWN_NS_NONE;
}

bool
spawn_ns_any(const struct spawn_ns *ns)
{
	return ns->mnt >= 0 || ns->net >= 0 || ns->root >= 0;
}

/* Is the namespace of fd owned by our user namespace? */
static bool
spawn_ns_ours(int fd)
{
	struct stat	st;
	int		ufd;
	bool		ours;

	if (fd < 0)
		return true;
	if ((ufd = ioctl(fd, NS_GET_USERNS)) < 0)
		return false;
	ours = fstat(ufd, &st) == 0 && st.st_ino == spawn_userns.st_ino &&
	    st.st_dev == spawn_userns.st_dev;
	close(ufd);
	return ours;
}

/*
 * Take the namespaces the child of an exec'd spawn told (its ns_keep)
 * into *ns, in place of what it held, kept above SPAWN_FD_LOW.  Only
 * namespaces of our own user namespace: -EPERM if one is another's
 * (then none is taken).
 */
int
spawn_ns_take(struct spawn_proc *p, struct spawn_ns *ns)
{
	spawn_ns_close(ns);
	if (!spawn_ns_ours(p->ns.mnt) || !spawn_ns_ours(p->ns.net)) {
		spawn_ns_close(&p->ns);
		return -EPERM;
	}
	ns->mnt = spawn_fd_keep(p->ns.mnt);
	ns->net = spawn_fd_keep(p->ns.net);
	ns->root = spawn_fd_keep(p->ns.root);
	p->ns = SPAWN_NS_NONE;
	return 0;
}

/*
 * One report of the child, as read(2) returns; on a socket, the fds of
 * a SPAWN_NS into p->ns (others are closed).
 */
static ssize_t
spawn_recv(struct spawn_proc *p, struct spawn_report *rep)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(3 * sizeof(int))];
	}		 u;
	int		*slot[3] = { &p->ns.mnt, &p->ns.net, &p->ns.root };
	int		 fds[3], nfd = 0, i, k = 0;
	struct iovec	 iov = { rep, sizeof(*rep) };
	struct msghdr	 msg;
	struct cmsghdr	*c;
	ssize_t		 n;

	if (!p->errsock)
		return read(p->errfd, rep, sizeof(*rep));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if ((n = recvmsg(p->errfd, &msg, MSG_CMSG_CLOEXEC)) < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    nfd == 0) {
			nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			nfd = nfd > 3 ? 3 : nfd;
			memcpy(fds, CMSG_DATA(c), (size_t)nfd * sizeof(int));
		}
	if (n == (ssize_t)sizeof(*rep) && rep->stage == SPAWN_NS)
		for (i = 0; i < 3; i++) {
			if (!(rep->at >> i & 1) || k >= nfd)
				continue;
			if (*slot[i] >= 0)
				close(*slot[i]);
			*slot[i] = fds[k++];
		}
	while (k < nfd)
		close(fds[k++]);
	return n;
}

/*
 * Read what the child said.  1: it is over; p->err is 0 if it exec'd,
 * else the errno of its failure at p->stage.  0: not yet, or it died
 * before it could say (see spawn_release()).
 */
int
spawn_poll(struct spawn_proc *p)
{
	struct spawn_report	rep;
	ssize_t			n;

	while (!p->over && p->errfd >= 0) {
		n = spawn_recv(p, &rep);
		if (n == (ssize_t)sizeof(rep) && rep.stage == SPAWN_HELLO) {
			spawn_close_keep(p);
		} else if (n == (ssize_t)sizeof(rep) && rep.stage == SPAWN_NS) {
			continue;	/* spawn_recv() took its fds */
		} else if (n == (ssize_t)sizeof(rep)) {
			p->stage = rep.stage;
			p->at = rep.at;
			p->err = rep.err ? rep.err : EIO;
			p->fail = rep.fail;
		} else if (n == 0) {
			p->over = true;
		} else if (n > 0) {
			p->stage = STAGE_EXEC;	/* small writes are whole */
			p->err = EIO;
		} else if (errno != EINTR) {
			return 0;
		}
	}
	return p->over;
}

/* Wait until it is over, or pidfd says that the child died. */
int
spawn_wait(struct spawn_proc *p, int pidfd)
{
	struct pollfd	pfd[2] = {
		{ .fd = p->errfd, .events = POLLIN },
		{ .fd = pidfd, .events = POLLIN },
	};

	while (!spawn_poll(p) && p->errfd >= 0) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents) {
			spawn_poll(p);
			break;
		}
	}
	return 0;
}

/*
 * Forget the spawn: only once it is over, or once the child is dead (it
 * no longer runs on its stack; what it said is read first).
 */
void
spawn_release(struct spawn_proc *p)
{
	spawn_close_keep(p);
	spawn_ns_close(&p->ns);
	if (p->errfd >= 0)
		close(p->errfd);
	p->errfd = p->wfd = -1;
}
