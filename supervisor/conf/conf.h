/* conf.h - the configuration tree: CONFDIR/pidvisor.ini and services/ */
#ifndef PIDVISOR_CONF_H
#define PIDVISOR_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>
#include <sys/types.h>

#include "util.h"

#define SVC_NAME_MAX	64
#define CONF_FILE_MAX	(1 << 20)	/* a file of the tree, at most */
/* A unix socket's path, its NUL included (sun_path). */
#define SOCKET_PATH_MAX	(sizeof(((struct sockaddr_un *)0)->sun_path))

/*
 * How a main process ended, as restart modes tell deaths apart (svc.c's
 * svc_death_kind).
 */
#define DEATH_CLEAN	0x01	/* it exited 0 (and settled) */
#define DEATH_CODE	0x02	/* any other exit; it never ran (exec, hook) */
#define DEATH_SIGNAL	0x04	/* a signal it was not sent to stop it */
#define DEATH_TIMEOUT	0x08	/* ready_timeout, the spawn deadline */
#define DEATH_WATCHDOG	0x10	/* the watchdog, WATCHDOG=trigger, health */
#define DEATH_ANY	0x1f

/*
 * The restart modes: the name restart = takes and the deaths after which
 * the service starts again (systemd's Restart=, its values).  New modes
 * go at the end: the re-exec state has them by number.
 */
#define RESTART_MODES(X)						\
	X(ALWAYS, "always", DEATH_ANY)					\
	X(ON_FAILURE, "on-failure", DEATH_ANY & ~DEATH_CLEAN)		\
	X(NEVER, "never", 0)						\
	X(ON_SUCCESS, "on-success", DEATH_CLEAN)			\
	X(ON_ABNORMAL, "on-abnormal",					\
	    DEATH_SIGNAL | DEATH_TIMEOUT | DEATH_WATCHDOG)		\
	X(ON_ABORT, "on-abort", DEATH_SIGNAL)				\
	X(ON_WATCHDOG, "on-watchdog", DEATH_WATCHDOG)

enum restart_policy {
#define X(id, name, on)	RESTART_##id,
	RESTART_MODES(X)
#undef X
	RESTART__COUNT
};

extern const char *const restart_names[RESTART__COUNT + 1];
extern const uint8_t restart_on[RESTART__COUNT];	/* DEATH_ bits */

struct svc_def;
bool	restart_clean(const struct svc_def *d, int code, int sig);
bool	restart_listed(char *const *v, int code, int sig);

enum ready_id {
	READY_EXEC,		/* ready once exec succeeded */
	READY_FD,		/* s6: a newline on fd N */
	READY_NOTIFY,		/* sd_notify: READY=1 */
	READY_EXIT,		/* a task: done when it exits 0 */
	READY_HEALTH,		/* its health_exec passed once */
	READY_FORKING,		/* its first process exited 0: a daemon runs */
	READY__COUNT
};

#define READY_FD_MAX	1023	/* fd:N, N at most */
#define FDSTORE_MAX	100	/* fdstore_max, at most */

/* What a kind of readiness is made of (ready.c). */
struct ready_kind {
	const char	*name;		/* as ready = says it */
	bool		 arg;		/* NAME:N (fd:N) */
	bool		 notify;	/* a notify socket: READY=1 makes it */
	bool		 pipe;		/* a pipe on fd N: a line makes it */
	bool		 task;		/* a task: its exit 0 makes it done */
	bool		 on_exec;	/* its exec makes it ready */
	bool		 on_check;	/* a health check that passed does */
	bool		 forks;		/* its first process's exit 0 does; the
					 * daemon it left is the main process */
};

extern const struct ready_kind ready_kinds[READY__COUNT];
int	ready_parse(const char *v, uint8_t *kind, int *fd);
void	ready_names(char *out, size_t n);

/* Where a service's output lines go, besides its ring buffer. */
enum log_sink {
	SINK_CONSOLE,		/* pidvisor's stderr, as NAME[PID]: line */
	SINK_KMSG,		/* /dev/kmsg (PID 1 only) */
	SINK_FILE,		/* log_dir/NAME.log, rotated by size */
	SINK_NONE,
	SINK_SYSLOG,		/* syslog_socket (/dev/log), RFC 3164 */
};

/* What PID 1 does if it crashes (pid1.c). */
enum crash_action {
	CRASH_FREEZE,		/* stop supervising, keep reaping */
	CRASH_REBOOT,
	CRASH_POWEROFF,
};

/* What pidvisor is the init of (pid1.c): auto decides at start. */
enum sup_mode {
	MODE_AUTO,
	MODE_SYSTEM,		/* a machine: reboot(2) at the end */
	MODE_CONTAINER,		/* a container: exit at the end */
};

/* How console lines look (log = console). */
enum log_format {
	LOGF_TEXT,		/* NAME[PID]: line */
	LOGF_RFC3339,		/* the same after an RFC 3339 UTC time */
	LOGF_JSON,		/* one JSON object per line */
};

/* How a stop reaches the processes of a service. */
/* memory_pressure_watch: MEMORY_PRESSURE_WATCH for the service. */
enum mp_watch {
	MP_AUTO,		/* its cgroup's memory.pressure, if it has one */
	MP_ON,			/* ... else the system's */
	MP_OFF,
};

enum kill_mode {
	KILL_PROCESS,		/* the main process, through its pidfd */
	KILL_GROUP,		/* its process group, through the pidfd */
	KILL_CGROUP,		/* every process of its cgroup */
};

#define KILL_PRIORITY_NEVER	(-1)
#define STATE_DIR_DEFAULT	"/var/lib/pidvisor"
#define SIZE_MAX_UNSET		UINT64_MAX	/* memory_max = max */

/* Log defaults, from pidvisor.ini, for services that do not say. */
struct log_conf {
	uint64_t	file_max;	/* bytes */
	uint32_t	buffer;		/* bytes; 0: no ring buffer */
	uint32_t	file_keep;	/* rotated files kept */
	uint8_t		sink;		/* enum log_sink */
};

/* A dependency as written: the name and the line that named it. */
struct svc_dep {
	char	*name;
	int	 line;
};

/* The keys of both files, in one table (conf_parse.c). */
enum conf_key_id {
	K_EXEC,
	K_RESTART,
	K_RESTART_DELAY,
	K_RESTART_DELAY_MAX,
	K_SUCCESS_EXIT_STATUS,
	K_PID_FILE,
	K_START_LIMIT_BURST,
	K_START_LIMIT_INTERVAL,
	K_READY,
	K_READY_TIMEOUT,
	K_WATCHDOG,
	K_REQUIRES,
	K_AFTER,
	K_STOP_SIGNAL,
	K_SEND_SIGHUP,
	K_STOP_TIMEOUT,
	K_USER,
	K_GROUP,
	K_WORKDIR,
	K_ENV,
	K_UMASK,
	K_LIMIT_NOFILE,
	K_ENABLED,
	K_LOG,
	K_LOG_BUFFER,
	K_LOG_FILE_MAX,
	K_LOG_FILE_KEEP,
	K_CONSOLE,
	K_MEMORY_MAX,
	K_MEMORY_HIGH,
	K_PIDS_MAX,
	K_KILL_MODE,
	K_KILL_PRIORITY,
	K_OOM_SCORE_ADJ,
	K_CONTROL_SOCKET,
	K_NOTIFY_DIR,
	K_CONTROL_MODE,
	K_MAX_CLIENTS,
	K_CLIENT_TIMEOUT,
	K_SUP_LOG,
	K_SUP_LOG_BUFFER,
	K_SUP_LOG_FILE_MAX,
	K_SUP_LOG_FILE_KEEP,
	K_LOG_DIR,
	K_LOG_LEVEL,
	K_CGROUP_ROOT,
	K_CGROUP_MEMORY_HIGH,
	K_PRESSURE,
	K_PRESSURE_FILE,
	K_PRESSURE_RECLAIM,
	K_PRESSURE_KILL_TIMEOUT,
	K_PRESSURE_CALM,
	K_PRESSURE_CALM_MAX,
	K_CRASH_ACTION,
	K_ESSENTIAL,
	K_MODE,
	K_CONTROL_GROUP,
	K_LOG_FORMAT,
	K_SETTLE,
	K_INSTANCES,
	K_ENV_FILE,
	K_RELOAD_SIGNAL,
	K_RELOAD_EXEC,
	K_SHUTDOWN_TIMEOUT,
	K_START_PRE_EXEC,
	K_START_POST_EXEC,
	K_STOP_EXEC,
	K_STOP_POST_EXEC,
	K_ON_FAILURE_EXEC,
	K_HEALTH_EXEC,
	K_HEALTH_INTERVAL,
	K_HEALTH_TIMEOUT,
	K_HEALTH_RETRIES,
	K_HEALTH_START_PERIOD,
	K_METRICS_LISTEN,
	K_METRICS_USERS,
	K_SYSLOG_SOCKET,
	K_SYSLOG_FACILITY,
	K_SYSLOG_LEVEL,
	K_SYSLOG_ERROR_LEVEL,
	K_SYSLOG_IDENTIFIER,
	K_NO_NEW_PRIVS,
	K_CAPABILITIES,
	K_PRIVATE_TMP,
	K_PRIVATE_NETWORK,
	K_PRIVATE_DEVICES,
	K_PROTECT_KERNEL_TUNABLES,
	K_PROTECT_SYSTEM,
	K_PROTECT_HOME,
	K_READ_ONLY_PATHS,
	K_READ_WRITE_PATHS,
	K_INACCESSIBLE_PATHS,
	K_NO_EXEC_PATHS,
	K_EXEC_PATHS,
	K_PROTECT_PROC,
	K_PROC_SUBSET,
	K_REMOVE_IPC,
	K_ROOT_DIRECTORY,
	K_SYSCALL_FILTER,
	K_SYSCALL_ERRNO,
	K_NICE,
	K_CPU_AFFINITY,
	K_IO_CLASS,
	K_IO_PRIORITY,
	K_CPU_WEIGHT,
	K_CPU_MAX,
	K_IO_WEIGHT,
	K_LIMIT_AS,		/* the first of sb_rlimits */
	K_LIMIT_CORE,
	K_LIMIT_CPU,
	K_LIMIT_DATA,
	K_LIMIT_FSIZE,
	K_LIMIT_LOCKS,
	K_LIMIT_MEMLOCK,
	K_LIMIT_MSGQUEUE,
	K_LIMIT_NICE,
	K_LIMIT_NPROC,
	K_LIMIT_RSS,
	K_LIMIT_RTPRIO,
	K_LIMIT_RTTIME,
	K_LIMIT_SIGPENDING,
	K_LIMIT_STACK,
	K_LISTEN,
	K_LISTEN_BACKLOG,
	K_LISTEN_OWNER,
	K_LISTEN_MODE,
	K_ON_DEMAND,
	K_ACCEPT,
	K_MAX_CONNECTIONS,
	K_MAX_CONNECTIONS_PER_SOURCE,
	K_TRIGGER_LIMIT_INTERVAL,
	K_TRIGGER_LIMIT_BURST,
	K_FDSTORE_MAX,
	K_PRESSURE_CRITICAL,
	K_PRESSURE_MIN_AVAILABLE,
	K_PRESSURE_MIN_PRIORITY,
	K_PRESSURE_POLICY,
	K_MEMORY_PRESSURE_WATCH,
	K_MEMORY_PRESSURE_THRESHOLD,
	K_ON_CALENDAR,		/* the first of a timer's (svc_timed) */
	K_ON_BOOT,
	K_ON_STARTUP,
	K_ON_ACTIVE,
	K_ON_UNIT_ACTIVE,
	K_ON_UNIT_INACTIVE,	/* the last of them */
	K_PERSISTENT,
	K_RANDOMIZED_DELAY,
	K_FIXED_RANDOM_DELAY,
	K_ACCURACY,
	K_WAKE_SYSTEM,
	K_DEFER_UNDER_PRESSURE,
	K_DEFER_MAX,
	K_STATE_DIR,
	K_SYSTEMD_UNITS,
	K_UNIT_PATH,
	K_CONDITION,
	K_ASSERT,
	K_CONDITION_EXEC,
	K_RUNTIME_DIRECTORY,	/* the first of the directories' keys, */
	K_STATE_DIRECTORY,	/* in the order of enum dir_kind */
	K_CACHE_DIRECTORY,
	K_LOGS_DIRECTORY,
	K_CONFIGURATION_DIRECTORY,
	K_RUNTIME_DIRECTORY_MODE,	/* ... their modes, in that order */
	K_STATE_DIRECTORY_MODE,
	K_CACHE_DIRECTORY_MODE,
	K_LOGS_DIRECTORY_MODE,
	K_CONFIGURATION_DIRECTORY_MODE,
	K_RUNTIME_DIRECTORY_PRESERVE,
	K_RESTART_PREVENT_EXIT_STATUS,
	K_RESTART_FORCE_EXIT_STATUS,
	K_TTY,
	K_TTY_BUSY,
	K_TTY_RESET,
	K_TTY_VHANGUP,
	K_TTY_VT_DISALLOCATE,
	K_IGNORE_SIGPIPE,
	K_WATCH_UNITS,
	K_LOCK_PERSONALITY,		/* the protections of calls, */
	K_MEMORY_DENY_WRITE_EXECUTE,
	K_RESTRICT_REALTIME,
	K_RESTRICT_SUID_SGID,
	K_RESTRICT_NAMESPACES,
	K_RESTRICT_ADDRESS_FAMILIES,
	K_SYSTEM_CALL_ARCHITECTURES,
	K_PROTECT_KERNEL_MODULES,
	K_PROTECT_KERNEL_LOGS,
	K_PROTECT_CLOCK,
	K_PROTECT_CONTROL_GROUPS,
	K_PROTECT_HOSTNAME,		/* ... to here (sandbox_wanted) */
	K__COUNT
};

enum conf_section { SEC_SERVICE, SEC_SUPERVISOR };

/* A set of keys by K_ id: the ones a file gave. */
#define KEYSET_WORDS	4
struct keyset {
	uint64_t	w[KEYSET_WORDS];
};

static inline bool
keyset_has(const struct keyset *s, unsigned k)
{
	return (s->w[k / 64] >> (k % 64)) & 1;
}

static inline void
keyset_add(struct keyset *s, unsigned k)
{
	s->w[k / 64] |= 1ULL << (k % 64);
}

/* What a key sets: a field of struct svc_def or of struct sup_conf. */
enum conf_field_kind {
	F_NONE,			/* the end of a key's fields */
	F_STR,			/* char * */
	F_STRV,			/* char **, NULL-terminated */
	F_DEPS,			/* struct svc_dep *, count at cnt */
	F_GIDS,			/* gid_t *, count at cnt */
	F_BOOL,
	F_U8,
	F_I32,
	F_U32,
	F_U64,
};

struct conf_field {
	uint16_t	off;
	uint16_t	cnt;		/* F_DEPS, F_GIDS: where the count is */
	uint8_t		kind;		/* enum conf_field_kind */
};

/* How `pidvisorctl show` writes the value: as a file would say it. */
enum conf_show {
	SHOW_STR, SHOW_ARGV, SHOW_ENV, SHOW_DEPS, SHOW_ENUM, SHOW_BOOL,
	SHOW_NUMBER, SHOW_DURATION, SHOW_SIZE, SHOW_LIMIT, SHOW_COUNT,
	SHOW_MODE, SHOW_SIGNAL, SHOW_READY, SHOW_PRIORITY, SHOW_PRESSURE,
	SHOW_CAPS, SHOW_RLIMIT, SHOW_ERRNO, SHOW_EXEC, SHOW_PROTECT,
};

#define KEY_REPEAT	0x01	/* may be given more than once */
#define KEY_CONT	0x02	/* the value may go on over indented lines */
#define KEY_LIVE	0x04	/* [supervisor]: reload applies it at once;
				 * [service]: a change restarts nothing */

struct parse_ctx;

struct conf_key {
	const char		*name;
	uint8_t			 section;	/* enum conf_section */
	uint8_t			 flags;
	uint8_t			 show;		/* enum conf_show */
	const char		*(*parse)(struct parse_ctx *, void *,
				    const char *);
	const char *const	*names;		/* SHOW_ENUM's, NULL-ended */
	struct conf_field	 f[4];		/* the first is shown */
	int64_t			 min, max;	/* key_number's range */
};

extern const struct conf_key conf_keys[K__COUNT];

/* The limit_* keys but limit_nofile (sandbox.c's sb_rlimits). */
#define CONF_RLIMITS	15

enum protect_system { PROTECT_NO, PROTECT_YES, PROTECT_FULL, PROTECT_STRICT };
/* The directories a service's keys make (systemd's RuntimeDirectory=...). */
enum dir_kind { DIR_RUNTIME, DIR_STATE, DIR_CACHE, DIR_LOGS,
	DIR_CONFIGURATION, DIR__KINDS };
enum dir_preserve { PRESERVE_NO, PRESERVE_YES, PRESERVE_RESTART };

struct dir_kind_info {
	const char	*base;		/* "/run" */
	const char	*env;		/* "RUNTIME_DIRECTORY" */
	const char	*unit;		/* "RuntimeDirectory" */
	bool		 own;		/* the service's user's */
};

extern const struct dir_kind_info dir_kinds[DIR__KINDS];
extern const char *const dir_preserve_names[];

/* restrict_namespaces' names (conf_protect.c). */
#define CONF_NS_COUNT	7
#define CONF_NS_ALL	0x7e020000u	/* every CLONE_NEW* of them */
struct conf_ns_name {
	const char	*name;
	uint32_t	 flag;
};
extern const struct conf_ns_name conf_ns_names[CONF_NS_COUNT];
#define CONF_AF_MAX	46		/* AF_MAX, as Linux 6.1 has it */

/* tty_busy: when the terminal is another session's. */
enum tty_busy { TTY_WAIT, TTY_STEAL, TTY_FAIL };
extern const char *const tty_busy_names[];

enum protect_home { HOME_NO, HOME_YES, HOME_READ_ONLY };
/* protect_proc: procfs's hidepid= (0 default, 1 noaccess, 2 invisible,
 * 4 ptraceable): a /proc of the service's own. */
enum protect_proc { PROC_DEFAULT, PROC_NOACCESS, PROC_INVISIBLE,
	PROC_PTRACEABLE };
enum proc_subset { SUBSET_ALL, SUBSET_PID };

/* Where a key of a service was given: show's FILE:LINE. */
struct key_src {
	uint16_t	key;		/* enum conf_key_id */
	uint16_t	file;		/* 0: the service's file, else
					 * src_files[file - 1] (a drop-in) */
	uint32_t	line;		/* 0: made of the file, no one line */
};

/* One service as the configuration defines it; never changed once loaded. */
struct svc_def {
	char		 *name;
	uint8_t		  syslog_facility; /* an index: syslog_facility_code() */
	uint8_t		  syslog_level;	/* of stdout's lines, LOG_* */
	uint8_t		  syslog_error_level; /* of stderr's */
	char		 *syslog_ident;	/* the tag of its lines, or NULL:
					 * its name */
	char		 *file;
	char		**argv;
	char		**env;		/* KEY=VALUE overrides, or NULL */
	char		**env_files;	/* as written: "-" first if optional */
	char		**reload_exec;	/* lines as hooks'; NULL: reload_signal */
	char		**success_exit_status;	/* codes, signal names */
	char		**restart_prevent_exit_status;	/* ... never again */
	char		**restart_force_exit_status;	/* ... again */
	char		 *pid_file;	/* ready = forking: the daemon's PID */
	/* Hooks (hook.c): command lines as written, each checked by
	 * argv_split(), run in order; NULL if none. */
	char		**start_pre_exec;
	char		**start_post_exec;
	char		**stop_exec;
	char		**stop_post_exec;
	char		**on_failure_exec;
	/* Before start_pre_exec: the tests (cond.c's "TEST [|][!]ARG"),
	 * then condition_exec, each 0 to go on. */
	char		**conditions;
	char		**asserts;
	char		**condition_exec;
	/* runtime_directory and the like (conf_start.c): names beneath
	 * dir_kinds[].base, made before each start. */
	char		**dirs[DIR__KINDS];
	mode_t		  dir_mode[DIR__KINDS];
	uint8_t		  runtime_preserve;	/* enum dir_preserve */
	char		**health_exec;	/* argv; NULL: no health check */
	uint32_t	  health_interval;	/* ms */
	uint32_t	  health_timeout;	/* ms */
	uint32_t	  health_start_period;	/* ms: failures do not count */
	uint32_t	  health_retries;	/* failures in a row: unhealthy */
	char		**instances;	/* a template's, as listed */
	struct svc_dep	 *requires;
	size_t		  nrequires;
	struct svc_dep	 *after;
	size_t		  nafter;
	char		 *workdir;
	char		 *user;		/* as written, NULL if unset */
	char		 *group;
	gid_t		 *groups;	/* supplementary groups of user */
	size_t		  ngroups;
	uid_t		  uid;
	gid_t		  gid;
	uint64_t	  limit_nofile;
	uint64_t	  memory_max;		/* 0: not set */
	uint64_t	  memory_high;
	uint64_t	  pids_max;		/* 0: not set */
	int32_t		  kill_priority;	/* KILL_PRIORITY_NEVER or >= 0 */
	int32_t		  oom_score_adj;	/* if set_oom_score_adj */
	uint32_t	  restart_delay;	/* all durations in ms */
	uint32_t	  restart_delay_max;
	uint32_t	  start_limit_burst;	/* 0: no limit */
	uint32_t	  start_limit_interval;
	uint32_t	  ready_timeout;	/* 0: wait forever */
	uint32_t	  watchdog;		/* 0: off */
	uint32_t	  stop_timeout;		/* 0: never SIGKILL */
	uint32_t	  settle;		/* up this long to be ready */
	struct log_conf	  log;
	int		  ready_fd;
	int		  stop_signal;
	bool		  send_sighup;	/* SIGHUP after it too */
	int		  reload_signal;
	mode_t		  umask;
	uint8_t		  restart;	/* enum restart_policy */
	uint8_t		  ready;	/* enum ready_id */
	uint8_t		  kill_mode;	/* enum kill_mode */
	bool		  set_uid;
	bool		  set_gid;
	bool		  set_umask;
	bool		  set_nofile;
	bool		  set_oom_score_adj;
	bool		  enabled;
	bool		  console;	/* stdio is pidvisor's console */
	bool		  exec_any_exit; /* "-": every end of exec is clean */
	bool		  ignore_sigpipe;	/* SIGPIPE ignored, as systemd */
	char		 *tty;		/* its 0, 1, 2 and controlling tty */
	uint8_t		  tty_busy;	/* enum tty_busy */
	bool		  tty_reset;	/* termios made sane first */
	bool		  tty_vhangup;	/* its other users hung up first */
	bool		  tty_vt_disallocate;	/* its VT cleared first */
	bool		  essential;	/* its end is pidvisor's end */
	bool		  dynamic;	/* an instance made by a command */
	/* What it may not do (sandbox.c), each applied by its child. */
	char		**ro_paths;	/* read_only_paths, as written */
	char		**rw_paths;	/* read_write_paths */
	char		**hide_paths;	/* inaccessible_paths */
	char		**noexec_paths;	/* no_exec_paths */
	char		**exec_paths;	/* exec_paths */
	uint8_t		  protect_proc;	/* enum protect_proc */
	uint8_t		  proc_subset;	/* enum proc_subset */
	bool		  remove_ipc;	/* its user's IPC objects go at stop */
	char		 *root_dir;	/* root_directory */
	char		**syscalls;	/* syscall_filter's words; "~..." first:
					 * a deny list */
	char		 *cpu_affinity;	/* as written */
	char		 *cpu_max;	/* as written */
	uint64_t	  caps;		/* capabilities: the set it keeps */
	struct {
		uint64_t	cur, max;	/* RLIM_INFINITY: infinity */
		bool		set;
	}		  limit[CONF_RLIMITS];	/* limit_* */
	uint32_t	  cpu_quota;	/* us per cpu_period; 0: not set */
	uint32_t	  cpu_period;	/* us */
	uint32_t	  cpu_weight;	/* 0: not set */
	uint32_t	  io_weight;	/* 0: not set */
	int32_t		  nice;		/* if set_nice */
	int32_t		  syscall_errno; /* 0: EPERM; -1: kill */
	int32_t		  io_priority;	/* if set_io_priority */
	uint8_t		  protect_system; /* enum protect_system */
	uint8_t		  protect_home;	/* enum protect_home */
	uint8_t		  io_class;	/* IOPRIO_CLASS_*; 0: not set */
	bool		  set_caps;
	bool		  set_nice;
	bool		  set_io_priority;
	bool		  no_new_privs;
	bool		  private_tmp;
	bool		  private_network;
	bool		  private_devices;
	bool		  protect_kernel_tunables;
	bool		  lock_personality;
	bool		  memory_deny_write_execute;
	bool		  restrict_realtime;
	bool		  restrict_suid_sgid;
	bool		  native_arch;	/* system_call_architectures */
	bool		  protect_kernel_modules;
	bool		  protect_kernel_logs;
	bool		  protect_clock;
	bool		  protect_control_groups;
	bool		  protect_hostname;
	bool		  af_set;	/* restrict_address_families: */
	bool		  af_deny;	/* ... af_mask is a deny list, */
	uint64_t	  af_mask;	/* ... 1 << AF_*, */
	uint32_t	  ns_deny;	/* restrict_namespaces: CLONE_NEW* */
	/* The fds pidvisor holds for it (socks.c). */
	char		**listen;	/* as written, in order */
	int		 *listen_lines;	/* ... the line of each */
	char		 *listen_owner;	/* as written */
	uid_t		  listen_uid;
	gid_t		  listen_gid;
	uint32_t	  listen_backlog;
	mode_t		  listen_mode;
	uint32_t	  max_connections;	/* accept: instances at once */
	uint32_t	  max_per_source;	/* ... of one address or uid;
						 * 0: max_connections */
	uint32_t	  trigger_interval;	/* ms: clients counted in ... */
	uint32_t	  trigger_burst;	/* ... at most; 0: no limit */
	uint32_t	  fdstore_max;		/* 0: no fd store */
	uint32_t	  memory_pressure_threshold;	/* ms */
	uint8_t		  memory_pressure_watch;	/* enum mp_watch */
	bool		  on_demand;
	bool		  accept;	/* a template: an instance per client */
	/* When it runs by itself (timer.c): systemd's timer keys. */
	char		**on_calendar;	/* expressions, as written */
	uint64_t	  on_boot;	/* ms; each only if given */
	uint64_t	  on_startup;
	uint64_t	  on_active;
	uint64_t	  on_unit_active;
	uint64_t	  on_unit_inactive;
	uint64_t	  randomized_delay;	/* ms */
	uint64_t	  accuracy;		/* ms */
	uint64_t	  defer_max;		/* ms */
	bool		  persistent;
	bool		  fixed_random_delay;
	bool		  wake_system;		/* refused */
	bool		  defer_under_pressure;
	struct keyset	  given;	/* keys its file gave */
	struct key_src	 *src;		/* where each given key was given */
	size_t		  nsrc;
	char		**src_files;	/* those not its file */
	char		**dropins;	/* a unit's, in the order they apply */
};

/* Supervisor-wide settings from pidvisor.ini. */
struct sup_conf {
	char		*control_socket;
	char		*notify_dir;	/* NULL: beside the control socket */
	char		*log_dir;
	char		*cgroup_root;	/* NULL: automatic; "none": off */
	char		*pressure_file;	/* NULL: the services' cgroup's, or
					 * /proc/pressure/memory */
	char		*control_group;	/* as written; NULL: none */
	char		*metrics_listen; /* HOST:PORT; NULL: none */
	char		**metrics_users; /* as written; NULL: anyone */
	uid_t		*metrics_uids;	/* ... theirs */
	size_t		 nmetrics_uids;
	char		*syslog_socket;	/* NULL: /dev/log */
	char		*state_dir;	/* NULL: STATE_DIR_DEFAULT */
	char		*unit_path;	/* NULL: UNIT_PATH_DEFAULT (unit.h) */
	bool		 systemd_units;	/* the unit files too (conf_unit.c) */
	bool		 watch_units;	/* reload when they change */
	gid_t		 control_gid;	/* if control_group */
	struct log_conf	 log;
	uint64_t	 cgroup_memory_high;	/* on the services' parent */
	uint32_t	 pressure_stall;	/* us; 0: the killer is off */
	uint32_t	 pressure_window;	/* us */
	uint32_t	 pressure_crit_stall;	/* us; 0: no critical level */
	uint32_t	 pressure_crit_window;	/* us */
	uint32_t	 pressure_kill_timeout;	/* ms */
	char		*pressure_min_str;	/* as written; NULL: no floor */
	uint64_t	 pressure_min_available; /* bytes, if not a percent */
	uint32_t	 pressure_min_pct;	/* of MemTotal, in 1/100 % */
	int32_t		 pressure_min_priority;	/* at medium pressure */
	uint32_t	 pressure_calm;		/* ms; 0: restart victims at once */
	uint32_t	 pressure_calm_max;	/* ms */
	uint8_t		 crash_action;		/* enum crash_action */
	uint8_t		 mode;			/* enum sup_mode */
	uint8_t		 log_format;		/* enum log_format */
	bool		 pressure_full;		/* "full" rather than "some" */
	bool		 pressure_crit_full;
	uint8_t		 pressure_reclaim;	/* enum reclaim_path + 1; 0 auto */
	uint8_t		 pressure_policy;	/* 0 pidvisor's, 1 lmkd's */
	mode_t		 control_mode;
	uint32_t	 max_clients;
	uint32_t	 client_timeout;	/* ms */
	uint32_t	 shutdown_timeout;	/* ms; 0: none */
	int		 log_level;
	bool		 set_log_level;
	struct keyset	 given;		/* keys pidvisor.ini gave */
};

struct conf_err {
	char	*file;
	int	 line;		/* 0: the error is about the file itself */
	char	*msg;
};

/* A template, services/NAME@.ini: its instances are services. */
struct conf_tmpl {
	char		*name;		/* "NAME@" */
	char		*file;
	char		*text;
};

struct conf {
	struct sup_conf	  sup;
	struct svc_def	**defs;		/* sorted by name once loaded */
	size_t		  ndefs;
	struct conf_tmpl *tmpls;
	size_t		  ntmpls;
	char		**extra;	/* instances to make too (commands') */
	size_t		  dedup;	/* errors from here on: one per line */
	struct conf_err	 *errs;
	size_t		  nerrs;
	char		**warns;	/* "FILE: what", NULL-ended, or NULL */
	/* Units not run (conf_unit.c): "NAME\tFILE:LINE: why", NULL-ended,
	 * or NULL; status shows them. */
	char		**refused;
	bool		  nomem;	/* out of memory: not all is known */
	const char	 *etc;		/* where passwd and group are read */
	/* Checks of a definition a layer above makes at conf_check(), its
	 * warnings by conf_warn() (security_conf_check); NULL: none. */
	void		(*check_def)(struct conf *c, const struct svc_def *d);
};

void		 conf_init(struct conf *c);
void		 conf_free(struct conf *c);
int		 conf_load(struct conf *c, const char *dir);
int		 conf_parse_sup(struct conf *c, const char *file, const char *text);
int		 conf_parse_service(struct conf *c, const char *file,
		     const char *name, const char *text);
int		 conf_check(struct conf *c);
void		 conf_listen_check(struct conf *c);
int		 conf_units(struct conf *c);
bool		 conf_def_is_conn(const struct svc_def *d);
bool		 conf_def_timed(const struct svc_def *d);
bool		 conf_timer_equal(const struct svc_def *a,
		     const struct svc_def *b);
struct svc_def	*conf_find(const struct conf *c, const char *name);
int		 conf_instance(struct conf *c, const struct conf_tmpl *t,
		     const char *name, struct svc_def **out);
const struct conf_tmpl *conf_tmpl_of(const struct conf *c, const char *name);
void		 conf_errors(struct conf *c, struct buf *out);
void		 conf_warn(struct conf *c, const char *fmt, ...)
		     __attribute__((format(printf, 2, 3)));
bool		 conf_name_valid(const char *s);
void		 svc_def_free(struct svc_def *d);
bool		 svc_def_equal(const struct svc_def *a, const struct svc_def *b);
const struct conf_key *conf_key_find(enum conf_section sec, const char *name);
bool		 conf_key_equal(const struct conf_key *k, const void *a, const void *b);
int		 conf_key_copy(const struct conf_key *k, void *dst, const void *src);
void		 conf_keys_free(enum conf_section sec, void *obj);
void		 conf_key_show(struct buf *b, const struct conf_key *k, const void *obj);
void		 conf_argv_show(struct buf *b, char *const *argv);
int		 conf_argv_to_line(char ***v);
void		 svc_def_defaults(struct svc_def *d, const struct sup_conf *sc);

struct st_w;
struct st_r;
/* A state's key table, as this binary's keys (conf_key.c). */
struct conf_keymap {
	const struct conf_key	*k[K__COUNT];
	uint8_t			 nf[K__COUNT];	/* its fields in the state */
	uint32_t		 n;
};

void		 conf_sup_free_fields(struct sup_conf *sc);
void		 conf_keys_save(struct st_w *w, enum conf_section sec,
		     const void *obj, const struct keyset *given,
		     const void *dflt);
int		 conf_keys_load(struct st_r *r, enum conf_section sec,
		     void *obj, struct keyset *given);
int		 conf_keys_load_table6(struct st_r *r, enum conf_section sec,
		     struct conf_keymap *m);
int		 conf_keys_load6(struct st_r *r, const struct conf_keymap *m,
		     void *obj);
void		 conf_keys_given6(struct st_r *r, struct keyset *given);
int		 conf_src_put(struct svc_def *d, unsigned key, size_t n,
		     const char *file, uint32_t line);
int		 conf_src_set(struct svc_def *d, unsigned key,
		     const char *file, uint32_t line, bool add);
const char	*conf_src_get(const struct svc_def *d, unsigned key,
		     size_t n, uint32_t *line);
void		 conf_src_free(struct svc_def *d);
const char	*kill_mode_name(enum kill_mode m);

#endif
