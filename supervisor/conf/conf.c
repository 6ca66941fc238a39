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
#include "conf_parse.h"




/* Record one error for file:line. */
void
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
	c->sup.pressure_crit_stall = 300000;	/* full 300ms 1s */
	c->sup.pressure_crit_window = 1000000;
	c->sup.pressure_crit_full = true;
	c->sup.pressure_kill_timeout = 300;
	c->sup.pressure_min_priority = 1;
	c->sup.pressure_calm = 10000;
	c->sup.pressure_calm_max = 300000;
	c->etc = "/etc";
}

/* What a service has where its file says nothing. */
void
svc_def_defaults(struct svc_def *d, const struct sup_conf *sc)
{
	size_t	i;

	d->restart = RESTART_ALWAYS;
	d->restart_delay = 100;
	d->restart_delay_max = 30000;
	/* A crashing service is retried for ever, the wait doubling to
	 * restart_delay_max (runit, s6, Kubernetes); start_limit_burst
	 * gives up instead (systemd). */
	d->start_limit_burst = 0;
	d->start_limit_interval = 10000;
	d->ready = READY_EXEC;
	d->ready_timeout = 30000;
	d->stop_signal = SIGTERM;
	d->reload_signal = SIGHUP;
	d->health_interval = 30000;	/* Docker's HEALTHCHECK defaults */
	d->health_timeout = 30000;
	d->health_retries = 3;
	d->stop_timeout = 10000;
	/* Nothing a service forked outlives its stop: cgroup, where there
	 * are cgroups, else group (service_kill_mode()). */
	d->kill_mode = KILL_CGROUP;
	d->enabled = true;
	d->log = sc->log;
	d->syslog_facility = 3;		/* daemon */
	d->syslog_level = 6;		/* info */
	d->syslog_error_level = 3;	/* err */
	d->memory_pressure_threshold = 200;	/* systemd's */
	d->listen_backlog = 4096;	/* SOMAXCONN; the kernel caps it */
	d->listen_mode = 0666;		/* systemd's SocketMode= */
	d->max_connections = 64;	/* systemd's MaxConnections= */
	d->trigger_interval = 2000;	/* systemd's TriggerLimitIntervalSec= */
	d->accuracy = 60000;		/* systemd's AccuracySec= */
	d->defer_max = 3600000;
	for (i = 0; i < DIR__KINDS; i++)
		d->dir_mode[i] = 0755;		/* systemd's */
}

/* Free one service definition. */
void
svc_def_free(struct svc_def *d)
{
	if (d == NULL)
		return;
	conf_keys_free(SEC_SERVICE, d);
	conf_src_free(d);
	strv_free(d->dropins);
	free(d->name);
	free(d->file);
	free(d->listen_lines);
	free(d);
}

/* Keep a warning: what is not wrong, but is likely not what was meant. */
void
conf_warn(struct conf *c, const char *fmt, ...)
{
	char	msg[600];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->warns = strv_add(c->warns, msg);	/* lost with memory */
}

/* Free everything the tree holds. */
void
conf_free(struct conf *c)
{
	size_t	i;

	for (i = 0; i < c->ndefs; i++)
		svc_def_free(c->defs[i]);
	free(c->defs);
	strv_free(c->refused);
	strv_free(c->warns);
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
	conf_sup_free_fields(&c->sup);
	c->defs = NULL;
	c->errs = NULL;
	c->ndefs = c->nerrs = 0;
}

/* Free what a struct sup_conf holds (its strings and lists). */
void
conf_sup_free_fields(struct sup_conf *sc)
{
	conf_keys_free(SEC_SUPERVISOR, sc);
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

/* What a ';' inside quotes is, while inih reads the line. */
#define CONF_SEMI	'\x1f'
#define CONF_LINE_MAX	1024	/* more than inih's lines (200 bytes) */

/*
 * inih cuts a value at a ';' after a blank (an inline comment), quotes
 * or not.  A quoted value must arrive whole: in a KEY = VALUE line, such
 * a ';' inside quotes (as argv_split reads them) is hidden from inih,
 * and conf_key() puts it back.
 */
static void
conf_hide_semis(struct parse_ctx *p, char *line)
{
	char	*s = line + strcspn(line, "=:"), quote = 0;

	for (; *s; s++) {
		if (*s == '\\' && s[1] != '\0')
			s++;
		else if (*s == quote)
			quote = 0;
		else if (!quote && (*s == '"' || *s == '\''))
			quote = *s;
		else if (quote && *s == ';' && (s[-1] == ' ' || s[-1] == '\t')) {
			*s = CONF_SEMI;
			p->semi_line = p->line;
		}
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
		conf_hide_semis(p, str);
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

static const char *const section_names[] = {
	[SEC_SERVICE] = "service", [SEC_SUPERVISOR] = "supervisor",
};

/* The key of a section by name, or NULL. */
const struct conf_key *
conf_key_find(enum conf_section sec, const char *name)
{
	static uint16_t	order[K__COUNT];
	static bool	sorted;
	size_t		lo = 0, hi = K__COUNT, i, j;

	/* The table by name, once: a binary search for each line read
	 * and each key a re-exec's state has. */
	if (!sorted) {
		for (i = 0; i < K__COUNT; i++) {
			for (j = i; j > 0 && strcmp(conf_keys[order[j - 1]].name,
			    conf_keys[i].name) > 0; j--)
				order[j] = order[j - 1];
			order[j] = (uint16_t)i;
		}
		sorted = true;
	}
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (strcmp(conf_keys[order[i]].name, name) < 0)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < K__COUNT && strcmp(conf_keys[order[i]].name,
	    name) == 0; i++)
		if (conf_keys[order[i]].section == sec)
			return &conf_keys[order[i]];
	return NULL;
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
	{ "NoNewPrivileges", "no_new_privs" },
	{ "CapabilityBoundingSet", "capabilities" },
	{ "AmbientCapabilities", "capabilities" },
	{ "PrivateTmp", "private_tmp" }, { "PrivateNetwork", "private_network" },
	{ "PrivateDevices", "private_devices" },
	{ "ProtectSystem", "protect_system" }, { "ProtectHome", "protect_home" },
	{ "ReadOnlyPaths", "read_only_paths" },
	{ "ReadWritePaths", "read_write_paths" },
	{ "InaccessiblePaths", "inaccessible_paths" },
	{ "NoExecPaths", "no_exec_paths" }, { "ExecPaths", "exec_paths" },
	{ "ProtectProc", "protect_proc" }, { "ProcSubset", "proc_subset" },
	{ "RemoveIPC", "remove_ipc" },
	{ "SyslogIdentifier", "syslog_identifier" },
	{ "SendSIGHUP", "send_sighup" },
	{ "RootDirectory", "root_directory" },
	{ "SystemCallFilter", "syscall_filter" },
	{ "SystemCallErrorNumber", "syscall_errno" }, { "Nice", "nice" },
	{ "CPUAffinity", "cpu_affinity" },
	{ "IOSchedulingClass", "io_class" },
	{ "IOSchedulingPriority", "io_priority" },
	{ "CPUWeight", "cpu_weight" }, { "CPUQuota", "cpu_max" },
	{ "IOWeight", "io_weight" }, { "LimitCORE", "limit_core" },
	{ "LimitNPROC", "limit_nproc" }, { "LimitMEMLOCK", "limit_memlock" },
	{ "LimitSTACK", "limit_stack" }, { "LimitAS", "limit_as" },
	{ "MaxConnections", "max_connections" },
	{ "MaxConnectionsPerSource", "max_connections_per_source" },
	{ "TriggerLimitIntervalSec", "trigger_limit_interval" },
	{ "TriggerLimitBurst", "trigger_limit_burst" },
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
		d = str_distance(name, conf_keys[i].name, 2);
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
	char			 whole[CONF_LINE_MAX + 1];
	size_t			 i;

	if (p->line == p->bad_line)
		return 1;
	if (p->line == p->semi_line && strlen(value) < sizeof(whole)) {
		char	*s;

		strcpy(whole, value);
		for (s = whole; (s = strchr(s, CONF_SEMI)) != NULL; s++)
			*s = ';';
		value = whole;
	}
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
	if (!p->cont) {
		p->key_line[i] = p->line;
		if (p->def != NULL && i != K_ENV && conf_src_set(p->def,
		    (unsigned)i, p->file, (uint32_t)p->line,
		    k->flags & KEY_REPEAT) < 0)
			p->c->nomem = true;
	}
	keyset_add(&p->given, (unsigned)i);
	p->key = k;
	if ((why = k->parse(p, p->obj, value)) != NULL)
		conf_error(p->c, p->file, p->line, "%s", why);
	return 1;
}

/* The health keys, together: a check needs its command and a pace. */
static void
conf_health_finish(struct parse_ctx *p, struct svc_def *d)
{
	static const int	keys[] = {
		K_HEALTH_INTERVAL, K_HEALTH_TIMEOUT, K_HEALTH_RETRIES,
		K_HEALTH_START_PERIOD,
	};
	size_t			i;

	if (ready_kinds[d->ready].on_check && d->health_exec == NULL)
		conf_error(p->c, p->file, p->key_line[K_READY], "ready: "
		    "health needs health_exec");
	for (i = 0; i < ARRAY_SIZE(keys) && d->health_exec == NULL; i++)
		if (p->key_line[keys[i]])
			conf_error(p->c, p->file, p->key_line[keys[i]], "%s: "
			    "no health_exec to pace", conf_keys[keys[i]].name);
	if (d->health_exec && d->health_interval == 0)
		conf_error(p->c, p->file, p->key_line[K_HEALTH_INTERVAL],
		    "health_interval: must be more than 0");
	if (d->health_exec && d->health_timeout == 0)
		conf_error(p->c, p->file, p->key_line[K_HEALTH_TIMEOUT],
		    "health_timeout: must be more than 0");
	if (d->health_exec && ready_kinds[d->ready].task)
		conf_error(p->c, p->file, p->key_line[K_HEALTH_EXEC],
		    "health_exec: a task (ready = exit) has nothing running "
		    "to check");
}

/* A syslog tag: 1 to 48 visible ASCII characters, not ':', '[', ']'. */
static bool
conf_tag_ok(const char *t)
{
	size_t	n;

	for (n = 0; t[n] != '\0'; n++)
		if ((unsigned char)t[n] <= ' ' || (unsigned char)t[n] >= 0x7f ||
		    strchr(":[]", t[n]) != NULL)
			return false;
	return n > 0 && n <= 48;
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
	} else if (d->argv[0][0] == '-' && d->argv[0][1] == '\0') {
		conf_error(p->c, p->file, p->exec_line, "exec: '-' goes "
		    "right before the program, with no blank between");
	} else if (d->argv[0][0] == '\0') {
		conf_error(p->c, p->file, p->exec_line, "exec: the program "
		    "name is empty");
	} else if (d->argv[0][0] == '-') {
		/* As systemd's ExecStart=-: a failure is recorded, and
		 * counts as a clean end. */
		d->exec_any_exit = true;
		memmove(d->argv[0], d->argv[0] + 1, strlen(d->argv[0]));
	}
	if (d->restart_delay_max < d->restart_delay) {
		line = p->key_line[K_RESTART_DELAY_MAX];
		conf_error(p->c, p->file, line ? line :
		    p->key_line[K_RESTART_DELAY], "restart_delay_max is "
		    "shorter than restart_delay");
	}
	if (d->syslog_ident && !conf_tag_ok(d->syslog_ident))
		conf_error(p->c, p->file, p->key_line[K_SYSLOG_IDENTIFIER],
		    "syslog_identifier: 1 to 48 visible ASCII characters, "
		    "not ':', '[' or ']'");
	if (d->pid_file && !ready_kinds[d->ready].forks)
		conf_error(p->c, p->file, p->key_line[K_PID_FILE], "pid_file: "
		    "needs ready = forking (it names the daemon)");
	if (d->watchdog && !ready_kinds[d->ready].notify)
		conf_error(p->c, p->file, p->key_line[K_WATCHDOG], "watchdog: "
		    "needs ready = notify (pings come as WATCHDOG=1)");
	if (ready_kinds[d->ready].task) {
		/* As systemd's oneshot: a task may take as long as it
		 * takes (an fsck), unless it says. */
		if (!p->key_line[K_READY_TIMEOUT])
			d->ready_timeout = 0;
		if (!p->key_line[K_RESTART])
			d->restart = RESTART_NEVER;	/* a task runs once */
		else if (restart_on[d->restart] & DEATH_CLEAN)
			conf_error(p->c, p->file, p->key_line[K_RESTART],
			    "restart: %s would run a task (ready = exit) "
			    "again each time it is done; use on-failure",
			    restart_names[d->restart]);
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
	conf_health_finish(p, d);
	if (d->reload_exec && p->key_line[K_RELOAD_SIGNAL])
		conf_error(p->c, p->file, p->key_line[K_RELOAD_SIGNAL],
		    "reload_signal: give reload_signal or reload_exec, not "
		    "both");
	conf_tty_finish(p, d);
	if (d->console && p->key_line[K_LOG])
		conf_error(p->c, p->file, p->key_line[K_LOG], "log: a console "
		    "service's output goes to the console, not to a log");
	/* A terminal must survive memory pressure, unless it says so. */
	if ((d->console || d->tty) && !p->key_line[K_KILL_PRIORITY])
		d->kill_priority = KILL_PRIORITY_NEVER;
	if (d->memory_high && d->memory_max && d->memory_high > d->memory_max)
		conf_error(p->c, p->file, p->key_line[K_MEMORY_HIGH],
		    "memory_high is above memory_max");
	if (d->group)
		conf_group(p, d);
	if (d->user)
		conf_user(p, d);
	conf_listen_finish(p, d);
	conf_timer_finish(p, d);
}

/*
 * A new service of the tree, defaults set, and the parser's context for
 * its keys (conf_apply); NULL (said) if the name is not valid or without
 * memory.  conf_def_end() checks it whole.
 */
struct svc_def *
conf_def_begin(struct conf *c, struct parse_ctx *p, const char *file,
    const char *name, bool tmpl)
{
	struct svc_def		*d, **defs;

	if (!conf_name_valid(name)) {
		conf_error(c, file, 0, "'%s' is not a valid service name "
		    "(letters, digits, _.@- ; at most %d)", name, SVC_NAME_MAX);
		return NULL;
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
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->file = file;
	p->def = d;
	p->obj = d;
	p->tmpl = tmpl;
	p->section = SEC_SERVICE;
	p->bad_line = -1;	/* conf_apply's keys may be of no line (0) */
	return d;
nomem:
	/* A service left out would be a service removed: refuse. */
	conf_error(c, file, 0, "%s", strerror(ENOMEM));
	c->nomem = true;
	return NULL;
}

/* The service's keys are all given: check it whole. */
void
conf_def_end(struct parse_ctx *p, struct svc_def *d)
{
	d->given = p->given;
	conf_service_finish(p, d);
	buf_free(&p->exec);
}

/*
 * One key of a service from another front end (a unit file's directive,
 * conf_unit.c): as if file said "key = value" at line.
 */
void
conf_apply(struct parse_ctx *p, const char *file, int line, const char *key,
    const char *value)
{
	p->file = file;
	p->line = line;
	p->cont = false;
	conf_key(p, section_names[SEC_SERVICE], key, value);
}

/*
 * Parse one service held in text (a file's, or a template's for an
 * instance, tmpl); the result joins the tree, and *out (if asked) is it.
 */
int
conf_parse_def(struct conf *c, const char *file, const char *name,
    const char *text, bool tmpl, struct svc_def **out)
{
	struct parse_ctx	 p;
	struct svc_def		*d;
	size_t			 nerrs = c->nerrs;

	if (out)
		*out = NULL;
	if ((d = conf_def_begin(c, &p, file, name, tmpl)) == NULL)
		return c->nomem ? -ENOMEM : -EINVAL;
	if (out)
		*out = d;
	conf_ini(&p, text, conf_key);
	conf_def_end(&p, d);
	return c->nerrs == nerrs ? 0 : -EINVAL;
}

/* Parse services/NAME.ini held in text; the result joins the tree. */
int
conf_parse_service(struct conf *c, const char *file, const char *name,
    const char *text)
{
	return conf_parse_def(c, file, name, text, false, NULL);
}

/* Parse pidvisor.ini held in text. */
int
conf_parse_sup(struct conf *c, const char *file, const char *text)
{
	struct parse_ctx	p;
	size_t			nerrs = c->nerrs, i;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.file = file;
	p.obj = &c->sup;
	p.section = SEC_SUPERVISOR;
	conf_ini(&p, text, conf_key);
	for (i = 0; i < KEYSET_WORDS; i++)
		c->sup.given.w[i] |= p.given.w[i];
	if (c->sup.control_group)
		conf_group_find(&p, K_CONTROL_GROUP, c->sup.control_group,
		    &c->sup.control_gid);
	if (c->sup.metrics_users)
		conf_users(&p, &c->sup);
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

/*
 * Checks across files: every dependency exists, no cycles; warnings of
 * protections that undo each other.
 */
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
		if (c->check_def != NULL)
			c->check_def(c, d);

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
	conf_listen_check(c);
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
		if (rc == -EFBIG)
			conf_error(c, path, 0, "file too large (at most %d "
			    "KiB)", CONF_FILE_MAX / 1024);
		else
			conf_error(c, path, 0, "%s", rc == -EINVAL ? "not a "
			    "regular file" : rc == -EXDEV ? "a symlink out of "
			    "the configuration directory" : strerror(-rc));
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
		if (c->sup.systemd_units) {	/* the units alone */
			conf_units(c);
			conf_check(c);
		}
		return c->nerrs || c->nomem ? -EINVAL : 0;
	}
	while ((e = readdir(dp)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0) {
			/* web.ini~, web.conf, README: said, not read. */
			conf_warn(c, "%s/%s: ignored: not a NAME.ini file",
			    path, e->d_name);
			continue;
		}
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
	if (c->sup.systemd_units)
		conf_units(c);
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

