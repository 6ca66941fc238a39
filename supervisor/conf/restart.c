/*
 * restart.c - the restart modes (restart =), from conf.h's list: each
 * mode's name and the deaths after which it starts the service again.
 * svc.c asks the mode, never compares it: a new mode is a line of
 * RESTART_MODES.
 */
#include <stdint.h>

#include "conf.h"

const char *const restart_names[RESTART__COUNT + 1] = {
#define X(id, name, on)	[RESTART_##id] = name,
	RESTART_MODES(X)
#undef X
	NULL,
};

const uint8_t restart_on[RESTART__COUNT] = {
#define X(id, name, on)	[RESTART_##id] = (on),
	RESTART_MODES(X)
#undef X
};
