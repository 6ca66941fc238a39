/* pidmap.h - the live service processes, by PID */
#ifndef PIDVISOR_PIDMAP_H
#define PIDVISOR_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

/* Embedded in what the map holds. */
struct pidmap_node {
	struct pidmap_node	*next;
	pid_t			 pid;
	int			 kind;		/* the holder's: what it is */
};

/* What a node is (its kind): whose pidfd path reaps the process. */
enum {
	PM_MAIN,		/* a service's main process (service.c) */
	PM_RELOAD,		/* a reload_exec (hook.c) */
	PM_CHECK,		/* a re-exec's check (reexec.c) */
	PM_HOOK,		/* a hook or a health check (hook.c) */
	PM_FORK,		/* a pid_file reader (forking.c) */
};

struct pidmap {
	struct pidmap_node	**v;
	size_t			  size;		/* a power of two */
	size_t			  n;
};

int			 pidmap_reserve(struct pidmap *m, size_t n);
void			 pidmap_add(struct pidmap *m, struct pidmap_node *e, pid_t pid);
void			 pidmap_del(struct pidmap *m, struct pidmap_node *e);
struct pidmap_node	*pidmap_get(const struct pidmap *m, pid_t pid);
void			 pidmap_free(struct pidmap *m);

#endif
