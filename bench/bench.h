/* bench.h - what the benchmark programs share. */
#ifndef PIDVISOR_BENCH_H
#define PIDVISOR_BENCH_H

#include <stdint.h>
#include <time.h>

static inline int64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* For qsort of int64_t. */
static inline int
cmp64(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
