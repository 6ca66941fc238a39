/* spawn.h - start a process with clone3(CLONE_PIDFD) */
#ifndef PIDVISOR_SPAWN_H
#define PIDVISOR_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "env.h"

struct sandbox;

#define SPAWN_PASS_MAX	128	/* fds passed from 3 on, at most */

/*
 * pidfd_send_signal() flags: upstream's (Linux 6.9), and our series'
 * local extension (kernel/patches/0003), which another kernel could use
 * for something else: pressure.c probes what it does, not only whether
 * it is taken.
 */
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP	(1U << 2)
#endif
#ifndef PIDFD_SIGNAL_LOCAL_REAP
#define PIDFD_SIGNAL_LOCAL_REAP		(1U << 30)
#endif

/*
 * The namespaces a service's main process was given at its spawn, and
 * its root (root_directory): what its hooks and checks join.  Held by
 * fd, never looked up again through the process, which may have made
 * namespaces of its own since (unshare -Urm) that its hooks must not
 * enter.  -1: none.
 */
struct spawn_ns {
	int	mnt;
	int	net;
	int	root;
};

#define SPAWN_NS_NONE	((struct spawn_ns){ -1, -1, -1 })

/* Everything the child needs, prepared by the parent before the clone. */
struct spawn_req {
	char *const	*argv;
	char *const	*envp;
	const char	*path;		/* searched when argv[0] has no '/' */
	const char	*workdir;	/* NULL: stay */
	const gid_t	*groups;
	size_t		 ngroups;
	uid_t		 uid;
	gid_t		 gid;
	uint64_t	 nofile_cur;	/* RLIMIT_NOFILE of the service */
	uint64_t	 nofile_max;
	mode_t		 umask;
	int		 stdio[3];	/* fds to become 0, 1, 2; -1: ours */
	int		 cgroup_fd;	/* CLONE_INTO_CGROUP; -1: ours */
	int		 ready_fd;	/* where the child gets ready_pipe */
	int		 ready_pipe;	/* -1: none; spawn_start owns it */
	char		*pid_slot;	/* in envp: WATCHDOG_PID's digits */
	char		*listen_slot;	/* in envp: LISTEN_PID's digits */
	const int	*pass;		/* fds to become 3, 4, ... (LISTEN_FDS) */
	int		 npass;		/* at most SPAWN_PASS_MAX */
	int		(*fn)(void *);	/* not NULL: run it instead of an exec,
					 * then exit; raw system calls only */
	void		*fn_arg;
	int		 exec_fd;	/* with exec_at: execveat() this */
	bool		 exec_at;
	char *const	*env_files;	/* read by the child (env.c); NULL */
	uid_t		 env_owner;	/* the service's user: whose symlinks
					 * env files and mount paths follow */
	int		 oom_score_adj;	/* if set_oom_score_adj */
	bool		 set_oom_score_adj;
	bool		 set_uid;
	bool		 set_gid;
	bool		 set_umask;
	const struct sandbox *sb;	/* what it may not do; NULL: nothing */
	struct spawn_ns	 ns;		/* with sb: join these; none: make
					 * its own */
	bool		 ns_keep;	/* tell the parent the namespaces it
					 * made (spawn_proc.ns) */
	bool		 ignore_sigpipe; /* SIG_IGN, else SIG_DFL */
	const char	*tty;		/* its 0, 1, 2 and controlling
					 * terminal; NULL: stdio */
	uint8_t		 tty_flags;	/* SPAWN_TTY_* */
};

/* What is done to spawn_req.tty before it is taken. */
#define SPAWN_TTY_RESET		0x01	/* termios made sane */
#define SPAWN_TTY_VHANGUP	0x02	/* its other users hung up */
#define SPAWN_TTY_VT		0x04	/* its VT disallocated, or cleared */
#define SPAWN_TTY_STEAL		0x08	/* taken from another session */
#define SPAWN_TTY_FAIL		0x10	/* another session's: fail, not wait */

struct spawn_result {
	int	pidfd;
	pid_t	pid;
};

/*
 * A child between clone and exec.  It may share our memory and reads
 * req from here, so both stay put until spawn_poll() says it is over.
 */
struct spawn_proc {
	struct spawn_req	 req;
	char			*stack;		/* CLONE_VM; kept for the next */
	int			 errfd;		/* -1: idle; else watch it */
	int			 wfd;		/* the child's end of it */
	bool			 errsock;	/* errfd is a socket: req.ns_keep */
	struct spawn_ns		 ns;		/* what the child told (ns_keep) */
	int			 keep[8];	/* closed once the child has its
						 * own copies: errpipe, low dups,
						 * the ready pipe */
	int			 nkeep;
	char			 oom_adj[8];	/* oom_score_adj, as text */
	int			 pass[SPAWN_PASS_MAX];	/* req.pass's copy */
	bool			 shared_fds;	/* CLONE_FILES */
	bool			 join_cgroup;	/* not CLONE_INTO_CGROUP */
	bool			 over;		/* exec'd or failed */
	int			 stage;		/* enum spawn_stage, if err */
	int			 err;		/* errno in the child; 0: exec'd */
	int			 at;		/* STAGE_MOUNT: the op of the plan */
	struct env_fail		 fail;		/* STAGE_ENV_FILE: what */
	struct env_load		 env;		/* with env files: its room */
	char			*env_map;	/* ... mapped here */
	size_t			 env_maplen;
	struct env_expand	 argx;		/* $VARIABLES: the room for argv */
	char			*argx_map;	/* ... mapped here */
	size_t			 argx_maplen;
};

/*
 * fds below SPAWN_FD_LOW are for the moment (a spawn, a client); those
 * held for long go above it (spawn_fd_keep), so that what a child needs
 * is low and it copies only the bottom of our fd table.
 */
#define SPAWN_FD_LOW	256

int	spawn_init(void);
bool	spawn_global_init(void);
bool	spawn_no_clone3(void);
int	spawn_fd_keep(int fd);
void	spawn_proc_init(struct spawn_proc *p);
int	spawn_start(struct spawn_proc *p, const struct spawn_req *req,
	    struct spawn_result *res);
int	spawn_poll(struct spawn_proc *p);
int	spawn_wait(struct spawn_proc *p, int pidfd);
void	spawn_release(struct spawn_proc *p);
void	spawn_end(struct spawn_proc *p);
void	spawn_proc_free(struct spawn_proc *p);
int	pidfd_signal(int pidfd, int sig);
void	spawn_ns_close(struct spawn_ns *ns);
int	spawn_ns_take(struct spawn_proc *p, struct spawn_ns *ns);
bool	spawn_ns_any(const struct spawn_ns *ns);

#endif
