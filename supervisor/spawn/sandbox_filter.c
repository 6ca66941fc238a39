/*
 * sandbox_filter.c - the protections that take a kind of call from a
 * service, as one seccomp filter besides syscall_filter's (the kernel
 * runs both, and the stricter answer wins), made as systemd makes them:
 * lock_personality (personality() to Linux's own only, as systemd's:
 * even the query, 0xffffffff, fails),
 * memory_deny_write_execute (no mapping both writable and executable, no
 * mapping made executable later), restrict_realtime (no real-time
 * scheduling), restrict_suid_sgid (no set-user-ID or set-group-ID file
 * made), restrict_namespaces (unshare, clone and setns of the types it
 * may not make: clone3, whose flags a filter cannot read, fails with
 * ENOSYS, so that libc falls back to clone), restrict_address_families
 * (socket() of another family: EAFNOSUPPORT), protect_kernel_modules,
 * protect_kernel_logs, protect_clock and protect_hostname (their calls).
 * A call of another architecture (an i386 call of an x86-64 process),
 * whose arguments these rules cannot read as theirs, fails with ENOSYS,
 * or with system_call_architectures = native kills the process.  An
 * argument the kernel reads as an int is compared on its low 32 bits
 * only, so that high bits set do not go around a rule.  Also the export
 * of a libseccomp filter as BPF, for both.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "sandbox.h"

/* Export ctx as BPF into *prog (malloc'd), *n instructions.  0, -errno. */
int
sb_bpf_export(void *ctx, void **prog, unsigned short *n)
{
	off_t	size;
	int	fd, rc = 0;

	if ((fd = memfd_create("pidvisor-bpf", MFD_CLOEXEC)) < 0)
		return -errno;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc == 0 && ((size = lseek(fd, 0, SEEK_END)) <= 0 ||
	    size % (off_t)sizeof(struct sock_filter) || size > 65535 *
	    (off_t)sizeof(struct sock_filter)))
		rc = -EIO;
	if (rc == 0 && (*prog = malloc((size_t)size)) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && pread(fd, *prog, (size_t)size, 0) != size) {
		free(*prog);
		*prog = NULL;
		rc = -EIO;
	}
	if (rc == 0)
		*n = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	close(fd);
	return rc;
}

/* Deny call name (if this architecture has it) when the args hold. */
static int
sb_deny(scmp_filter_ctx ctx, int err, const char *name, unsigned n,
    const struct scmp_arg_cmp *args)
{
	int	nr, rc;

	if ((nr = seccomp_syscall_resolve_name(name)) < 0)
		return 0;
	rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)err), nr, n,
	    args);
	return rc == -EEXIST ? 0 : rc;
}

/* Deny call name when argument arg has bit set. */
static int
sb_deny_bit(scmp_filter_ctx ctx, int err, const char *name, unsigned arg,
    uint64_t bit)
{
	struct scmp_arg_cmp	a = { arg, SCMP_CMP_MASKED_EQ, bit, bit };

	return sb_deny(ctx, err, name, 1, &a);
}

/* Deny call name when int argument arg (its low 32 bits) is v. */
static int
sb_deny_int(scmp_filter_ctx ctx, int err, const char *name, unsigned arg,
    uint32_t mask, uint32_t v)
{
	struct scmp_arg_cmp	a = { arg, SCMP_CMP_MASKED_EQ, mask, v };

	return sb_deny(ctx, err, name, 1, &a);
}

/* The calls of the keys that take a whole kind of call away. */
static int
sb_protect_calls(scmp_filter_ctx ctx, const struct svc_def *d)
{
	static const char *const modules[] = { "init_module",
	    "finit_module", "delete_module" };
	static const char *const clock[] = { "adjtimex", "clock_adjtime",
	    "clock_adjtime64", "clock_settime", "clock_settime64",
	    "settimeofday", "stime" };
	static const char *const host[] = { "sethostname", "setdomainname" };
	size_t	i;
	int	rc = 0;

	for (i = 0; d->protect_kernel_modules && i < ARRAY_SIZE(modules); i++)
		rc |= sb_deny(ctx, EPERM, modules[i], 0, NULL);
	if (d->protect_kernel_logs)
		rc |= sb_deny(ctx, EPERM, "syslog", 0, NULL);
	for (i = 0; d->protect_clock && i < ARRAY_SIZE(clock); i++)
		rc |= sb_deny(ctx, EPERM, clock[i], 0, NULL);
	for (i = 0; d->protect_hostname && i < ARRAY_SIZE(host); i++)
		rc |= sb_deny(ctx, EPERM, host[i], 0, NULL);
	return rc;
}

/*
 * personality(): Linux's own; memory both writable and executable;
 * real-time policies (FIFO, RR, DEADLINE, SCHED_RESET_ON_FORK or not).
 */
static int
sb_protect_memory(scmp_filter_ctx ctx, const struct svc_def *d)
{
	const struct scmp_arg_cmp	pers = { 0, SCMP_CMP_NE, PER_LINUX, 0 };
	const struct scmp_arg_cmp	wx = { 2, SCMP_CMP_MASKED_EQ,
					    PROT_WRITE | PROT_EXEC,
					    PROT_WRITE | PROT_EXEC };
	static const int		rt[] = { SCHED_FIFO, SCHED_RR, 6 };
	size_t				i;
	int				rc = 0;

	if (d->lock_personality)
		rc |= sb_deny(ctx, EPERM, "personality", 1, &pers);
	if (d->memory_deny_write_execute) {
		rc |= sb_deny(ctx, EPERM, "mmap", 1, &wx);
		rc |= sb_deny_bit(ctx, EPERM, "mprotect", 2, PROT_EXEC);
		rc |= sb_deny_bit(ctx, EPERM, "pkey_mprotect", 2, PROT_EXEC);
		rc |= sb_deny_bit(ctx, EPERM, "shmat", 2, SHM_EXEC);
	}
	for (i = 0; d->restrict_realtime && i < ARRAY_SIZE(rt); i++)
		rc |= sb_deny_int(ctx, EPERM, "sched_setscheduler", 1,
		    0xffffffffu & ~(uint32_t)SCHED_RESET_ON_FORK,
		    (uint32_t)rt[i]);
	return rc;
}

/*
 * No set-user-ID or set-group-ID file made: chmod and creation modes
 * (O_CREAT, or O_TMPFILE to be linked later); openat2, whose mode a
 * filter cannot read, fails with ENOSYS (libc does not need it).
 */
static int
sb_protect_suid(scmp_filter_ctx ctx)
{
	static const struct { const char *name; int mode, flags; } c[] = {
		{ "chmod", 1, -1 }, { "fchmod", 1, -1 },
		{ "fchmodat", 2, -1 }, { "fchmodat2", 2, -1 },
		{ "mkdir", 1, -1 }, { "mkdirat", 2, -1 },
		{ "mknod", 1, -1 }, { "mknodat", 2, -1 },
		{ "creat", 1, -1 }, { "open", 2, 1 }, { "openat", 3, 2 },
	};
	static const uint64_t	bits[] = { S_ISUID, S_ISGID };
	static const uint64_t	made[] = { O_CREAT, __O_TMPFILE };
	size_t			i, j, k;
	int			rc = 0;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		for (j = 0; j < ARRAY_SIZE(bits); j++)
			for (k = 0; k < (c[i].flags < 0 ? 1 : 2); k++) {
				struct scmp_arg_cmp	a[2] = {
					{ (unsigned)c[i].mode,
					    SCMP_CMP_MASKED_EQ, bits[j],
					    bits[j] },
					{ (unsigned)c[i].flags,
					    SCMP_CMP_MASKED_EQ, made[k],
					    made[k] },
				};

				rc |= sb_deny(ctx, EPERM, c[i].name,
				    c[i].flags < 0 ? 1 : 2, a);
			}
	return rc | sb_deny(ctx, ENOSYS, "openat2", 0, NULL);
}

/* The namespaces it may not make: each type's bit in each call. */
static int
sb_protect_ns(scmp_filter_ctx ctx, uint32_t deny)
{
	size_t				i;
	int				rc = 0, nr;

	if (deny == 0)
		return 0;
	for (i = 0; i < CONF_NS_COUNT; i++) {
		uint32_t	f = conf_ns_names[i].flag;

		if (!(deny & f))
			continue;
		rc |= sb_deny_bit(ctx, EPERM, "unshare", 0, f);
		rc |= sb_deny_bit(ctx, EPERM, "clone", 0, f);	/* x86-64 */
		rc |= sb_deny_bit(ctx, EPERM, "setns", 1, f);
	}
	rc |= sb_deny_int(ctx, EPERM, "setns", 1, 0xffffffffu, 0); /* any */
	if ((nr = seccomp_syscall_resolve_name("clone3")) >= 0 &&
	    (i = (size_t)seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr,
	    0)) != 0 && (int)i != -EEXIST)
		rc |= (int)i;
	return rc;
}

/*
 * socket() of a family it may not open: EAFNOSUPPORT.  With a list of
 * those it may, every family after them too (to 63 by number, then any
 * with a higher bit set).
 */
static int
sb_protect_af(scmp_filter_ctx ctx, const struct svc_def *d)
{
	int	f, rc = 0;

	if (!d->af_set)
		return 0;
	for (f = 0; f < (d->af_deny ? CONF_AF_MAX : 64); f++)
		if (f >= CONF_AF_MAX || (d->af_mask >> f & 1) == d->af_deny)
			rc |= sb_deny_int(ctx, EAFNOSUPPORT, "socket", 0,
			    0xffffffffu, (uint32_t)f);
	for (f = 6; !d->af_deny && f < 32; f++)
		rc |= sb_deny_bit(ctx, EAFNOSUPPORT, "socket", 0, 1ULL << f);
	return rc;
}

/* Does d take a kind of call away (this filter, and no_new_privs)? */
bool
sb_protect_wanted(const struct svc_def *d)
{
	return d->lock_personality || d->memory_deny_write_execute ||
	    d->restrict_realtime || d->restrict_suid_sgid || d->ns_deny ||
	    d->af_set || d->native_arch || d->protect_kernel_modules ||
	    d->protect_kernel_logs || d->protect_clock || d->protect_hostname;
}

/* Make the filter of those keys, in sb->pfilter.  0, or -errno with err. */
int
sb_protect_filter(struct sandbox *sb, const struct svc_def *d, char *err,
    size_t len)
{
	scmp_filter_ctx	ctx;
	int		rc;

	if (!sb_protect_wanted(d))
		return 0;
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		snprintf(err, len, "protections: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, d->native_arch ?
	    SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(ENOSYS));
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc == 0)
		rc = sb_protect_calls(ctx, d) | sb_protect_memory(ctx, d) |
		    (d->restrict_suid_sgid ? sb_protect_suid(ctx) : 0) |
		    sb_protect_ns(ctx, d->ns_deny) | sb_protect_af(ctx, d);
	if (rc == 0)
		rc = sb_bpf_export(ctx, &sb->pfilter, &sb->npfilter);
	seccomp_release(ctx);
	if (rc < 0)
		snprintf(err, len, "the protections' filter: %s",
		    strerror(-rc));
	return rc < 0 ? rc : 0;
}
