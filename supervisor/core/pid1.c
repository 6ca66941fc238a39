/*
 * pid1.c - what pidvisor does only as PID 1: mount the API filesystems
 * that are missing, take the console, and end the system: once every
 * service has stopped, TERM then KILL whatever is left, sync, unmount
 * what we mounted, reboot(2).  The init of a container does the same
 * but, instead of reboot(2), exits (main.c says with what status).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pid1.h"
#include "spawn.h"
#include "sys.h"
#include "util.h"

#if defined(PV_MEMCHECK)
#include <valgrind/memcheck.h>
#elif defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#define PF_KTHREAD	0x00200000

static const struct pid1_mount {
	const char	*path;
	const char	*type;
	unsigned long	 flags;
	const char	*data;
} pid1_mounts[] = {
	{ "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "/dev", "devtmpfs", MS_NOSUID, "mode=0755" },
	/* POSIX shared memory, everyone's (PostgreSQL's segments). */
	{ "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777" },
	{ "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755" },
	{ "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
};

static const char	*pid1_mounted[ARRAY_SIZE(pid1_mounts)];
static size_t		 pid1_nmounted;

/* Is path the root of a mount (its device differs from its parent's)? */
static bool
pid1_is_mountpoint(const char *path)
{
	char		parent[256];
	struct stat	a, b;

	snprintf(parent, sizeof(parent), "%s/..", path);
	if (stat(path, &a) < 0 || stat(parent, &b) < 0)
		return false;
	return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

/*
 * Are we the init of a container rather than of a machine?  As PID 1:
 * yes if the environment has `container` (systemd's convention; podman
 * sets it, so do LXC and systemd-nspawn), or if our PID namespace is
 * not the initial one (runc, Docker, Kubernetes: a PID 1 that is not the
 * machine's).  The initial PID namespace has a fixed inode number
 * (PROC_PID_INIT_INO).  Without /proc (a kernel that just booted us) we
 * are a machine's.
 */
#define PROC_PID_INIT_INO	0xEFFFFFFCU

bool
pid1_in_container(void)
{
	const char	*env = getenv("container");
	struct stat	 st;

	if (env != NULL && *env != '\0')
		return true;
	if (stat("/proc/self/ns/pid", &st) < 0)
		return false;
	return st.st_ino != PROC_PID_INIT_INO;
}

/* Where nothing is on 0, 1 and 2 (a kernel's init): the console. */
void
pid1_console(void)
{
	int	fd;

	if (fcntl(STDIN_FILENO, F_GETFD) < 0 &&
	    (fd = open("/dev/console", O_RDWR | O_NOCTTY)) >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

/*
 * A machine's init: mount the API filesystems that are not there, take
 * Ctrl-Alt-Del, and weigh our session.  A container's runtime mounted
 * what it gives and forbids mounts by design: there, only the session,
 * whose weight the runtime may refuse us (quietly, then).
 */
int
pid1_setup(bool container)
{
	const struct pid1_mount	*m;
	size_t			 i;
	int			 fd;

	for (i = 0; i < ARRAY_SIZE(pid1_mounts) && !container; i++) {
		m = &pid1_mounts[i];
		if (pid1_is_mountpoint(m->path))
			continue;
		if (mkdir(m->path, 0755) < 0 && errno != EEXIST)
			continue;
		if (mount(m->type, m->path, m->type, m->flags, m->data) < 0) {
			log_warn("mount %s: %s", m->path, strerror(errno));
			continue;
		}
		pid1_mounted[pid1_nmounted++] = m->path;
	}
	/* Ctrl-Alt-Del: send us SIGINT instead of rebooting at once. */
	if (!container)
		sys_reboot(RB_DISABLE_CAD);
	/*
	 * No oom_score_adj of our own: the kernel never picks the global
	 * init.  Services inherit it, unless they set their own (spawn.c).
	 */
	/*
	 * Every service is a session of its own (setsid), and where the
	 * kernel groups the CPU by session (autogroup, Debian's default),
	 * each session weighs as much as ours: a thousand services in a
	 * crash loop left us a thousandth of the CPUs, and a status request
	 * waited 20 ms and more.  Our own session, then, weighted as nice
	 * -10 is (9548 against a service's 1024).  Our services are back at
	 * 1024 when they setsid.
	 */
	setsid();
	if ((fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC)) >= 0) {
		if (write(fd, "-10", 3) < 0 && !container)
			log_warn("autogroup: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

/* Which of pid1_mounts we mounted, as bits: for the next binary. */
unsigned
pid1_mounts_mask(void)
{
	unsigned	mask = 0;
	size_t		i, j;

	for (i = 0; i < pid1_nmounted; i++)
		for (j = 0; j < ARRAY_SIZE(pid1_mounts); j++)
			if (pid1_mounted[i] == pid1_mounts[j].path)
				mask |= 1U << j;
	return mask;
}

/* What the binary before us mounted: ours to unmount at the end. */
void
pid1_mounts_adopt(unsigned mask)
{
	size_t	j;

	pid1_nmounted = 0;
	for (j = 0; j < ARRAY_SIZE(pid1_mounts); j++)
		if (mask & (1U << j))
			pid1_mounted[pid1_nmounted++] = pid1_mounts[j].path;
}

/* For each user process but us: 1 if it is alive (not a zombie). */
static int
pid1_classify(pid_t pid)
{
	char		 path[64], buf[512], *p;
	unsigned long	 flags = 0;
	int		 i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return 0;
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	p += 2;
	if (*p == 'Z' || *p == 'X')
		return 0;
	for (i = 0; i < 6 && p; i++)		/* to field 9, flags */
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	if (p)
		flags = strtoul(p, NULL, 10);
	return (flags & PF_KTHREAD) ? 0 : 1;
}

/* Call fn for every live user process other than us. */
static int
pid1_each(void (*fn)(pid_t, int), int arg)
{
	struct dirent	*e;
	DIR		*d;
	pid_t		 self = getpid();
	int		 n = 0;
	long		 pid;
	char		*end;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		pid = strtol(e->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == self)
			continue;
		if (!pid1_classify((pid_t)pid))
			continue;
		n++;
		if (fn)
			fn((pid_t)pid, arg);
	}
	closedir(d);
	return n;
}

/* Signal one process through a pidfd of its own. */
static void
pid1_signal(pid_t pid, int sig)
{
	int	fd = (int)sys_pidfd_open(pid, 0);

	if (fd < 0)
		return;
	pidfd_signal(fd, sig);
	close(fd);
}

/* Signal every process that is left. */
void
pid1_kill_all(int sig)
{
	pid1_each(pid1_signal, sig);
}

/* How many processes are left. */
int
pid1_count(void)
{
	return pid1_each(NULL, 0);
}

/*
 * The leak check of the sanitizer and memcheck builds: PID 1 never
 * exits, and reboot(2) ends it before a check at exit could run.
 * What is still in use here is reachable; a leak is not.
 */
static void
pid1_leak_check(void)
{
#if defined(PV_MEMCHECK)
	unsigned long	lost = 0, possibly = 0, reachable = 0, suppressed = 0;

	if (!RUNNING_ON_VALGRIND)
		return;
	VALGRIND_DO_LEAK_CHECK;
	VALGRIND_COUNT_LEAKS(lost, possibly, reachable, suppressed);
	log_info("memcheck: %u errors, %lu bytes lost, %lu possibly lost, "
	    "%lu reachable", (unsigned)VALGRIND_COUNT_ERRORS, lost, possibly,
	    reachable);
	(void)suppressed;
#elif defined(__SANITIZE_ADDRESS__)
	__lsan_do_leak_check();
#endif
}

/*
 * A crash of PID 1 (a fault, an abort: libev aborts when out of memory)
 * would panic the kernel.  As PID 1 we catch it, on a stack of our own,
 * and say so on the console and in kmsg.  Then, as crash_action says:
 * freeze (the default, as systemd's CrashAction=freeze): supervise no
 * more, leave the services running, and go on reaping every child and
 * orphan so that nothing piles up as zombies until someone reboots; or
 * sync and reboot, or power off, at once.  Only async-signal-safe calls
 * from here on.
 */
static const struct sup_conf	*pid1_conf;
static int			 pid1_kmsg = -1;
static char			 pid1_altstack[64 * 1024];

/* Append the decimal (or 0x hex) form of v to p. */
static char *
pid1_num(char *p, unsigned long v, unsigned base)
{
	char	tmp[24];
	int	n = 0;

	if (base == 16) {
		*p++ = '0';
		*p++ = 'x';
	}
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && n < (int)sizeof(tmp));
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

static char *
pid1_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void
pid1_on_crash(int sig, siginfo_t *si, void *uc)
{
	static const char *const actions[] = {
		[CRASH_FREEZE] = "frozen: the services keep running but are "
		    "no longer supervised, orphans are still reaped; reboot "
		    "to recover",
		[CRASH_REBOOT] = "rebooting",
		[CRASH_POWEROFF] = "powering off",
	};
	int		 action = pid1_conf ? pid1_conf->crash_action :
			    CRASH_FREEZE;
	char		 msg[320], *p = msg;
	sigset_t	 all;

	(void)uc;
	p = pid1_str(p, "<2>pidvisor: PID 1 crashed: signal ");
	p = pid1_num(p, (unsigned long)sig, 10);
	if (si && si->si_code > 0) {
		p = pid1_str(p, " at ");
		p = pid1_num(p, (unsigned long)si->si_addr, 16);
	} else if (si) {
		p = pid1_str(p, " sent by pid ");
		p = pid1_num(p, (unsigned long)si->si_pid, 10);
	}
	p = pid1_str(p, "; ");
	p = pid1_str(p, actions[action <= CRASH_POWEROFF ? action : 0]);
	*p++ = '\n';
	if (pid1_kmsg >= 0)
		(void)!write(pid1_kmsg, msg, (size_t)(p - msg));
	(void)!write(STDERR_FILENO, msg + 3, (size_t)(p - msg - 3));
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if (action == CRASH_REBOOT || action == CRASH_POWEROFF) {
		sync();
		sys_reboot(action == CRASH_REBOOT ? RB_AUTOBOOT :
		    RB_POWER_OFF);
	}
	pid1_freeze();
}

/*
 * Supervise no more, and never die: reap every child and orphan until
 * someone reboots.  Async-signal-safe (a crash handler's end too).
 */
void
pid1_freeze(void)
{
	siginfo_t	w;

	for (;;) {
		memset(&w, 0, sizeof(w));
		if (waitid(P_ALL, 0, &w, WEXITED) < 0) {
			struct timespec	ts = { 1, 0 };

			nanosleep(&ts, NULL);	/* no child now */
		}
	}
}

/* The signals of a fault (and abort), which would end PID 1. */
static const int	pid1_faults[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS,
};

/*
 * Take the fault signals with fn, on a stack of its own (stack, size),
 * everything blocked meanwhile; fn NULL: their default action again.
 * flags: more SA_ flags.  0, or -errno of sigaltstack.
 */
int
pid1_catch_faults(void (*fn)(int, siginfo_t *, void *), void *stack,
    size_t size, int flags)
{
	struct sigaction	 sa;
	stack_t			 st = { .ss_sp = stack, .ss_size = size };
	size_t			 i;
	int			 rc = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	if (fn != NULL) {
		if (sigaltstack(&st, NULL) < 0)
			rc = -errno;
		sa.sa_sigaction = fn;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | flags;
		sigfillset(&sa.sa_mask);
	}
	for (i = 0; i < ARRAY_SIZE(pid1_faults); i++)
		sigaction(pid1_faults[i], &sa, NULL);
	return rc;
}

/*
 * Catch what would kill PID 1.  conf is read at the crash (reload may
 * change crash_action); kmsg, if not -1, is where the message goes too.
 */
void
pid1_crash_setup(const struct sup_conf *conf, int kmsg)
{
	int	rc;

	pid1_conf = conf;
	pid1_kmsg = kmsg;
	if ((rc = pid1_catch_faults(pid1_on_crash, pid1_altstack,
	    sizeof(pid1_altstack), 0)) < 0)
		log_warn("crash handler: sigaltstack: %s", strerror(-rc));
}

/*
 * Unmount, sync and reboot(2); if that fails, we stay in the loop.  A
 * container's init ends the loop instead, and exits.
 */
static void
pid1_reboot(struct pid1 *p)
{
	size_t	i;

	p->stage = PID1_DONE;
	ev_timer_stop(p->loop, &p->timer);
	if (p->container) {
		ev_break(p->loop, EVBREAK_ALL);
		return;
	}
	log_info("%s", p->reboot_cmd == RB_POWER_OFF ? "powering off" :
	    p->reboot_cmd == RB_HALT_SYSTEM ? "halting" : "rebooting");
	pid1_leak_check();
	sync();
	for (i = pid1_nmounted; i > 0; i--)
		umount2(pid1_mounted[i - 1], MNT_DETACH);
	/*
	 * The root file system read-only, so that its journal is flushed
	 * and it is clean for the next boot (every other process is gone
	 * by now).  An initramfs has nothing to flush: its failure is
	 * only said at debug level.
	 */
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0)
		log_debug("remount / read-only: %s", strerror(errno));
	sync();
	if (sys_reboot((int)p->reboot_cmd) < 0)
		log_err("reboot: %s", strerror(errno));
}

/* TERM was sent 2 s ago: KILL, and reboot 1 s later at the latest. */
static void
pid1_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pid1	*p = container_of(w, struct pid1, timer);

	(void)revents;
	if (p->stage == PID1_TERM) {
		log_info("killing %d leftover process(es)", pid1_count());
		pid1_kill_all(SIGKILL);
		p->stage = PID1_KILL;
		ev_timer_set(&p->timer, 1., 0.);
		ev_timer_start(loop, &p->timer);
		return;
	}
	pid1_reboot(p);
}

void
pid1_init(struct pid1 *p, struct ev_loop *loop)
{
	p->loop = loop;
	p->stage = PID1_UP;
	ev_init(&p->timer, pid1_on_timer);
}

/*
 * Every service has stopped: the end, in steps that never block the
 * loop.  TERM to the leftovers, then (after 2 s, or once none is left)
 * KILL, then sync, unmount and reboot(2) as reboot_cmd says.  PID 1
 * never exits.
 */
void
pid1_finish(struct pid1 *p)
{
	if (p->stage != PID1_UP)
		return;
	if (pid1_count() == 0) {
		pid1_reboot(p);
		return;
	}
	p->stage = PID1_TERM;
	pid1_kill_all(SIGTERM);
	pid1_kill_all(SIGCONT);
	ev_timer_set(&p->timer, 2., 0.);
	ev_timer_start(p->loop, &p->timer);
}

/* Orphans were reaped: once none is left, do not wait for the timer. */
void
pid1_reaped(struct pid1 *p)
{
	if ((p->stage == PID1_TERM || p->stage == PID1_KILL) &&
	    pid1_count() == 0)
		pid1_reboot(p);
}
