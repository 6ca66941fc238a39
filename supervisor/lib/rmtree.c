/*
 * rmtree.c - a service's runtime_directory removed when it stops
 * (`pidvisor --remove-directories PATH...`, the last command of its
 * stop_post chain: hook.c), off the loop: the tree is the service's
 * user's, as big, deep or slow (a FUSE mount in it) as that user made
 * it.  Every step is by fd from the directory above, nothing followed:
 * a symlink the user put anywhere in it is removed, never walked, and a
 * mount inside is left (said).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rmtree.h"

#define RMTREE_DEPTH	256

/*
 * Remove name in dfd, and all beneath it on the mount mnt (its ID: a
 * bind mount of the same file system has the same st_dev).  0, or
 * -errno.
 */
static int
rm_at(int dfd, const char *name, uint64_t mnt, int depth)
{
	struct statx	 sx;
	struct stat	 st, self;
	struct dirent	*e;
	DIR		*d;
	int		 fd, rc = 0, pass;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO |
	    STATX_MNT_ID, &sx) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(sx.stx_mode))
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno :
		    0;
	if (!(sx.stx_mask & STATX_MNT_ID) || sx.stx_mnt_id != mnt)
		return -EXDEV;		/* a mount in it: left */
	st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st.st_ino = sx.stx_ino;
	if (depth > RMTREE_DEPTH)
		return -ELOOP;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &self) < 0 || self.st_dev != st.st_dev ||
	    self.st_ino != st.st_ino) {
		close(fd);
		return -ESTALE;		/* swapped meanwhile */
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	/* Again while entries are left: a removal may hide one from the
	 * scan under way. */
	for (pass = 0; pass < 3; pass++) {
		int	left = 0;

		rewinddir(d);
		while ((e = readdir(d)) != NULL) {
			int	r;

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			left++;
			if ((r = rm_at(fd, e->d_name, mnt, depth + 1)) < 0 &&
			    rc == 0)
				rc = r;
		}
		if (left == 0 || rc < 0)
			break;
	}
	closedir(d);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* One directory: its parents walked with nothing followed, from "/". */
static int
rm_path(const char *path)
{
	char		 part[256];
	const char	*c = path, *next;
	struct statx	 sx;
	int		 dir, fd, rc;
	size_t		 n;

	if (path[0] != '/')
		return -EINVAL;
	if ((dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (;;) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		next = c + n + strspn(c + n, "/");
		if (n == 0 || n >= sizeof(part)) {
			close(dir);
			return -EINVAL;
		}
		memcpy(part, c, n);
		part[n] = '\0';
		if (*next == '\0')
			break;
		fd = openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(dir);
		if (fd < 0)
			return errno == ENOENT ? 0 : -errno;
		dir = fd;
		c = next;
	}
	if (statx(dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0)
		rc = -errno;
	else if (!(sx.stx_mask & STATX_MNT_ID))
		rc = -ENOSYS;		/* before 5.8: nothing removed */
	else
		rc = rm_at(dir, part, sx.stx_mnt_id, 0);
	close(dir);
	return rc;
}

int
rmtree_main(int argc, char **argv)
{
	int	i, rc, bad = 0;

	for (i = 0; i < argc; i++)
		if ((rc = rm_path(argv[i])) < 0) {
			printf("%s: not all removed: %s\n", argv[i],
			    strerror(-rc));
			bad = 1;
		}
	return bad;
}
