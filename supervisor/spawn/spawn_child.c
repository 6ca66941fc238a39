/*
 * spawn_child.c - the child of a spawn, from clone to exec: its own fds,
 * session and terminal, standard fds and passed fds, oom_score_adj,
 * namespaces and
 * mounts (sandbox_child.c), limits, credentials, env files, then exec.
 * It runs on its spawn stack in our memory (spawn.c says why): raw
 * system calls only, no errno, no malloc, no locks; a failure is told
 * to the parent through the report pipe, by stage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <linux/vt.h>
#include <signal.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "sandbox.h"
#include "spawn.h"
#include "spawnint.h"
#include "svc.h"
#include "sys.h"
#include "util.h"

/*
 * The signals pidvisor catches (sup.c's signalfd set, pid1.c's crash
 * handler): a child puts them back to SIG_DFL before it unblocks.
 */
static const int spawn_caught[] = {
	SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGPWR, SIGWINCH,
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS,
};

/* The kernel's struct sigaction, for rt_sigaction(2) without libc. */
struct ksigaction {
	void		(*handler)(int);
	unsigned long	  flags;
	void		(*restorer)(void);
	uint64_t	  mask;
};

/* Child: tell the parent something (raw: no errno of ours). */
CHILD static void
spawn_tell(int fd, int stage, int err, int at)
{
	struct spawn_report	rep;

	memset(&rep, 0, sizeof(rep));
	rep.stage = stage;
	rep.err = err;
	rep.at = at;
	SYS(SYS_write, fd, &rep, sizeof(rep));
}

/*
 * Child: tell the parent the namespaces it was given (fds, whichever are
 * there), as SPAWN_NS with their mask in at: bit 0 mnt, 1 net, 2 root.
 */
CHILD static long
spawn_tell_ns(int fd, const struct spawn_ns *ns)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(3 * sizeof(int))];
	}			 u;
	const int		 have[3] = { ns->mnt, ns->net, ns->root };
	struct spawn_report	 rep;
	struct iovec		 iov = { &rep, sizeof(rep) };
	struct msghdr		 msg;
	struct cmsghdr		*c;
	int			 fds[3], n = 0, i;

	memset(&rep, 0, sizeof(rep));
	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	rep.stage = SPAWN_NS;
	for (i = 0; i < 3; i++)
		if (have[i] >= 0) {
			fds[n++] = have[i];
			rep.at |= 1 << i;
		}
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (n > 0) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
	}
	return SYS(SYS_sendmsg, fd, &msg, MSG_NOSIGNAL);
}

/*
 * Child, in the namespaces it was cloned with and before it changes
 * them: fds of those, for the parent (spawn_tell_ns).
 */
CHILD static long
spawn_ns_open(const struct sandbox *sb, struct spawn_ns *ns)
{
	long	rc;

	if ((sb->clone_flags & CLONE_NEWNS) && (rc = SYS(SYS_openat,
	    AT_FDCWD, "/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		return rc;
	ns->mnt = (sb->clone_flags & CLONE_NEWNS) ? (int)rc : -1;
	if ((sb->clone_flags & CLONE_NEWNET) && (rc = SYS(SYS_openat,
	    AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return rc;
	ns->net = (sb->clone_flags & CLONE_NEWNET) ? (int)rc : -1;
	return 0;
}

/* Child: join the namespaces a hook runs in. */
CHILD static long
spawn_join(const struct spawn_ns *ns)
{
	long	rc;

	if (ns->mnt >= 0 && (rc = SYS(SYS_setns, ns->mnt, CLONE_NEWNS)) < 0)
		return rc;
	if (ns->net >= 0 && (rc = SYS(SYS_setns, ns->net, CLONE_NEWNET)) < 0)
		return rc;
	return 0;
}

/* Child: report where and why we failed (at: which op), then exit. */
__attribute__((noreturn)) CHILD static void
spawn_fail_at(int fd, int stage, int at, long err)
{
	spawn_tell(fd, stage, (int)-err, at);
	SYS(SYS_exit_group, 127);
	__builtin_unreachable();
}

/* Child: report where and why we failed, then exit. */
__attribute__((noreturn)) CHILD static void
spawn_fail(int fd, int stage, long err)
{
	spawn_fail_at(fd, stage, 0, err);
}

/*
 * Child: an op of the mount plan failed (at: which); if a symlink owned
 * by uid was not followed, say whose (as an env file's), then exit.
 */
__attribute__((noreturn)) CHILD static void
spawn_fail_mount(int fd, int at, long err, int32_t uid)
{
	struct spawn_report	rep;

	memset(&rep, 0, sizeof(rep));
	rep.stage = STAGE_MOUNT;
	rep.err = (int32_t)-err;
	rep.at = at;
	if (uid >= 0) {
		rep.fail.what = ENV_SYMLINK;
		rep.fail.uid = uid;
	}
	SYS(SYS_write, fd, &rep, sizeof(rep));
	SYS(SYS_exit_group, 127);
	__builtin_unreachable();
}

/* Child: an env file is wrong; say which, where and what, then exit. */
__attribute__((noreturn)) CHILD static void
spawn_fail_env(int fd, const struct env_fail *f)
{
	struct spawn_report	rep;

	memset(&rep, 0, sizeof(rep));
	rep.stage = STAGE_ENV_FILE;
	rep.err = f->what == ENV_ERRNO && f->err ? f->err : EINVAL;
	rep.fail = *f;
	SYS(SYS_write, fd, &rep, sizeof(rep));
	SYS(SYS_exit_group, 1);
	__builtin_unreachable();
}

/* Child: execve argv[0] with envp, searching path like execvp but
 * without malloc; -errno. */
CHILD static long
spawn_exec(char *const *argv, char *const *envp, const char *path)
{
	const char	*file = argv[0], *p = path, *end;
	char		 buf[4096];
	size_t		 flen = strlen(file), dlen;
	long		 err = -ENOENT;
	bool		 eacces = false;

	if (strchr(file, '/') != NULL)
		return SYS(SYS_execve, file, argv, envp);
	while (*p) {
		end = strchr(p, ':');
		dlen = end ? (size_t)(end - p) : strlen(p);
		if (dlen + flen + 2 <= sizeof(buf)) {
			memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
			if (dlen == 0)
				dlen = 1;
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen + 1);
			err = SYS(SYS_execve, buf, argv, envp);
			if (err == -EACCES)
				eacces = true;
			else if (err != -ENOENT && err != -ENOTDIR &&
			    err != -ESTALE)
				return err;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return eacces ? -EACCES : err;
}

/*
 * Child, sharing our fd table: take a private copy of the fds up to top,
 * then close all of them but those in need[] (see the top of the file).
 */
CHILD static long
spawn_own_fds(int *need, int n, int top)
{
	long	rc;
	int	i, j, x, lo = 3;

	if (SYS(SYS_close_range, top + 1, ~0U, CLOSE_RANGE_UNSHARE) < 0) {
		/* Before Linux 5.9: a copy of all of it. */
		if ((rc = SYS(SYS_unshare, CLONE_FILES)) < 0)
			return rc;
		SYS(SYS_close_range, top + 1, ~0U, 0);
	}
	for (i = 1; i < n; i++)		/* a handful: insertion sort */
		for (j = i; j > 0 && need[j - 1] > need[j]; j--) {
			x = need[j];
			need[j] = need[j - 1];
			need[j - 1] = x;
		}
	for (i = 0; i < n; i++) {
		if (need[i] < lo)
			continue;
		if (need[i] > lo)
			SYS(SYS_close_range, lo, need[i] - 1, 0);
		lo = need[i] + 1;
	}
	if (lo <= top)
		SYS(SYS_close_range, lo, top, 0);
	return 0;
}

/*
 * Child: put the passed fds at 3, 4, ...  The fds we still need (*fd our
 * error pipe, the readiness pipe, exec's file, the namespaces to join)
 * and passed fds that sit where another one goes move above the range
 * first; the dups are close-on-exec, the originals are overwritten or
 * closed at exec.
 */
CHILD static long
spawn_pass(const struct spawn_req *r, int *fd, int *ready, int *exec_fd,
    struct spawn_ns *ns)
{
	int	*own[6] = { fd, ready, exec_fd, &ns->mnt, &ns->net, &ns->root };
	int	 src[SPAWN_PASS_MAX], end = 3 + r->npass, i;
	long	 rc;

	for (i = 0; i < 6; i++) {
		if (*own[i] < 3 || *own[i] >= end)
			continue;
		if ((rc = SYS(SYS_fcntl, *own[i], F_DUPFD_CLOEXEC, end)) < 0)
			return rc;
		*own[i] = (int)rc;
	}
	for (i = 0; i < r->npass; i++) {
		src[i] = r->pass[i];
		if (src[i] >= end || src[i] == 3 + i)
			continue;
		if ((rc = SYS(SYS_fcntl, src[i], F_DUPFD_CLOEXEC, end)) < 0)
			return rc;
		src[i] = (int)rc;
	}
	for (i = 0; i < r->npass; i++) {
		rc = src[i] == 3 + i ? SYS(SYS_fcntl, src[i], F_SETFD, 0) :
		    SYS(SYS_dup3, src[i], 3 + i, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Child, first: fds of its own (a copy of ours, if it shares our table),
 * with the error pipe off the readiness fd's number; the error pipe's fd.
 */
CHILD static int
spawn_child_own(const struct spawn_proc *p, const struct spawn_ns *ns)
{
	const struct spawn_req	*r = &p->req;
	int			 fd = p->wfd, i, top = fd, n = 0;
	int			 need[9 + SPAWN_PASS_MAX];
	long			 rc;

	if (p->shared_fds) {
		for (i = 0; i < r->npass; i++)
			if ((need[n++] = r->pass[i]) > top)
				top = r->pass[i];
		need[n++] = fd;
		for (i = 0; i < 3; i++)
			if ((need[n++] = r->stdio[i]) > top)
				top = r->stdio[i];
		if ((need[n++] = r->ready_pipe) > top)
			top = r->ready_pipe;
		if (r->exec_at && (need[n++] = r->exec_fd) > top)
			top = r->exec_fd;
		if (ns->mnt >= 0 && (need[n++] = ns->mnt) > top)
			top = ns->mnt;
		if (ns->net >= 0 && (need[n++] = ns->net) > top)
			top = ns->net;
		if (ns->root >= 0 && (need[n++] = ns->root) > top)
			top = ns->root;
		if ((rc = spawn_own_fds(need, n, top)) < 0)
			spawn_fail(fd, STAGE_FDS, rc);
		spawn_tell(fd, SPAWN_HELLO, 0, 0);
	}
	/* The readiness fd's number may be where our error pipe is. */
	if (r->ready_pipe >= 0 && fd == r->ready_fd) {
		if ((rc = SYS(SYS_fcntl, fd, F_DUPFD_CLOEXEC, fd + 1)) < 0)
			spawn_fail(fd, STAGE_FDS, rc);
		fd = (int)rc;
	}
	return fd;
}

/* Child: its cgroup (where clone3 could not put it), its session. */
CHILD static void
spawn_child_session(const struct spawn_proc *p, int fd)
{
	long	rc;
	int	cfd;

	if (p->join_cgroup) {
		/* Writing 0 to cgroup.procs moves the writer. */
		if ((rc = SYS(SYS_openat, p->req.cgroup_fd, "cgroup.procs",
		    O_WRONLY | O_CLOEXEC)) < 0)
			spawn_fail(fd, STAGE_CGROUP, rc);
		cfd = (int)rc;
		if ((rc = SYS(SYS_write, cfd, "0", 1)) < 0)
			spawn_fail(fd, STAGE_CGROUP, rc);
		SYS(SYS_close, cfd);
	}
	if ((rc = SYS(SYS_setsid)) < 0)
		spawn_fail(fd, STAGE_SETSID, rc);
}

/*
 * Child: a terminal's modes made sane (as a login expects them: canonical
 * input with echo, CR read as NL, NL written as CR NL), its exclusive
 * mode and unread input gone.  Best effort, as each ioctl may not apply
 * (a serial line has no keyboard mode).  TCGETS fills the kernel's
 * struct termios, the start of libc's.
 */
CHILD static void
spawn_tty_reset(int t)
{
	static const struct { int i; cc_t c; } cc[] = {
		{ VINTR, 003 }, { VQUIT, 034 }, { VERASE, 0177 },
		{ VKILL, 025 }, { VEOF, 004 }, { VSTART, 021 },
		{ VSTOP, 023 }, { VSUSP, 032 }, { VLNEXT, 026 },
		{ VWERASE, 027 }, { VREPRINT, 022 }, { VEOL, 0 },
		{ VEOL2, 0 }, { VTIME, 0 }, { VMIN, 1 },
	};
	struct termios	tio = { 0 };
	size_t		i;

	SYS(SYS_ioctl, t, TIOCNXCL);
	SYS(SYS_ioctl, t, KDSKBMODE, K_UNICODE);
	if (SYS(SYS_ioctl, t, TCGETS, &tio) == 0) {
		tio.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | ISTRIP | INLCR |
		    IGNCR | IUCLC);
		tio.c_iflag |= ICRNL | IMAXBEL | IUTF8;
		tio.c_oflag |= ONLCR | OPOST;
		tio.c_cflag |= CREAD;
		tio.c_lflag = ISIG | ICANON | IEXTEN | ECHO | ECHOE | ECHOK |
		    ECHOCTL | ECHOKE;
		for (i = 0; i < ARRAY_SIZE(cc); i++)
			tio.c_cc[cc[i].i] = cc[i].c;
		SYS(SYS_ioctl, t, TCSETS, &tio);
	}
	SYS(SYS_ioctl, t, TCFLSH, TCIOFLUSH);
}

/*
 * Child, with no fd of its own open on it: a virtual console (/dev/ttyN)
 * given back, so that what the last user left on it goes; one that
 * cannot be (the one on screen, or not a console) is cleared, its
 * scrollback too.
 */
CHILD static void
spawn_tty_vt(const char *path)
{
	static const char	clear[] = "\033[r\033[H\033[3J";
	const char		*s = path + 8;
	unsigned long		 n = 0;
	long			 c;

	if (strncmp(path, "/dev/tty", 8) == 0 && *s != '\0') {
		for (; *s >= '0' && *s <= '9' && n < 64; s++)
			n = n * 10 + (unsigned long)(*s - '0');
		if (*s == '\0' && n >= 1 && n < 64 && (c = SYS(SYS_openat,
		    AT_FDCWD, "/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC |
		    O_NONBLOCK)) >= 0) {
			n = SYS(SYS_ioctl, (int)c, VT_DISALLOCATE, n) == 0;
			SYS(SYS_close, (int)c);
			if (n)
				return;
		}
	}
	if ((c = SYS(SYS_openat, AT_FDCWD, path, O_WRONLY | O_NOCTTY |
	    O_CLOEXEC | O_NONBLOCK)) >= 0) {
		SYS(SYS_write, (int)c, clear, sizeof(clear) - 1);
		SYS(SYS_close, (int)c);
	}
}

/*
 * Child, after its setsid: its terminal (tty), reset, hung up and its VT
 * given back first as asked, then opened again to be its controlling
 * terminal and its 0, 1 and 2.  A terminal that is another session's is
 * taken from it (SPAWN_TTY_STEAL), a failure (SPAWN_TTY_FAIL), or waited
 * for: each close of it by anyone may have freed it.  Our fd stays open
 * meanwhile, so that our own tries wake nothing; a hang is the start's
 * deadline's.
 */
CHILD static void
spawn_child_tty(const struct spawn_req *r, int fd)
{
	const int	 how = O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	char		 ev[256];
	long		 rc;
	int		 t, in = -1, i;

	if (r->tty == NULL)
		return;
	if (r->tty_flags & (SPAWN_TTY_RESET | SPAWN_TTY_VHANGUP |
	    SPAWN_TTY_VT)) {
		if ((rc = SYS(SYS_openat, AT_FDCWD, r->tty, how)) < 0)
			spawn_fail(fd, STAGE_TTY, rc);
		t = (int)rc;
		if (r->tty_flags & SPAWN_TTY_RESET)
			spawn_tty_reset(t);
		if (r->tty_flags & SPAWN_TTY_VHANGUP)
			SYS(SYS_ioctl, t, TIOCVHANGUP);
		SYS(SYS_close, t);
		if (r->tty_flags & SPAWN_TTY_VT)
			spawn_tty_vt(r->tty);
	}
	if ((rc = SYS(SYS_openat, AT_FDCWD, r->tty, how)) < 0)
		spawn_fail(fd, STAGE_TTY, rc);
	t = (int)rc;
	while ((rc = SYS(SYS_ioctl, t, TIOCSCTTY,
	    (r->tty_flags & SPAWN_TTY_STEAL) != 0)) < 0) {
		if (rc != -EPERM || (r->tty_flags & SPAWN_TTY_FAIL))
			spawn_fail(fd, STAGE_TTY, rc);
		if (in >= 0) {
			SYS(SYS_read, in, ev, sizeof(ev));
			continue;
		}
		/* The watch first, then one more try: no close is missed. */
		if ((rc = SYS(SYS_inotify_init1, IN_CLOEXEC)) < 0)
			spawn_fail(fd, STAGE_TTY, rc);
		in = (int)rc;
		if ((rc = SYS(SYS_inotify_add_watch, in, r->tty, IN_CLOSE)) < 0)
			spawn_fail(fd, STAGE_TTY, rc);
	}
	if (in >= 0)
		SYS(SYS_close, in);
	SYS(SYS_fcntl, t, F_SETFL, O_RDWR);	/* blocking again */
	for (i = 0; i < 3; i++)
		if ((rc = SYS(SYS_dup3, t, i, 0)) < 0)
			spawn_fail(fd, STAGE_TTY, rc);
	SYS(SYS_close, t);
}

/*
 * Child: standard input, output and error (/dev/null, the log pipes),
 * the passed fds at 3, 4, ..., the readiness fd; only those survive
 * exec (conf.c keeps the readiness fd above the passed ones).  What it
 * holds moves out of their way: *fd, *ready_pipe, *exec_fd, *ns.
 */
CHILD static void
spawn_child_fds(const struct spawn_req *r, int *fd, int *ready_pipe,
    int *exec_fd, struct spawn_ns *ns)
{
	long	rc;
	int	i;

	for (i = 0; i < 3 && r->tty == NULL; i++)
		if (r->stdio[i] >= 0 && r->stdio[i] != i &&
		    (rc = SYS(SYS_dup3, r->stdio[i], i, 0)) < 0)
			spawn_fail(*fd, STAGE_FDS, rc);
	if (r->npass > 0 && (rc = spawn_pass(r, fd, ready_pipe, exec_fd,
	    ns)) < 0)
		spawn_fail(*fd, STAGE_FDS, rc);
	if (*ready_pipe < 0) {
		SYS(SYS_close_range, 3 + r->npass, ~0U, CLOSE_RANGE_CLOEXEC);
		return;
	}
	if (*ready_pipe == r->ready_fd) {
		if ((rc = SYS(SYS_fcntl, r->ready_fd, F_SETFD, 0)) < 0)
			spawn_fail(*fd, STAGE_FDS, rc);
	} else if ((rc = SYS(SYS_dup3, *ready_pipe, r->ready_fd, 0)) < 0) {
		spawn_fail(*fd, STAGE_FDS, rc);
	}
	if (r->ready_fd > 3 + r->npass)
		SYS(SYS_close_range, 3 + r->npass, r->ready_fd - 1,
		    CLOSE_RANGE_CLOEXEC);
	SYS(SYS_close_range, r->ready_fd + 1, ~0U, CLOSE_RANGE_CLOEXEC);
}

/*
 * Child: its oom_score_adj, from our own namespaces, before it joins or
 * makes any (there /proc may not be ours), and before the credentials
 * change (lowering it takes privilege).
 */
CHILD static void
spawn_child_oom(const struct spawn_proc *p, int fd)
{
	long	rc;
	int	ofd;

	if (!p->req.set_oom_score_adj)
		return;
	if ((rc = SYS(SYS_openat, AT_FDCWD, "/proc/self/oom_score_adj",
	    O_WRONLY | O_CLOEXEC)) < 0)
		spawn_fail(fd, STAGE_OOM_SCORE_ADJ, rc);
	ofd = (int)rc;
	rc = SYS(SYS_write, ofd, p->oom_adj, strlen(p->oom_adj));
	SYS(SYS_close, ofd);
	if (rc < 0)
		spawn_fail(fd, STAGE_OOM_SCORE_ADJ, rc);
}

/*
 * Child: what it may not do: its mounts, network, scheduling (sandbox.c);
 * its new root's fd, or -1.  A hook, a check: in the namespaces its main
 * process was given at its spawn (held by fd), never in one that process
 * made since; with none held (no main process now), in namespaces of its
 * own, as the main's were.  After a join nothing is looked up by path
 * until it has the service's credentials.
 */
CHILD static int
spawn_child_sandbox(const struct spawn_req *r, int fd, struct spawn_ns *ns)
{
	const struct sandbox	*sb = r->sb;
	struct spawn_ns		 mine = SPAWN_NS_NONE;
	int			 root = -1, i;
	int32_t			 uid;
	long			 rc;

	if (sb == NULL)
		return -1;
	if (spawn_ns_any(ns)) {
		if ((rc = spawn_join(ns)) < 0)
			spawn_fail_at(fd, STAGE_MOUNT, -1, rc);
		root = ns->root;
	} else {
		/* Kept (for the hooks to join) only if made: the parent
		 * listens on a socket for them then, else on a pipe. */
		bool	keep = r->ns_keep && sb->clone_flags != 0;

		if (keep && (rc = spawn_ns_open(sb, &mine)) < 0)
			spawn_fail_at(fd, STAGE_MOUNT, -1, rc);
		if ((rc = sandbox_child_mounts(sb, r->env_owner, &i, &uid,
		    &root)) < 0)
			spawn_fail_mount(fd, i, rc, uid);
		if ((rc = sandbox_child_net(sb)) < 0)
			spawn_fail(fd, STAGE_NETWORK, rc);
		if (sb->root != NULL && root < 0 && (rc = root =
		    (int)sandbox_child_root_open(sb, r->env_owner)) < 0)
			spawn_fail(fd, STAGE_ROOT, rc);
		mine.root = root;
		if (keep && (rc = spawn_tell_ns(fd, &mine)) < 0)
			spawn_fail(fd, STAGE_FDS, rc);
	}
	if ((rc = sandbox_child_sched(sb, &i)) < 0)
		spawn_fail_at(fd, i < 0 ? STAGE_LIMIT : STAGE_LIMIT + i,
		    i < 0 ? -1 - i : 0, rc);
	return root;
}

/* Child: WATCHDOG_PID, LISTEN_PID: the child alone knows its PID. */
CHILD static void
spawn_child_pid(const struct spawn_req *r)
{
	char	digits[12];
	long	pid = SYS(SYS_getpid);
	int	i, n = 0;

	if (!r->pid_slot && !r->listen_slot)
		return;
	do {
		digits[n++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid > 0 && n < (int)sizeof(digits));
	for (i = 0; i < n; i++) {
		if (r->pid_slot)
			r->pid_slot[i] = digits[n - 1 - i];
		if (r->listen_slot)
			r->listen_slot[i] = digits[n - 1 - i];
	}
	if (r->pid_slot)
		r->pid_slot[n] = '\0';
	if (r->listen_slot)
		r->listen_slot[n] = '\0';
}

/*
 * Child: its limit of open files (ours was raised for our own fds), its
 * umask, root, capabilities and credentials, then its workdir, entered
 * as the service, as systemd does: a directory only its user may enter
 * (on NFS, say) is entered.
 */
CHILD static void
spawn_child_creds(const struct spawn_req *r, int fd, int root)
{
	const struct sandbox	*sb = r->sb;
	bool			 user = r->set_uid && r->uid != 0;
	struct rlimit		 rl;
	long			 rc;

	rl.rlim_cur = r->nofile_cur;
	rl.rlim_max = r->nofile_max;
	if ((rc = SYS(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL)) < 0)
		spawn_fail(fd, STAGE_RLIMIT, rc);
	spawn_child_pid(r);
	if (r->set_umask)
		SYS(SYS_umask, r->umask);
	if (root >= 0 && (rc = sandbox_child_chroot(root)) < 0)
		spawn_fail(fd, STAGE_ROOT, rc);
	if (sb != NULL && ((rc = sandbox_child_bset(sb)) < 0 ||
	    (rc = sandbox_child_keep(sb, user)) < 0))
		spawn_fail(fd, STAGE_BSET, rc);
	if (r->set_uid &&
	    (rc = SYS(SYS_setgroups, r->ngroups, r->groups)) < 0)
		spawn_fail(fd, STAGE_SETGROUPS, rc);
	if (r->set_gid &&
	    (rc = SYS(SYS_setresgid, r->gid, r->gid, r->gid)) < 0)
		spawn_fail(fd, STAGE_SETGID, rc);
	if (r->set_uid &&
	    (rc = SYS(SYS_setresuid, r->uid, r->uid, r->uid)) < 0)
		spawn_fail(fd, STAGE_SETUID, rc);
	if (sb != NULL && (rc = sandbox_child_caps(sb, user)) < 0)
		spawn_fail(fd, STAGE_CAPS, rc);
	if (r->workdir && (rc = SYS(SYS_chdir, r->workdir)) < 0)
		spawn_fail(fd, STAGE_CHDIR, rc);
}

/*
 * Child, last: our handlers and blocked signals go, its filter comes,
 * and it execs (or runs r->fn).  Our blocked signals are the
 * signalfd's, not the service's.  But first our handlers go: one sent
 * now (a stop before the exec) would run our do-nothing handler here and
 * be lost, and the stop would wait its whole stop_timeout for the
 * SIGKILL.  Exec would reset them, too late.  Our sighand is a copy (no
 * CLONE_SIGHAND).
 */
__attribute__((noreturn)) CHILD static void
spawn_child_exec(const struct spawn_req *r, int fd, int exec_fd,
    char *const *argv, char *const *envp, const char *path)
{
	const struct ksigaction	dfl = { .handler = SIG_DFL };
	const struct ksigaction	ign = { .handler = SIG_IGN };
	uint64_t		none = 0;
	long			rc;
	int			i;

	for (i = 0; i < (int)ARRAY_SIZE(spawn_caught); i++)
		SYS(SYS_rt_sigaction, spawn_caught[i], &dfl, NULL,
		    sizeof(none));
	/* Ours may be inherited: each service's is as it says. */
	SYS(SYS_rt_sigaction, SIGPIPE, r->ignore_sigpipe ? &ign : &dfl, NULL,
	    sizeof(none));
	SYS(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
	if (r->sb != NULL && (rc = sandbox_child_filter(r->sb)) < 0)
		spawn_fail(fd, STAGE_SECCOMP, rc);
	if (r->fn != NULL)
		SYS(SYS_exit_group, r->fn(r->fn_arg));
	if (r->exec_at)		/* the file opened once, not its path */
		spawn_fail(fd, STAGE_EXEC, SYS(SYS_execveat, exec_fd, "",
		    argv, envp, AT_EMPTY_PATH));
	spawn_fail(fd, STAGE_EXEC, spawn_exec(argv, envp, path));
}

/*
 * Child: set up the process, then exec.  Runs on its spawn stack in our
 * memory, while we go on: raw system calls only, no malloc, no locks,
 * nothing written but its own stack and the digits of WATCHDOG_PID in
 * its environment (the service's own, which we never read).  Each stage
 * fails by spawn_fail(), which tells the parent and exits.
 */
__attribute__((noinline)) CHILD int
spawn_child(void *arg)
{
	const struct spawn_proc	*p = arg;
	const struct spawn_req	*r = &p->req;
	struct env_load		 env = p->env;
	struct env_expand	 argx = p->argx;
	struct env_fail		 fail;
	char *const		*envp = r->envp, *const *argv = r->argv;
	const char		*path = r->path, *own;
	struct spawn_ns		 ns = r->ns;
	int			 fd, root;
	int			 ready_pipe = r->ready_pipe, exec_fd = r->exec_fd;
	long			 rc;

	/* Nothing of ours may change before we have our own fds. */
	fd = spawn_child_own(p, &ns);
	spawn_child_session(p, fd);
	spawn_child_tty(r, fd);
	spawn_child_fds(r, &fd, &ready_pipe, &exec_fd, &ns);
	spawn_child_oom(p, fd);
	root = spawn_child_sandbox(r, fd, &ns);
	spawn_child_creds(r, fd, root);
	/* Its env files, read as it (env.c); a hang is the deadline's. */
	if (env.files != NULL) {
		if (env_load(&env, &fail) < 0)
			spawn_fail_env(fd, &fail);
		envp = env.envp;
		if ((own = env_path(envp)) != NULL)
			path = own;
	}
	/* $VARIABLES of its command line, from all of that. */
	if (argx.buf != NULL) {
		if ((rc = env_expand_argv(r->argv, envp, &argx)) < 0)
			spawn_fail(fd, STAGE_EXEC, rc);
		argv = argx.argv;
	}
	spawn_child_exec(r, fd, exec_fd, argv, envp, path);
}
