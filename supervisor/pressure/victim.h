/* victim.h - whom the low-memory killer picks */
#ifndef PIDVISOR_VICTIM_H
#define PIDVISOR_VICTIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct victim {
	int32_t		priority;	/* < 0: never */
	uint64_t	memory;		/* what a kill frees: anon + swap */
	int64_t		growth;		/* since the last look, bytes */
};

ssize_t	victim_pick(const struct victim *v, size_t n, int32_t min_priority,
	    uint64_t deficit);

#endif
