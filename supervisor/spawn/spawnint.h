/*
 * spawnint.h - what spawn.c (the parent's side of a spawn) and
 * spawn_child.c (the child's, up to exec) share, and nobody else.
 */
#ifndef PIDVISOR_SPAWNINT_H
#define PIDVISOR_SPAWNINT_H

#include <stdint.h>

#include "env.h"
#include "rawsys.h"

/* The child's code, on a stack the sanitizers do not know. */
#define CHILD	__attribute__((no_sanitize_address, no_sanitize("undefined")))

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#define SPAWN_HELLO	(-1)	/* report: the child has its own fds */
#define SPAWN_NS	(-2)	/* report: its namespaces, as fds */

/* What the child says: SPAWN_HELLO, or where and why it failed. */
struct spawn_report {
	int32_t		stage;
	int32_t		err;
	int32_t		at;		/* STAGE_MOUNT: which op */
	struct env_fail	fail;		/* STAGE_ENV_FILE */
};

#define SYS(...)	RAWSYS(__VA_ARGS__)

/* The child's entry point (clone's fn): its struct spawn_proc. */
int	spawn_child(void *arg);

#endif
