/* env.h - the environment a service is started with, and its env files */
#ifndef PIDVISOR_ENV_H
#define PIDVISOR_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a service's environment is made of (env.c says in what order). */
struct env_req {
	char *const	*base;		/* ours */
	char *const	*keys;		/* its env keys */
	const char	*notify;	/* NOTIFY_SOCKET, or NULL */
	uint32_t	 watchdog_ms;	/* 0: no WATCHDOG_USEC, WATCHDOG_PID */
	uint32_t	 listen_fds;	/* 0: no LISTEN_FDS, LISTEN_PID, ... */
	const char	*listen_names;	/* LISTEN_FDNAMES, ':'-separated */
	char		**listen_slot;	/* out: where LISTEN_PID's digits go */
	const char	*mp_watch;	/* MEMORY_PRESSURE_WATCH, or NULL */
	uint32_t	 mp_threshold_ms;	/* its trigger's stall in 2 s */
};

#define MP_WINDOW_US	2000000U	/* MEMORY_PRESSURE_WRITE's window */

/* A service's env files, together, and the variables they may set. */
#define ENV_FILES_MAX	(1 << 20)
#define ENV_FILE_VARS	4096

/* What is wrong with an env file (env_fail_format says it in words). */
enum env_what {
	ENV_ERRNO,		/* err: opening or reading it */
	ENV_TOO_BIG,		/* the files together over ENV_FILES_MAX */
	ENV_NOT_REGULAR,
	ENV_SYMLINK,		/* a symlink owned by uid, not followed */
	ENV_NUL,
	ENV_NOT_NAME,		/* the key is not a variable name */
	ENV_EXPORT,		/* ... because it begins with "export " */
	ENV_NO_EQUALS,
	ENV_SQ_OPEN,
	ENV_DQ_OPEN,
	ENV_TOO_MANY,		/* over ENV_FILE_VARS variables */
};

/*
 * Where and what: never the file's contents, which may be another
 * user's secret or a terminal escape.  Plain integers: the spawn child
 * sends it through its report pipe.
 */
struct env_fail {
	int32_t	what;		/* enum env_what */
	int32_t	err;		/* ENV_ERRNO: the errno */
	int32_t	file;		/* which of the files, from 0 */
	int32_t	line;		/* in the file, from 1; 0: not a line's */
	int32_t	col;		/* from 1 */
	int32_t	uid;		/* ENV_SYMLINK: its owner */
};

/*
 * Env files to read into an environment: in the spawn child, with the
 * service's credentials (env_load).  Nothing in it is allocated by the
 * reader: the caller provides the room.
 */
struct env_load {
	char *const	*files;		/* as written: '-' first if optional */
	char		**envp;		/* nenv set, room for cap + NULL */
	size_t		  nenv;
	size_t		  cap;
	char		 *buf;		/* ENV_LOAD_BUF(files) bytes */
	size_t		  buflen;
	uid_t		  owner;	/* a symlink is followed only if it is
					 * root's or this user's */
};

#define ENV_LOAD_BUF(nfiles)	(ENV_FILES_MAX + (size_t)(nfiles) + 1)

/* Where env_expand_argv() puts a command line: the caller's room. */
struct env_expand {
	char	**argv;		/* room for cap pointers */
	size_t	  cap;
	char	 *buf;
	size_t	  buflen;
};

bool	env_argv_has_vars(char *const *argv);
int	env_expand_argv(char *const *argv, char *const *envp,
	    struct env_expand *x);
void	env_expand_room(char *const *argv, size_t maxval, size_t *cap,
	    size_t *len);
int	env_build(const struct env_req *r, char ***out, const char **path,
	    char **pid_slot);
void	env_free(char **env);
long	env_file_parse(char *out, const char *text, size_t len,
	    size_t *nvars, struct env_fail *f);
int	env_file_open(const char *path, uid_t owner, struct env_fail *f);
int	env_load(struct env_load *l, struct env_fail *f);
const char *env_path(char *const *envp);
void	env_fail_format(const struct env_fail *f, char *const *files,
	    char *out, size_t n);
int	env_file_check(const char *spec, uid_t owner, char *err, size_t n);

#endif
