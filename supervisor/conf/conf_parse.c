/*
 * conf_parse.c - the values of the configuration's keys: one parser for
 * each kind of value, and the key table (conf_keys) that says which
 * parser each key takes, how it shows, and which fields it sets.  Users
 * and groups are conf_ids.c's; reading the files is conf.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_parse.h"


/* Format a value error into the context's buffer and return it. */
const char *
bad(struct parse_ctx *p, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return p->why;
}

/* Parse yes/no. */
int
parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Parse an octal file mode no larger than 0777. */
int
parse_mode(const char *v, mode_t *out)
{
	unsigned long	 m;
	char		*end;

	if (*v < '0' || *v > '7')
		return -EINVAL;
	errno = 0;
	m = strtoul(v, &end, 8);
	if (*end != '\0' || errno || m > 0777)
		return -EINVAL;
	*out = (mode_t)m;
	return 0;
}

/* Parse a duration key, naming it in the error. */
static const char *
key_duration(struct parse_ctx *p, const char *key, const char *v,
    uint32_t *out)
{
	int	rc = parse_duration(v, out);

	if (rc == -ERANGE)
		return bad(p, "%s: duration '%s' is too long", key, v);
	if (rc < 0)
		return bad(p, "%s: invalid duration '%s' (use e.g. 100ms, "
		    "5s, 1h30m)", key, v);
	return NULL;
}

/* Append the blank-separated names in v to a dependency list. */
static const char *
key_deps(struct parse_ctx *p, const char *key, const char *v,
    struct svc_dep **deps, size_t *n)
{
	char		 name[SVC_NAME_MAX + 2];
	struct svc_dep	*d;
	size_t		 len;

	for (;;) {
		v += strspn(v, " \t");
		if (*v == '\0')
			return NULL;
		len = strcspn(v, " \t");
		if (len > SVC_NAME_MAX)
			return bad(p, "%s: service name too long", key);
		memcpy(name, v, len);
		name[len] = '\0';
		v += len;
		if (!conf_name_valid(name))
			return bad(p, "%s: invalid service name '%s'", key,
			    name);
		if ((d = realloc(*deps, (*n + 1) * sizeof(*d))) == NULL)
			return strerror(ENOMEM);
		*deps = d;
		if ((d[*n].name = strdup(name)) == NULL)
			return strerror(ENOMEM);
		d[*n].line = p->line;
		(*n)++;
	}
}

/* Replace *dst with a copy of v. */
const char *
key_str(char **dst, const char *v)
{
	free(*dst);
	if ((*dst = strdup(v)) == NULL)
		return strerror(ENOMEM);
	return NULL;
}

static const char *
k_exec(struct parse_ctx *p, void *obj, const char *v)
{
	(void)obj;
	if (p->cont) {
		if (buf_puts(&p->exec, " ") < 0)
			return strerror(ENOMEM);
	} else {
		p->exec_line = p->line;
	}
	if (buf_puts(&p->exec, v) < 0)
		return strerror(ENOMEM);
	return NULL;
}

/*
 * A number in the key's range (its min and max in the table), into its
 * first field, of the field's size; a second field, a bool, says it was
 * given.
 */
static const char *
key_number(struct parse_ctx *p, void *obj, const char *v)
{
	const struct conf_key	*k = p->key;
	void			*at = (char *)obj + k->f[0].off;
	bool			 neg = v[0] == '-';
	uint64_t		 n;
	int64_t			 x;

	if (parse_u64(v + neg, (uint64_t)INT64_MAX, &n) < 0 ||
	    (x = neg ? -(int64_t)n : (int64_t)n) < k->min || x > k->max)
		return bad(p, "%s: expected a number from %lld to %lld, not "
		    "'%s'", k->name, (long long)k->min, (long long)k->max, v);
	switch (k->f[0].kind) {
	case F_U8:
		*(uint8_t *)at = (uint8_t)x;
		break;
	case F_I32:
	case F_U32:
		*(uint32_t *)at = (uint32_t)x;
		break;
	default:
		*(uint64_t *)at = (uint64_t)x;
	}
	if (k->f[1].kind == F_BOOL)
		*(bool *)((char *)obj + k->f[1].off) = true;
	return NULL;
}

static const char *
k_ready(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	char		 names[128];

	if (ready_parse(v, &d->ready, &d->ready_fd) < 0) {
		ready_names(names, sizeof(names));
		return bad(p, "ready: expected %s (N from 3 to %d), not '%s'",
		    names, READY_FD_MAX, v);
	}
	return NULL;
}

/* stop_signal, reload_signal: the key's first field. */
static const char *
k_signal(struct parse_ctx *p, void *obj, const char *v)
{
	int	sig = signal_parse(v);

	if (sig < 0 || sig == SIGSTOP)
		return bad(p, "%s: unknown signal '%s'", p->key->name, v);
	if (sig == SIGKILL && p->key - conf_keys == K_RELOAD_SIGNAL)
		return bad(p, "reload_signal: KILL would not reload it");
	*(int *)(void *)((char *)obj + p->key->f[0].off) = sig;
	return NULL;
}

/* Append a copy of v to a NULL-terminated list. */
const char *
key_strv_add(char ***vp, const char *v)
{
	size_t	  n = strv_len(*vp);
	char	**nv;

	if ((nv = realloc(*vp, (n + 2) * sizeof(*nv))) == NULL)
		return strerror(ENOMEM);
	*vp = nv;
	if ((nv[n] = strdup(v)) == NULL)
		return strerror(ENOMEM);
	nv[n + 1] = NULL;
	return NULL;
}

/* env_file: an absolute path, after a '-' if the file may be missing. */
static const char *
k_env_file(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (v[v[0] == '-'] != '/')
		return bad(p, "env_file: '%s' is not an absolute path (a "
		    "leading '-' makes it optional: -/etc/default/NAME)", v);
	return key_strv_add(&d->env_files, v);
}

/* health_exec: a command, as exec is written. */
static const char *
k_argv(struct parse_ctx *p, void *obj, const char *v)
{
	char		***argv = (char ***)(void *)((char *)obj +
			    p->key->f[0].off);
	const char	  *why;

	if (argv_split(v, argv, &why) < 0)
		return bad(p, "%s: %s", p->key->name, why);
	if ((*argv)[0][0] == '\0')
		return bad(p, "%s: the program name is empty", p->key->name);
	return NULL;
}

/*
 * start_pre_exec and the other hooks: a command, as exec is written,
 * kept as written (its words are made when it runs); repeatable: each
 * runs after the one before exited 0.
 */
static const char *
k_hook(struct parse_ctx *p, void *obj, const char *v)
{
	char		**argv = NULL;
	const char	 *why;

	/* '-' first: its failure is ignored (hook.c), as systemd's. */
	if (argv_split(v + (v[0] == '-'), &argv, &why) < 0)
		return bad(p, "%s: %s", p->key->name, why);
	if (argv[0][0] == '\0') {
		strv_free(argv);
		return bad(p, "%s: the program name is empty", p->key->name);
	}
	strv_free(argv);
	return key_strv_add((char ***)(void *)((char *)obj +
	    p->key->f[0].off), v);
}

/* instances: the instance names of a template, blank-separated. */
static const char *
k_instances(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	char		 name[2 * SVC_NAME_MAX + 4], inst[SVC_NAME_MAX + 2];
	const char	*at = strchr(d->name, '@'), *why;
	size_t		 n, i;

	if (!p->tmpl)
		return bad(p, "instances: only a template (services/"
		    "NAME@.ini) has instances");
	while (*(v += strspn(v, " \t")) != '\0') {
		n = strcspn(v, " \t");
		snprintf(inst, sizeof(inst), "%.*s", (int)(n < sizeof(inst) ?
		    n : sizeof(inst) - 1), v);
		snprintf(name, sizeof(name), "%.*s%s", (int)(at - d->name + 1),
		    d->name, inst);
		if (n >= sizeof(inst) || strchr(inst, '@') ||
		    !conf_name_valid(name))
			return bad(p, "instances: '%.*s' is not a valid "
			    "instance (letters, digits, _.- , not . or - "
			    "first; the service name at most %d)", (int)n, v,
			    SVC_NAME_MAX);
		for (i = 0; d->instances && d->instances[i]; i++)
			if (strcmp(d->instances[i], inst) == 0)
				return bad(p, "instances: '%s' listed twice",
				    inst);
		if ((why = key_strv_add(&d->instances, inst)) != NULL)
			return why;
		v += n;
	}
	return NULL;
}

/* user, group: a name or a number, looked up at the end (conf.c). */
static const char *
k_word(struct parse_ctx *p, void *obj, const char *v)
{
	return key_str((char **)(void *)((char *)obj + p->key->f[0].off), v);
}

/* workdir, pid_file: an absolute path, into the key's field. */
static const char *
k_abspath(struct parse_ctx *p, void *obj, const char *v)
{
	if (v[0] != '/')
		return bad(p, "%s: '%s' is not an absolute path", p->key->name,
		    v);
	return key_str((char **)(void *)((char *)obj + p->key->f[0].off), v);
}

static const char *
k_env(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	size_t	  n = strv_len(d->env), klen = strcspn(v, "="), i;
	char	**env;

	if (v[klen] != '=' || klen == 0 || isdigit((unsigned char)v[0]))
		return bad(p, "env: expected KEY=VALUE, not '%s'", v);
	for (i = 0; i < klen; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '_')
			return bad(p, "env: invalid variable name in '%s'", v);
	/* A later value for the same variable replaces the earlier one,
	 * and its place (show's FILE:LINE of each). */
	for (i = 0; i < n; i++)
		if (strncmp(d->env[i], v, klen + 1) == 0)
			break;
	if (conf_src_put(d, K_ENV, i, p->file, (uint32_t)p->line) < 0)
		return strerror(ENOMEM);
	if (i < n) {
		free(d->env[i]);
		return (d->env[i] = strdup(v)) == NULL ? strerror(ENOMEM) :
		    NULL;
	}
	if ((env = realloc(d->env, (n + 2) * sizeof(*env))) == NULL)
		return strerror(ENOMEM);
	d->env = env;
	if ((env[n] = strdup(v)) == NULL)
		return strerror(ENOMEM);
	env[n + 1] = NULL;
	return NULL;
}

static const char *
k_umask(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (parse_mode(v, &d->umask) < 0)
		return bad(p, "umask: expected an octal mode such as 022, "
		    "not '%s'", v);
	d->set_umask = true;
	return NULL;
}

static const char *
k_enabled(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (parse_bool(v, &d->enabled) < 0)
		return bad(p, "enabled: expected yes or no, not '%s'", v);
	return NULL;
}

static const char *const sink_names[] = {
	[SINK_CONSOLE] = "console", [SINK_KMSG] = "kmsg",
	[SINK_FILE] = "file", [SINK_NONE] = "none", [SINK_SYSLOG] = "syslog",
	NULL,
};

/*
 * A key whose value is one of its names (restart, kill_mode, log,
 * log_level, pressure_reclaim): the index goes in its first field; a
 * second field, a bool, says it was set.
 */
static const char *
key_enum(struct parse_ctx *p, void *obj, const char *v)
{
	const struct conf_key	*k = p->key;
	char			*at = (char *)obj + k->f[0].off;
	char			 list[128] = "";
	size_t			 i, n;

	for (n = 0; k->names[n]; n++)
		;
	for (i = 0; i < n; i++) {
		if (k->names[i] != NULL && strcmp(v, k->names[i]) == 0) {
			if (k->f[0].kind == F_U8)
				*(uint8_t *)at = (uint8_t)i;
			else
				*(int32_t *)(void *)at = (int32_t)i;
			if (k->f[1].kind == F_BOOL)
				*(bool *)((char *)obj + k->f[1].off) = true;
			return NULL;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
		    k->names[i]);
	}
	return bad(p, "%s: expected %s, not '%s'", k->name, list, v);
}

/* Parse a log size key, shared by [service] and [supervisor]. */
static const char *
key_log(struct parse_ctx *p, const char *key, const char *v,
    struct log_conf *l)
{
	uint64_t	n;

	if (!strcmp(key, "log_buffer")) {
		if (parse_size(v, 16 << 20, &n) < 0 || (n && n < 4096))
			return bad(p, "log_buffer: expected 0 or a size from "
			    "4k to 16M, not '%s'", v);
		l->buffer = (uint32_t)n;
	} else if (!strcmp(key, "log_file_max")) {
		if (parse_size(v, 1ULL << 40, &n) < 0 || n < 4096)
			return bad(p, "log_file_max: expected a size of at "
			    "least 4k, such as 10M, not '%s'", v);
		l->file_max = n;
	} else {
		if (parse_u64(v, 1000, &n) < 0)
			return bad(p, "log_file_keep: expected a number from "
			    "0 to 1000, not '%s'", v);
		l->file_keep = (uint32_t)n;
	}
	return NULL;
}

/* A size, or "max" for none; a size must be at least min. */
static const char *
key_limit(struct parse_ctx *p, const char *key, const char *v, uint64_t min,
    uint64_t *out)
{
	if (!strcmp(v, "max")) {
		*out = 0;
		return NULL;
	}
	if (parse_size(v, 1ULL << 50, out) < 0 || *out < min)
		return bad(p, "%s: expected a size such as 256M (at least "
		    "%llu bytes) or max, not '%s'", key,
		    (unsigned long long)min, v);
	return NULL;
}

static const char *
k_pids_max(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (!strcmp(v, "max")) {
		d->pids_max = 0;
		return NULL;
	}
	if (parse_u64(v, 1U << 22, &d->pids_max) < 0 || d->pids_max == 0)
		return bad(p, "pids_max: expected a number from 1 to 4194304 "
		    "or max, not '%s'", v);
	return NULL;
}

static const char *
k_kill_priority(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	uint64_t	n;

	if (!strcmp(v, "never")) {
		d->kill_priority = KILL_PRIORITY_NEVER;
		return NULL;
	}
	if (parse_u64(v, 1000, &n) < 0)
		return bad(p, "kill_priority: expected a number from 0 to "
		    "1000 or never, not '%s'", v);
	d->kill_priority = (int32_t)n;
	return NULL;
}

static const char *
k_essential(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (parse_bool(v, &d->essential) < 0)
		return bad(p, "essential: expected yes or no, not '%s'", v);
	return NULL;
}

/* control_group: a group name or number, looked up once the file is read. */
static const char *
s_control_group(struct parse_ctx *p, void *obj, const char *v)
{
	(void)p;
	return key_str(&((struct sup_conf *)obj)->control_group, v);
}

static const char *
k_console(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (parse_bool(v, &d->console) < 0)
		return bad(p, "console: expected yes or no, not '%s'", v);
	return NULL;
}

/* A duration key of either section: the field is the key's first. */
static const char *
key_dur(struct parse_ctx *p, void *obj, const char *v)
{
	return key_duration(p, p->key->name, v,
	    (uint32_t *)(void *)((char *)obj + p->key->f[0].off));
}

/* requires, after: the names, added to the key's list. */
static const char *
k_deps(struct parse_ctx *p, void *obj, const char *v)
{
	const struct conf_field	*f = &p->key->f[0];

	return key_deps(p, p->key->name, v,
	    (struct svc_dep **)(void *)((char *)obj + f->off),
	    (size_t *)(void *)((char *)obj + f->cnt));
}

/*
 * log, log_buffer, log_file_max, log_file_keep: a service's, or (in
 * pidvisor.ini) the services' default.
 */
static const char *
k_log(struct parse_ctx *p, void *obj, const char *v)
{
	if (strcmp(p->key->name, "log") == 0)
		return key_enum(p, obj, v);
	return key_log(p, p->key->name, v, p->section == SEC_SERVICE ?
	    &((struct svc_def *)obj)->log : &((struct sup_conf *)obj)->log);
}

/* memory_max, memory_high: a size of at least 1M, or max. */
static const char *
k_memory(struct parse_ctx *p, void *obj, const char *v)
{
	return key_limit(p, p->key->name, v, 1 << 20,
	    (uint64_t *)(void *)((char *)obj + p->key->f[0].off));
}

/*
 * [supervisor]: control_socket, an absolute socket path; notify_dir, the
 * absolute directory of the notify sockets (NAME.sock in it must fit a
 * socket's path too).
 */
static const char *
s_socket(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;
	const char	*name = p->key->name;
	bool		 dir = name[0] == 'n';

	if (v[0] != '/')
		return bad(p, "%s: '%s' is not an absolute path", name, v);
	if (strlen(v) >= (dir ? SOCKET_PATH_MAX - 1 - SVC_NAME_MAX - 5 :
	    SOCKET_PATH_MAX))
		return bad(p, "%s: path too long for a unix socket%s", name,
		    dir ? " (NAME.sock in it, for a name of the longest)" :
		    "");
	return key_str(dir ? &s->notify_dir : &s->control_socket, v);
}

static const char *
s_control_mode(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;

	if (parse_mode(v, &s->control_mode) < 0)
		return bad(p, "control_mode: expected an octal mode such as "
		    "0600, not '%s'", v);
	return NULL;
}

/* cgroup_root, pressure_file: a path, none, or (pressure_file) cgroup. */
static const char *
s_path_or_none(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;
	const char	*name = p->key->name;

	if (v[0] != '/' && strcmp(v, "none") && strcmp(v, "cgroup"))
		return bad(p, "%s: '%s' is not an absolute path", name, v);
	return key_str(name[0] == 'c' ? &s->cgroup_root : &s->pressure_file,
	    v);
}

static const char *
s_cgroup_memory_high(struct parse_ctx *p, void *obj, const char *v)
{
	return key_limit(p, "cgroup_memory_high", v, 1 << 20,
	    &((struct sup_conf *)obj)->cgroup_memory_high);
}

/*
 * metrics_users: the users whose connections metrics_listen answers
 * (found in passwd once the file is read: conf_users()).
 */
static const char *
s_metrics_users(struct parse_ctx *p, void *obj, const char *v)
{
	char		***vp = &((struct sup_conf *)obj)->metrics_users;
	char		 name[256];
	const char	*why;
	size_t		 n;

	strv_free(*vp);
	*vp = NULL;
	while (*(v += strspn(v, " \t,")) != '\0') {
		n = strcspn(v, " \t,");
		if (n >= sizeof(name))
			return bad(p, "metrics_users: a name too long");
		memcpy(name, v, n);
		name[n] = '\0';
		if ((why = key_strv_add(vp, name)) != NULL)
			return why;
		v += n;
	}
	return NULL;
}

/* metrics_listen: HOST:PORT, [ADDR]:PORT, PORT (loopback), or none. */
static const char *
s_metrics_listen(struct parse_ctx *p, void *obj, const char *v)
{
	struct sockaddr_storage	ss;
	socklen_t		len;

	if (strcmp(v, "none") != 0 && parse_inet_addr(v, &ss, &len) < 0)
		return bad(p, "metrics_listen: expected HOST:PORT, [ADDR]:PORT "
		    "or PORT (an address, not a name), or none; not '%s'", v);
	return key_str(&((struct sup_conf *)obj)->metrics_listen, v);
}

/* syslog_socket: the datagram socket of the syslog daemon. */
static const char *
s_syslog_socket(struct parse_ctx *p, void *obj, const char *v)
{
	if (v[0] != '/')
		return bad(p, "syslog_socket: '%s' is not an absolute path", v);
	if (strlen(v) >= SOCKET_PATH_MAX)
		return bad(p, "syslog_socket: path too long for a unix socket");
	return key_str(&((struct sup_conf *)obj)->syslog_socket, v);
}

/* In the order of their codes, local0 (16) following ftp (11). */
static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "local0", "local1", "local2",
	"local3", "local4", "local5", "local6", "local7", NULL,
};

static const char *const syslog_level_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
	NULL,
};

static const char *const mp_watch_names[] = {
	[MP_AUTO] = "auto", [MP_ON] = "on", [MP_OFF] = "off", NULL,
};

static const char *const reclaim_names[] = {
	"auto", "kill", "mrelease", "reap", NULL,
};

static const char *const policy_names[] = { "pidvisor", "lmkd", NULL };

static const char *
s_log_dir(struct parse_ctx *p, void *obj, const char *v)
{
	if (v[0] != '/')
		return bad(p, "log_dir: '%s' is not an absolute path", v);
	return key_str(&((struct sup_conf *)obj)->log_dir, v);
}

static const char *const level_names[] = {
	[LOG_ERR] = "error", [LOG_WARN] = "warning", [LOG_INFO] = "info",
	[LOG_DEBUG] = "debug", NULL,
};

static const char *const mode_names[] = {
	[MODE_AUTO] = "auto", [MODE_SYSTEM] = "system",
	[MODE_CONTAINER] = "container", NULL,
};

static const char *const log_format_names[] = {
	[LOGF_TEXT] = "text", [LOGF_RFC3339] = "rfc3339",
	[LOGF_JSON] = "json", NULL,
};

static const char *const crash_names[] = {
	[CRASH_FREEZE] = "freeze", [CRASH_REBOOT] = "reboot",
	[CRASH_POWEROFF] = "poweroff", NULL,
};

static const char *const kill_mode_names[] = {
	[KILL_PROCESS] = "process", [KILL_GROUP] = "group",
	[KILL_CGROUP] = "cgroup", NULL,
};

/* The name of a kill_mode. */
const char *
kill_mode_name(enum kill_mode m)
{
	return m <= KILL_CGROUP ? kill_mode_names[m] : "?";
}

static const char *const protect_system_names[] = {
	[PROTECT_NO] = "no", [PROTECT_YES] = "yes", [PROTECT_FULL] = "full",
	[PROTECT_STRICT] = "strict", NULL,
};

static const char *const protect_home_names[] = {
	[HOME_NO] = "no", [HOME_YES] = "yes", [HOME_READ_ONLY] = "read-only",
	NULL,
};

static const char *const protect_proc_names[] = { "default", "noaccess",
	"invisible", "ptraceable", NULL };	/* enum protect_proc */

static const char *const proc_subset_names[] = { "all", "pid", NULL };

/* ioprio classes: 1 realtime, 2 best-effort, 3 idle (0: not set). */
static const char *const io_class_names[] = {
	"none", "realtime", "best-effort", "idle", NULL,
};

#define SF(m, k)	{ offsetof(struct svc_def, m), 0, k }
#define SFN(m, n, k)	{ offsetof(struct svc_def, m), \
			  offsetof(struct svc_def, n), k }
#define GF(m, k)	{ offsetof(struct sup_conf, m), 0, k }
#define GFN(m, n, k)	{ offsetof(struct sup_conf, m), \
			  offsetof(struct sup_conf, n), k }
#define SVC(n, fn, fl, show, nm, ...) \
	{ n, SEC_SERVICE, fl, show, fn, nm, { __VA_ARGS__ }, 0, 0 }
#define SUP(n, fn, fl, show, nm, ...) \
	{ n, SEC_SUPERVISOR, fl, show, fn, nm, { __VA_ARGS__ }, 0, 0 }
/* A number from lo to hi (key_number). */
#define SVCN(n, lo, hi, fl, ...) \
	{ n, SEC_SERVICE, fl, SHOW_NUMBER, key_number, NULL, \
	    { __VA_ARGS__ }, lo, hi }
#define SUPN(n, lo, hi, fl, ...) \
	{ n, SEC_SUPERVISOR, fl, SHOW_NUMBER, key_number, NULL, \
	    { __VA_ARGS__ }, lo, hi }
#define LIM(K, n, i)	[K_LIMIT_##K] = SVC("limit_" n, conf_harden_rlimit, 0, \
	SHOW_RLIMIT, NULL, SF(limit[i].cur, F_U64), SF(limit[i].max, F_U64), \
	SF(limit[i].set, F_BOOL))

/*
 * Every key of both sections: what parses it, how it shows, and the
 * fields it sets (what reload and svc_def_equal compare).  A service
 * whose keys differ restarts on reload (but for enabled); a supervisor
 * key is applied at once (KEY_LIVE) or reported as needing a restart of
 * pidvisor.  KEY_CONT: the value may go on over indented lines.
 */
_Static_assert(K__COUNT <= 64 * KEYSET_WORDS, "a struct keyset holds them");

const struct conf_key conf_keys[K__COUNT] = {
	[K_EXEC] = SVC("exec", k_exec, KEY_CONT, SHOW_EXEC, NULL,
	    SF(argv, F_STRV), SF(exec_any_exit, F_BOOL)),
	[K_RESTART] = SVC("restart", key_enum, 0, SHOW_ENUM, restart_names,
	    SF(restart, F_U8)),
	[K_RESTART_DELAY] = SVC("restart_delay", key_dur, 0, SHOW_DURATION,
	    NULL, SF(restart_delay, F_U32)),
	[K_RESTART_DELAY_MAX] = SVC("restart_delay_max", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(restart_delay_max, F_U32)),
	[K_SUCCESS_EXIT_STATUS] = SVC("success_exit_status",
	    conf_exit_statuses, KEY_REPEAT, SHOW_ARGV, NULL,
	    SF(success_exit_status, F_STRV)),
	[K_RESTART_PREVENT_EXIT_STATUS] = SVC("restart_prevent_exit_status",
	    conf_exit_statuses, KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL,
	    SF(restart_prevent_exit_status, F_STRV)),
	[K_RESTART_FORCE_EXIT_STATUS] = SVC("restart_force_exit_status",
	    conf_exit_statuses, KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL,
	    SF(restart_force_exit_status, F_STRV)),
	[K_PID_FILE] = SVC("pid_file", k_abspath, 0, SHOW_STR, NULL,
	    SF(pid_file, F_STR)),
	[K_START_LIMIT_BURST] = SVCN("start_limit_burst", 0, 100000, 0,
	    SF(start_limit_burst, F_U32)),
	[K_START_LIMIT_INTERVAL] = SVC("start_limit_interval", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(start_limit_interval, F_U32)),
	[K_READY] = SVC("ready", k_ready, 0, SHOW_READY, NULL,
	    SF(ready, F_U8), SF(ready_fd, F_I32)),
	[K_READY_TIMEOUT] = SVC("ready_timeout", key_dur, 0, SHOW_DURATION,
	    NULL, SF(ready_timeout, F_U32)),
	[K_WATCHDOG] = SVC("watchdog", key_dur, 0, SHOW_DURATION, NULL,
	    SF(watchdog, F_U32)),
	[K_REQUIRES] = SVC("requires", k_deps,
	    KEY_REPEAT | KEY_CONT, SHOW_DEPS, NULL,
	    SFN(requires, nrequires, F_DEPS)),
	[K_AFTER] = SVC("after", k_deps, KEY_REPEAT | KEY_CONT, SHOW_DEPS, NULL,
	    SFN(after, nafter, F_DEPS)),
	[K_STOP_SIGNAL] = SVC("stop_signal", k_signal,
	    0, SHOW_SIGNAL, NULL,
	    SF(stop_signal, F_I32)),
	[K_SEND_SIGHUP] = SVC("send_sighup", conf_harden_flag, KEY_LIVE,
	    SHOW_BOOL, NULL, SF(send_sighup, F_BOOL)),
	[K_STOP_TIMEOUT] = SVC("stop_timeout", key_dur, 0, SHOW_DURATION, NULL,
	    SF(stop_timeout, F_U32)),
	[K_USER] = SVC("user", k_word, 0, SHOW_STR, NULL,
	    SF(user, F_STR), SF(uid, F_U32), SFN(groups, ngroups, F_GIDS),
	    SF(set_uid, F_BOOL)),
	[K_GROUP] = SVC("group", k_word, 0, SHOW_STR, NULL,
	    SF(group, F_STR), SF(gid, F_U32), SF(set_gid, F_BOOL)),
	[K_WORKDIR] = SVC("workdir", k_abspath, 0, SHOW_STR, NULL,
	    SF(workdir, F_STR)),
	[K_ENV] = SVC("env", k_env, KEY_REPEAT | KEY_CONT, SHOW_ENV, NULL,
	    SF(env, F_STRV)),
	[K_UMASK] = SVC("umask", k_umask, 0, SHOW_MODE, NULL,
	    SF(umask, F_U32), SF(set_umask, F_BOOL)),
	[K_LIMIT_NOFILE] = SVCN("limit_nofile", 1, 1 << 30, 0,
	    SF(limit_nofile, F_U64), SF(set_nofile, F_BOOL)),
	[K_ENABLED] = SVC("enabled", k_enabled, KEY_LIVE, SHOW_BOOL, NULL,
	    SF(enabled, F_BOOL)),
	[K_LOG] = SVC("log", k_log, 0, SHOW_ENUM, sink_names,
	    SF(log.sink, F_U8)),
	[K_LOG_BUFFER] = SVC("log_buffer", k_log, 0, SHOW_SIZE, NULL,
	    SF(log.buffer, F_U32)),
	[K_LOG_FILE_MAX] = SVC("log_file_max", k_log, 0, SHOW_SIZE, NULL,
	    SF(log.file_max, F_U64)),
	[K_LOG_FILE_KEEP] = SVC("log_file_keep", k_log, 0, SHOW_NUMBER, NULL,
	    SF(log.file_keep, F_U32)),
	[K_CONSOLE] = SVC("console", k_console, 0, SHOW_BOOL, NULL,
	    SF(console, F_BOOL)),
	[K_MEMORY_MAX] = SVC("memory_max", k_memory, 0, SHOW_LIMIT, NULL,
	    SF(memory_max, F_U64)),
	[K_MEMORY_HIGH] = SVC("memory_high", k_memory, 0, SHOW_LIMIT, NULL,
	    SF(memory_high, F_U64)),
	[K_PIDS_MAX] = SVC("pids_max", k_pids_max, 0, SHOW_COUNT, NULL,
	    SF(pids_max, F_U64)),
	[K_KILL_MODE] = SVC("kill_mode", key_enum,
	    0, SHOW_ENUM, kill_mode_names,
	    SF(kill_mode, F_U8)),
	[K_KILL_PRIORITY] = SVC("kill_priority", k_kill_priority,
	    0, SHOW_PRIORITY, NULL,
	    SF(kill_priority, F_I32)),
	[K_OOM_SCORE_ADJ] = SVCN("oom_score_adj", -1000, 1000, 0,
	    SF(oom_score_adj, F_I32), SF(set_oom_score_adj, F_BOOL)),

	[K_CONTROL_SOCKET] = SUP("control_socket", s_socket, 0, SHOW_STR, NULL,
	    GF(control_socket, F_STR)),
	[K_NOTIFY_DIR] = SUP("notify_dir", s_socket, 0, SHOW_STR, NULL,
	    GF(notify_dir, F_STR)),
	[K_CONTROL_MODE] = SUP("control_mode", s_control_mode,
	    0, SHOW_MODE, NULL,
	    GF(control_mode, F_U32)),
	[K_MAX_CLIENTS] = SUPN("max_clients", 1, 4096, KEY_LIVE,
	    GF(max_clients, F_U32)),
	[K_CLIENT_TIMEOUT] = SUP("client_timeout", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL,
	    GF(client_timeout, F_U32)),
	[K_SHUTDOWN_TIMEOUT] = SUP("shutdown_timeout", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL,
	    GF(shutdown_timeout, F_U32)),
	[K_SUP_LOG] = SUP("log", k_log, KEY_LIVE, SHOW_ENUM, sink_names,
	    GF(log.sink, F_U8)),
	[K_SUP_LOG_BUFFER] = SUP("log_buffer", k_log, KEY_LIVE, SHOW_SIZE, NULL,
	    GF(log.buffer, F_U32)),
	[K_SUP_LOG_FILE_MAX] = SUP("log_file_max", k_log,
	    KEY_LIVE, SHOW_SIZE, NULL,
	    GF(log.file_max, F_U64)),
	[K_SUP_LOG_FILE_KEEP] = SUP("log_file_keep", k_log,
	    KEY_LIVE, SHOW_NUMBER, NULL,
	    GF(log.file_keep, F_U32)),
	[K_LOG_DIR] = SUP("log_dir", s_log_dir, 0, SHOW_STR, NULL,
	    GF(log_dir, F_STR)),
	[K_LOG_LEVEL] = SUP("log_level", key_enum,
	    KEY_LIVE, SHOW_ENUM, level_names,
	    GF(log_level, F_I32), GF(set_log_level, F_BOOL)),
	[K_CGROUP_ROOT] = SUP("cgroup_root", s_path_or_none, 0, SHOW_STR, NULL,
	    GF(cgroup_root, F_STR)),
	[K_CGROUP_MEMORY_HIGH] = SUP("cgroup_memory_high", s_cgroup_memory_high,
	    0, SHOW_LIMIT, NULL,
	    GF(cgroup_memory_high, F_U64)),
	[K_PRESSURE] = SUP("pressure", conf_pressure, 0, SHOW_PRESSURE, NULL,
	    GF(pressure_stall, F_U32), GF(pressure_window, F_U32),
	    GF(pressure_full, F_BOOL)),
	[K_PRESSURE_FILE] = SUP("pressure_file", s_path_or_none,
	    0, SHOW_STR, NULL,
	    GF(pressure_file, F_STR)),
	[K_PRESSURE_RECLAIM] = SUP("pressure_reclaim", key_enum,
	    0, SHOW_ENUM, reclaim_names,
	    GF(pressure_reclaim, F_U8)),
	[K_PRESSURE_KILL_TIMEOUT] = SUP("pressure_kill_timeout", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL, GF(pressure_kill_timeout, F_U32)),
	[K_PRESSURE_CALM] = SUP("pressure_calm", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL,
	    GF(pressure_calm, F_U32)),
	[K_CRASH_ACTION] = SUP("crash_action", key_enum,
	    KEY_LIVE, SHOW_ENUM, crash_names,
	    GF(crash_action, F_U8)),
	[K_PRESSURE_CALM_MAX] = SUP("pressure_calm_max", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL,
	    GF(pressure_calm_max, F_U32)),
	[K_ESSENTIAL] = SVC("essential", k_essential, KEY_LIVE, SHOW_BOOL,
	    NULL, SF(essential, F_BOOL)),
	[K_MODE] = SUP("mode", key_enum, 0, SHOW_ENUM, mode_names,
	    GF(mode, F_U8)),
	[K_CONTROL_GROUP] = SUP("control_group", s_control_group, 0,
	    SHOW_STR, NULL, GF(control_group, F_STR), GF(control_gid, F_U32)),
	[K_LOG_FORMAT] = SUP("log_format", key_enum, KEY_LIVE, SHOW_ENUM,
	    log_format_names, GF(log_format, F_U8)),
	[K_SETTLE] = SVC("settle", key_dur, 0, SHOW_DURATION, NULL,
	    SF(settle, F_U32)),
	[K_INSTANCES] = SVC("instances", k_instances, KEY_LIVE | KEY_REPEAT |
	    KEY_CONT, SHOW_ARGV, NULL, SF(instances, F_STRV)),
	[K_ENV_FILE] = SVC("env_file", k_env_file, KEY_REPEAT, SHOW_ENV, NULL,
	    SF(env_files, F_STRV)),
	[K_RELOAD_SIGNAL] = SVC("reload_signal", k_signal, KEY_LIVE,
	    SHOW_SIGNAL, NULL, SF(reload_signal, F_I32)),
	[K_RELOAD_EXEC] = SVC("reload_exec", k_hook, KEY_REPEAT | KEY_LIVE,
	    SHOW_ENV, NULL, SF(reload_exec, F_STRV)),
	[K_START_PRE_EXEC] = SVC("start_pre_exec", k_hook,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL,
	    SF(start_pre_exec, F_STRV)),
	[K_START_POST_EXEC] = SVC("start_post_exec", k_hook,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL,
	    SF(start_post_exec, F_STRV)),
	[K_STOP_EXEC] = SVC("stop_exec", k_hook, KEY_REPEAT | KEY_LIVE,
	    SHOW_ENV, NULL, SF(stop_exec, F_STRV)),
	[K_STOP_POST_EXEC] = SVC("stop_post_exec", k_hook,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL,
	    SF(stop_post_exec, F_STRV)),
	[K_ON_FAILURE_EXEC] = SVC("on_failure_exec", k_hook,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL,
	    SF(on_failure_exec, F_STRV)),
	[K_CONDITION] = SVC("condition", conf_condition, KEY_REPEAT | KEY_LIVE,
	    SHOW_ENV, NULL, SF(conditions, F_STRV)),
	[K_ASSERT] = SVC("assert", conf_condition, KEY_REPEAT | KEY_LIVE,
	    SHOW_ENV, NULL, SF(asserts, F_STRV)),
	[K_CONDITION_EXEC] = SVC("condition_exec", k_hook,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL,
	    SF(condition_exec, F_STRV)),
	[K_RUNTIME_DIRECTORY] = SVC("runtime_directory", conf_dirs_names,
	    KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL, SF(dirs[DIR_RUNTIME], F_STRV)),
	[K_RUNTIME_DIRECTORY_MODE] = SVC("runtime_directory_mode", conf_dirs_mode,
	    KEY_LIVE, SHOW_MODE, NULL, SF(dir_mode[DIR_RUNTIME], F_U32)),
	[K_STATE_DIRECTORY] = SVC("state_directory", conf_dirs_names,
	    KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL, SF(dirs[DIR_STATE], F_STRV)),
	[K_STATE_DIRECTORY_MODE] = SVC("state_directory_mode", conf_dirs_mode,
	    KEY_LIVE, SHOW_MODE, NULL, SF(dir_mode[DIR_STATE], F_U32)),
	[K_CACHE_DIRECTORY] = SVC("cache_directory", conf_dirs_names,
	    KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL, SF(dirs[DIR_CACHE], F_STRV)),
	[K_CACHE_DIRECTORY_MODE] = SVC("cache_directory_mode", conf_dirs_mode,
	    KEY_LIVE, SHOW_MODE, NULL, SF(dir_mode[DIR_CACHE], F_U32)),
	[K_LOGS_DIRECTORY] = SVC("logs_directory", conf_dirs_names,
	    KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL, SF(dirs[DIR_LOGS], F_STRV)),
	[K_LOGS_DIRECTORY_MODE] = SVC("logs_directory_mode", conf_dirs_mode,
	    KEY_LIVE, SHOW_MODE, NULL, SF(dir_mode[DIR_LOGS], F_U32)),
	[K_CONFIGURATION_DIRECTORY] = SVC("configuration_directory", conf_dirs_names,
	    KEY_REPEAT | KEY_LIVE, SHOW_ARGV, NULL, SF(dirs[DIR_CONFIGURATION], F_STRV)),
	[K_CONFIGURATION_DIRECTORY_MODE] = SVC("configuration_directory_mode", conf_dirs_mode,
	    KEY_LIVE, SHOW_MODE, NULL, SF(dir_mode[DIR_CONFIGURATION], F_U32)),
	[K_TTY] = SVC("tty", k_abspath, 0, SHOW_STR, NULL, SF(tty, F_STR)),
	[K_TTY_BUSY] = SVC("tty_busy", key_enum, 0, SHOW_ENUM, tty_busy_names,
	    SF(tty_busy, F_U8)),
	[K_TTY_RESET] = SVC("tty_reset", conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(tty_reset, F_BOOL)),
	[K_TTY_VHANGUP] = SVC("tty_vhangup", conf_harden_flag, 0, SHOW_BOOL,
	    NULL, SF(tty_vhangup, F_BOOL)),
	[K_TTY_VT_DISALLOCATE] = SVC("tty_vt_disallocate", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(tty_vt_disallocate, F_BOOL)),
	[K_IGNORE_SIGPIPE] = SVC("ignore_sigpipe", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(ignore_sigpipe, F_BOOL)),
	[K_RUNTIME_DIRECTORY_PRESERVE] = SVC("runtime_directory_preserve",
	    key_enum, KEY_LIVE, SHOW_ENUM, dir_preserve_names,
	    SF(runtime_preserve, F_U8)),
	[K_HEALTH_EXEC] = SVC("health_exec", k_argv, 0, SHOW_ARGV,
	    NULL, SF(health_exec, F_STRV)),
	[K_HEALTH_INTERVAL] = SVC("health_interval", key_dur, 0,
	    SHOW_DURATION, NULL, SF(health_interval, F_U32)),
	[K_HEALTH_TIMEOUT] = SVC("health_timeout", key_dur, 0,
	    SHOW_DURATION, NULL, SF(health_timeout, F_U32)),
	[K_HEALTH_RETRIES] = SVCN("health_retries", 1, 1000, 0,
	    SF(health_retries, F_U32)),
	[K_HEALTH_START_PERIOD] = SVC("health_start_period", key_dur, 0,
	    SHOW_DURATION, NULL, SF(health_start_period, F_U32)),
	[K_METRICS_LISTEN] = SUP("metrics_listen", s_metrics_listen, KEY_LIVE,
	    SHOW_STR, NULL, GF(metrics_listen, F_STR)),
	[K_METRICS_USERS] = SUP("metrics_users", s_metrics_users, KEY_LIVE,
	    SHOW_ARGV, NULL, GF(metrics_users, F_STRV),
	    GFN(metrics_uids, nmetrics_uids, F_GIDS)),
	[K_SYSLOG_SOCKET] = SUP("syslog_socket", s_syslog_socket, KEY_LIVE,
	    SHOW_STR, NULL, GF(syslog_socket, F_STR)),
	[K_SYSLOG_FACILITY] = SVC("syslog_facility", key_enum, 0, SHOW_ENUM,
	    facility_names, SF(syslog_facility, F_U8)),
	[K_SYSLOG_LEVEL] = SVC("syslog_level", key_enum, 0, SHOW_ENUM,
	    syslog_level_names, SF(syslog_level, F_U8)),
	[K_SYSLOG_ERROR_LEVEL] = SVC("syslog_error_level", key_enum, 0,
	    SHOW_ENUM, syslog_level_names, SF(syslog_error_level, F_U8)),
	[K_SYSLOG_IDENTIFIER] = SVC("syslog_identifier", k_word, 0, SHOW_STR,
	    NULL, SF(syslog_ident, F_STR)),
	[K_NO_NEW_PRIVS] = SVC("no_new_privs", conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(no_new_privs, F_BOOL)),
	[K_CAPABILITIES] = SVC("capabilities", conf_harden_capabilities,
	    KEY_CONT, SHOW_CAPS,
	    NULL, SF(caps, F_U64), SF(set_caps, F_BOOL)),
	[K_PRIVATE_TMP] = SVC("private_tmp", conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(private_tmp, F_BOOL)),
	[K_PRIVATE_NETWORK] = SVC("private_network", conf_harden_flag, 0, SHOW_BOOL,
	    NULL, SF(private_network, F_BOOL)),
	[K_PRIVATE_DEVICES] = SVC("private_devices", conf_harden_flag, 0, SHOW_BOOL,
	    NULL, SF(private_devices, F_BOOL)),
	[K_PROTECT_KERNEL_TUNABLES] = SVC("protect_kernel_tunables",
	    conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(protect_kernel_tunables, F_BOOL)),
	[K_PROTECT_SYSTEM] = SVC("protect_system", key_enum, 0, SHOW_ENUM,
	    protect_system_names, SF(protect_system, F_U8)),
	[K_PROTECT_HOME] = SVC("protect_home", key_enum, 0, SHOW_ENUM,
	    protect_home_names, SF(protect_home, F_U8)),
	[K_READ_ONLY_PATHS] = SVC("read_only_paths", conf_harden_paths,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(ro_paths, F_STRV)),
	[K_READ_WRITE_PATHS] = SVC("read_write_paths", conf_harden_paths,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(rw_paths, F_STRV)),
	[K_INACCESSIBLE_PATHS] = SVC("inaccessible_paths", conf_harden_paths,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(hide_paths, F_STRV)),
	[K_NO_EXEC_PATHS] = SVC("no_exec_paths", conf_harden_paths,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(noexec_paths, F_STRV)),
	[K_EXEC_PATHS] = SVC("exec_paths", conf_harden_paths,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(exec_paths, F_STRV)),
	[K_PROTECT_PROC] = SVC("protect_proc", key_enum, 0, SHOW_ENUM,
	    protect_proc_names, SF(protect_proc, F_U8)),
	[K_PROC_SUBSET] = SVC("proc_subset", key_enum, 0, SHOW_ENUM,
	    proc_subset_names, SF(proc_subset, F_U8)),
	[K_REMOVE_IPC] = SVC("remove_ipc", conf_harden_flag, 0, SHOW_BOOL,
	    NULL, SF(remove_ipc, F_BOOL)),
	[K_ROOT_DIRECTORY] = SVC("root_directory", conf_harden_root_directory, 0,
	    SHOW_STR, NULL, SF(root_dir, F_STR)),
	[K_SYSCALL_FILTER] = SVC("syscall_filter", conf_harden_syscall_filter,
	    KEY_REPEAT | KEY_CONT, SHOW_ARGV, NULL, SF(syscalls, F_STRV)),
	[K_SYSCALL_ERRNO] = SVC("syscall_errno", conf_harden_syscall_errno, 0,
	    SHOW_ERRNO, NULL, SF(syscall_errno, F_I32)),
	[K_NICE] = SVCN("nice", -20, 19, 0, SF(nice, F_I32),
	    SF(set_nice, F_BOOL)),
	[K_CPU_AFFINITY] = SVC("cpu_affinity", conf_harden_cpu_affinity, 0, SHOW_STR,
	    NULL, SF(cpu_affinity, F_STR)),
	[K_IO_CLASS] = SVC("io_class", key_enum, 0, SHOW_ENUM, io_class_names,
	    SF(io_class, F_U8)),
	[K_IO_PRIORITY] = SVCN("io_priority", 0, 7, 0, SF(io_priority, F_I32),
	    SF(set_io_priority, F_BOOL)),
	[K_CPU_WEIGHT] = SVCN("cpu_weight", 1, 10000, 0, SF(cpu_weight, F_U32)),
	[K_CPU_MAX] = SVC("cpu_max", conf_harden_cpu_max, 0, SHOW_STR, NULL,
	    SF(cpu_max, F_STR), SF(cpu_quota, F_U32), SF(cpu_period, F_U32)),
	[K_IO_WEIGHT] = SVCN("io_weight", 1, 10000, 0, SF(io_weight, F_U32)),
	LIM(AS, "as", 0),
	LIM(CORE, "core", 1),
	LIM(CPU, "cpu", 2),
	LIM(DATA, "data", 3),
	LIM(FSIZE, "fsize", 4),
	LIM(LOCKS, "locks", 5),
	LIM(MEMLOCK, "memlock", 6),
	LIM(MSGQUEUE, "msgqueue", 7),
	LIM(NICE, "nice", 8),
	LIM(NPROC, "nproc", 9),
	LIM(RSS, "rss", 10),
	LIM(RTPRIO, "rtprio", 11),
	LIM(RTTIME, "rttime", 12),
	LIM(SIGPENDING, "sigpending", 13),
	LIM(STACK, "stack", 14),
	[K_LISTEN] = SVC("listen", conf_listen, KEY_REPEAT, SHOW_ENV, NULL,
	    SF(listen, F_STRV)),
	[K_LISTEN_BACKLOG] = SVCN("listen_backlog", 1, 65535, 0,
	    SF(listen_backlog, F_U32)),
	[K_LISTEN_OWNER] = SVC("listen_owner", conf_listen_owner, 0, SHOW_STR,
	    NULL, SF(listen_owner, F_STR), SF(listen_uid, F_U32),
	    SF(listen_gid, F_U32)),
	[K_LISTEN_MODE] = SVC("listen_mode", conf_listen_mode, 0, SHOW_MODE,
	    NULL, SF(listen_mode, F_U32)),
	[K_ON_DEMAND] = SVC("on_demand", conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(on_demand, F_BOOL)),
	[K_ACCEPT] = SVC("accept", conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(accept, F_BOOL)),
	[K_MAX_CONNECTIONS] = SVCN("max_connections", 1, 65536, 0,
	    SF(max_connections, F_U32)),
	[K_MAX_CONNECTIONS_PER_SOURCE] = SVCN("max_connections_per_source",
	    1, 65536, 0, SF(max_per_source, F_U32)),
	[K_TRIGGER_LIMIT_INTERVAL] = SVC("trigger_limit_interval", key_dur, 0,
	    SHOW_DURATION, NULL, SF(trigger_interval, F_U32)),
	[K_TRIGGER_LIMIT_BURST] = SVCN("trigger_limit_burst", 0, UINT32_MAX,
	    0, SF(trigger_burst, F_U32)),
	[K_FDSTORE_MAX] = SVCN("fdstore_max", 0, FDSTORE_MAX, 0,
	    SF(fdstore_max, F_U32)),
	[K_PRESSURE_CRITICAL] = SUP("pressure_critical", conf_pressure, 0,
	    SHOW_PRESSURE, NULL, GF(pressure_crit_stall, F_U32),
	    GF(pressure_crit_window, F_U32), GF(pressure_crit_full, F_BOOL)),
	[K_PRESSURE_MIN_AVAILABLE] = SUP("pressure_min_available",
	    conf_pressure_min_available, KEY_LIVE, SHOW_STR, NULL,
	    GF(pressure_min_str, F_STR), GF(pressure_min_available, F_U64),
	    GF(pressure_min_pct, F_U32)),
	[K_PRESSURE_MIN_PRIORITY] = SUP("pressure_min_priority",
	    conf_pressure_min_priority, KEY_LIVE, SHOW_NUMBER, NULL,
	    GF(pressure_min_priority, F_I32)),
	[K_PRESSURE_POLICY] = SUP("pressure_policy", key_enum, KEY_LIVE,
	    SHOW_ENUM, policy_names, GF(pressure_policy, F_U8)),
	[K_MEMORY_PRESSURE_WATCH] = SVC("memory_pressure_watch", key_enum, 0,
	    SHOW_ENUM, mp_watch_names, SF(memory_pressure_watch, F_U8)),
	[K_MEMORY_PRESSURE_THRESHOLD] = SVC("memory_pressure_threshold",
	    key_dur, 0, SHOW_DURATION, NULL,
	    SF(memory_pressure_threshold, F_U32)),
	/* A timer's keys change no process: reload re-arms (timer.c). */
	[K_ON_CALENDAR] = SVC("on_calendar", conf_timer_calendar,
	    KEY_REPEAT | KEY_LIVE, SHOW_ENV, NULL, SF(on_calendar, F_STRV)),
	[K_ON_BOOT] = SVC("on_boot", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(on_boot, F_U64)),
	[K_ON_STARTUP] = SVC("on_startup", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(on_startup, F_U64)),
	[K_ON_ACTIVE] = SVC("on_active", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(on_active, F_U64)),
	[K_ON_UNIT_ACTIVE] = SVC("on_unit_active", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(on_unit_active, F_U64)),
	[K_ON_UNIT_INACTIVE] = SVC("on_unit_inactive", conf_timer_span,
	    KEY_LIVE, SHOW_DURATION, NULL, SF(on_unit_inactive, F_U64)),
	[K_PERSISTENT] = SVC("persistent", conf_harden_flag, KEY_LIVE,
	    SHOW_BOOL, NULL, SF(persistent, F_BOOL)),
	[K_RANDOMIZED_DELAY] = SVC("randomized_delay", conf_timer_span,
	    KEY_LIVE, SHOW_DURATION, NULL, SF(randomized_delay, F_U64)),
	[K_FIXED_RANDOM_DELAY] = SVC("fixed_random_delay", conf_harden_flag,
	    KEY_LIVE, SHOW_BOOL, NULL, SF(fixed_random_delay, F_BOOL)),
	[K_ACCURACY] = SVC("accuracy", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(accuracy, F_U64)),
	[K_WAKE_SYSTEM] = SVC("wake_system", conf_timer_wake_system, KEY_LIVE,
	    SHOW_BOOL, NULL, SF(wake_system, F_BOOL)),
	[K_DEFER_UNDER_PRESSURE] = SVC("defer_under_pressure",
	    conf_harden_flag, KEY_LIVE, SHOW_BOOL, NULL,
	    SF(defer_under_pressure, F_BOOL)),
	[K_DEFER_MAX] = SVC("defer_max", conf_timer_span, KEY_LIVE,
	    SHOW_DURATION, NULL, SF(defer_max, F_U64)),
	[K_STATE_DIR] = SUP("state_dir", k_abspath, 0, SHOW_STR, NULL,
	    GF(state_dir, F_STR)),
	/* The unit files are read with the rest at each load (reload). */
	[K_SYSTEMD_UNITS] = SUP("systemd_units", conf_harden_flag, KEY_LIVE,
	    SHOW_BOOL, NULL, GF(systemd_units, F_BOOL)),
	[K_UNIT_PATH] = SUP("unit_path", conf_unit_path, KEY_LIVE, SHOW_STR,
	    NULL, GF(unit_path, F_STR)),
	[K_LOCK_PERSONALITY] = SVC("lock_personality", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(lock_personality, F_BOOL)),
	[K_MEMORY_DENY_WRITE_EXECUTE] = SVC("memory_deny_write_execute",
	    conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(memory_deny_write_execute, F_BOOL)),
	[K_RESTRICT_REALTIME] = SVC("restrict_realtime", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(restrict_realtime, F_BOOL)),
	[K_RESTRICT_SUID_SGID] = SVC("restrict_suid_sgid", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(restrict_suid_sgid, F_BOOL)),
	[K_PROTECT_KERNEL_MODULES] = SVC("protect_kernel_modules",
	    conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(protect_kernel_modules, F_BOOL)),
	[K_PROTECT_KERNEL_LOGS] = SVC("protect_kernel_logs", conf_harden_flag,
	    0, SHOW_BOOL, NULL, SF(protect_kernel_logs, F_BOOL)),
	[K_PROTECT_CLOCK] = SVC("protect_clock", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(protect_clock, F_BOOL)),
	[K_PROTECT_CONTROL_GROUPS] = SVC("protect_control_groups",
	    conf_harden_flag, 0, SHOW_BOOL, NULL,
	    SF(protect_control_groups, F_BOOL)),
	[K_PROTECT_HOSTNAME] = SVC("protect_hostname", conf_harden_flag, 0,
	    SHOW_BOOL, NULL, SF(protect_hostname, F_BOOL)),
	[K_RESTRICT_NAMESPACES] = SVC("restrict_namespaces",
	    conf_protect_namespaces, 0, SHOW_PROTECT, NULL,
	    SF(ns_deny, F_U32)),
	[K_RESTRICT_ADDRESS_FAMILIES] = SVC("restrict_address_families",
	    conf_protect_families, KEY_REPEAT, SHOW_PROTECT, NULL,
	    SF(af_mask, F_U64), SF(af_deny, F_BOOL), SF(af_set, F_BOOL)),
	[K_SYSTEM_CALL_ARCHITECTURES] = SVC("system_call_architectures",
	    conf_protect_arch, 0, SHOW_PROTECT, NULL, SF(native_arch, F_BOOL)),
	[K_WATCH_UNITS] = SUP("watch_units", conf_harden_flag, KEY_LIVE,
	    SHOW_BOOL, NULL, GF(watch_units, F_BOOL)),
};

#undef SF
#undef SFN
#undef GF
#undef SVC
#undef SUP
#undef SVCN
#undef SUPN
#undef LIM


/* A service's group. */
int
conf_group(struct parse_ctx *p, struct svc_def *d)
{
	int	rc;

	if ((rc = conf_group_find(p, K_GROUP, d->group, &d->gid)) == 0)
		d->set_gid = true;
	return rc;
}
