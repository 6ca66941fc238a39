/*
 * sandbox_child.c - the spawn child's part of the hardening: it walks
 * the plan sandbox.c made (mounts, network, limits, capabilities, the
 * filter) before exec.
 *
 * It runs in our memory on a stack of its own (spawn.c): raw system
 * calls only, nothing allocated, nothing written but its own stack.
 * Each function returns 0 or -errno; the caller reports the stage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rawsys.h"
#include "sandbox.h"
#include "util.h"

#define SYS(...)	RAWSYS(__VA_ARGS__)
#define SANDBOX_CHILD	__attribute__((no_sanitize_address, \
			    no_sanitize("undefined")))

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY	0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif

struct sandbox_mount_attr {
	uint64_t	attr_set, attr_clr, propagation, userns_fd;
};

/* Child: path and under it read-only (a bind of its own first). */
SANDBOX_CHILD static long
sandbox_child_ro(const char *path, bool is_root)
{
	struct sandbox_mount_attr	attr = { .attr_set = MOUNT_ATTR_RDONLY };
	long			rc;

	if (!is_root && (rc = SYS(SYS_mount, path, path, NULL,
	    MS_BIND | MS_REC, NULL)) < 0)
		return rc;
	return SYS(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr,
	    sizeof(attr));
}

/*
 * Child: an empty, read-only thing over path.  A directory gets a
 * tmpfs of mode 000; a file, an empty file of mode 000 made on a tmpfs
 * mounted for the moment on scratch (a directory under the root), bound
 * over it, the tmpfs then detached from scratch (the bind holds it).
 */
SANDBOX_CHILD static long
sandbox_child_hide(const char *path, const char *scratch, char *file)
{
	struct statx		stx;
	struct sandbox_mount_attr	attr = { .attr_set = MOUNT_ATTR_RDONLY };
	long			rc;
	int			fd;

	__builtin_memset(&stx, 0, sizeof(stx));
	if ((rc = SYS(SYS_statx, AT_FDCWD, path, 0, STATX_TYPE, &stx)) < 0)
		return rc;
	if (S_ISDIR(stx.stx_mode))
		return SYS(SYS_mount, "tmpfs", path, "tmpfs", MS_RDONLY |
		    MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000");
	if ((rc = SYS(SYS_mount, "tmpfs", scratch, "tmpfs", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, "mode=000")) < 0)
		return rc;
	if ((rc = SYS(SYS_openat, AT_FDCWD, file, O_CREAT | O_WRONLY |
	    O_CLOEXEC, 0)) >= 0) {
		fd = (int)rc;
		SYS(SYS_close, fd);
		rc = SYS(SYS_mount, file, path, NULL, MS_BIND, NULL);
	}
	SYS(SYS_umount2, scratch, MNT_DETACH);
	if (rc < 0)
		return rc;
	return SYS(SYS_mount_setattr, AT_FDCWD, path, 0, &attr,
	    sizeof(attr));
}

/* Child: a minimal /dev at path (the nodes bound from ours). */
SANDBOX_CHILD static long
sandbox_child_dev(const char *path)
{
	static const char *const nodes[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		"/dev/urandom", "/dev/tty", "/dev/log",
	};
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" },
		{ "/proc/self/fd/2", "stderr" },
	};
	int	tree[ARRAY_SIZE(nodes)], dir, fd;
	size_t	i;
	long	rc;

	/* Copies of the nodes, before the tmpfs hides them. */
	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		rc = SYS(SYS_open_tree, AT_FDCWD, nodes[i], OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC);
		if (rc < 0 && (i + 1 < ARRAY_SIZE(nodes) || rc != -ENOENT)) {
			while (i-- > 0)
				if (tree[i] >= 0)
					SYS(SYS_close, tree[i]);
			return rc;
		}
		tree[i] = (int)rc;
	}
	if ((rc = SYS(SYS_mount, "tmpfs", path, "tmpfs", MS_NOSUID |
	    MS_NOEXEC, "mode=755")) < 0)
		goto out;
	if ((rc = SYS(SYS_openat, AT_FDCWD, path, O_DIRECTORY | O_CLOEXEC)) <
	    0)
		goto out;
	dir = (int)rc;
	for (i = 0; i < ARRAY_SIZE(nodes) && rc >= 0; i++) {
		if (tree[i] < 0)
			continue;
		if ((rc = SYS(SYS_openat, dir, nodes[i] + 5, O_CREAT |
		    O_WRONLY | O_CLOEXEC, 0666)) < 0)
			break;
		fd = (int)rc;
		SYS(SYS_close, fd);
		rc = SYS(SYS_move_mount, tree[i], "", dir, nodes[i] + 5,
		    MOVE_MOUNT_F_EMPTY_PATH);
	}
	for (i = 0; i < ARRAY_SIZE(links) && rc >= 0; i++)
		rc = SYS(SYS_symlinkat, links[i][0], dir, links[i][1]);
	if (rc >= 0 && (rc = SYS(SYS_mkdirat, dir, "shm", 01777)) >= 0 &&
	    (rc = SYS(SYS_fchmodat, dir, "shm", 01777, 0)) >= 0)
		rc = SYS(SYS_mkdirat, dir, "pts", 0755);
	SYS(SYS_close, dir);
out:
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		if (tree[i] >= 0)
			SYS(SYS_close, tree[i]);
	return rc < 0 ? rc : 0;
}

/*
 * Child, in its new mount namespace: walk the plan.  0, or -errno with
 * *at the op that failed.
 */
SANDBOX_CHILD long
sandbox_child_mounts(const struct sandbox *sb, int *at)
{
	int		 slot[SB_SLOTS_MAX];
	const struct sb_op *op;
	size_t		 i;
	long		 rc = 0;

	for (i = 0; i < SB_SLOTS_MAX; i++)
		slot[i] = -1;
	for (i = 0; i < sb->nops && rc >= 0; i++) {
		op = &sb->ops[i];
		*at = (int)i;
		switch (op->kind) {
		case SB_SLAVE:
			rc = SYS(SYS_mount, NULL, "/", NULL, MS_REC | MS_SLAVE,
			    NULL);
			break;
		case SB_BIND_SELF:
			rc = SYS(SYS_mount, op->path, op->path, NULL, MS_BIND |
			    MS_REC, NULL);
			break;
		case SB_CLONE:
			rc = SYS(SYS_open_tree, AT_FDCWD, op->path,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			    AT_RECURSIVE);
			if (rc >= 0)
				slot[op->slot] = (int)rc;
			break;
		case SB_RO:
			rc = sandbox_child_ro(op->path, sb->root == NULL &&
			    op->path[0] == '/' && op->path[1] == '\0');
			break;
		case SB_PUT:
			if (slot[op->slot] < 0)
				break;		/* optional, missing */
			rc = SYS(SYS_move_mount, slot[op->slot], "", AT_FDCWD,
			    op->path, MOVE_MOUNT_F_EMPTY_PATH);
			SYS(SYS_close, slot[op->slot]);
			slot[op->slot] = -1;
			break;
		case SB_HIDE:
			rc = sandbox_child_hide(op->path, sb->scratch,
			    sb->scratch_file);
			break;
		case SB_TMPFS:
			rc = SYS(SYS_mount, "tmpfs", op->path, "tmpfs",
			    MS_NOSUID | MS_NODEV, "mode=1777");
			break;
		case SB_DEV:
			rc = sandbox_child_dev(op->path);
			break;
		}
		if (rc == -ENOENT && op->optional)
			rc = 0;
	}
	for (i = 0; i < SB_SLOTS_MAX; i++)
		if (slot[i] >= 0)
			SYS(SYS_close, slot[i]);
	return rc < 0 ? rc : 0;
}

/* Child: private_network's loopback, up. */
SANDBOX_CHILD long
sandbox_child_net(const struct sandbox *sb)
{
	struct ifreq	ifr;
	long		rc;
	int		fd;

	if (!sb->lo_up)
		return 0;
	__builtin_memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_name[0] = 'l';
	ifr.ifr_name[1] = 'o';
	if ((rc = SYS(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return rc;
	fd = (int)rc;
	if ((rc = SYS(SYS_ioctl, fd, SIOCGIFFLAGS, &ifr)) >= 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = SYS(SYS_ioctl, fd, SIOCSIFFLAGS, &ifr);
	}
	SYS(SYS_close, fd);
	return rc;
}

/*
 * Child: limits, nice, CPUs and I/O priority; *stage says which failed:
 * -1 - N for limit N of sb->rl, else 1, 2, 3.
 */
SANDBOX_CHILD long
sandbox_child_sched(const struct sandbox *sb, int *stage)
{
	struct rlimit	rl;
	long		rc;
	int		i;

	for (i = 0; i < sb->nrl; i++) {
		*stage = -1 - i;
		rl.rlim_cur = sb->rl[i].cur;
		rl.rlim_max = sb->rl[i].max;
		if ((rc = SYS(SYS_prlimit64, 0, sb->rl[i].resource, &rl,
		    NULL)) < 0)
			return rc;
	}
	*stage = 1;
	if (sb->set_nice && (rc = SYS(SYS_setpriority, PRIO_PROCESS, 0,
	    sb->nice)) < 0)
		return rc;
	*stage = 2;
	if (sb->cpus && (rc = SYS(SYS_sched_setaffinity, 0, sb->cpus_size,
	    sb->cpus)) < 0)
		return rc;
	*stage = 3;
	if (sb->set_ioprio && (rc = SYS(SYS_ioprio_set, 1 /* process */, 0,
	    sb->ioprio)) < 0)
		return rc;
	return 0;
}

/* Child: root_directory, as its mounts made it: an O_PATH fd of it. */
SANDBOX_CHILD long
sandbox_child_root_open(const struct sandbox *sb)
{
	return SYS(SYS_openat, AT_FDCWD, sb->root, O_PATH | O_DIRECTORY |
	    O_CLOEXEC);
}

/* Child: into the root of fd (root_directory), before its workdir. */
SANDBOX_CHILD long
sandbox_child_chroot(int root)
{
	long	rc;

	if ((rc = SYS(SYS_fchdir, root)) < 0 ||
	    (rc = SYS(SYS_chroot, ".")) < 0)
		return rc;
	return SYS(SYS_chdir, "/");
}

/* Child, still privileged: what it may ever gain (the bounding set). */
SANDBOX_CHILD long
sandbox_child_bset(const struct sandbox *sb)
{
	long	rc;
	int	i;

	if (!sb->drop_bset)
		return 0;
	for (i = 0; i <= sb->cap_last; i++)
		if (!(sb->bset >> i & 1) && (rc = SYS(SYS_prctl,
		    PR_CAPBSET_DROP, i, 0, 0, 0)) < 0)
			return rc;
	return 0;
}

/* Child, before setuid: a user keeps its capabilities past it. */
SANDBOX_CHILD long
sandbox_child_keep(const struct sandbox *sb, bool user)
{
	if (!sb->set_caps || !user)
		return 0;
	return SYS(SYS_prctl, PR_SET_KEEPCAPS, 1, 0, 0, 0);
}

/*
 * Child, after setuid: hold exactly capabilities; a user gets them as
 * ambient ones, which exec keeps (so user = nobody binds port 80).
 */
SANDBOX_CHILD long
sandbox_child_caps(const struct sandbox *sb, bool user)
{
	struct __user_cap_header_struct	hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct	data[2];
	long				rc;
	int				i;

	if (sb->set_caps) {
		for (i = 0; i < 2; i++) {
			data[i].effective = data[i].permitted =
			    data[i].inheritable = (uint32_t)(sb->caps >>
			    (32 * i));
		}
		if ((rc = SYS(SYS_capset, &hdr, data)) < 0)
			return rc;
		for (i = 0; user && i <= sb->cap_last; i++)
			if ((sb->caps >> i & 1) && (rc = SYS(SYS_prctl,
			    PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, i, 0,
			    0)) < 0)
				return rc;
	}
	if (sb->nnp)
		return SYS(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return 0;
}

/* Child, last before exec: the system call filter. */
SANDBOX_CHILD long
sandbox_child_filter(const struct sandbox *sb)
{
	struct sock_fprog	prog;

	if (sb->filter == NULL)
		return 0;
	prog.len = sb->nfilter;
	prog.filter = sb->filter;
	return SYS(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
