/*
 * sandbox.c - what a service may not do: its hardening keys, made into
 * a plan by the parent and applied by the spawn child before exec.
 *
 * The child shares our memory and may make only raw system calls
 * (spawn.c), so all that takes memory is done here, once per
 * definition: the mount plan with every path joined to root_directory
 * and sorted, the seccomp filter compiled by libseccomp into BPF, the
 * capability sets, the CPU set.  The child walks the plan.
 *
 * Mounts happen in a mount namespace of the service's own (CLONE_NEWNS
 * at the clone), made a slave of ours first so that nothing goes back
 * out.  Read-only trees are bind mounts made read-only recursively
 * (mount_setattr, Linux 5.12); a path kept writable under one is a copy
 * of its tree taken before anything was made read-only (open_tree), put
 * back on top: its submounts keep their own flags (a container's
 * read-only /proc/sys stays so).  Paths are applied shallow first, so
 * the deeper one wins, as in systemd.  A protection that cannot be
 * applied fails the start, with the path and the reason: a service never
 * runs less protected than its file says.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "sandbox.h"
#include "sys.h"



const struct sb_rlimit_name sb_rlimits[SB_RLIMITS] = {
	{ "as", RLIMIT_AS, SB_BYTES }, { "core", RLIMIT_CORE, SB_BYTES },
	{ "cpu", RLIMIT_CPU, SB_SECONDS }, { "data", RLIMIT_DATA, SB_BYTES },
	{ "fsize", RLIMIT_FSIZE, SB_BYTES },
	{ "locks", RLIMIT_LOCKS, SB_COUNT },
	{ "memlock", RLIMIT_MEMLOCK, SB_BYTES },
	{ "msgqueue", RLIMIT_MSGQUEUE, SB_BYTES },
	{ "nice", RLIMIT_NICE, SB_COUNT }, { "nproc", RLIMIT_NPROC, SB_COUNT },
	{ "rss", RLIMIT_RSS, SB_BYTES }, { "rtprio", RLIMIT_RTPRIO, SB_COUNT },
	{ "rttime", RLIMIT_RTTIME, SB_MICROSECONDS },
	{ "sigpending", RLIMIT_SIGPENDING, SB_COUNT },
	{ "stack", RLIMIT_STACK, SB_BYTES },
};

/*
 * Named groups of system calls, for syscall_filter.  Names this
 * architecture does not have are left out of a group.  Our own lists,
 * by what the calls do; systemd's groups of the same names are alike.
 */
static const struct sb_group {
	const char	*name;
	const char	*what;
	const char	*calls;
} sb_groups[] = {
	{ "@clock", "set the system clock",
	  "adjtimex clock_adjtime clock_adjtime64 clock_settime "
	  "clock_settime64 settimeofday stime" },
	{ "@debug", "trace and inspect other processes",
	  "ptrace process_vm_readv process_vm_writev perf_event_open kcmp "
	  "lookup_dcookie pidfd_getfd" },
	{ "@module", "load and unload kernel modules",
	  "init_module finit_module delete_module create_module" },
	{ "@mount", "mount and change root",
	  "mount umount umount2 pivot_root chroot fsopen fsconfig fsmount "
	  "fspick move_mount open_tree mount_setattr" },
	{ "@raw-io", "raw I/O ports and PCI",
	  "ioperm iopl pciconfig_iobase pciconfig_read pciconfig_write" },
	{ "@reboot", "reboot and load a new kernel",
	  "reboot kexec_load kexec_file_load" },
	{ "@swap", "turn swap on and off", "swapon swapoff" },
	{ "@cpu-emulation", "old CPU modes", "modify_ldt vm86 vm86old" },
	{ "@obsolete", "calls no program needs now",
	  "_sysctl afs_syscall break create_module ftime get_kernel_syms "
	  "getpmsg gtty idle lock mpx prof profil putpmsg query_module "
	  "security sgetmask ssetmask stty sysfs tuxcall ulimit uselib "
	  "ustat vserver nfsservctl" },
	{ "@privileged", "what needs privilege",
	  "acct bpf capset chroot fanotify_init open_by_handle_at "
	  "quotactl setdomainname sethostname setns unshare vhangup "
	  "nfsservctl syslog userfaultfd" },
	{ "@keyring", "the kernel's key store",
	  "add_key keyctl request_key" },
	{ "@basic-io", "read and write open files",
	  "_llseek close close_range dup dup2 dup3 lseek pread64 preadv "
	  "preadv2 pwrite64 pwritev pwritev2 read readv write writev" },
	{ "@file-system", "files and directories",
	  "access chdir chmod close creat faccessat faccessat2 fallocate "
	  "fchdir fchmod fchmodat fcntl fgetxattr flistxattr fremovexattr "
	  "fsetxattr fstat fstatfs ftruncate futimesat getcwd getdents "
	  "getdents64 getxattr inotify_add_watch inotify_init "
	  "inotify_init1 inotify_rm_watch lgetxattr link linkat "
	  "listxattr llistxattr lremovexattr lsetxattr lstat mkdir "
	  "mkdirat mknod mknodat newfstatat open openat openat2 readlink "
	  "readlinkat removexattr rename renameat renameat2 rmdir "
	  "setxattr stat statfs statx symlink symlinkat truncate unlink "
	  "unlinkat utime utimensat utimes fchown fchownat chown lchown "
	  "flock fsync fdatasync sync_file_range sendfile copy_file_range "
	  "splice tee umask" },
	{ "@io-event", "wait for fds",
	  "epoll_create epoll_create1 epoll_ctl epoll_pwait epoll_pwait2 "
	  "epoll_wait eventfd eventfd2 poll ppoll pselect6 select" },
	{ "@ipc", "talk to other processes",
	  "ipc memfd_create mq_getsetattr mq_notify mq_open mq_timedreceive "
	  "mq_timedsend mq_unlink msgctl msgget msgrcv msgsnd pipe pipe2 "
	  "process_madvise semctl semget semop semtimedop shmat shmctl "
	  "shmdt shmget" },
	{ "@memory", "map and manage memory",
	  "brk madvise membarrier mincore mlock mlock2 mlockall mmap "
	  "mprotect mremap msync munlock munlockall munmap "
	  "get_mempolicy set_mempolicy mbind" },
	{ "@network-io", "sockets",
	  "accept accept4 bind connect getpeername getsockname getsockopt "
	  "listen recvfrom recvmmsg recvmsg sendmmsg sendmsg sendto "
	  "setsockopt shutdown socket socketpair" },
	{ "@process", "make, wait for and signal processes",
	  "arch_prctl capget clone clone3 execve execveat exit exit_group "
	  "fork getegid geteuid getgid getgroups getpgid getpgrp getpid "
	  "getppid getpriority getresgid getresuid getrlimit getrusage "
	  "getsid gettid getuid kill pidfd_open pidfd_send_signal prctl "
	  "prlimit64 rt_sigreturn sched_getaffinity sched_getparam "
	  "sched_getscheduler sched_get_priority_max "
	  "sched_get_priority_min sched_yield set_robust_list "
	  "get_robust_list set_tid_address setpgid setsid tgkill tkill "
	  "vfork wait4 waitid uname sysinfo getrandom rseq futex "
	  "futex_waitv restart_syscall personality ioprio_get ioctl "
	  "setpriority sched_setaffinity" },
	{ "@credentials", "change user and group",
	  "setfsgid setfsuid setgid setgroups setregid setresgid setresuid "
	  "setreuid setuid" },
	{ "@signal", "signal handling",
	  "rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo "
	  "rt_sigsuspend rt_sigtimedwait rt_tgsigqueueinfo sigaltstack "
	  "signalfd signalfd4 pause" },
	{ "@timer", "clocks and timers",
	  "alarm clock_getres clock_gettime clock_nanosleep getitimer "
	  "gettimeofday nanosleep setitimer time timer_create timer_delete "
	  "timer_getoverrun timer_gettime timer_settime timerfd_create "
	  "timerfd_gettime timerfd_settime times" },
	{ "@default", "what every program calls (the exec, clocks, its own "
	  "ids): always allowed by systemd",
	  "clock_getres clock_gettime clock_nanosleep execve exit "
	  "exit_group futex get_robust_list get_thread_area getegid geteuid "
	  "getgid getgroups getpgid getpgrp getpid getppid getrandom "
	  "getresgid getresuid getrlimit getsid gettid gettimeofday getuid "
	  "membarrier mmap munmap nanosleep pause prlimit64 "
	  "restart_syscall rseq rt_sigreturn sched_getaffinity sched_yield "
	  "set_robust_list set_thread_area set_tid_address time" },
	{ "@resources", "change its limits, priority and placement",
	  "ioprio_set mbind migrate_pages move_pages nice "
	  "sched_setaffinity sched_setattr sched_setparam "
	  "sched_setscheduler set_mempolicy setpriority setrlimit" },
	{ "@system-service", "what a usual daemon calls: @basic-io "
	  "@credentials @file-system @io-event @ipc @memory @network-io "
	  "@process @signal @timer",
	  "@basic-io @credentials @file-system @io-event @ipc @memory "
	  "@network-io @process @signal @timer" },
};

/*
 * Always allowed by an allow list: what the exec itself needs, and last
 * the write of the child's report if it fails.  A deny list may not
 * deny the exec (all but that last).
 */
static const char *const sb_exec_calls[] = {
	"execve", "execveat", "exit", "exit_group", "rt_sigreturn", "write",
};
#define SB_EXEC_CALLS_NEEDED	(ARRAY_SIZE(sb_exec_calls) - 1)

static const struct {
	const char	*name;
	int		 err;
} sb_errnos[] = {
	{ "EPERM", EPERM }, { "EACCES", EACCES }, { "ENOSYS", ENOSYS },
	{ "EINVAL", EINVAL }, { "ENOENT", ENOENT }, { "EIO", EIO },
	{ "EROFS", EROFS }, { "EOPNOTSUPP", EOPNOTSUPP }, { "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM }, { "EBUSY", EBUSY }, { "ENOTSUP", ENOTSUP },
};

static const struct sb_group *
sb_group_find(const char *name)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(sb_groups); i++)
		if (strcmp(sb_groups[i].name, name) == 0)
			return &sb_groups[i];
	return NULL;
}

/* The highest capability this kernel knows. */
static int
sb_cap_last(void)
{
	static int	last = -1;
	char		buf[16];
	int		fd;
	ssize_t		n;

	if (last >= 0)
		return last;
	last = CAP_LAST_CAP;
	if ((fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY |
	    O_CLOEXEC)) >= 0) {
		if ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			last = atoi(buf);
		}
		close(fd);
	}
	if (last < 0 || last > 63)
		last = CAP_LAST_CAP;
	return last;
}

/* "CAP_NET_ADMIN" of capability n. */
static void
sb_cap_name(int n, char *out, size_t len)
{
	char	*name = cap_to_name((cap_value_t)n);
	size_t	 i;

	snprintf(out, len, "%s", name ? name : "?");
	cap_free(name);
	for (i = 0; out[i]; i++)
		out[i] = (char)toupper((unsigned char)out[i]);
}

/*
 * capabilities: names, blank- or comma-separated, with or without CAP_,
 * in either case; after '~', those it loses (it keeps the rest).  0
 * with *caps, or -EINVAL with why.
 */
int
sandbox_cap_parse(const char *v, uint64_t *caps, char *why, size_t whylen)
{
	char		word[64], name[64], near[64] = "";
	cap_value_t	c;
	size_t		n, i, d, best = SIZE_MAX;

	bool		deny = *(v += strspn(v, " \t")) == '~';

	*caps = 0;
	v += deny;
	while (*(v += strspn(v, " \t,")) != '\0') {
		n = strcspn(v, " \t,");
		snprintf(word, sizeof(word), "%s%.*s",
		    strncasecmp(v, "cap_", 4) ? "cap_" : "",
		    (int)(n < 40 ? n : 40), v);
		for (i = 0; word[i]; i++)
			word[i] = (char)tolower((unsigned char)word[i]);
		if (n >= 40 || cap_from_name(word, &c) < 0 || c < 0 ||
		    c > sb_cap_last() || isdigit((unsigned char)word[4])) {
			for (i = 0; (int)i <= sb_cap_last(); i++) {
				sb_cap_name((int)i, name, sizeof(name));
				if ((d = str_distance(word, name, 3)) < best) {
					best = d;
					snprintf(near, sizeof(near), "%s", name);
				}
			}
			if (best <= 3)
				snprintf(why, whylen, "capabilities: unknown "
				    "capability '%.*s' (did you mean '%s'?)",
				    (int)n, v, near);
			else
				snprintf(why, whylen, "capabilities: unknown "
				    "capability '%.*s' (see capabilities(7))",
				    (int)n, v);
			return -EINVAL;
		}
		*caps |= 1ULL << c;
		v += n;
	}
	/* ~NAME...: every capability this kernel has but those. */
	if (deny)
		*caps = ~*caps & (sb_cap_last() >= 63 ? ~0ULL :
		    (1ULL << (sb_cap_last() + 1)) - 1);
	return 0;
}

/* The names of a capability set, as capabilities = takes them. */
void
sandbox_cap_show(struct buf *b, uint64_t caps)
{
	char	name[64];
	int	i;
	bool	first = true;

	for (i = 0; i < 64; i++) {
		if (!(caps >> i & 1))
			continue;
		sb_cap_name(i, name, sizeof(name));
		buf_printf(b, "%s%s", first ? "" : " ", name);
		first = false;
	}
}

/* The nearest group name to name, or "". */
static void
sb_group_near(const char *name, char *near, size_t len)
{
	size_t	best = SIZE_MAX, d, i;

	near[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(sb_groups); i++)
		if ((d = str_distance(name, sb_groups[i].name, 2)) < best) {
			best = d;
			snprintf(near, len, "%s", sb_groups[i].name);
		}
}

/* The nearest of the names this architecture has, to name. */
static void
sb_syscall_near(const char *name, char *near, size_t len)
{
	size_t	best = SIZE_MAX, d;
	char	*s;
	int	n;

	near[0] = '\0';
	for (n = 0; n < 1024; n++) {
		if ((s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
		    n)) == NULL)
			continue;
		if ((d = str_distance(name, s, 2)) < best) {
			best = d;
			snprintf(near, len, "%s", s);
		}
		free(s);
	}
}

/*
 * The words of syscall_filter (after its '~'): each a call this
 * architecture has or a @group.  A deny list may not deny the exec
 * itself.  0, or -EINVAL with why.
 */
int
sandbox_syscalls_check(char **words, bool deny, char *why,
    size_t whylen)
{
	char	near[64];
	size_t	i, j;

	for (i = 0; words[i]; i++) {
		if (words[i][0] == '@') {
			if (sb_group_find(words[i]) == NULL) {
				sb_group_near(words[i], near, sizeof(near));
				snprintf(why, whylen, "syscall_filter: unknown "
				    "group '%s' (%s%s%s)", words[i], near[0] ?
				    "did you mean '" : "pidvisor.ini(5) lists "
				    "them", near, near[0] ? "'?" : "");
				return -EINVAL;
			}
			if (deny && (!strcmp(words[i], "@process") ||
			    !strcmp(words[i], "@system-service"))) {
				snprintf(why, whylen, "syscall_filter: denying "
				    "%s denies execve: the service could not "
				    "start", words[i]);
				return -EINVAL;
			}
			continue;
		}
		if (seccomp_syscall_resolve_name(words[i]) < 0) {
			sb_syscall_near(words[i], near, sizeof(near));
			if (near[0] != '\0')
				snprintf(why, whylen, "syscall_filter: unknown "
				    "system call '%s' (did you mean '%s'?)",
				    words[i], near);
			else
				snprintf(why, whylen, "syscall_filter: unknown "
				    "system call '%s'", words[i]);
			return -EINVAL;
		}
		for (j = 0; deny && j < SB_EXEC_CALLS_NEEDED; j++)
			if (strcmp(words[i], sb_exec_calls[j]) == 0) {
				snprintf(why, whylen, "syscall_filter: denying "
				    "%s would stop the service before it "
				    "starts", words[i]);
				return -EINVAL;
			}
	}
	return 0;
}

/* syscall_errno: a name, a number, or "kill" (as -1). */
int
sandbox_errno_parse(const char *v, int32_t *out)
{
	uint64_t	n;
	size_t		i;

	if (strcmp(v, "kill") == 0) {
		*out = -1;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(sb_errnos); i++)
		if (strcasecmp(v, sb_errnos[i].name) == 0) {
			*out = sb_errnos[i].err;
			return 0;
		}
	if (parse_u64(v, 4095, &n) < 0 || n == 0)
		return -EINVAL;
	*out = (int32_t)n;
	return 0;
}

const char *
sandbox_errno_name(int32_t e)
{
	static char	num[16];
	size_t		i;

	if (e == 0)
		e = EPERM;
	if (e < 0)
		return "kill";
	for (i = 0; i < ARRAY_SIZE(sb_errnos); i++)
		if (sb_errnos[i].err == e)
			return sb_errnos[i].name;
	snprintf(num, sizeof(num), "%d", (int)e);
	return num;
}

/* cpu_affinity: "0 2-3" or "0,2-3"; a set of CPU_ALLOC's. */
int
sandbox_cpus_parse(const char *v, cpu_set_t **set, size_t *size)
{
	uint64_t	a, b;
	char		word[32], *dash;
	size_t		n;
	bool		any = false;

	*size = CPU_ALLOC_SIZE(8192);
	if ((*set = CPU_ALLOC(8192)) == NULL)
		return -ENOMEM;
	CPU_ZERO_S(*size, *set);
	while (*(v += strspn(v, " \t,")) != '\0') {
		n = strcspn(v, " \t,");
		if (n >= sizeof(word))
			goto bad;
		memcpy(word, v, n);
		word[n] = '\0';
		v += n;
		if ((dash = strchr(word, '-')) != NULL)
			*dash = '\0';
		if (parse_u64(word, 8191, &a) < 0 || (dash && parse_u64(dash +
		    1, 8191, &b) < 0))
			goto bad;
		if (!dash)
			b = a;
		if (b < a)
			goto bad;
		for (; a <= b; a++)
			CPU_SET_S(a, *size, *set);
		any = true;
	}
	if (any)
		return 0;
bad:
	CPU_FREE(*set);
	*set = NULL;
	return -EINVAL;
}

/* Add an op; the path joined to root (NULL: none).  0 or -ENOMEM. */
static int
sb_op(struct sandbox *sb, int kind, const char *key, const char *path,
    bool optional, int slot)
{
	struct sb_op	*op;
	size_t		 rl = sb->root ? strlen(sb->root) : 0;

	if ((op = realloc(sb->ops, (sb->nops + 1) * sizeof(*op))) == NULL)
		return -ENOMEM;
	sb->ops = op;
	op = &sb->ops[sb->nops];
	memset(op, 0, sizeof(*op));
	if (path != NULL) {
		if ((op->path = malloc(rl + strlen(path) + 2)) == NULL)
			return -ENOMEM;
		/* "/" under a root is the root itself. */
		sprintf(op->path, "%s%s", sb->root ? sb->root : "",
		    sb->root && strcmp(path, "/") == 0 ? "" : path);
	}
	op->kind = (uint8_t)kind;
	op->key = key;
	op->optional = optional;
	op->slot = (int16_t)slot;
	sb->nops++;
	return 0;
}

/* A path of a path key: read-only, writable or hidden, in depth order. */
struct sb_path {
	const char	*path;		/* without a leading '-' */
	const char	*key;
	int		 kind;		/* SB_RO, SB_PUT, SB_HIDE; SB_NOEXEC,
					 * SB_EXEC */
	bool		 optional;
	int		 depth;
	int		 order;
};

static int
sb_path_cmp(const void *a, const void *b)
{
	const struct sb_path	*x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth - y->depth;
	return x->order - y->order;
}

static int
sb_depth(const char *p)
{
	int	n = 0;

	if (strcmp(p, "/") == 0)
		return 0;
	for (; *p; p++)
		if (*p == '/' && p[1] != '/' && p[1] != '\0')
			n++;
	return n;
}

static int
sb_path_add(struct sb_path **v, size_t *n, const char *path, const char *key,
    int kind, bool optional)
{
	struct sb_path	*nv;

	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL)
		return -ENOMEM;
	*v = nv;
	nv[*n].optional = optional || path[0] == '-';
	nv[*n].path = path + (path[0] == '-');
	nv[*n].key = key;
	nv[*n].kind = kind;
	nv[*n].depth = sb_depth(nv[*n].path);
	nv[*n].order = (int)*n;
	(*n)++;
	return 0;
}

/* The mount plan of d, in sb->ops. */
static int
sb_plan(struct sandbox *sb, const struct svc_def *d, char *err, size_t len)
{
	static const char *const usr[] = { "/usr", "/boot", "/efi" };
	static const char *const home[] = { "/home", "/root", "/run/user" };
	static const char *const api[] = { "/dev", "/proc", "/sys" };
	/* systemd's ProtectKernelTunables=, as its manual lists them. */
	static const char *const tunables[] = { "/proc/sys", "/sys",
		"/proc/sysrq-trigger", "/proc/latency_stats", "/proc/acpi",
		"/proc/timer_stats", "/proc/fs", "/proc/irq" };
	static const char *const modules[] = { "/usr/lib/modules",
		"/lib/modules" };
	static const char *const kmsg[] = { "/proc/kmsg", "/dev/kmsg" };
	struct sb_path	*v = NULL, *x = NULL;
	size_t		 n = 0, nx = 0, i;
	int		 rc = 0, slot = 0, k;
	char *const	*p;
	char		**dirs = NULL;

	/* The directories first: made before anything is mounted, and
	 * writable whatever protect_system says (as systemd's). */
	for (k = 0; k < DIR__KINDS; k++)
		for (p = d->dirs[k]; p && *p; p++) {
			char	path[512];

			snprintf(path, sizeof(path), "%s/%s",
			    dir_kinds[k].base, *p);
			if ((dirs = strv_add(dirs, path)) == NULL ||
			    sb_op(sb, SB_MKDIR, conf_keys[K_RUNTIME_DIRECTORY +
			    k].name, path, false, 0) < 0) {
				rc = -1;
				goto out;
			}
			sb->ops[sb->nops - 1].mode = (uint16_t)d->dir_mode[k];
			sb->ops[sb->nops - 1].base =
			    (uint8_t)strlen(dir_kinds[k].base);
			sb->ops[sb->nops - 1].own = dir_kinds[k].own;
			if (d->protect_system == PROTECT_STRICT ||
			    d->ro_paths != NULL)
				rc |= sb_path_add(&v, &n, dirs[strv_len(dirs) -
				    1], conf_keys[K_RUNTIME_DIRECTORY + k].name,
				    SB_PUT, false);
		}
	sb->dir_uid = d->set_uid ? d->uid : 0;
	sb->dir_gid = d->set_gid ? d->gid : d->set_uid ? d->gid : 0;

	if (d->protect_system == PROTECT_STRICT) {
		rc |= sb_path_add(&v, &n, "/", "protect_system", SB_RO, false);
		for (i = 0; i < ARRAY_SIZE(api); i++)
			rc |= sb_path_add(&v, &n, api[i], "protect_system",
			    SB_PUT, true);
	} else if (d->protect_system != PROTECT_NO) {
		for (i = 0; i < ARRAY_SIZE(usr); i++)
			rc |= sb_path_add(&v, &n, usr[i], "protect_system",
			    SB_RO, true);
		if (d->protect_system == PROTECT_FULL)
			rc |= sb_path_add(&v, &n, "/etc", "protect_system",
			    SB_RO, true);
	}
	for (i = 0; d->protect_kernel_tunables && i < ARRAY_SIZE(tunables);
	    i++)
		rc |= sb_path_add(&v, &n, tunables[i],
		    "protect_kernel_tunables", SB_RO, true);
	for (i = 0; d->protect_kernel_modules && i < ARRAY_SIZE(modules); i++)
		rc |= sb_path_add(&v, &n, modules[i],
		    "protect_kernel_modules", SB_HIDE, true);
	for (i = 0; d->protect_kernel_logs && i < ARRAY_SIZE(kmsg); i++)
		rc |= sb_path_add(&v, &n, kmsg[i], "protect_kernel_logs",
		    SB_HIDE, true);
	if (d->protect_control_groups)
		rc |= sb_path_add(&v, &n, "/sys/fs/cgroup",
		    "protect_control_groups", SB_RO, true);
	for (i = 0; d->protect_home != HOME_NO && i < ARRAY_SIZE(home); i++)
		rc |= sb_path_add(&v, &n, home[i], "protect_home",
		    d->protect_home == HOME_YES ? SB_HIDE : SB_RO, true);
	for (p = d->ro_paths; p && *p; p++)
		rc |= sb_path_add(&v, &n, *p, "read_only_paths", SB_RO, false);
	for (p = d->rw_paths; p && *p; p++)
		rc |= sb_path_add(&v, &n, *p, "read_write_paths", SB_PUT,
		    false);
	for (p = d->hide_paths; p && *p; p++)
		rc |= sb_path_add(&v, &n, *p, "inaccessible_paths", SB_HIDE,
		    false);
	for (p = d->noexec_paths; p && *p; p++)
		rc |= sb_path_add(&x, &nx, *p, "no_exec_paths", SB_NOEXEC,
		    false);
	for (p = d->exec_paths; p && *p; p++)
		rc |= sb_path_add(&x, &nx, *p, "exec_paths", SB_EXEC, false);
	if (rc < 0)
		goto out;
	if (n > 1)
		qsort(v, n, sizeof(*v), sb_path_cmp);
	if (nx > 1)
		qsort(x, nx, sizeof(*x), sb_path_cmp);

	if (n > 0 || nx > 0 || d->private_tmp || d->private_devices ||
	    d->protect_proc != PROC_DEFAULT || d->proc_subset != SUBSET_ALL) {
		sb->clone_flags |= CLONE_NEWNS;
		rc |= sb_op(sb, SB_SLAVE, NULL, NULL, false, 0);
		if (sb->root)
			rc |= sb_op(sb, SB_BIND_SELF, "root_directory", "/",
			    false, 0);
	}
	/* A /proc of its own first: what follows may be under it. */
	if (d->protect_proc != PROC_DEFAULT || d->proc_subset != SUBSET_ALL) {
		static const char *const hidepid[] = {
			[PROC_DEFAULT] = "off", [PROC_NOACCESS] = "noaccess",
			[PROC_INVISIBLE] = "invisible",
			[PROC_PTRACEABLE] = "ptraceable",
		};

		sb->hidepid = hidepid[d->protect_proc];
		sb->subset_pid = d->proc_subset == SUBSET_PID;
		rc |= sb_op(sb, SB_PROC, "protect_proc", "/proc", false, 0);
	}
	/* Copies of the writable trees, before anything is read-only. */
	for (i = 0; i < n; i++) {
		if (v[i].kind != SB_PUT)
			continue;
		if (slot >= SB_SLOTS_MAX) {
			snprintf(err, len, "read_write_paths: more than %d "
			    "paths", SB_SLOTS_MAX);
			rc = -E2BIG;
			goto out;
		}
		rc |= sb_op(sb, SB_CLONE, v[i].key, v[i].path, v[i].optional,
		    slot);
		v[i].order = slot++;	/* sorted already: order is free */
	}
	for (i = 0; i < n; i++)
		rc |= sb_op(sb, v[i].kind, v[i].key, v[i].path, v[i].optional,
		    v[i].kind == SB_PUT ? v[i].order : 0);
	if (d->private_tmp) {
		rc |= sb_op(sb, SB_TMPFS, "private_tmp", "/tmp", false, 0);
		/* A small system may have no /var/tmp: then none. */
		rc |= sb_op(sb, SB_TMPFS, "private_tmp", "/var/tmp", true, 0);
	}
	if (d->private_devices)
		rc |= sb_op(sb, SB_DEV, "private_devices", "/dev", false, 0);
	/* Last, over every mount made: not executable, then again so. */
	for (i = 0; i < nx; i++)
		rc |= sb_op(sb, x[i].kind, x[i].key, x[i].path, x[i].optional,
		    0);
	sb->nslots = slot;
out:
	free(v);
	free(x);
	strv_free(dirs);
	if (rc < 0 && err[0] == '\0')
		snprintf(err, len, "%s", strerror(ENOMEM));
	return rc < 0 ? -ENOMEM : 0;
}

#define SB_NR_MAX	1024	/* above every call number of x86-64 */

/* Set the numbers of word's calls (a group's, each) in bits. */
static int
sb_collect(const char *word, uint8_t *bits, int depth)
{
	const struct sb_group	*g;
	char			 name[64];
	const char		*s;
	size_t			 n;
	int			 nr, rc;

	if (word[0] != '@') {
		if ((nr = seccomp_syscall_resolve_name(word)) >= 0 &&
		    nr < SB_NR_MAX)
			bits[nr / 8] |= (uint8_t)(1 << nr % 8);
		return 0;
	}
	if ((g = sb_group_find(word)) == NULL || depth > 2)
		return -EINVAL;
	for (s = g->calls; *(s += strspn(s, " ")) != '\0'; s += n) {
		n = strcspn(s, " ");
		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		if ((rc = sb_collect(name, bits, depth + 1)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The rules of syscall_filter, each call by number: an allow list's
 * calls less those taken out of it ("~WORD" after its first), and the
 * exec's own whatever it says, allowed; a deny list's, failed.
 */
static int
sb_filter_rules(scmp_filter_ctx ctx, char *const *words, bool deny,
    uint32_t fail)
{
	uint8_t		 in[SB_NR_MAX / 8] = { 0 }, out[SB_NR_MAX / 8] = { 0 };
	uint8_t		 need[SB_NR_MAX / 8] = { 0 };
	char *const	*w;
	size_t		 i;
	int		 nr, rc = 0;

	for (w = words; *w && rc == 0; w++)
		rc = deny ? sb_collect(*w + (w == words), in, 0) :
		    (*w)[0] == '~' ? sb_collect(*w + 1, out, 0) :
		    sb_collect(*w, in, 0);
	for (i = 0; !deny && rc == 0 && i < ARRAY_SIZE(sb_exec_calls); i++)
		rc = sb_collect(sb_exec_calls[i], need, 0);
	for (nr = 0; nr < SB_NR_MAX && rc == 0; nr++)
		if (((in[nr / 8] & ~out[nr / 8]) | need[nr / 8]) >> nr % 8 &
		    1 && (rc = seccomp_rule_add(ctx, deny ? fail :
		    SCMP_ACT_ALLOW, nr, 0)) == -EEXIST)
			rc = 0;
	return rc;
}

/* Compile syscall_filter into BPF, in sb->filter. */
static int
sb_filter(struct sandbox *sb, const struct svc_def *d, char *err, size_t len)
{
	scmp_filter_ctx	 ctx;
	bool		 deny = d->syscalls[0][0] == '~';
	uint32_t	 fail = d->syscall_errno < 0 ? SCMP_ACT_KILL_PROCESS :
			     SCMP_ACT_ERRNO((uint32_t)(d->syscall_errno ?
			     d->syscall_errno : EPERM));
	int		 rc;

	if ((ctx = seccomp_init(deny ? SCMP_ACT_ALLOW : fail)) == NULL) {
		snprintf(err, len, "syscall_filter: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/*
	 * A binary tree rather than a list: the kernel runs the filter for
	 * every system call number when it loads it (its action cache), and
	 * for every call of the service that the cache does not decide.
	 */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc == 0)
		rc = sb_filter_rules(ctx, d->syscalls, deny, fail);
	if (rc == 0)
		rc = sb_bpf_export(ctx, &sb->filter, &sb->nfilter);
	seccomp_release(ctx);
	if (rc < 0)
		snprintf(err, len, "syscall_filter: %s", strerror(-rc));
	return rc;
}

static void	sandbox_free(struct sandbox *sb);

/*
 * Make the plan of d into sb (zeroed or freed before).  0, or -errno
 * with err.
 */
static int
sandbox_make(struct sandbox *sb, const struct svc_def *d, char *err,
    size_t errlen)
{
	uint64_t	all;
	int		i, rc, cls;

	memset(sb, 0, sizeof(*sb));
	err[0] = '\0';
	sb->cap_last = sb_cap_last();
	all = sb->cap_last >= 63 ? ~0ULL : (1ULL << (sb->cap_last + 1)) - 1;
	if (d->root_dir && (sb->root = strdup(d->root_dir)) == NULL)
		goto nomem;
	sb->rootlen = sb->root ? strlen(sb->root) : 0;
	if ((rc = sb_plan(sb, d, err, errlen)) < 0)
		goto fail;
	if (d->private_network) {
		sb->clone_flags |= CLONE_NEWNET;
		sb->lo_up = true;
	}
	sb->bset = d->set_caps ? d->caps & all : all;
	if (d->private_devices)
		sb->bset &= ~(1ULL << CAP_MKNOD | 1ULL << CAP_SYS_RAWIO);
	/* As systemd's Protect*=: the capability that would undo each. */
	if (d->protect_kernel_modules)
		sb->bset &= ~(1ULL << CAP_SYS_MODULE);
	if (d->protect_kernel_logs)
		sb->bset &= ~(1ULL << CAP_SYSLOG);
	if (d->protect_clock)
		sb->bset &= ~(1ULL << CAP_SYS_TIME | 1ULL << CAP_WAKE_ALARM);
	if (d->protect_hostname)
		sb->clone_flags |= CLONE_NEWUTS;
	sb->drop_bset = sb->bset != all;
	sb->set_caps = d->set_caps;
	sb->caps = d->caps & sb->bset;
	sb->nnp = d->no_new_privs || sandbox_nnp_implied(d);
	if (d->syscalls != NULL && (rc = sb_filter(sb, d, err, errlen)) < 0)
		goto fail;
	if ((rc = sb_protect_filter(sb, d, err, errlen)) < 0)
		goto fail;
	for (i = 0; i < SB_RLIMITS; i++) {
		if (!d->limit[i].set)
			continue;
		sb->rl[sb->nrl].resource = sb_rlimits[i].resource;
		sb->rl[sb->nrl].cur = d->limit[i].cur;
		sb->rl[sb->nrl].max = d->limit[i].max;
		sb->nrl++;
	}
	sb->nice = d->nice;
	sb->set_nice = d->set_nice;
	if (d->io_class || d->set_io_priority) {
		cls = d->io_class ? d->io_class : 2;	/* best-effort */
		sb->ioprio = cls << 13 | (cls == 3 ? 0 : d->set_io_priority ?
		    d->io_priority : 4);
		sb->set_ioprio = true;
	}
	if (d->cpu_affinity && (rc = sandbox_cpus_parse(d->cpu_affinity,
	    &sb->cpus, &sb->cpus_size)) < 0) {
		snprintf(err, errlen, "cpu_affinity: %s", strerror(-rc));
		goto fail;
	}
	return 0;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "%s", strerror(ENOMEM));
fail:
	sandbox_free(sb);
	return rc;
}

/* The plan of d, held once; NULL (and why in err) if it cannot be. */
struct sandbox *
sandbox_new(const struct svc_def *d, char *err, size_t errlen)
{
	struct sandbox	*sb = malloc(sizeof(*sb));

	if (sb == NULL) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (sandbox_make(sb, d, err, errlen) < 0) {
		free(sb);
		return NULL;
	}
	sb->refs = 1;
	return sb;
}

struct sandbox *
sandbox_ref(struct sandbox *sb)
{
	if (sb != NULL)
		sb->refs++;
	return sb;
}

void
sandbox_unref(struct sandbox *sb)
{
	if (sb == NULL || --sb->refs > 0)
		return;
	sandbox_free(sb);
	free(sb);
}

static void
sandbox_free(struct sandbox *sb)
{
	size_t	i;

	for (i = 0; i < sb->nops; i++)
		free(sb->ops[i].path);
	free(sb->ops);
	free(sb->root);
	free(sb->filter);
	free(sb->pfilter);
	if (sb->cpus)
		CPU_FREE(sb->cpus);
	memset(sb, 0, sizeof(*sb));
}

/*
 * Does d's filter take no_new_privs?  Loading one without CAP_SYS_ADMIN
 * needs it (and systemd implies it the same way): as a user, as a root
 * whose capabilities lack it, or under a pidvisor that is not root.
 */
bool
sandbox_nnp_implied(const struct svc_def *d)
{
	return (d->syscalls != NULL || sb_protect_wanted(d)) &&
	    ((d->set_uid && d->uid != 0) ||
	    geteuid() != 0 || (d->set_caps && !(d->caps >> CAP_SYS_ADMIN &
	    1)));
}

/* Does d give a key the child applies?  (Else no sandbox is made.) */
bool
sandbox_wanted(const struct svc_def *d)
{
	unsigned	k;

	for (k = K_NO_NEW_PRIVS; k <= K_LIMIT_STACK; k++)
		if (k != K_CPU_WEIGHT && k != K_CPU_MAX && k != K_IO_WEIGHT &&
		    k != K_SYSCALL_ERRNO && keyset_has(&d->given, k))
			return true;
	for (k = K_LOCK_PERSONALITY; k <= K_PROTECT_HOSTNAME; k++)
		if (keyset_has(&d->given, k))
			return true;
	for (k = 0; k < DIR__KINDS; k++)
		if (d->dirs[k] != NULL)
			return true;
	return false;
}

/* The key of limit n of sb->rl, for errors. */
const char *
sandbox_limit_key(const struct sandbox *sb, int n)
{
	static char	key[32];
	int		i;

	for (i = 0; n >= 0 && n < sb->nrl && i < SB_RLIMITS; i++)
		if (sb_rlimits[i].resource == sb->rl[n].resource) {
			snprintf(key, sizeof(key), "limit_%s",
			    sb_rlimits[i].name);
			return key;
		}
	return "limit";
}

/* Nothing to apply: the spawn goes as before. */
bool
sandbox_empty(const struct sandbox *sb)
{
	return sb->nops == 0 && sb->clone_flags == 0 && !sb->drop_bset &&
	    !sb->set_caps && !sb->nnp && sb->filter == NULL &&
	    sb->pfilter == NULL && sb->nrl == 0 &&
	    !sb->set_nice && !sb->set_ioprio && sb->cpus == NULL &&
	    sb->root == NULL;
}
