/*
 * ready.c - the kinds of readiness (ready =), each what it is made of:
 * its name, whether a number follows (fd:N), what its spawn sets up (a
 * notify socket, a readiness pipe), and which event makes it ready (its
 * exec, a line on its pipe, READY=1, its exit 0, a health check that
 * passed).  The code asks the kind, never compares it: a new kind is a
 * line here (and where its event comes from).
 */
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

const struct ready_kind ready_kinds[READY__COUNT] = {
	[READY_EXEC] = { .name = "exec", .on_exec = true },
	[READY_FD] = { .name = "fd", .arg = true, .pipe = true },
	[READY_NOTIFY] = { .name = "notify", .notify = true },
	[READY_EXIT] = { .name = "exit", .task = true },
	[READY_HEALTH] = { .name = "health", .on_check = true },
	[READY_FORKING] = { .name = "forking", .forks = true },
};

/* ready = v: 0 with *kind (and *fd for fd:N), or -1. */
int
ready_parse(const char *v, uint8_t *kind, int *fd)
{
	uint64_t	n;
	size_t		i, len;

	for (i = 0; i < READY__COUNT; i++) {
		len = strlen(ready_kinds[i].name);
		if (!ready_kinds[i].arg && strcmp(v, ready_kinds[i].name) == 0) {
			*kind = (uint8_t)i;
			return 0;
		}
		if (ready_kinds[i].arg && strncmp(v, ready_kinds[i].name,
		    len) == 0 && v[len] == ':' && parse_u64(v + len + 1,
		    READY_FD_MAX, &n) == 0 && n >= 3) {
			*kind = (uint8_t)i;
			*fd = (int)n;
			return 0;
		}
	}
	return -1;
}

/* The values ready = takes, in words: "exec, fd:N, ... or health". */
void
ready_names(char *out, size_t n)
{
	size_t	i, at = 0;

	out[0] = '\0';
	for (i = 0; i < READY__COUNT && at < n; i++)
		at += (size_t)snprintf(out + at, n - at, "%s%s%s",
		    i == 0 ? "" : i + 1 == READY__COUNT ? " or " : ", ",
		    ready_kinds[i].name, ready_kinds[i].arg ? ":N" : "");
}
