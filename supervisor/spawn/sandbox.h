/* sandbox.h - what a service may not do: prepared here, applied by its child */
#ifndef PIDVISOR_SANDBOX_H
#define PIDVISOR_SANDBOX_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "util.h"

#define SB_SLOTS_MAX	32	/* read_write_paths and the like */

/* The limit_* keys but limit_nofile, in the order of their K_ ids. */
#define SB_RLIMITS	CONF_RLIMITS

struct sb_rlimit_name {
	const char	*name;		/* after "limit_" */
	int		 resource;	/* RLIMIT_* */
	uint8_t		 unit;		/* enum sb_unit */
};

enum sb_unit { SB_COUNT, SB_BYTES, SB_SECONDS, SB_MICROSECONDS };

extern const struct sb_rlimit_name sb_rlimits[SB_RLIMITS];


/* One step of the mount plan, in its order. */
enum sb_op_kind {
	SB_SLAVE,		/* nothing we mount goes back out */
	SB_BIND_SELF,		/* root_directory: a mount of its own */
	SB_CLONE,		/* keep a copy of path's tree in slot */
	SB_RO,			/* path, and under it, read-only */
	SB_PUT,			/* slot's copy back on path: writable */
	SB_HIDE,		/* an empty, read-only file or directory */
	SB_TMPFS,		/* a fresh tmpfs, mode 1777 */
	SB_DEV,			/* a minimal /dev */
	SB_MKDIR,		/* runtime_directory and the like: made */
	SB_PROC,		/* a /proc of its own (protect_proc) */
	SB_NOEXEC,		/* path, and under it, not executable */
	SB_EXEC,		/* ... executable again */
};

struct sb_op {
	char		*path;		/* root_directory's, then the key's */
	const char	*key;		/* what asked for it, for errors */
	uint8_t		 kind;
	bool		 optional;	/* a missing path is skipped */
	int16_t		 slot;		/* SB_CLONE, SB_PUT */
	uint16_t	 mode;		/* SB_MKDIR: its mode, */
	uint8_t		 base;		/* ... the length of its base
					 * (/var/lib) after the root, */
	bool		 own;		/* ... the service's user's */
};

/*
 * Everything the child applies, made by the parent: the child only
 * makes system calls with it (spawn.c).
 */
struct sandbox {
	unsigned		 refs;		/* sandbox_ref(), _unref() */
	struct sb_op		*ops;
	size_t			 nops;
	int			 nslots;
	char			*root;		/* root_directory, or NULL */
	size_t			 rootlen;	/* ... its length: each op's
						 * path beneath it follows */
	uint64_t		 clone_flags;	/* CLONE_NEWNS, CLONE_NEWNET */
	uid_t			 dir_uid;	/* SB_MKDIR's owner */
	gid_t			 dir_gid;
	uint64_t		 bset;		/* capabilities kept at all */
	uint64_t		 caps;		/* ... and held (capabilities) */
	int			 cap_last;
	bool			 drop_bset;
	bool			 set_caps;
	bool			 nnp;
	bool			 lo_up;		/* private_network */
	const char		*hidepid;	/* SB_PROC's options */
	bool			 subset_pid;
	void			*filter;	/* struct sock_filter[] */
	unsigned short		 nfilter;
	void			*pfilter;	/* the protections' */
	unsigned short		 npfilter;
	struct {
		int		 resource;
		uint64_t	 cur, max;
	}			 rl[SB_RLIMITS];
	int			 nrl;
	int			 nice;
	bool			 set_nice;
	int			 ioprio;
	bool			 set_ioprio;
	cpu_set_t		*cpus;
	size_t			 cpus_size;
};

/*
 * The plan of a definition (sandbox.c), made once per definition a
 * service runs (service.c holds it), and held by each spawn that reads
 * it until its child is done with it.
 */
struct sandbox	*sandbox_new(const struct svc_def *d, char *err,
		     size_t errlen);
struct sandbox	*sandbox_ref(struct sandbox *sb);
void		 sandbox_unref(struct sandbox *sb);
bool		 sandbox_empty(const struct sandbox *sb);
bool		 sandbox_wanted(const struct svc_def *d);
bool		 sandbox_nnp_implied(const struct svc_def *d);
const char	*sandbox_limit_key(const struct sandbox *sb, int n);
/* sandbox_filter.c's, for sandbox.c (ctx: a scmp_filter_ctx). */
int		 sb_bpf_export(void *ctx, void **prog, unsigned short *n);
bool		 sb_protect_wanted(const struct svc_def *d);
int		 sb_protect_filter(struct sandbox *sb, const struct svc_def *d,
		     char *err, size_t len);

/* The child's parts (sandbox_child.c): 0, or -errno. */
long		 sandbox_child_mounts(const struct sandbox *sb, uid_t owner,
		     int *at, int32_t *uid, int *root);
long		 sandbox_child_net(const struct sandbox *sb);
long		 sandbox_child_sched(const struct sandbox *sb, int *stage);
long		 sandbox_child_bset(const struct sandbox *sb);
long		 sandbox_child_keep(const struct sandbox *sb, bool user);
long		 sandbox_child_caps(const struct sandbox *sb, bool user);
long		 sandbox_child_root_open(const struct sandbox *sb,
		     uid_t owner);
long		 sandbox_child_chroot(int root);
long		 sandbox_child_filter(const struct sandbox *sb);

/* Names, for the parser and for show. */
int		 sandbox_cap_parse(const char *v, uint64_t *caps, char *why,
		     size_t whylen);
void		 sandbox_cap_show(struct buf *b, uint64_t caps);
int		 sandbox_syscalls_check(char **words, bool deny, char *why,
		     size_t whylen);
int		 sandbox_errno_parse(const char *v, int32_t *out);
const char	*sandbox_errno_name(int32_t e);
int		 sandbox_cpus_parse(const char *v, cpu_set_t **set,
		     size_t *size);


#endif
