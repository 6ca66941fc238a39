/*
 * victim.c - whom the low-memory killer picks: the highest kill_priority
 * and, among equals, the most memory.  A negative priority is never
 * picked.
 */
#include "victim.h"

/* Index of the victim among n candidates, or -1 if none may die. */
ssize_t
victim_pick(const struct victim *v, size_t n)
{
	ssize_t	best = -1;
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i].priority < 0)
			continue;
		if (best < 0 || v[i].priority > v[best].priority ||
		    (v[i].priority == v[best].priority &&
		    v[i].memory > v[best].memory))
			best = (ssize_t)i;
	}
	return best;
}
