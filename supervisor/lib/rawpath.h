/* rawpath.h - look a path up by hand, beneath a root, for a spawn child */
#ifndef PIDVISOR_RAWPATH_H
#define PIDVISOR_RAWPATH_H

#include <stdint.h>
#include <sys/types.h>

#define RAWPATH_DEPTH	64	/* directories deep, at most */
#define RAWPATH_LINKS	40	/* symlinks followed, at most */

/* Where a path led: the directory it ends in, and its name there. */
struct rawpath {
	int	dir;		/* an O_PATH fd; the caller closes it */
	char	name[256];	/* "." for the directory itself */
	int32_t	uid;		/* -ELOOP: the refused symlink's owner,
				 * or -1 (too many, or a magic link) */
};

long	rawpath_walk(int root, const char *path, uid_t owner,
	    struct rawpath *rp);
long	rawpath_open(int root, const char *path, uid_t owner, int flags,
	    struct rawpath *rp);

#endif
