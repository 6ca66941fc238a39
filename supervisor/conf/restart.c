/*
 * restart.c - the restart modes (restart =), from conf.h's list: each
 * mode's name and the deaths after which it starts the service again;
 * which deaths are clean (success_exit_status), and which exit statuses
 * prevent a restart or force one (restart_prevent_exit_status,
 * restart_force_exit_status).
 * svc.c asks the mode, never compares it: a new mode is a line of
 * RESTART_MODES.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"
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
 * Does a list of exit statuses (as conf_exit_statuses() keeps them) name
 * this end (code: its exit status; sig: the signal that killed it, or
 * 0)?
 */
bool
restart_listed(char *const *v, int code, int sig)
{
	char	num[12];
	size_t	i;

	snprintf(num, sizeof(num), "%d", code);
	/* A signal by its name only: 6 is an exit code, not SIGABRT. */
	for (i = 0; v && v[i]; i++)
		if (sig ? !isdigit((unsigned char)v[i][0]) &&
		    signal_parse(v[i]) == sig : strcmp(v[i], num) == 0)
			return true;
	return false;
}

/*
 * Did a process end cleanly: exit code 0, or as success_exit_status
 * says, or any end when exec began with '-'?
 */
bool
restart_clean(const struct svc_def *d, int code, int sig)
{
	return (sig == 0 && code == 0) || d->exec_any_exit ||
	    restart_listed(d->success_exit_status, code, sig);
}

/*
 * The exit statuses systemd names (its exit-status table: the LSB's and
 * BSD's sysexits.h's), as their numbers; false for another word.
 */
static bool
exit_status_name(const char *w, uint64_t *n)
{
	static const struct { const char *name; uint8_t code; } names[] = {
		{ "SUCCESS", 0 }, { "FAILURE", 1 }, { "INVALIDARGUMENT", 2 },
		{ "NOTIMPLEMENTED", 3 }, { "NOPERMISSION", 4 },
		{ "NOTINSTALLED", 5 }, { "NOTCONFIGURED", 6 },
		{ "NOTRUNNING", 7 }, { "USAGE", 64 }, { "DATAERR", 65 },
		{ "NOINPUT", 66 }, { "NOUSER", 67 }, { "NOHOST", 68 },
		{ "UNAVAILABLE", 69 }, { "SOFTWARE", 70 }, { "OSERR", 71 },
		{ "OSFILE", 72 }, { "CANTCREAT", 73 }, { "IOERR", 74 },
		{ "TEMPFAIL", 75 }, { "PROTOCOL", 76 }, { "NOPERM", 77 },
		{ "CONFIG", 78 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(w, names[i].name) == 0) {
			*n = names[i].code;
			return true;
		}
	return false;
}

/*
 * success_exit_status, restart_prevent_exit_status,
 * restart_force_exit_status: exit codes (0 to 255) and signal names, as
 * systemd's SuccessExitStatus= and the like; an empty value forgets the
 * ones before.
 */
const char *
conf_exit_statuses(struct parse_ctx *p, void *obj, const char *v)
{
	char		***list = (char ***)(void *)((char *)obj +
			    p->key->f[0].off);
	char		  w[32];
	const char	 *at = v, *err;
	size_t		  len;
	uint64_t	  n;

	if (*v == '\0') {
		strv_free(*list);
		*list = NULL;
		return NULL;
	}
	while (*(at += strspn(at, " \t")) != '\0') {
		len = strcspn(at, " \t");
		if (len < sizeof(w)) {
			memcpy(w, at, len);
			w[len] = '\0';
		}
		if (len < sizeof(w) && exit_status_name(w, &n))
			snprintf(w, sizeof(w), "%llu", (unsigned long long)n);
		if (len >= sizeof(w) || (parse_u64(w, 255, &n) < 0 &&
		    signal_parse(w) < 0))
			return bad(p, "%s: expected exit codes (0 to 255) and "
			    "signal names, not '%.*s'", p->key->name,
			    (int)len, at);
		if (isdigit((unsigned char)w[0]))	/* as restart_listed() */
			snprintf(w, sizeof(w), "%llu", (unsigned long long)n);
		if ((err = key_strv_add(list, w)) != NULL)
			return err;
		at += len;
	}
	return NULL;
}
