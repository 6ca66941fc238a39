/* env.h - the environment a service is started with, and its env files */
#ifndef PIDVISOR_ENV_H
#define PIDVISOR_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a service's environment is made of (env.c says in what order). */
struct env_req {
	char *const	*base;		/* ours */
	char *const	*keys;		/* its env keys */
	char *const	*files;		/* read from its env files, in order */
	const char	*notify;	/* NOTIFY_SOCKET, or NULL */
	uint32_t	 watchdog_ms;	/* 0: no WATCHDOG_USEC, WATCHDOG_PID */
};

int	env_build(const struct env_req *r, char ***out, const char **path,
	    char **pid_slot);
void	env_free(char **env);
int	env_file_parse(const char *text, size_t len, const char *file,
	    char ***vars, char *err, size_t errlen);
int	env_file_read(const char *spec, char ***vars, char *err,
	    size_t errlen);

#endif
