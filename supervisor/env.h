/* env.h - the environment a service is started with */
#ifndef PIDVISOR_ENV_H
#define PIDVISOR_ENV_H

#include <stdbool.h>

int	env_build(char *const *, char *const *, const char *, char ***,
	    const char **);
void	env_free(char **);

#endif
