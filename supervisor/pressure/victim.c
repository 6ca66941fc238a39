/*
 * victim.c - whom the low-memory killer picks, among the services that
 * may die at this level (kill_priority at least min_priority; never a
 * negative one): by what a kill frees.
 *
 * The highest kill_priority first, then the most memory; two sizes
 * within an eighth of each other are a tie, which the faster growing
 * wins (a leak is the one to go).  But where the decision knows how
 * much is missing (the deficit under the memory floor), a victim that
 * frees at least that much goes before any that does not, whatever its
 * priority: a small victim buys a moment, and the next kill costs one
 * more stall.  A service that would free nothing is no victim.
 */
#include <stdbool.h>

#include "victim.h"

/* Does a go before b? */
static bool
victim_before(const struct victim *a, const struct victim *b)
{
	uint64_t	big, diff;

	if (a->priority != b->priority)
		return a->priority > b->priority;
	big = a->memory > b->memory ? a->memory : b->memory;
	diff = a->memory > b->memory ? a->memory - b->memory :
	    b->memory - a->memory;
	if (diff > big / 8 || a->growth == b->growth)
		return a->memory > b->memory;
	return a->growth > b->growth;
}

/* Index of the victim among n candidates, or -1 if none may die. */
ssize_t
victim_pick(const struct victim *v, size_t n, int32_t min_priority,
    uint64_t deficit)
{
	ssize_t	best = -1, big = -1;
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i].priority < 0 || v[i].priority < min_priority ||
		    v[i].memory == 0)
			continue;
		if (best < 0 || victim_before(&v[i], &v[best]))
			best = (ssize_t)i;
		if (deficit && v[i].memory >= deficit &&
		    (big < 0 || victim_before(&v[i], &v[big])))
			big = (ssize_t)i;
	}
	return big >= 0 ? big : best;
}
