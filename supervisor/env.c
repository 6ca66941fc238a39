/*
 * env.c - the environment of a service: ours, its env keys on top, and
 * NOTIFY_SOCKET for a notify service.
 *
 * A pure function of its arguments (unit-tested, tests/unit/test_env.c):
 * the strings of base and keys are shared, only the array and the
 * NOTIFY_SOCKET string are ours.  Our own NOTIFY_SOCKET, if we were
 * started under another supervisor, never reaches a service: that
 * socket belongs to our parent, not to the service.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "util.h"

#define NOTIFY_PREFIX	"NOTIFY_SOCKET="

/* Is var (KEY=VALUE) one of keys[] by name? */
static bool
env_overridden(const char *var, char *const *keys)
{
	size_t	klen = strcspn(var, "=") + 1, i;

	for (i = 0; keys && keys[i]; i++)
		if (strncmp(var, keys[i], klen) == 0)
			return true;
	return false;
}

/*
 * Build the environment of a service into *out: base (ours) less what
 * keys (KEY=VALUE, its env) override and less NOTIFY_SOCKET, then keys,
 * then NOTIFY_SOCKET=notify if notify is not NULL.  *path is the PATH
 * its exec searches: its own PATH, else base's (NULL if neither).
 * 0, or -ENOMEM.
 */
int
env_build(char *const *base, char *const *keys, const char *notify,
    char ***out, const char **path)
{
	size_t	  n = strv_len(base), m = strv_len(keys), i, k = 0;
	char	**env;

	*path = NULL;
	for (i = 0; i < n; i++)
		if (strncmp(base[i], "PATH=", 5) == 0)
			*path = base[i] + 5;
	for (i = 0; i < m; i++)
		if (strncmp(keys[i], "PATH=", 5) == 0)
			*path = keys[i] + 5;
	if ((env = calloc(n + m + 2, sizeof(*env))) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (strncmp(base[i], NOTIFY_PREFIX, strlen(NOTIFY_PREFIX)) &&
		    !env_overridden(base[i], keys))
			env[k++] = base[i];
	for (i = 0; i < m; i++)
		env[k++] = keys[i];
	if (notify && asprintf(&env[k++], NOTIFY_PREFIX "%s", notify) < 0) {
		free(env);
		return -ENOMEM;
	}
	*out = env;
	return 0;
}

/* Free what env_build made (the shared strings stay). */
void
env_free(char **env)
{
	size_t	i;

	if (env == NULL)
		return;
	for (i = 0; env[i]; i++)
		if (strncmp(env[i], NOTIFY_PREFIX, strlen(NOTIFY_PREFIX)) == 0)
			free(env[i]);
	free(env);
}
