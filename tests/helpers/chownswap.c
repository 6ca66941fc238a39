/*
 * chownswap.c - the attacker of a bind-then-chown race, put in its
 * window (t_sec_listen_chown): preloaded into pidvisor, the first
 * fchownat() it makes first moves $PV_SWAP_AT aside and puts a hard
 * link to $PV_SWAP_TO in its place, as the owner of that directory
 * could between pidvisor's bind() and its chown.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	static int	(*real)(int, const char *, uid_t, gid_t, int);
	static int	 done;
	const char	*at = getenv("PV_SWAP_AT"), *to = getenv("PV_SWAP_TO");
	char		 moved[4096];

	if (real == NULL)
		real = (int (*)(int, const char *, uid_t, gid_t, int))dlsym(
		    RTLD_NEXT, "fchownat");
	if (at != NULL && to != NULL && !done) {
		done = 1;
		snprintf(moved, sizeof(moved), "%s.moved", at);
		(void)!rename(at, moved);
		(void)!link(to, at);
	}
	return real(dirfd, path, owner, group, flags);
}
