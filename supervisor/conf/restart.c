/*
 * restart.c - the restart modes (restart =), from conf.h's list: each
 * mode's name and the deaths after which it starts the service again;
 * which deaths are clean (success_exit_status).
 * svc.c asks the mode, never compares it: a new mode is a line of
 * RESTART_MODES.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

const char *const restart_names[RESTART__COUNT + 1] = {
#define X(id, name, on)	[RESTART_##id] = (name),
	RESTART_MODES(X)
#undef X
	NULL,
};

const uint8_t restart_on[RESTART__COUNT] = {
#define X(id, name, on)	[RESTART_##id] = (on),
	RESTART_MODES(X)
#undef X
};

/*
 * Did a process end cleanly: exit code 0, or a code or signal its
 * success_exit_status names (code: its exit status; sig: the signal that
 * killed it, or 0)?
 */
bool
restart_clean(const struct svc_def *d, int code, int sig)
{
	char	num[12];
	size_t	i;

	if (sig == 0 && code == 0)
		return true;
	snprintf(num, sizeof(num), "%d", code);
	for (i = 0; d->success_exit_status && d->success_exit_status[i]; i++)
		if (sig ? signal_parse(d->success_exit_status[i]) == sig :
		    strcmp(d->success_exit_status[i], num) == 0)
			return true;
	return false;
}
