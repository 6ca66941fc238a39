/* victim.h - whom the low-memory killer picks */
#ifndef PIDVISOR_VICTIM_H
#define PIDVISOR_VICTIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct victim {
	int32_t		priority;	/* < 0: never */
	uint64_t	memory;		/* bytes */
};

ssize_t	victim_pick(const struct victim *v, size_t n);

#endif
