/*
 * conf_start.c - the keys of what comes before a service's command:
 * condition and assert (systemd's Condition*= and Assert*=, cond.c's
 * tests), and the directories it has made for it (systemd's
 * RuntimeDirectory=, StateDirectory=, CacheDirectory=, LogsDirectory=,
 * ConfigurationDirectory=): runtime_directory, state_directory,
 * cache_directory, logs_directory and configuration_directory, names
 * beneath /run, /var/lib, /var/cache, /var/log and /etc; their modes;
 * runtime_directory_preserve.  The directories are made by each spawn's
 * child (sandbox.c plans it), the runtime ones removed by a stop's last
 * hook (hook.c, rmtree.c).  Its terminal (systemd's StandardInput=tty,
 * TTYPath=): tty and its tty_* keys, opened by the child (spawn_child.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "conf.h"
#include "conf_parse.h"

const struct dir_kind_info dir_kinds[DIR__KINDS] = {
	[DIR_RUNTIME] = { "/run", "RUNTIME_DIRECTORY", "RuntimeDirectory",
	    true },
	[DIR_STATE] = { "/var/lib", "STATE_DIRECTORY", "StateDirectory",
	    true },
	[DIR_CACHE] = { "/var/cache", "CACHE_DIRECTORY", "CacheDirectory",
	    true },
	[DIR_LOGS] = { "/var/log", "LOGS_DIRECTORY", "LogsDirectory", true },
	[DIR_CONFIGURATION] = { "/etc", "CONFIGURATION_DIRECTORY",
	    "ConfigurationDirectory", false },
};

const char *const dir_preserve_names[] = { "no", "yes", "restart", NULL };
const char *const tty_busy_names[] = { "wait", "steal", "fail", NULL };

/* Is w a name beneath a base: relative, no "." or ".." in it? */
static const char *
dir_name_check(const char *w)
{
	const char	*c;
	size_t		 n;

	if (w[0] == '\0')
		return "an empty name";
	if (w[0] == '/')
		return "not a name beneath it (no leading '/')";
	if (strlen(w) > 200)
		return "longer than 200 bytes";
	for (c = w; *c != '\0'; c += n + (c[n] == '/')) {
		n = strcspn(c, "/");
		if (n == 0)
			return "an empty component ('//' or a trailing '/')";
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' &&
		    c[1] == '.'))
			return "'.' or '..' in it";
		if (c[n] == '/' && c[n + 1] == '\0')
			return "an empty component ('//' or a trailing '/')";
	}
	if (strchr(w, ':') != NULL)
		return "':' in it (systemd's NAME:LINK is not supported)";
	return NULL;
}

/* runtime_directory and the others: names, blank-separated; repeatable. */
const char *
conf_dirs_names(struct parse_ctx *p, void *obj, const char *v)
{
	char		**vp = NULL, ***list = (char ***)(void *)((char *)obj +
			    p->key->f[0].off);
	const char	 *why;
	size_t		  i;

	if (argv_split(v, &vp, &why) < 0)
		return bad(p, "%s: %s", p->key->name, why);
	for (i = 0; vp[i] != NULL; i++)
		if ((why = dir_name_check(vp[i])) != NULL ||
		    (why = key_strv_add(list, vp[i])) != NULL) {
			why = bad(p, "%s: '%s': %s", p->key->name, vp[i], why);
			strv_free(vp);
			return why;
		}
	strv_free(vp);
	return NULL;
}

/* runtime_directory_mode and the others: octal, as systemd's. */
const char *
conf_dirs_mode(struct parse_ctx *p, void *obj, const char *v)
{
	mode_t	*m = (mode_t *)(void *)((char *)obj + p->key->f[0].off);
	unsigned long	 n;
	char		*end;

	n = strtoul(v, &end, 8);
	if (*v < '0' || *v > '7' || *end != '\0' || n > 07777)
		return bad(p, "%s: expected an octal mode such as 0755, not "
		    "'%s'", p->key->name, v);
	*m = (mode_t)n;
	return NULL;
}

/*
 * condition, assert: a test of systemd's Condition*= family, "TEST
 * [|][!]ARG" (cond.c); repeatable: all must hold, or one of those with
 * '|'.
 */
const char *
conf_condition(struct parse_ctx *p, void *obj, const char *v)
{
	char	why[512];

	if (cond_parse(v, why, sizeof(why)) != NULL)
		return bad(p, "%s: %s", p->key->name, why);
	return key_strv_add((char ***)(void *)((char *)obj +
	    p->key->f[0].off), v);
}

/*
 * tty and its keys: the terminal is the service's input and output, so
 * not with console or log; tty_busy and the tty_* steps need one.
 */
void
conf_tty_finish(struct parse_ctx *p, const struct svc_def *d)
{
	static const enum conf_key_id	 keys[] = { K_TTY_BUSY, K_TTY_RESET,
	    K_TTY_VHANGUP, K_TTY_VT_DISALLOCATE };
	size_t				 i;

	if (d->tty == NULL) {
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (p->key_line[keys[i]])
				conf_error(p->c, p->file, p->key_line[keys[i]],
				    "%s: no tty to act on",
				    conf_keys[keys[i]].name);
		return;
	}
	if (d->console)
		conf_error(p->c, p->file, p->key_line[K_TTY], "tty: a console "
		    "service has pidvisor's console; give console or tty, not "
		    "both");
	if (p->key_line[K_LOG])
		conf_error(p->c, p->file, p->key_line[K_LOG], "log: a tty "
		    "service's output goes to its terminal, not to a log");
}
