/* env.h - the environment a service is started with */
#ifndef PIDVISOR_ENV_H
#define PIDVISOR_ENV_H

#include <stdbool.h>

int	env_build(char *const *base, char *const *keys, const char *notify,
	    char ***out, const char **path);
void	env_free(char **env);

#endif
