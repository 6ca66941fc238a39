/*
 * conf.c - read and check the configuration tree.
 *
 * CONFDIR/pidvisor.ini holds supervisor-wide settings; every
 * CONFDIR/services/NAME.ini defines the service NAME in a [service]
 * section.  Parsing never stops at the first problem: every error is
 * collected as FILE:LINE: message, and a tree with any error is refused
 * whole by the caller.
 *
 * inih does the tokenising.  Our own reader feeds it one line at a time,
 * which gives us the line number of every key, lets us catch lines that
 * are too long for inih's fixed buffer (it would silently split them),
 * and lets us tell continuation lines apart.
 */
#include <ctype.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "conf.h"

#define CONF_FILE_MAX	(1 << 20)
#define GROUPS_MAX	64

struct parse_ctx {
	struct conf	*c;
	const char	*file;
	const char	*text;		/* the reader's input */
	size_t		 pos;
	int		 line;		/* line the reader handed out last */
	int		 bad_line;	/* already reported: ignore its keys */
	int		 section_line;
	bool		 cont;		/* that line continues a value */
	bool		 have_key;	/* a key was seen in this section */
	bool		 section_reported;
	struct svc_def	*def;		/* NULL while parsing pidvisor.ini */
	void		*obj;		/* what the keys fill: def or &c->sup */
	const struct conf_key *key;	/* the key being parsed */
	uint8_t		 section;	/* enum conf_section of the file */
	bool		 exec_bad;	/* the exec line was reported */
	bool		 tmpl;		/* a template's instance */
	struct buf	 exec;
	int		 exec_line;
	int		 key_line[K__COUNT];	/* of each key in the table */
	uint64_t	 given;		/* keys given, by table index */
	char		 why[256];
};

static const char *bad(struct parse_ctx *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* Record one error for file:line. */
static void
conf_error(struct conf *c, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
conf_error(struct conf *c, const char *file, int line, const char *fmt, ...)
{
	struct conf_err	*e;
	va_list		 ap;
	char		 msg[512];
	size_t		 i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The instances of a template: its line's error once. */
	for (i = c->dedup ? c->dedup - 1 : c->nerrs; i < c->nerrs; i++)
		if (c->errs[i].line == line && strcmp(c->errs[i].file,
		    file) == 0)
			return;
	/* An error that cannot be kept still refuses the tree. */
	e = realloc(c->errs, (c->nerrs + 1) * sizeof(*e));
	if (e == NULL) {
		c->nomem = true;
		return;
	}
	c->errs = e;
	e = &c->errs[c->nerrs];
	e->file = strdup(file);
	e->msg = strdup(msg);
	e->line = line;
	if (e->file == NULL || e->msg == NULL) {
		free(e->file);
		free(e->msg);
		c->nomem = true;
		return;
	}
	c->nerrs++;
}

/* Format a value error into the context's buffer and return it. */
static const char *
bad(struct parse_ctx *p, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return p->why;
}

/* Initialise an empty tree with the built-in defaults. */
void
conf_init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->sup.control_mode = 0600;
	c->sup.max_clients = 64;
	c->sup.client_timeout = 10000;
	c->sup.shutdown_timeout = 90000;
	c->sup.log_level = LOG_INFO;
	c->sup.log.sink = SINK_CONSOLE;
	c->sup.log.buffer = 64 << 10;
	c->sup.log.file_max = 1 << 20;
	c->sup.log.file_keep = 5;
	c->sup.pressure_cooldown = 2000;
	c->sup.pressure_calm = 10000;
	c->sup.pressure_calm_max = 300000;
	c->etc = "/etc";
}

/* What a service has where its file says nothing. */
void
svc_def_defaults(struct svc_def *d, const struct sup_conf *sc)
{
	d->restart = RESTART_ALWAYS;
	d->restart_delay = 100;
	d->restart_delay_max = 30000;
	d->start_limit_burst = 5;
	d->start_limit_interval = 10000;
	d->ready = READY_EXEC;
	d->ready_timeout = 30000;
	d->stop_signal = SIGTERM;
	d->reload_signal = SIGHUP;
	d->stop_timeout = 10000;
	d->enabled = true;
	d->log = sc->log;
}

/* Free one service definition. */
void
svc_def_free(struct svc_def *d)
{
	size_t	i;

	if (d == NULL)
		return;
	free(d->name);
	free(d->file);
	strv_free(d->argv);
	strv_free(d->env);
	strv_free(d->env_files);
	strv_free(d->reload_exec);
	strv_free(d->instances);
	for (i = 0; i < d->nrequires; i++)
		free(d->requires[i].name);
	free(d->requires);
	for (i = 0; i < d->nafter; i++)
		free(d->after[i].name);
	free(d->after);
	free(d->workdir);
	free(d->user);
	free(d->group);
	free(d->groups);
	free(d);
}

/* Free everything the tree holds. */
void
conf_free(struct conf *c)
{
	size_t	i;

	for (i = 0; i < c->ndefs; i++)
		svc_def_free(c->defs[i]);
	free(c->defs);
	for (i = 0; i < c->nerrs; i++) {
		free(c->errs[i].file);
		free(c->errs[i].msg);
	}
	free(c->errs);
	for (i = 0; i < c->ntmpls; i++) {
		free(c->tmpls[i].name);
		free(c->tmpls[i].file);
		free(c->tmpls[i].text);
	}
	free(c->tmpls);
	c->tmpls = NULL;
	c->ntmpls = 0;
	strv_free(c->extra);
	c->extra = NULL;
	free(c->sup.control_socket);
	free(c->sup.notify_dir);
	free(c->sup.log_dir);
	free(c->sup.cgroup_root);
	free(c->sup.pressure_file);
	free(c->sup.control_group);
	c->sup.control_group = NULL;
	c->sup.log_dir = c->sup.cgroup_root = c->sup.pressure_file = NULL;
	c->defs = NULL;
	c->errs = NULL;
	c->ndefs = c->nerrs = 0;
	c->sup.control_socket = c->sup.notify_dir = NULL;
}

/*
 * A service name: letters, digits and _.@- , not starting with . or -;
 * after an '@' (an instance, which %i puts in a command line or a
 * path), the same again: `ls@-la` and `ls@..` are not names.
 */
bool
conf_name_valid(const char *s)
{
	const char	*at = strchr(s, '@');
	size_t		 n;

	if (*s == '\0' || *s == '.' || *s == '-')
		return false;
	if (at != NULL && (at[1] == '.' || at[1] == '-'))
		return false;
	for (n = 0; s[n]; n++) {
		if (n >= SVC_NAME_MAX)
			return false;
		if (!isalnum((unsigned char)s[n]) && !strchr("_.@-", s[n]))
			return false;
	}
	return true;
}

/*
 * A line too long to be read: if it gives exec, exec was given (its
 * error is the long line, not a missing exec).
 */
static void
conf_long_key(struct parse_ctx *p, const char *s, size_t len)
{
	size_t	skip = strspn(s, " \t"), n;

	s += skip;
	len -= skip;
	n = strcspn(s, "=: \t");
	if (p->section == SEC_SERVICE && n == 4 && n < len &&
	    strncmp(s, "exec", 4) == 0) {
		p->exec_bad = true;
		p->exec_line = p->line;
	}
}

/*
 * inih's reader: hand out the next line, without its newline.  A line
 * that does not fit inih's buffer is reported and truncated; the rest of
 * it is skipped so that inih does not see it as a line of its own.
 */
static char *
conf_read_line(char *str, int num, void *stream)
{
	struct parse_ctx *p = stream;
	const char	*s, *nl, *t;
	size_t		 len, max = (size_t)num - 1;

	if (p->text[p->pos] == '\0')
		return NULL;
	s = p->text + p->pos;
	nl = strchr(s, '\n');
	len = nl ? (size_t)(nl - s) : strlen(s);
	p->pos += len + (nl != NULL);
	p->line++;
	p->cont = false;
	if (len > max) {
		conf_error(p->c, p->file, p->line, "line too long (at most %zu "
		    "bytes; continue a long value on indented lines)", max);
		p->bad_line = p->line;
		len = max;
		conf_long_key(p, s, len);
	}
	memcpy(str, s, len);
	str[len] = '\0';
	if (p->bad_line == p->line)
		return str;

	/* Mirror inih's syntax rules, so that every bad line is named. */
	for (t = str; *t == ' ' || *t == '\t'; t++)
		;
	if (*t == '\0' || *t == ';' || *t == '#' || *t == '\r')
		return str;
	if (t > str && p->have_key) {
		p->cont = true;
	} else if (*t == '[') {
		if (strchr(t, ']') == NULL) {
			conf_error(p->c, p->file, p->line,
			    "missing ']' in section header");
			p->bad_line = p->line;
		}
		p->have_key = false;
		p->section_line = p->line;
		p->section_reported = false;
	} else if (strcspn(t, "=:") == strlen(t)) {
		conf_error(p->c, p->file, p->line, "expected KEY = VALUE");
		p->bad_line = p->line;
	} else {
		p->have_key = true;
	}
	return str;
}

/*
 * Does line n of text hold what inih takes for an inline comment (a ';'
 * after a blank)?  It cuts the value there, quotes or not: worth a word
 * where a quote is left open.  (inih does not look for one in the lines
 * that continue a value.)
 */
static bool
conf_inline_comment(const char *text, int n)
{
	const char	*l = text, *sc;
	int		 i;

	for (i = 1; i < n && l; i++)
		if ((l = strchr(l, '\n')) != NULL)
			l++;
	for (sc = l ? l + 1 : NULL; sc && *sc && *sc != '\n'; sc++)
		if (*sc == ';' && (sc[-1] == ' ' || sc[-1] == '\t'))
			return true;
	return false;
}

/* Run inih over text with our reader; report what inih saw that we did not. */
static void
conf_ini(struct parse_ctx *p, const char *text, ini_handler h)
{
	int	rc;

	p->text = text;
	p->pos = 0;
	p->line = 0;
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		p->pos = 3;
	rc = ini_parse_stream(conf_read_line, p, h, p);
	if (rc > 0) {
		size_t	i;

		for (i = 0; i < p->c->nerrs; i++)
			if (p->c->errs[i].line == rc &&
			    strcmp(p->c->errs[i].file, p->file) == 0)
				return;
		conf_error(p->c, p->file, rc, "syntax error");
	} else if (rc < 0) {
		conf_error(p->c, p->file, 0, "%s", strerror(ENOMEM));
	}
}

/* Parse yes/no. */
static int
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
static int
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
		    "5s, 1m)", key, v);
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
static const char *
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

static const char *
k_start_limit_burst(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	uint64_t	n;

	if (parse_u64(v, 100000, &n) < 0)
		return bad(p, "start_limit_burst: expected a number from 0 "
		    "(no limit) to 100000, not '%s'", v);
	d->start_limit_burst = (uint32_t)n;
	return NULL;
}

static const char *
k_ready(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	uint64_t	n;

	if (!strcmp(v, "exec")) {
		d->ready = READY_EXEC;
	} else if (!strcmp(v, "exit")) {
		d->ready = READY_EXIT;
	} else if (!strcmp(v, "notify")) {
		d->ready = READY_NOTIFY;
	} else if (!strncmp(v, "fd:", 3) && parse_u64(v + 3, 1023, &n) == 0 &&
	    n >= 3) {
		d->ready = READY_FD;
		d->ready_fd = (int)n;
	} else {
		return bad(p, "ready: expected exec, notify, exit or fd:N with "
		    "N from 3 to 1023, not '%s'", v);
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
static const char *
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

/* reload_exec: a command, as exec is written. */
static const char *
k_reload_exec(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	const char	*why;

	if (argv_split(v, &d->reload_exec, &why) < 0)
		return bad(p, "reload_exec: %s", why);
	if (d->reload_exec[0][0] == '\0')
		return bad(p, "reload_exec: the program name is empty");
	return NULL;
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

static const char *
k_user(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	(void)p;
	return key_str(&d->user, v);
}

static const char *
k_group(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	(void)p;
	return key_str(&d->group, v);
}

static const char *
k_workdir(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (v[0] != '/')
		return bad(p, "workdir: '%s' is not an absolute path", v);
	return key_str(&d->workdir, v);
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
	/* A later value for the same variable replaces the earlier one. */
	for (i = 0; i < n; i++) {
		if (strncmp(d->env[i], v, klen + 1) == 0) {
			free(d->env[i]);
			if ((d->env[i] = strdup(v)) == NULL)
				return strerror(ENOMEM);
			return NULL;
		}
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
k_limit_nofile(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (parse_u64(v, 1U << 30, &d->limit_nofile) < 0 ||
	    d->limit_nofile == 0)
		return bad(p, "limit_nofile: expected a number from 1 to "
		    "1073741824, not '%s'", v);
	d->set_nofile = true;
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
	[SINK_FILE] = "file", [SINK_NONE] = "none", NULL,
};

/* The name of a log sink. */
const char *
log_sink_name(enum log_sink k)
{
	return k <= SINK_NONE ? sink_names[k] : "?";
}

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

/* oom_score_adj: -1000 (never) to 1000 (first), the kernel's scale. */
static const char *
k_oom_score_adj(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	uint64_t	n;
	bool		neg = v[0] == '-';

	if (parse_u64(v + neg, 1000, &n) < 0)
		return bad(p, "oom_score_adj: expected a number from -1000 to "
		    "1000, not '%s'", v);
	d->oom_score_adj = neg ? -(int32_t)n : (int32_t)n;
	d->set_oom_score_adj = true;
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
	if (strlen(v) >= (dir ? 108 - 1 - 64 - 5 : 108))
		return bad(p, "%s: path too long for a unix socket%s", name,
		    dir ? " (NAME.sock in it, for a name of 64 bytes)" : "");
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

static const char *
s_max_clients(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;
	uint64_t	 n;

	if (parse_u64(v, 4096, &n) < 0 || n == 0)
		return bad(p, "max_clients: expected a number from 1 to 4096, "
		    "not '%s'", v);
	s->max_clients = (uint32_t)n;
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

static const char *const reclaim_names[] = {
	"auto", "kill", "mrelease", "reap", NULL,
};

/*
 * pressure = off | some|full STALL WINDOW: the PSI trigger of the killer,
 * both in microseconds as the kernel takes them (some 150000 1000000:
 * 150 ms of stall within any second).
 */
static const char *
s_pressure(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;
	char		 kind[8];
	unsigned long	 stall, window;
	int		 n = 0;

	if (!strcmp(v, "off")) {
		s->pressure_stall = 0;
		return NULL;
	}
	if (sscanf(v, "%7s %lu %lu %n", kind, &stall, &window, &n) != 3 ||
	    v[n] != '\0' || (strcmp(kind, "some") && strcmp(kind, "full")) ||
	    stall == 0 || window < 500000 || window > 10000000 ||
	    stall > window)
		return bad(p, "pressure: expected off or some|full STALL "
		    "WINDOW in microseconds, window from 500000 to 10000000, "
		    "not '%s'", v);
	s->pressure_full = kind[0] == 'f';
	s->pressure_stall = (uint32_t)stall;
	s->pressure_window = (uint32_t)window;
	return NULL;
}

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

static const char *const restart_names[] = {
	[RESTART_ALWAYS] = "always", [RESTART_ON_FAILURE] = "on-failure",
	[RESTART_NEVER] = "never", NULL,
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

#define SF(m, k)	{ offsetof(struct svc_def, m), 0, k }
#define SFN(m, n, k)	{ offsetof(struct svc_def, m), \
			  offsetof(struct svc_def, n), k }
#define GF(m, k)	{ offsetof(struct sup_conf, m), 0, k }
#define SVC(n, fn, fl, show, nm, ...) \
	{ n, SEC_SERVICE, fl, show, fn, nm, { __VA_ARGS__ } }
#define SUP(n, fn, fl, show, nm, ...) \
	{ n, SEC_SUPERVISOR, fl, show, fn, nm, { __VA_ARGS__ } }

/*
 * Every key of both sections: what parses it, how it shows, and the
 * fields it sets (what reload and svc_def_equal compare).  A service
 * whose keys differ restarts on reload (but for enabled); a supervisor
 * key is applied at once (KEY_LIVE) or reported as needing a restart of
 * pidvisor.  KEY_CONT: the value may go on over indented lines.
 */
_Static_assert(K__COUNT <= 64, "svc_def.given and sup_conf.given are 64-bit masks");

const struct conf_key conf_keys[K__COUNT] = {
	[K_EXEC] = SVC("exec", k_exec, KEY_CONT, SHOW_ARGV, NULL,
	    SF(argv, F_STRV)),
	[K_RESTART] = SVC("restart", key_enum, 0, SHOW_ENUM, restart_names,
	    SF(restart, F_U8)),
	[K_RESTART_DELAY] = SVC("restart_delay", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(restart_delay, F_U32)),
	[K_RESTART_DELAY_MAX] = SVC("restart_delay_max", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(restart_delay_max, F_U32)),
	[K_START_LIMIT_BURST] = SVC("start_limit_burst", k_start_limit_burst,
	    0, SHOW_NUMBER, NULL,
	    SF(start_limit_burst, F_U32)),
	[K_START_LIMIT_INTERVAL] = SVC("start_limit_interval", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(start_limit_interval, F_U32)),
	[K_READY] = SVC("ready", k_ready, 0, SHOW_READY, NULL,
	    SF(ready, F_U8), SF(ready_fd, F_I32)),
	[K_READY_TIMEOUT] = SVC("ready_timeout", key_dur,
	    0, SHOW_DURATION, NULL,
	    SF(ready_timeout, F_U32)),
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
	[K_STOP_TIMEOUT] = SVC("stop_timeout", key_dur, 0, SHOW_DURATION, NULL,
	    SF(stop_timeout, F_U32)),
	[K_USER] = SVC("user", k_user, 0, SHOW_STR, NULL,
	    SF(user, F_STR), SF(uid, F_U32), SFN(groups, ngroups, F_GIDS),
	    SF(set_uid, F_BOOL)),
	[K_GROUP] = SVC("group", k_group, 0, SHOW_STR, NULL,
	    SF(group, F_STR), SF(gid, F_U32), SF(set_gid, F_BOOL)),
	[K_WORKDIR] = SVC("workdir", k_workdir, 0, SHOW_STR, NULL,
	    SF(workdir, F_STR)),
	[K_ENV] = SVC("env", k_env, KEY_REPEAT | KEY_CONT, SHOW_ENV, NULL,
	    SF(env, F_STRV)),
	[K_UMASK] = SVC("umask", k_umask, 0, SHOW_MODE, NULL,
	    SF(umask, F_U32), SF(set_umask, F_BOOL)),
	[K_LIMIT_NOFILE] = SVC("limit_nofile", k_limit_nofile,
	    0, SHOW_NUMBER, NULL,
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
	[K_OOM_SCORE_ADJ] = SVC("oom_score_adj", k_oom_score_adj,
	    0, SHOW_NUMBER, NULL,
	    SF(oom_score_adj, F_I32), SF(set_oom_score_adj, F_BOOL)),

	[K_CONTROL_SOCKET] = SUP("control_socket", s_socket, 0, SHOW_STR, NULL,
	    GF(control_socket, F_STR)),
	[K_NOTIFY_DIR] = SUP("notify_dir", s_socket, 0, SHOW_STR, NULL,
	    GF(notify_dir, F_STR)),
	[K_CONTROL_MODE] = SUP("control_mode", s_control_mode,
	    0, SHOW_MODE, NULL,
	    GF(control_mode, F_U32)),
	[K_MAX_CLIENTS] = SUP("max_clients", s_max_clients,
	    KEY_LIVE, SHOW_NUMBER, NULL,
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
	[K_PRESSURE] = SUP("pressure", s_pressure, 0, SHOW_PRESSURE, NULL,
	    GF(pressure_stall, F_U32), GF(pressure_window, F_U32),
	    GF(pressure_full, F_BOOL)),
	[K_PRESSURE_FILE] = SUP("pressure_file", s_path_or_none,
	    0, SHOW_STR, NULL,
	    GF(pressure_file, F_STR)),
	[K_PRESSURE_RECLAIM] = SUP("pressure_reclaim", key_enum,
	    0, SHOW_ENUM, reclaim_names,
	    GF(pressure_reclaim, F_U8)),
	[K_PRESSURE_COOLDOWN] = SUP("pressure_cooldown", key_dur,
	    KEY_LIVE, SHOW_DURATION, NULL,
	    GF(pressure_cooldown, F_U32)),
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
	[K_RELOAD_EXEC] = SVC("reload_exec", k_reload_exec, KEY_LIVE,
	    SHOW_ARGV, NULL, SF(reload_exec, F_STRV)),
};

#undef SF
#undef SFN
#undef GF
#undef SVC
#undef SUP

static const char *const section_names[] = {
	[SEC_SERVICE] = "service", [SEC_SUPERVISOR] = "supervisor",
};

/* The key of a section by name, or NULL. */
const struct conf_key *
conf_key_find(enum conf_section sec, const char *name)
{
	size_t	i;

	for (i = 0; i < K__COUNT; i++)
		if (conf_keys[i].section == sec &&
		    strcmp(conf_keys[i].name, name) == 0)
			return &conf_keys[i];
	return NULL;
}

/*
 * Edit distance of two short words, or SIZE_MAX where it must be more
 * than max (the lengths alone tell) or the words are too long to care.
 */
static size_t
conf_distance(const char *a, const char *b, size_t max)
{
	size_t	la = strlen(a), lb = strlen(b), i, j;
	size_t	row[64], prev, tmp;

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row) ||
	    la > lb + max || lb > la + max)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 1]) ? prev :
			    1 + (prev < row[j] ? (prev < row[j - 1] ? prev :
			    row[j - 1]) : (row[j] < row[j - 1] ? row[j] :
			    row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

/* systemd's names for what pidvisor has, for a hint. */
static const struct {
	const char	*systemd;
	const char	*ours;
} conf_systemd[] = {
	{ "ExecStart", "exec" }, { "Restart", "restart" },
	{ "RestartSec", "restart_delay" }, { "Type", "ready" },
	{ "User", "user" }, { "Group", "group" },
	{ "WorkingDirectory", "workdir" }, { "Environment", "env" },
	{ "Requires", "requires" }, { "Wants", "requires" },
	{ "After", "after" }, { "KillSignal", "stop_signal" },
	{ "KillMode", "kill_mode" }, { "TimeoutStopSec", "stop_timeout" },
	{ "TimeoutStartSec", "ready_timeout" }, { "WatchdogSec", "watchdog" },
	{ "UMask", "umask" }, { "LimitNOFILE", "limit_nofile" },
	{ "MemoryMax", "memory_max" }, { "MemoryHigh", "memory_high" },
	{ "TasksMax", "pids_max" }, { "OOMScoreAdjust", "oom_score_adj" },
	{ "StartLimitBurst", "start_limit_burst" },
	{ "StartLimitIntervalSec", "start_limit_interval" },
};

/* An unknown key: say so, with the key that was probably meant. */
static void
conf_unknown_key(struct parse_ctx *p, const char *name)
{
	size_t	i, d, best = SIZE_MAX;
	const char *near = NULL;

	if (p->section == SEC_SUPERVISOR && strcmp(name, "notify_socket") ==
	    0) {
		conf_error(p->c, p->file, p->line, "unknown key '%s' (each "
		    "notify service has a socket of its own now, in "
		    "notify_dir)", name);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(conf_systemd); i++) {
		if (strcmp(name, conf_systemd[i].systemd) == 0) {
			conf_error(p->c, p->file, p->line, "unknown key '%s' "
			    "(systemd's name; pidvisor's is '%s')", name,
			    conf_systemd[i].ours);
			return;
		}
	}
	for (i = 0; i < K__COUNT; i++) {
		if (conf_keys[i].section != p->section)
			continue;
		d = conf_distance(name, conf_keys[i].name, 2);
		if (d < best) {
			best = d;
			near = conf_keys[i].name;
		}
	}
	/* Close enough to be a typo: at most a third of it wrong. */
	if (near && best > 0 && best <= 2 && best * 3 <= strlen(name))
		conf_error(p->c, p->file, p->line, "unknown key '%s' (did you "
		    "mean '%s'?)", name, near);
	else
		conf_error(p->c, p->file, p->line, "unknown key '%s'", name);
}

/* Complain about a key outside the section the file is about. */
static void
conf_misplaced(struct parse_ctx *p, const char *section, const char *name)
{
	const char	*want = section_names[p->section];

	if (section[0] == '\0') {
		conf_error(p->c, p->file, p->line, "key '%s' outside the "
		    "[%s] section", name, want);
	} else if (!p->section_reported) {
		if (strcasecmp(section, want) == 0)
			conf_error(p->c, p->file, p->section_line, "unknown "
			    "section [%s] (section names are lower-case: "
			    "[%s])", section, want);
		else if (!strcmp(section, "Unit") || !strcmp(section,
		    "Install"))
			conf_error(p->c, p->file, p->section_line, "unknown "
			    "section [%s] (systemd's; pidvisor has one "
			    "section, [%s], where requires and after go too)",
			    section, want);
		else
			conf_error(p->c, p->file, p->section_line, "unknown "
			    "section [%s] (expected [%s])", section, want);
		p->section_reported = true;
	}
}

/* inih's handler for both files: one key from the table. */
static int
conf_key(void *user, const char *section, const char *name,
    const char *value)
{
	struct parse_ctx	*p = user;
	const struct conf_key	*k;
	const char		*why;
	size_t			 i;

	if (p->line == p->bad_line)
		return 1;
	if (strcmp(section, section_names[p->section]) != 0) {
		conf_misplaced(p, section, name);
		return 1;
	}
	if ((k = conf_key_find(p->section, name)) == NULL) {
		if (!p->cont)
			conf_unknown_key(p, name);
		return 1;
	}
	i = (size_t)(k - conf_keys);
	if (p->cont && !(k->flags & KEY_CONT)) {
		conf_error(p->c, p->file, p->line, "%s: the value does not "
		    "go on over more lines", name);
		return 1;
	}
	if (!p->cont && p->key_line[i] && !(k->flags & KEY_REPEAT)) {
		conf_error(p->c, p->file, p->line, "'%s' given twice (first "
		    "on line %d)", name, p->key_line[i]);
		return 1;
	}
	if (!p->cont)
		p->key_line[i] = p->line;
	p->given |= 1ULL << i;
	p->key = k;
	if ((why = k->parse(p, p->obj, value)) != NULL)
		conf_error(p->c, p->file, p->line, "%s", why);
	return 1;
}

/* Find a user in passwd: by name, or by number. */
static int
conf_user(struct parse_ctx *p, struct svc_def *d)
{
	char		 path[4096], login[256] = "";
	struct passwd	*pw;
	struct group	*gr;
	FILE		*f;
	uint64_t	 n;
	bool		 numeric = parse_u64(d->user, UINT32_MAX - 1, &n) == 0;
	bool		 found = false;
	gid_t		*g;

	snprintf(path, sizeof(path), "%s/passwd", p->c->etc);
	if ((f = fopen(path, "re")) != NULL) {
		while ((pw = fgetpwent(f)) != NULL) {
			if (numeric ? pw->pw_uid == n :
			    strcmp(pw->pw_name, d->user) == 0) {
				found = true;
				d->uid = pw->pw_uid;
				if (d->group == NULL)
					d->gid = pw->pw_gid;
				snprintf(login, sizeof(login), "%s",
				    pw->pw_name);
				break;
			}
		}
		fclose(f);
	}
	if (!found && !numeric) {
		conf_error(p->c, p->file, p->key_line[K_USER], "user: no user "
		    "'%s' in %s", d->user, path);
		return -ENOENT;
	}
	if (!found) {
		if (d->group == NULL) {
			conf_error(p->c, p->file, p->key_line[K_USER], "user: "
			    "uid %s has no entry in %s; set group too",
			    d->user, path);
			return -ENOENT;
		}
		d->uid = (uid_t)n;
		d->set_uid = true;
		return 0;
	}
	d->set_uid = d->set_gid = true;	/* an explicit group was set above */

	/* Supplementary groups: every group that lists the user. */
	snprintf(path, sizeof(path), "%s/group", p->c->etc);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while ((gr = fgetgrent(f)) != NULL && d->ngroups < GROUPS_MAX) {
		char	**m;

		for (m = gr->gr_mem; m && *m; m++) {
			if (strcmp(*m, login) != 0)
				continue;
			g = realloc(d->groups, (d->ngroups + 1) * sizeof(*g));
			if (g == NULL)
				break;
			d->groups = g;
			d->groups[d->ngroups++] = gr->gr_gid;
			break;
		}
	}
	fclose(f);
	return 0;
}

/*
 * Find a group in the group file, by name or by number, for key (group,
 * control_group): 0 with *gid, or -ENOENT, said at the key's line.
 */
static int
conf_group_find(struct parse_ctx *p, enum conf_key_id key, const char *name,
    gid_t *gid)
{
	char		 path[4096];
	struct group	*gr = NULL;
	FILE		*f;
	uint64_t	 n;

	if (parse_u64(name, UINT32_MAX - 1, &n) == 0) {
		*gid = (gid_t)n;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/group", p->c->etc);
	if ((f = fopen(path, "re")) != NULL) {
		while ((gr = fgetgrent(f)) != NULL &&
		    strcmp(gr->gr_name, name) != 0)
			;
		if (gr != NULL)
			*gid = gr->gr_gid;
		fclose(f);
	}
	if (gr == NULL) {
		conf_error(p->c, p->file, p->key_line[key], "%s: no group "
		    "'%s' in %s", conf_keys[key].name, name, path);
		return -ENOENT;
	}
	return 0;
}

/* A service's group. */
static int
conf_group(struct parse_ctx *p, struct svc_def *d)
{
	int	rc;

	if ((rc = conf_group_find(p, K_GROUP, d->group, &d->gid)) == 0)
		d->set_gid = true;
	return rc;
}

/* Checks that need the whole file: exec, limits, credentials. */
static void
conf_service_finish(struct parse_ctx *p, struct svc_def *d)
{
	const char	*why;
	int		 line;

	if (p->exec_bad) {
		;	/* said already: its line is too long */
	} else if (p->exec_line == 0) {
		conf_error(p->c, p->file, p->section_line ? p->section_line : 1,
		    "missing required key 'exec'");
	} else if (p->exec.data == NULL || p->exec.nomem) {
		conf_error(p->c, p->file, p->exec_line, "exec: %s",
		    strerror(ENOMEM));
	} else if (argv_split(p->exec.data, &d->argv, &why) < 0) {
		conf_error(p->c, p->file, p->exec_line, "exec: %s%s", why,
		    conf_inline_comment(p->text, p->exec_line) ? " (a ';' "
		    "after a blank begins a comment in an ini file, and the "
		    "rest of the line was cut: write it without the blank)" :
		    "");
	} else if (d->argv[0][0] == '\0') {
		conf_error(p->c, p->file, p->exec_line, "exec: the program "
		    "name is empty");
	}
	if (d->restart_delay_max < d->restart_delay) {
		line = p->key_line[K_RESTART_DELAY_MAX];
		conf_error(p->c, p->file, line ? line :
		    p->key_line[K_RESTART_DELAY], "restart_delay_max is "
		    "shorter than restart_delay");
	}
	if (d->watchdog && d->ready != READY_NOTIFY)
		conf_error(p->c, p->file, p->key_line[K_WATCHDOG], "watchdog: "
		    "needs ready = notify (pings come as WATCHDOG=1)");
	if (d->ready == READY_EXIT) {
		/* As systemd's oneshot: a task may take as long as it
		 * takes (an fsck), unless it says. */
		if (!p->key_line[K_READY_TIMEOUT])
			d->ready_timeout = 0;
		if (!p->key_line[K_RESTART])
			d->restart = RESTART_NEVER;	/* a task runs once */
		else if (d->restart == RESTART_ALWAYS)
			conf_error(p->c, p->file, p->key_line[K_RESTART],
			    "restart: always would run a task (ready = exit) "
			    "again each time it is done; use on-failure");
		if (d->settle)
			conf_error(p->c, p->file, p->key_line[K_SETTLE],
			    "settle: a task (ready = exit) is ready when it "
			    "exits 0, not after a time up");
		if (d->reload_exec || p->key_line[K_RELOAD_SIGNAL])
			conf_error(p->c, p->file, p->key_line[K_RELOAD_EXEC] ?
			    p->key_line[K_RELOAD_EXEC] :
			    p->key_line[K_RELOAD_SIGNAL], "%s: a task (ready = "
			    "exit) has nothing running to reload",
			    d->reload_exec ? "reload_exec" : "reload_signal");
	}
	if (d->reload_exec && p->key_line[K_RELOAD_SIGNAL])
		conf_error(p->c, p->file, p->key_line[K_RELOAD_SIGNAL],
		    "reload_signal: give reload_signal or reload_exec, not "
		    "both");
	if (d->console && p->key_line[K_LOG])
		conf_error(p->c, p->file, p->key_line[K_LOG], "log: a console "
		    "service's output goes to the console, not to a log");
	/* The console must survive memory pressure, unless it says so. */
	if (d->console && !p->key_line[K_KILL_PRIORITY])
		d->kill_priority = KILL_PRIORITY_NEVER;
	if (d->memory_high && d->memory_max && d->memory_high > d->memory_max)
		conf_error(p->c, p->file, p->key_line[K_MEMORY_HIGH],
		    "memory_high is above memory_max");
	if (d->group)
		conf_group(p, d);
	if (d->user)
		conf_user(p, d);
}

/*
 * Parse one service held in text (a file's, or a template's for an
 * instance, tmpl); the result joins the tree, and *out (if asked) is it.
 */
static int
conf_parse_def(struct conf *c, const char *file, const char *name,
    const char *text, bool tmpl, struct svc_def **out)
{
	struct parse_ctx	 p;
	struct svc_def		*d, **defs;
	size_t			 nerrs = c->nerrs;

	if (out)
		*out = NULL;
	if (!conf_name_valid(name)) {
		conf_error(c, file, 0, "'%s' is not a valid service name "
		    "(letters, digits, _.@- ; at most %d)", name, SVC_NAME_MAX);
		return -EINVAL;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		goto nomem;
	svc_def_defaults(d, &c->sup);
	d->name = strdup(name);
	d->file = strdup(file);
	if ((defs = realloc(c->defs, (c->ndefs + 1) * sizeof(*defs))) != NULL)
		c->defs = defs;
	if (d->name == NULL || d->file == NULL || defs == NULL) {
		svc_def_free(d);
		goto nomem;
	}
	c->defs[c->ndefs++] = d;

	if (out)
		*out = d;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.file = file;
	p.def = d;
	p.obj = d;
	p.tmpl = tmpl;
	p.section = SEC_SERVICE;
	conf_ini(&p, text, conf_key);
	d->given = p.given;
	conf_service_finish(&p, d);
	buf_free(&p.exec);
	return c->nerrs == nerrs ? 0 : -EINVAL;
nomem:
	/* A service left out would be a service removed: refuse. */
	conf_error(c, file, 0, "%s", strerror(ENOMEM));
	c->nomem = true;
	return -ENOMEM;
}

/* Parse services/NAME.ini held in text; the result joins the tree. */
int
conf_parse_service(struct conf *c, const char *file, const char *name,
    const char *text)
{
	return conf_parse_def(c, file, name, text, false, NULL);
}

/* The template that makes the instance name (NAME@INSTANCE), or NULL. */
const struct conf_tmpl *
conf_tmpl_of(const struct conf *c, const char *name)
{
	const char	*at = strchr(name, '@');
	size_t		 i, n;

	if (at == NULL || at[1] == '\0')
		return NULL;
	n = (size_t)(at - name) + 1;
	for (i = 0; i < c->ntmpls; i++)
		if (strlen(c->tmpls[i].name) == n &&
		    strncmp(c->tmpls[i].name, name, n) == 0)
			return &c->tmpls[i];
	return NULL;
}

/*
 * The text of an instance: its template's, with the specifiers replaced
 * as systemd does: %i and %I the instance, %n the service's name, %p
 * what comes before the '@', %% a '%'.  Comment lines stay as they are.
 * NULL, with the error, for any other '%'.
 */
static char *
conf_subst(struct conf *c, const struct conf_tmpl *t, const char *name)
{
	const char	*s, *inst = strchr(name, '@') + 1;
	struct buf	 b = { 0 };
	bool		 bol = true, comment = false;
	int		 line = 1;

	for (s = t->text; *s; s++) {
		if (*s == '\n') {
			line++;
			bol = true;
			comment = false;
		} else if (bol && *s != ' ' && *s != '\t') {
			comment = *s == ';' || *s == '#';
			bol = false;
		}
		if (*s != '%' || comment) {
			buf_add(&b, s, 1);
			continue;
		}
		switch (s[1]) {
		case 'i':
		case 'I':
			buf_puts(&b, inst);
			break;
		case 'n':
			buf_puts(&b, name);
			break;
		case 'p':
			buf_add(&b, name, (size_t)(inst - 1 - name));
			break;
		case '%':
			buf_add(&b, "%", 1);
			break;
		default:
			conf_error(c, t->file, line, "unknown specifier after "
			    "'%%' (a template knows %%i, %%I, %%n and %%p; "
			    "write %%%% for a '%%')");
			buf_free(&b);
			return NULL;
		}
		s++;
	}
	if (b.nomem || buf_add(&b, "", 1) < 0) {
		conf_error(c, t->file, 0, "%s", strerror(ENOMEM));
		c->nomem = true;
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

/*
 * Make the instance name (NAME@INSTANCE) of template t into the tree;
 * *out is its definition.  0, or -EINVAL with the errors in c.
 */
int
conf_instance(struct conf *c, const struct conf_tmpl *t, const char *name,
    struct svc_def **out)
{
	const char	*inst = strchr(name, '@');
	char		*text;
	int		 rc;

	*out = NULL;
	if (inst == NULL || inst[1] == '\0' || strchr(inst + 1, '@') ||
	    !conf_name_valid(name)) {
		conf_error(c, t->file, 0, "'%s' is not a valid instance name "
		    "(letters, digits, _.- after the '@', not . or - first; "
		    "at most %d in all)", name, SVC_NAME_MAX);
		return -EINVAL;
	}
	if ((text = conf_subst(c, t, name)) == NULL)
		return -EINVAL;
	rc = conf_parse_def(c, t->file, name, text, true, out);
	free(text);
	return rc;
}

/* Keep a template for its instances (the tree owns text from now on). */
static int
conf_tmpl_add(struct conf *c, const char *file, const char *name, char *text)
{
	struct conf_tmpl	*v;

	if ((v = realloc(c->tmpls, (c->ntmpls + 1) * sizeof(*v))) == NULL) {
		free(text);
		goto nomem;
	}
	c->tmpls = v;
	v = &c->tmpls[c->ntmpls];
	v->name = strdup(name);
	v->file = strdup(file);
	v->text = text;
	if (v->name == NULL || v->file == NULL) {
		free(v->name);
		free(v->file);
		free(text);
		goto nomem;
	}
	c->ntmpls++;
	return 0;
nomem:
	conf_error(c, file, 0, "%s", strerror(ENOMEM));
	c->nomem = true;
	return -ENOMEM;
}

/* Drop the last definition of the tree (a template's probe). */
static void
conf_drop_last(struct conf *c, struct svc_def *d)
{
	if (d != NULL && c->ndefs > 0 && c->defs[c->ndefs - 1] == d) {
		svc_def_free(d);
		c->ndefs--;
	}
}

/*
 * The instances of every template: those it lists, and those commands
 * made (c->extra) while the template is there.  A template is checked
 * through a probe instance even if it lists none; each of its lines is
 * reported once, not once per instance.
 */
static void
conf_instances(struct conf *c)
{
	char		 name[SVC_NAME_MAX + 2];
	struct svc_def	*d;
	char		**list;
	size_t		 i, j;

	for (i = 0; i < c->ntmpls; i++) {
		const struct conf_tmpl	*t = &c->tmpls[i];

		c->dedup = c->nerrs + 1;
		snprintf(name, sizeof(name), "%si", t->name);
		conf_instance(c, t, name, &d);
		list = d ? d->instances : NULL;
		if (d)
			d->instances = NULL;
		conf_drop_last(c, d);
		for (j = 0; list && list[j]; j++) {
			snprintf(name, sizeof(name), "%s%s", t->name, list[j]);
			conf_instance(c, t, name, &d);
		}
		strv_free(list);
		c->dedup = 0;
	}
	for (j = 0; c->extra && c->extra[j]; j++) {
		const struct conf_tmpl	*t = conf_tmpl_of(c, c->extra[j]);
		size_t			 k;

		for (k = 0; k < c->ndefs; k++)
			if (strcmp(c->defs[k]->name, c->extra[j]) == 0)
				break;
		if (t == NULL || k < c->ndefs)
			continue;
		c->dedup = c->nerrs + 1;
		if (conf_instance(c, t, c->extra[j], &d) == 0 && d)
			d->dynamic = true;
		c->dedup = 0;
	}
}

/* Parse pidvisor.ini held in text. */
int
conf_parse_sup(struct conf *c, const char *file, const char *text)
{
	struct parse_ctx	p;
	size_t			nerrs = c->nerrs;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.file = file;
	p.obj = &c->sup;
	p.section = SEC_SUPERVISOR;
	conf_ini(&p, text, conf_key);
	c->sup.given |= p.given;
	if (c->sup.control_group)
		conf_group_find(&p, K_CONTROL_GROUP, c->sup.control_group,
		    &c->sup.control_gid);
	return c->nerrs == nerrs ? 0 : -EINVAL;
}

static int
conf_def_cmp(const void *a, const void *b)
{
	const struct svc_def *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Index of the definition named name, or -1.  The tree must be sorted. */
static ssize_t
conf_index(const struct conf *c, const char *name)
{
	struct svc_def	key, *kp = &key, **r;

	key.name = (char *)name;
	r = bsearch(&kp, c->defs, c->ndefs, sizeof(*c->defs), conf_def_cmp);
	return r ? r - c->defs : -1;
}

/* The definition named name, or NULL.  The tree must be sorted. */
struct svc_def *
conf_find(const struct conf *c, const char *name)
{
	ssize_t	i = conf_index(c, name);

	return i < 0 ? NULL : c->defs[i];
}

/* Every edge of d: its requires, then its after. */
static struct svc_dep *
conf_edge(struct svc_def *d, size_t i)
{
	return i < d->nrequires ? &d->requires[i] :
	    &d->after[i - d->nrequires];
}

/*
 * Report each dependency cycle once, with the path that closes it.
 * Iterative depth-first search, so that a long chain cannot exhaust the
 * stack.
 */
static void
conf_cycles(struct conf *c)
{
	enum { WHITE, GREY, BLACK };
	struct frame {
		size_t	def;
		size_t	edge;
	}		*stack;
	uint8_t		*color;
	size_t		 n = c->ndefs, top, root, j;
	struct buf	 path = { 0 };

	stack = calloc(n + 1, sizeof(*stack));
	color = calloc(n + 1, 1);
	if (stack == NULL || color == NULL)
		goto out;
	for (root = 0; root < n; root++) {
		if (color[root] != WHITE)
			continue;
		top = 0;
		stack[0].def = root;
		stack[0].edge = 0;
		color[root] = GREY;
		while (top != SIZE_MAX) {
			struct frame	*f = &stack[top];
			struct svc_def	*d = c->defs[f->def];
			struct svc_dep	*e;
			ssize_t		 ti;

			if (f->edge == d->nrequires + d->nafter) {
				color[f->def] = BLACK;
				top--;
				continue;
			}
			e = conf_edge(d, f->edge++);
			/* Unknown names and itself: reported elsewhere. */
			if ((ti = conf_index(c, e->name)) < 0 ||
			    (size_t)ti == f->def)
				continue;
			if (color[ti] == WHITE) {
				color[ti] = GREY;
				stack[++top].def = (size_t)ti;
				stack[top].edge = 0;
			} else if (color[ti] == GREY) {
				path.len = 0;
				for (j = 0; j <= top; j++)
					if (stack[j].def == (size_t)ti)
						break;
				for (; j <= top; j++)
					buf_printf(&path, "%s -> ",
					    c->defs[stack[j].def]->name);
				buf_puts(&path, e->name);
				conf_error(c, d->file, e->line, "%s: dependency "
				    "cycle: %s", f->edge <= d->nrequires ?
				    "requires" : "after", path.data);
			}
		}
	}
out:
	buf_free(&path);
	free(stack);
	free(color);
}

/* Checks across files: every dependency exists, no cycles. */
int
conf_check(struct conf *c)
{
	size_t	nerrs = c->nerrs, i, j;

	if (c->ndefs > 1)
		qsort(c->defs, c->ndefs, sizeof(*c->defs), conf_def_cmp);
	for (i = 0; i < c->ndefs; i++) {
		struct svc_def	*d = c->defs[i];

		if (i > 0 && strcmp(c->defs[i - 1]->name, d->name) == 0)
			conf_error(c, d->file, 0, "service '%s' is defined "
			    "twice (by %s too)", d->name, c->defs[i - 1]->file);

		for (j = 0; j < d->nrequires + d->nafter; j++) {
			struct svc_dep	*e = conf_edge(d, j);
			const char	*key = j < d->nrequires ?
			    "requires" : "after";

			if (strcmp(e->name, d->name) == 0)
				conf_error(c, d->file, e->line, "%s: a service "
				    "cannot depend on itself", key);
			else if (conf_find(c, e->name) == NULL)
				conf_error(c, d->file, e->line, "%s: unknown "
				    "service '%s'", key, e->name);
		}
	}
	conf_cycles(c);
	return c->nerrs == nerrs && !c->nomem ? 0 : -EINVAL;
}

/*
 * Read a whole file, rel beneath dirfd (path is its name in messages),
 * at most CONF_FILE_MAX bytes: a regular file, never a FIFO or device
 * (their open or read would block the loop on reload), and never
 * through a symlink out of the configuration directory.
 */
static char *
conf_slurp(struct conf *c, int dirfd, const char *rel, const char *path)
{
	struct buf	b = { 0 };
	size_t		off, i, bol;
	int		line, rc;

	if ((rc = read_file(dirfd, rel, CONF_FILE_MAX, &b)) < 0) {
		conf_error(c, path, 0, "%s", rc == -EFBIG ? "file too large "
		    "(at most 1 MiB)" : rc == -EINVAL ? "not a regular file" :
		    rc == -EXDEV ? "a symlink out of the configuration "
		    "directory" : strerror(-rc));
		buf_free(&b);
		return NULL;
	}
	if (memchr(b.data ? b.data : "", '\0', b.len) != NULL) {
		conf_error(c, path, 0, "file contains a NUL byte");
		buf_free(&b);
		return NULL;
	}
	/* Text, as names, commands and JSON need: UTF-8 only. */
	if (b.data != NULL && (off = utf8_valid_len(b.data, b.len)) < b.len) {
		for (i = 0, line = 1, bol = 0; i < off; i++)
			if (b.data[i] == '\n') {
				line++;
				bol = i + 1;
			}
		conf_error(c, path, line, "not valid UTF-8 (byte %zu of the "
		    "line)", off - bol + 1);
		buf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}

static int
conf_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Load dir/pidvisor.ini (if there) and every dir/services/NAME.ini. */
int
conf_load(struct conf *c, const char *dir)
{
	char		  path[4096], rel[512], **names = NULL, **nn, *text;
	size_t		  n = 0, i, len;
	struct dirent	 *e;
	struct stat	  st;
	DIR		 *dp;
	int		  dirfd, sfd;

	if ((dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		conf_error(c, dir, 0, "%s", errno == ENOTDIR ?
		    "not a directory" : strerror(errno));
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/pidvisor.ini", dir);
	if (fstatat(dirfd, "pidvisor.ini", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (text = conf_slurp(c, dirfd, "pidvisor.ini", path)) != NULL) {
		conf_parse_sup(c, path, text);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/services", dir);
	if ((sfd = openat(dirfd, "services", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC | O_NOFOLLOW)) < 0 || (dp = fdopendir(sfd)) == NULL) {
		if (errno != ENOENT)
			conf_error(c, path, 0, "%s", strerror(errno));
		if (sfd >= 0)
			close(sfd);
		close(dirfd);
		return c->nerrs || c->nomem ? -EINVAL : 0;
	}
	while ((e = readdir(dp)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 5 ||
		    strcmp(e->d_name + len - 4, ".ini") != 0)
			continue;
		/* A file left out would be a service removed: refuse. */
		if ((nn = realloc(names, (n + 1) * sizeof(*nn))) == NULL ||
		    (names = nn, names[n] = strdup(e->d_name)) == NULL) {
			conf_error(c, path, 0, "%s", strerror(ENOMEM));
			c->nomem = true;
			break;
		}
		n++;
	}
	closedir(dp);
	if (n > 1)
		qsort(names, n, sizeof(*names), conf_strcmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/services/%s", dir, names[i]);
		snprintf(rel, sizeof(rel), "services/%s", names[i]);
		names[i][strlen(names[i]) - 4] = '\0';
		len = strlen(names[i]);
		if ((text = conf_slurp(c, dirfd, rel, path)) == NULL) {
			;
		} else if (names[i][len - 1] != '@') {
			conf_parse_service(c, path, names[i], text);
			free(text);
		} else if (len == 1 || strchr(names[i], '@') != names[i] +
		    len - 1 || !conf_name_valid(names[i])) {
			conf_error(c, path, 0, "'%s' is not a valid template "
			    "name (NAME@, NAME as a service's)", names[i]);
			free(text);
		} else {
			conf_tmpl_add(c, path, names[i], text);
		}
		free(names[i]);
	}
	free(names);
	close(dirfd);
	conf_instances(c);
	conf_check(c);
	return c->nerrs || c->nomem ? -EINVAL : 0;
}

static int
conf_err_cmp(const void *a, const void *b)
{
	const struct conf_err	*x = a, *y = b;
	int			 r = strcmp(x->file, y->file);

	if (r != 0)
		return r;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Every error, one "FILE:LINE: message" line each, in file order. */
void
conf_errors(struct conf *c, struct buf *out)
{
	size_t	i;

	if (c->nerrs > 1)
		qsort(c->errs, c->nerrs, sizeof(*c->errs), conf_err_cmp);
	for (i = 0; i < c->nerrs; i++) {
		if (c->errs[i].line > 0)
			buf_printf(out, "%s:%d: %s\n", c->errs[i].file,
			    c->errs[i].line, c->errs[i].msg);
		else
			buf_printf(out, "%s: %s\n", c->errs[i].file,
			    c->errs[i].msg);
	}
	if (c->nomem)
		buf_puts(out, "out of memory: the configuration could not be "
		    "read whole\n");
}
