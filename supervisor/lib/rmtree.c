/*
 * rmtree.c - a service's runtime_directory removed when it stops
 * (`pidvisor --remove-directories PATH...`, the last command of its
 * stop_post chain: hook.c), off the loop: the tree is the service's
 * user's, as big, deep or slow (a FUSE mount in it) as that user made
 * it.  Every step is by fd from the directory above, nothing followed:
 * a symlink the user put anywhere in it is removed, never walked, and a
 * mount inside is left (said).  With `--remove-ipc UID GID` after the
 * paths (remove_ipc), the System V and POSIX IPC objects of that user
 * or group go too, as systemd's RemoveIPC= removes them.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
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

/*
 * The System V objects of /proc/sysvipc/NAME whose owner is uid, or
 * whose group is gid (-1: none), removed, as systemd's RemoveIPC= does
 * (a segment still attached stays); how many could not be.  Its header
 * names the columns.
 */
static int
rm_sysv(const char *name, uid_t uid, long long gid)
{
	char	 path[64], line[512], *tok[32], *s, *save = NULL;
	int	 cu = -1, cg = -1, ca = -1, n, i, k, id, bad = 0;
	FILE	*f;

	snprintf(path, sizeof(path), "/proc/sysvipc/%s", name);
	if ((f = fopen(path, "re")) == NULL)
		return 0;		/* no System V IPC here */
	for (k = 0; fgets(line, sizeof(line), f) != NULL; k++) {
		for (n = 0, s = strtok_r(line, " \t\n", &save); s != NULL &&
		    n < 32; s = strtok_r(NULL, " \t\n", &save))
			tok[n++] = s;
		if (k == 0) {
			for (i = 0; i < n; i++) {
				if (strcmp(tok[i], "uid") == 0)
					cu = i;
				else if (strcmp(tok[i], "gid") == 0)
					cg = i;
				else if (strcmp(tok[i], "nattch") == 0)
					ca = i;
			}
			continue;
		}
		if (n < 2 || cu < 0 || cg < 0 || cu >= n || cg >= n ||
		    (ca >= 0 && ca < n && atoi(tok[ca]) > 0) ||
		    (strtoul(tok[cu], NULL, 10) != uid && (gid < 0 ||
		    strtoll(tok[cg], NULL, 10) != gid)))
			continue;
		id = atoi(tok[1]);
		if ((name[1] == 'h' ? shmctl(id, IPC_RMID, NULL) :
		    name[1] == 'e' ? semctl(id, 0, IPC_RMID) :
		    msgctl(id, IPC_RMID, NULL)) < 0 && errno != EINVAL &&
		    errno != EIDRM) {
			printf("%s %d: not removed: %s\n", name, id,
			    strerror(errno));
			bad++;
		}
	}
	fclose(f);
	return bad;
}

/* The POSIX objects of uid or gid (-1: none): their files in dir
 * (/dev/shm, /dev/mqueue), and all beneath them; how many could not be
 * removed. */
static int
rm_posix(const char *dir, uid_t uid, long long gid)
{
	struct statx	 sx;
	struct stat	 st;
	struct dirent	*e;
	DIR		*d;
	int		 fd, bad = 0, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return 0;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID) || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") ==
		    0 || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (st.st_uid != uid && (gid < 0 || st.st_gid != gid)))
			continue;
		if ((rc = rm_at(fd, e->d_name, sx.stx_mnt_id, 0)) < 0) {
			printf("%s/%s: not removed: %s\n", dir, e->d_name,
			    strerror(-rc));
			bad++;
		}
	}
	closedir(d);
	return bad;
}

int
rmtree_main(int argc, char **argv)
{
	int	i, rc, bad = 0;
	uid_t		uid;
	long long	gid;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--remove-ipc") == 0 && i + 2 < argc) {
			uid = (uid_t)strtoul(argv[i + 1], NULL, 10);
			gid = strtoll(argv[i + 2], NULL, 10);
			if (uid == 0 || gid == 0)
				return 1;	/* never root's */
			bad |= rm_sysv("shm", uid, gid) + rm_sysv("sem", uid,
			    gid) + rm_sysv("msg", uid, gid) + rm_posix(
			    "/dev/shm", uid, gid) + rm_posix("/dev/mqueue",
			    uid, gid) != 0;
			i += 2;
		} else if ((rc = rm_path(argv[i])) < 0) {
			printf("%s: not all removed: %s\n", argv[i],
			    strerror(-rc));
			bad = 1;
		}
	}
	return bad;
}
