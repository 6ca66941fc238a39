/*
 * rawpath.c - look a path up a component at a time, as a spawn child
 * must before it mounts on it or reads it as root.
 *
 * The walk stays beneath a root (root_directory's, or /), as openat2()'s
 * RESOLVE_IN_ROOT would: ".." never climbs above it, and an absolute
 * symlink starts again from it.  A symlink is followed only if root or
 * the given owner (the service's user) owns it, as fs.protected_symlinks
 * would in a sticky directory: a link another user planted leads nowhere.
 * A symlink of /proc (a "magic" link, which would jump out of any root)
 * is never followed.  Each directory on the way is held by fd, so a
 * rename meanwhile cannot carry the walk out of the root; what is found
 * is found once, and used by fd.
 *
 * For the spawn child, which shares our memory (spawn.c): raw system
 * calls only, no allocation, the caller's stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "rawpath.h"
#include "rawsys.h"

#define RAWPATH	__attribute__((no_sanitize_address, no_sanitize("undefined")))

/* Close the directories of a walk above its root. */
RAWPATH static void
rawpath_unwind(int *dirs, int *depth)
{
	while (*depth > 0)
		RAWSYS(SYS_close, dirs[(*depth)--]);
}

/* Is the symlink of fd one we may follow?  0, or -ELOOP with rp->uid. */
RAWPATH static long
rawpath_may_follow(long fd, const struct stat *st, uid_t owner,
    struct rawpath *rp)
{
	struct statfs	sfs = { 0 };

	if (RAWSYS(SYS_fstatfs, fd, &sfs) < 0 || sfs.f_type == PROC_SUPER_MAGIC)
		return -ELOOP;		/* a magic link */
	if (st->st_uid != 0 && st->st_uid != owner) {
		rp->uid = (int32_t)st->st_uid;
		return -ELOOP;
	}
	return 0;
}

/*
 * Walk path (absolute, or relative to root alike) beneath root, an
 * O_PATH fd of a directory: *rp is the directory of its last component
 * (an fd, the caller's to close) and that component's name, which was
 * not a symlink when looked at (symlinks at the end are followed too).
 * 0, or -errno: -ELOOP for a symlink not followed (rp->uid its owner if
 * that was why) or too many.
 */
RAWPATH long
rawpath_walk(int root, const char *path, uid_t owner, struct rawpath *rp)
{
	char		 cur[4096], link[4096];
	int		 dirs[RAWPATH_DEPTH], depth = 0, links = 0;
	const char	*p, *q, *r;
	struct stat	 st = { 0 };
	size_t		 len, rest;
	long		 fd, rc;

	rp->dir = -1;
	rp->uid = -1;
	if ((len = strlen(path)) >= sizeof(cur))
		return -ENAMETOOLONG;
	memcpy(cur, path, len + 1);
	dirs[0] = root;
	for (p = cur;;) {
		while (*p == '/')
			p++;
		if (*p == '\0') {		/* the directory itself */
			rp->name[0] = '.';
			rp->name[1] = '\0';
			break;
		}
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		if ((size_t)(q - p) >= sizeof(rp->name)) {
			rc = -ENAMETOOLONG;
			goto fail;
		}
		if (q - p == 1 && p[0] == '.') {
			p = q;
			continue;
		}
		if (q - p == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > 0)		/* never above the root */
				RAWSYS(SYS_close, dirs[depth--]);
			p = q;
			continue;
		}
		memcpy(rp->name, p, (size_t)(q - p));
		rp->name[q - p] = '\0';
		if ((fd = RAWSYS(SYS_openat, dirs[depth], rp->name, O_PATH |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = fd;
			goto fail;
		}
		if ((rc = RAWSYS(SYS_fstat, fd, &st)) < 0)
			goto fail_fd;
		for (r = q; *r == '/'; r++)
			;
		if (S_ISLNK(st.st_mode)) {
			if ((rc = rawpath_may_follow(fd, &st, owner, rp)) < 0)
				goto fail_fd;
			rc = ++links > RAWPATH_LINKS ? -ELOOP :
			    RAWSYS(SYS_readlinkat, fd, "", link, sizeof(link));
			RAWSYS(SYS_close, fd);
			rest = strlen(q);
			if (rc >= 0 && (size_t)rc + rest >= sizeof(link))
				rc = -ENAMETOOLONG;
			if (rc <= 0) {
				rc = rc < 0 ? rc : -ENOENT;
				goto fail;
			}
			/* Its target, then what is left of the path. */
			memcpy(link + rc, q, rest + 1);
			memcpy(cur, link, (size_t)rc + rest + 1);
			p = cur;
			if (cur[0] == '/')
				rawpath_unwind(dirs, &depth);
			continue;
		}
		if (*r == '\0') {		/* the last: found */
			RAWSYS(SYS_close, fd);
			break;
		}
		if (!S_ISDIR(st.st_mode) || depth + 1 >= RAWPATH_DEPTH) {
			rc = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
			goto fail_fd;
		}
		dirs[++depth] = (int)fd;
		p = q;
	}
	if (depth > 0) {
		rp->dir = dirs[depth--];
	} else if ((rc = RAWSYS(SYS_fcntl, root, F_DUPFD_CLOEXEC, 0)) < 0) {
		goto fail;
	} else {
		rp->dir = (int)rc;
	}
	rawpath_unwind(dirs, &depth);
	return 0;
fail_fd:
	RAWSYS(SYS_close, fd);
fail:
	rawpath_unwind(dirs, &depth);
	return rc;
}

/*
 * Open path beneath root as rawpath_walk() finds it, with flags (and
 * O_NOFOLLOW: a symlink put at its end since is not followed, nor
 * taken, with O_PATH).  The fd, or -errno.
 */
RAWPATH long
rawpath_open(int root, const char *path, uid_t owner, int flags,
    struct rawpath *rp)
{
	struct stat	st = { 0 };
	long		fd, rc;

	if ((rc = rawpath_walk(root, path, owner, rp)) < 0)
		return rc;
	fd = RAWSYS(SYS_openat, rp->dir, rp->name, flags | O_NOFOLLOW |
	    O_CLOEXEC);
	RAWSYS(SYS_close, rp->dir);
	rp->dir = -1;
	if (fd < 0 || !(flags & O_PATH))
		return fd;
	if ((rc = RAWSYS(SYS_fstat, fd, &st)) < 0 || S_ISLNK(st.st_mode)) {
		RAWSYS(SYS_close, fd);
		return rc < 0 ? rc : -ELOOP;
	}
	return fd;
}
