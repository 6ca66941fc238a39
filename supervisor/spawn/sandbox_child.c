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

#include "rawpath.h"
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
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID	0x00000002
#define MOUNT_ATTR_NODEV	0x00000004
#define MOUNT_ATTR_NOEXEC	0x00000008
#endif

struct sandbox_mount_attr {
	uint64_t	attr_set, attr_clr, propagation, userns_fd;
};

/* Child: a fresh tmpfs of this mode, detached: its fd, or -errno. */
SANDBOX_CHILD static long
sandbox_child_tmpfs(const char *mode, unsigned attr)
{
	long	fs, rc;

	if ((fs = SYS(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)) < 0)
		return fs;
	if ((rc = SYS(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", mode,
	    0)) >= 0 && (rc = SYS(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL,
	    NULL, 0)) >= 0)
		rc = SYS(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attr);
	SYS(SYS_close, fs);
	return rc;
}

/* Child: put the mount (tree) of fd on the place fd at names. */
SANDBOX_CHILD static long
sandbox_child_put(long tree, long at)
{
	return SYS(SYS_move_mount, tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH |
	    MOVE_MOUNT_T_EMPTY_PATH);
}

/* Child: set attr on the mount of fd (clear it: clr), and under it if
 * rec. */
SANDBOX_CHILD static long
sandbox_child_setattr(long fd, uint64_t attr, bool rec)
{
	struct sandbox_mount_attr	a = { .attr_set = attr };

	return SYS(SYS_mount_setattr, fd, "", AT_EMPTY_PATH |
	    (rec ? AT_RECURSIVE : 0), &a, sizeof(a));
}

SANDBOX_CHILD static long
sandbox_child_clrattr(long fd, uint64_t attr)
{
	struct sandbox_mount_attr	a = { .attr_clr = attr };

	return SYS(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    &a, sizeof(a));
}

/*
 * Child: what is at fd, and under it, read-only (or not executable;
 * executable again: clr): a copy of its tree put on it, set so; the root
 * itself in place (it is a mount of its own: ours, or
 * root_directory's).
 */
SANDBOX_CHILD static long
sandbox_child_ro(long fd, bool is_root, uint64_t attr, bool clr)
{
	long	tree, rc;

	if (is_root)
		return clr ? sandbox_child_clrattr(fd, attr) :
		    sandbox_child_setattr(fd, attr, true);
	if ((tree = SYS(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH)) < 0)
		return tree;
	if ((rc = sandbox_child_put(tree, fd)) >= 0)
		rc = clr ? sandbox_child_clrattr(tree, attr) :
		    sandbox_child_setattr(tree, attr, true);
	SYS(SYS_close, tree);
	return rc;
}

/* Child: a procfs of its own on fd (/proc), with hidepid= and subset=. */
SANDBOX_CHILD static long
sandbox_child_proc(const struct sandbox *sb, long fd)
{
	long	fs, rc, m;

	if ((fs = SYS(SYS_fsopen, "proc", FSOPEN_CLOEXEC)) < 0)
		return fs;
	if ((rc = SYS(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "hidepid",
	    sb->hidepid, 0)) >= 0 && (!sb->subset_pid || (rc = SYS(SYS_fsconfig,
	    fs, FSCONFIG_SET_STRING, "subset", "pid", 0)) >= 0) &&
	    (rc = SYS(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL,
	    0)) >= 0 && (rc = m = SYS(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) >= 0) {
		rc = sandbox_child_put(m, fd);
		SYS(SYS_close, m);
	}
	SYS(SYS_close, fs);
	return rc;
}

/*
 * Child: an empty, read-only thing over what fd names, in the directory
 * dir.  A directory gets a tmpfs of mode 000; anything else an empty
 * file of mode 000, made on a tmpfs put over dir for the moment (so
 * that it is ours to bind), bound over it, the tmpfs then detached
 * (the bind holds it).
 */
SANDBOX_CHILD static long
sandbox_child_hide(long fd, long dir)
{
	struct stat	st = { 0 };
	long		m, f, rc, cwd;

	if ((rc = SYS(SYS_fstat, fd, &st)) < 0)
		return rc;
	if (S_ISDIR(st.st_mode)) {
		if ((m = sandbox_child_tmpfs("000", MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		    MOUNT_ATTR_NOEXEC)) < 0)
			return m;
		rc = sandbox_child_put(m, fd);
		SYS(SYS_close, m);
		return rc;
	}
	if ((m = sandbox_child_tmpfs("000", MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) < 0)
		return m;
	if ((rc = sandbox_child_put(m, dir)) < 0) {
		SYS(SYS_close, m);
		return rc;
	}
	f = rc = SYS(SYS_openat, m, ".pidvisor-hidden", O_CREAT | O_WRONLY |
	    O_CLOEXEC, 0);
	if (rc >= 0) {
		SYS(SYS_close, f);
		f = rc = SYS(SYS_open_tree, m, ".pidvisor-hidden",
		    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	}
	if (rc >= 0 && (rc = sandbox_child_put(f, fd)) >= 0)
		rc = sandbox_child_setattr(f, MOUNT_ATTR_RDONLY, false);
	if (f >= 0)
		SYS(SYS_close, f);
	/* Off dir again: unmounted from where it is, as our cwd. */
	if ((cwd = SYS(SYS_open, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    SYS(SYS_fchdir, m) >= 0) {
		SYS(SYS_umount2, ".", MNT_DETACH);
		SYS(SYS_fchdir, cwd);
	}
	if (cwd >= 0)
		SYS(SYS_close, cwd);
	SYS(SYS_close, m);
	return rc;
}

/* Child: a minimal /dev on what fd names (the nodes bound from ours). */
SANDBOX_CHILD static long
sandbox_child_dev(long at)
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
	int	tree[ARRAY_SIZE(nodes)], fd;
	size_t	i;
	long	rc, dir = -1;

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
	if ((rc = dir = sandbox_child_tmpfs("755", MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NOEXEC)) < 0)
		goto out;
	if ((rc = sandbox_child_put(dir, at)) < 0)
		goto out;
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
out:
	if (dir >= 0)
		SYS(SYS_close, dir);
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		if (tree[i] >= 0)
			SYS(SYS_close, tree[i]);
	return rc < 0 ? rc : 0;
}

/* What the plan's walk holds: the root, the copies, what they were. */
struct sb_walk {
	int		 root;		/* the service's /, by fd */
	int		 slot[SB_SLOTS_MAX];
	uint64_t	 dev[SB_SLOTS_MAX], ino[SB_SLOTS_MAX];
	uid_t		 owner;
	struct rawpath	 rp;
};

/*
 * Child: a directory of runtime_directory and the like, beneath
 * root_directory if there is one.  Its base (/var/lib) is looked up as
 * the plan's paths are (rawpath.c: root's symlinks followed).  Then each
 * component of its name by fd from the one before, made there if
 * missing (those above the name's last root's, 0755): a symlink is
 * followed only if root owns it and every directory it was found in is
 * root's and writable by root alone (an administrator's /var/lib/db ->
 * /srv/db), never in a directory the service's user could change (a
 * link it made, renamed or hard-linked there).  The last one gets its
 * mode and the service's user and group if it is theirs to own; an
 * existing configuration directory is left as it is (systemd's).
 */
SANDBOX_CHILD static long
sandbox_child_mkdir(const struct sandbox *sb, const struct sb_op *op,
    struct sb_walk *w)
{
	const char	*path = op->path, *c;
	char		 part[512];
	struct stat	 st = { 0 };
	long		 dir, fd, rc = 0;
	size_t		 n, base = sb->rootlen + op->base;
	bool		 safe = true, made = false;

	if (base >= sizeof(part))
		return -ENAMETOOLONG;
	for (n = 0; n < base; n++)
		part[n] = path[n];
	part[n] = '\0';
	if ((dir = rawpath_open(w->root, part, 0, O_PATH | O_DIRECTORY,
	    &w->rp)) < 0)
		return dir;
	for (c = path + base; *c != '\0' && dir >= 0; c += n) {
		c += *c == '/';
		for (n = 0; c[n] != '\0' && c[n] != '/' &&
		    n < sizeof(part) - 1; n++)
			part[n] = c[n];
		part[n] = '\0';
		fd = -ENAMETOOLONG;
		if (n == 0 || (c[n] != '\0' && c[n] != '/') ||
		    (fd = SYS(SYS_fstat, dir, &st)) < 0)
			goto next;
		safe = safe && st.st_uid == 0 && !(st.st_mode & 022);
		made = false;
		fd = SYS(SYS_openat, dir, part, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -ENOENT) {
			rc = SYS(SYS_mkdirat, dir, part, c[n] == '\0' ?
			    op->mode & 0777 : 0755);
			made = rc >= 0;
			fd = rc < 0 && rc != -EEXIST ? rc : SYS(SYS_openat, dir,
			    part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0)
			goto next;
		if ((rc = SYS(SYS_fstat, fd, &st)) < 0 ||
		    !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
			SYS(SYS_close, fd);
			fd = rc < 0 ? rc : -ENOTDIR;
		} else if (S_ISLNK(st.st_mode)) {
			SYS(SYS_close, fd);
			fd = -ELOOP;
			/* Root's link in root's directories only: where it
			 * leads, as rawpath follows it (the same walk). */
			if (safe && st.st_uid == 0) {
				size_t	k;

				for (k = 0; path + k < c + n; k++)
					part[k] = path[k];
				part[k] = '\0';
				fd = rawpath_open(w->root, part, 0, O_PATH |
				    O_DIRECTORY, &w->rp);
			}
		}
next:
		SYS(SYS_close, dir);
		dir = fd;
	}
	if (dir < 0)
		return dir;
	/* Its mode and owner, by an fd of the directory itself. */
	fd = SYS(SYS_openat, dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	SYS(SYS_close, dir);
	if (fd < 0)
		return fd;
	rc = SYS(SYS_fstat, fd, &st);
	if (rc >= 0 && op->own && (st.st_uid != sb->dir_uid ||
	    st.st_gid != sb->dir_gid))
		rc = SYS(SYS_fchown, fd, sb->dir_uid, sb->dir_gid);
	if (rc >= 0 && (op->own || made) && (st.st_mode & 07777) != op->mode)
		rc = SYS(SYS_fchmod, fd, op->mode);
	SYS(SYS_close, fd);
	return rc < 0 ? rc : 0;
}

/*
 * Child: one op of the plan on the place of its path, looked up once,
 * beneath the root (rawpath.c), and used by fd.
 */
SANDBOX_CHILD static long
sandbox_child_op(const struct sandbox *sb, const struct sb_op *op,
    struct sb_walk *w)
{
	const char	*rel = op->path + sb->rootlen;
	struct stat	 st = { 0 };
	long		 fd, rc = 0;
	bool		 is_root = rel[0] == '\0' || (rel[0] == '/' &&
			    rel[1] == '\0');

	if (op->kind == SB_PUT && w->slot[op->slot] < 0)
		return 0;		/* optional, missing */
	if ((fd = rawpath_walk(w->root, is_root ? "/" : rel, w->owner,
	    &w->rp)) < 0)
		return fd;
	fd = SYS(SYS_openat, w->rp.dir, w->rp.name, O_PATH | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd >= 0 && ((rc = SYS(SYS_fstat, fd, &st)) < 0 ||
	    S_ISLNK(st.st_mode)))
		rc = rc < 0 ? rc : -ELOOP;	/* one put there since */
	if (fd < 0 || rc < 0)
		goto out;
	switch (op->kind) {
	case SB_CLONE:
		rc = SYS(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
		if (rc >= 0) {
			w->slot[op->slot] = (int)rc;
			w->dev[op->slot] = st.st_dev;
			w->ino[op->slot] = st.st_ino;
		}
		break;
	case SB_RO:
		rc = sandbox_child_ro(fd, is_root, MOUNT_ATTR_RDONLY, false);
		break;
	case SB_NOEXEC:
	case SB_EXEC:
		rc = sandbox_child_ro(fd, is_root, MOUNT_ATTR_NOEXEC,
		    op->kind == SB_EXEC);
		break;
	case SB_PROC:
		rc = sandbox_child_proc(sb, fd);
		break;
	case SB_PUT:
		/* The place its copy was taken from, or nothing. */
		if (st.st_dev != w->dev[op->slot] ||
		    st.st_ino != w->ino[op->slot])
			rc = -ESTALE;
		else
			rc = sandbox_child_put(w->slot[op->slot], fd);
		SYS(SYS_close, w->slot[op->slot]);
		w->slot[op->slot] = -1;
		break;
	case SB_HIDE:
		rc = sandbox_child_hide(fd, w->rp.dir);
		break;
	case SB_TMPFS:
		if ((rc = sandbox_child_tmpfs("1777", MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV)) >= 0) {
			long	m = rc;

			rc = sandbox_child_put(m, fd);
			SYS(SYS_close, m);
		}
		break;
	case SB_DEV:
		rc = sandbox_child_dev(fd);
		break;
	}
out:
	if (fd >= 0)
		SYS(SYS_close, fd);
	SYS(SYS_close, w->rp.dir);
	return fd < 0 ? fd : rc < 0 ? rc : 0;
}

/*
 * Child: root_directory made a mount of its own, bound on itself; its
 * fd (the mount's root) in w->root.
 */
SANDBOX_CHILD static long
sandbox_child_bind_root(const struct sandbox *sb, struct sb_walk *w)
{
	long	fd, tree, rc;

	if ((fd = rawpath_open(w->root, sb->root, w->owner, O_PATH |
	    O_DIRECTORY, &w->rp)) < 0)
		return fd;
	if ((tree = SYS(SYS_open_tree, fd, "", OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH)) < 0) {
		SYS(SYS_close, fd);
		return tree;
	}
	rc = sandbox_child_put(tree, fd);
	SYS(SYS_close, fd);
	if (rc < 0) {
		SYS(SYS_close, tree);
		return rc;
	}
	SYS(SYS_close, w->root);
	w->root = (int)tree;
	return 0;
}

/*
 * Child, in its new mount namespace: walk the plan, each path looked up
 * once beneath the service's root, a symlink on the way followed only
 * if root or owner owns it.  0 with *root an O_PATH fd of
 * root_directory's mount (-1 without one); or -errno with *at the op
 * that failed and *uid the owner of a symlink not followed (or -1).
 */
SANDBOX_CHILD long
sandbox_child_mounts(const struct sandbox *sb, uid_t owner, int *at,
    int32_t *uid, int *root)
{
	struct sb_walk	 w;
	size_t		 i;
	long		 rc = 0;

	*root = -1;
	*uid = -1;
	if (sb->nops == 0)
		return 0;
	w.owner = owner;
	w.rp.uid = -1;
	for (i = 0; i < SB_SLOTS_MAX; i++)
		w.slot[i] = -1;
	if ((rc = SYS(SYS_open, "/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		*at = 0;
		return rc;
	}
	w.root = (int)rc;
	for (i = 0; i < sb->nops && rc >= 0; i++) {
		*at = (int)i;
		w.rp.uid = -1;
		if (sb->ops[i].kind == SB_SLAVE)
			rc = SYS(SYS_mount, NULL, "/", NULL, MS_REC | MS_SLAVE,
			    NULL);
		else if (sb->ops[i].kind == SB_BIND_SELF)
			rc = sandbox_child_bind_root(sb, &w);
		else if (sb->ops[i].kind == SB_MKDIR)
			rc = sandbox_child_mkdir(sb, &sb->ops[i], &w);
		else
			rc = sandbox_child_op(sb, &sb->ops[i], &w);
		if (rc == -ENOENT && sb->ops[i].optional)
			rc = 0;
	}
	*uid = w.rp.uid;
	for (i = 0; i < SB_SLOTS_MAX; i++)
		if (w.slot[i] >= 0)
			SYS(SYS_close, w.slot[i]);
	if (rc < 0 || sb->root == NULL) {
		SYS(SYS_close, w.root);
		return rc < 0 ? rc : 0;
	}
	*root = w.root;
	return 0;
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

/*
 * Child: root_directory without a mount namespace (no mounts to make):
 * an O_PATH fd of it, looked up as the plan's paths are.
 */
SANDBOX_CHILD long
sandbox_child_root_open(const struct sandbox *sb, uid_t owner)
{
	struct rawpath	rp;
	long		slash, fd;

	if ((slash = SYS(SYS_open, "/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return slash;
	fd = rawpath_open((int)slash, sb->root, owner, O_PATH | O_DIRECTORY,
	    &rp);
	SYS(SYS_close, slash);
	return fd;
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

/*
 * Child, last before exec: the system call filters, each if any; the
 * protections' first, as syscall_filter's may not allow seccomp().
 */
SANDBOX_CHILD long
sandbox_child_filter(const struct sandbox *sb)
{
	struct sock_fprog	prog;
	long			rc;

	if (sb->pfilter != NULL) {
		prog.len = sb->npfilter;
		prog.filter = sb->pfilter;
		if ((rc = SYS(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &prog)) < 0)
			return rc;
	}
	if (sb->filter == NULL)
		return 0;
	prog.len = sb->nfilter;
	prog.filter = sb->filter;
	return SYS(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
