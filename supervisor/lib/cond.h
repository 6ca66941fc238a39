/* cond.h - systemd's conditions and assertions, checked (cond.c) */
#ifndef PIDVISOR_COND_H
#define PIDVISOR_COND_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A condition as the keys `condition` and `assert` keep it: "TEST ARG",
 * the ARG as systemd writes it, '|' (triggering) and then '!' (negated)
 * in front.  cond_parse() says whether one is right (NULL) or why not.
 */
const char	*cond_parse(const char *line, char *why, size_t n);

/* TEST's systemd name (path_exists: PathExists), and back: NULL/-1. */
const char	*cond_systemd_name(const char *test, size_t len);
int		 cond_from_systemd(const char *name, char *out, size_t n);

/*
 * The checker (`pidvisor --test-conditions`, run by the hooks off the
 * loop): argv is pairs of "condition"/"assert" and a line.  Its exit
 * status says what came of them (COND_*).
 */
int		 cond_main(int argc, char **argv);

#define COND_HELD		0
#define COND_TRIGGERS		9	/* no '|' condition held */
#define COND_FAILED		10	/* + the index of the one that did
					 * not hold (COND_MAX - 1 at most) */
#define COND_ASSERT_TRIGGERS	59
#define COND_ASSERT_FAILED	60
#define COND_MAX		40
#define COND_USAGE		2

#endif
