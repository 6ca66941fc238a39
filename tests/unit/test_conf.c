/* test_conf.c - configuration parsing and checking, from inline ini text */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"
#include "st.h"

static char	etc[64];		/* a passwd and group of our own */

static int
setup(void **state)
{
	FILE	*f;
	char	 path[128];

	(void)state;
	strcpy(etc, "/tmp/pidvisor-test-etc.XXXXXX");
	if (mkdtemp(etc) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/passwd", etc);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("root:x:0:0:root:/root:/bin/sh\n"
	    "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
	    "svc:x:990:991::/nonexistent:/usr/sbin/nologin\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/group", etc);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("root:x:0:\nalice:x:1000:\nsvc:x:991:\n"
	    "audio:x:29:alice,svc\nvideo:x:44:alice\nlog:x:4:bob\n", f);
	fclose(f);
	return 0;
}

static int
teardown(void **state)
{
	char	path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/passwd", etc);
	unlink(path);
	snprintf(path, sizeof(path), "%s/group", etc);
	unlink(path);
	rmdir(etc);
	return 0;
}

/* Parse one service file "NAME.ini"; return all errors as text. */
static char *
parse(struct conf *c, const char *name, const char *text)
{
	struct buf	b = { 0 };
	char		file[128];

	snprintf(file, sizeof(file), "%s.ini", name);
	conf_parse_service(c, file, name, text);
	conf_errors(c, &b);
	return b.data ? b.data : strdup("");
}

/* Parse a lone service and expect exactly the error text want. */
static void
expect(const char *text, const char *want)
{
	struct conf	 c;
	char		*got;

	conf_init(&c);
	c.etc = etc;
	got = parse(&c, "web", text);
	if (strcmp(got, want) != 0)
		print_error("input:\n%s\nwant: %sgot:  %s\n", text, want, got);
	assert_string_equal(got, want);
	free(got);
	conf_free(&c);
}

static void
test_defaults(void **state)
{
	struct conf	 c;
	struct svc_def	*d;
	char		*errs;

	(void)state;
	conf_init(&c);
	errs = parse(&c, "web", "[service]\nexec = /bin/true\n");
	assert_string_equal(errs, "");
	free(errs);
	d = c.defs[0];
	assert_string_equal(d->name, "web");
	assert_string_equal(d->argv[0], "/bin/true");
	assert_null(d->argv[1]);
	assert_int_equal(d->restart, RESTART_ALWAYS);
	assert_int_equal(d->restart_delay, 100);
	assert_int_equal(d->restart_delay_max, 30000);
	assert_int_equal(d->start_limit_burst, 0);	/* for ever */
	assert_int_equal(d->start_limit_interval, 10000);
	assert_int_equal(d->ready, READY_EXEC);
	assert_int_equal(d->ready_timeout, 30000);
	assert_int_equal(d->watchdog, 0);
	assert_int_equal(d->stop_signal, SIGTERM);
	assert_int_equal(d->stop_timeout, 10000);
	assert_true(d->enabled);
	assert_false(d->set_uid || d->set_gid || d->set_umask ||
	    d->set_nofile);
	assert_null(d->env);
	assert_null(d->workdir);
	conf_free(&c);
}

static void
test_every_key(void **state)
{
	struct conf	 c;
	struct svc_def	*d;
	char		*errs;

	(void)state;
	conf_init(&c);
	c.etc = etc;
	errs = parse(&c, "db", "[service]\nexec = /bin/true\n");
	free(errs);
	errs = parse(&c, "web",
	    "; a comment\n"
	    "# another\n"
	    "[service]\n"
	    "exec = /usr/bin/web --port \"8080\" a\\ b\n"
	    "restart = on-failure\n"
	    "restart_delay = 250ms\n"
	    "restart_delay_max = 1m\n"
	    "start_limit_burst = 3\n"
	    "start_limit_interval = 20s\n"
	    "ready = notify\n"
	    "ready_timeout = 2.5s\n"
	    "watchdog = 30s\n"
	    "requires = db\n"
	    "after = db\n"
	    "stop_signal = INT\n"
	    "stop_timeout = 3s\n"
	    "user = alice\n"
	    "workdir = /srv/web\n"
	    "env = A=1\n"
	    "env = PATH=/opt/bin:/bin\n"
	    "env = A=2\n"
	    "umask = 027\n"
	    "limit_nofile = 4096\n"
	    "enabled = no\n");
	assert_string_equal(errs, "");
	free(errs);
	assert_int_equal(conf_check(&c), 0);
	d = conf_find(&c, "web");
	assert_non_null(d);
	assert_string_equal(d->argv[0], "/usr/bin/web");
	assert_string_equal(d->argv[1], "--port");
	assert_string_equal(d->argv[2], "8080");
	assert_string_equal(d->argv[3], "a b");
	assert_null(d->argv[4]);
	assert_int_equal(d->restart, RESTART_ON_FAILURE);
	assert_int_equal(d->restart_delay, 250);
	assert_int_equal(d->restart_delay_max, 60000);
	assert_int_equal(d->start_limit_burst, 3);
	assert_int_equal(d->start_limit_interval, 20000);
	assert_int_equal(d->ready, READY_NOTIFY);
	assert_int_equal(d->ready_timeout, 2500);
	assert_int_equal(d->watchdog, 30000);
	assert_int_equal(d->nrequires, 1);
	assert_string_equal(d->requires[0].name, "db");
	assert_int_equal(d->requires[0].line, 13);
	assert_int_equal(d->nafter, 1);
	assert_int_equal(d->stop_signal, SIGINT);
	assert_int_equal(d->stop_timeout, 3000);
	assert_true(d->set_uid && d->set_gid);
	assert_int_equal(d->uid, 1000);
	assert_int_equal(d->gid, 1000);
	assert_int_equal(d->ngroups, 2);	/* audio, video */
	assert_int_equal(d->groups[0], 29);
	assert_int_equal(d->groups[1], 44);
	assert_string_equal(d->workdir, "/srv/web");
	assert_string_equal(d->env[0], "A=2");
	assert_string_equal(d->env[1], "PATH=/opt/bin:/bin");
	assert_null(d->env[2]);
	assert_true(d->set_umask);
	assert_int_equal(d->umask, 027);
	assert_true(d->set_nofile);
	assert_int_equal(d->limit_nofile, 4096);
	assert_false(d->enabled);
	conf_free(&c);
}

static void
test_ready_fd_and_credentials(void **state)
{
	struct conf	 c;
	struct svc_def	*d;
	char		*errs;

	(void)state;
	conf_init(&c);
	c.etc = etc;
	errs = parse(&c, "a", "[service]\nexec = x\nready = fd:3\n"
	    "user = 990\ngroup = audio\n");
	assert_string_equal(errs, "");
	free(errs);
	d = c.defs[0];
	assert_int_equal(d->ready, READY_FD);
	assert_int_equal(d->ready_fd, 3);
	assert_int_equal(d->uid, 990);
	assert_int_equal(d->gid, 29);		/* group= wins over passwd */
	assert_int_equal(d->ngroups, 1);
	conf_free(&c);

	conf_init(&c);
	c.etc = etc;
	errs = parse(&c, "b", "[service]\nexec = x\nuser = 4242\n"
	    "group = 4243\n");
	assert_string_equal(errs, "");
	free(errs);
	assert_int_equal(c.defs[0]->uid, 4242);
	assert_int_equal(c.defs[0]->gid, 4243);
	conf_free(&c);
}

/* Log keys: defaults from pidvisor.ini, overridden per service. */
static void
test_log_keys(void **state)
{
	struct conf	 c;
	char		*errs;

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "pidvisor.ini", "[supervisor]\n"
	    "log = file\nlog_dir = /var/log/x\nlog_buffer = 8k\n"
	    "log_file_max = 2M\nlog_file_keep = 2\n"), 0);
	errs = parse(&c, "a", "[service]\nexec = x\n");
	errs = (free(errs), parse(&c, "b", "[service]\nexec = x\nlog = none\n"
	    "log_buffer = 0\nlog_file_keep = 9\n"));
	assert_string_equal(errs, "");
	free(errs);
	errs = parse(&c, "sh", "[service]\nexec = /bin/sh\nconsole = yes\n");
	assert_string_equal(errs, "");
	free(errs);
	assert_string_equal(c.sup.log_dir, "/var/log/x");
	assert_int_equal(c.defs[0]->log.sink, SINK_FILE);
	assert_int_equal(c.defs[0]->log.buffer, 8192);
	assert_int_equal(c.defs[0]->log.file_max, 2 << 20);
	assert_int_equal(c.defs[0]->log.file_keep, 2);
	assert_int_equal(c.defs[1]->log.sink, SINK_NONE);
	assert_int_equal(c.defs[1]->log.buffer, 0);
	assert_int_equal(c.defs[1]->log.file_keep, 9);
	assert_true(c.defs[2]->console);
	conf_free(&c);

	expect("[service]\nexec = x\nlog = journal\n", "web.ini:3: log: "
	    "expected console, kmsg, file, none or syslog, not 'journal'\n");
	expect("[service]\nexec = x\nsyslog_level = loud\n", "web.ini:3: "
	    "syslog_level: expected emerg, alert, crit, err, warning, notice, "
	    "info or debug, not 'loud'\n");

	expect("[service]\nexec = x\nlog_buffer = 100\n", "web.ini:3: "
	    "log_buffer: expected 0 or a size from 4k to 16M, not '100'\n");
	expect("[service]\nexec = x\nlog_file_max = 1\n", "web.ini:3: "
	    "log_file_max: expected a size of at least 4k, such as 10M, not "
	    "'1'\n");
	expect("[service]\nexec = x\nlog_file_keep = lots\n", "web.ini:3: "
	    "log_file_keep: expected a number from 0 to 1000, not 'lots'\n");
	expect("[service]\nexec = x\nconsole = yes\nlog = file\n",
	    "web.ini:4: log: a console service's output goes to the console, "
	    "not to a log\n");
}

/* cgroup limits, kill mode and priority; the console is never killed. */
static void
test_memory_keys(void **state)
{
	struct conf	 c;
	char		*errs;

	(void)state;
	conf_init(&c);
	errs = parse(&c, "a", "[service]\nexec = x\nmemory_max = 256M\n"
	    "memory_high = 200M\npids_max = 64\nkill_mode = cgroup\n"
	    "kill_priority = 70\n");
	assert_string_equal(errs, "");
	free(errs);
	errs = parse(&c, "b", "[service]\nexec = x\nmemory_max = max\n"
	    "kill_mode = group\nkill_priority = never\n");
	assert_string_equal(errs, "");
	free(errs);
	errs = parse(&c, "c", "[service]\nexec = x\nconsole = yes\n");
	free(errs);
	errs = parse(&c, "d", "[service]\nexec = x\n");
	free(errs);
	errs = parse(&c, "e", "[service]\nexec = x\noom_score_adj = -1000\n");
	assert_string_equal(errs, "");
	free(errs);
	errs = parse(&c, "f", "[service]\nexec = x\noom_score_adj = 1000\n");
	free(errs);
	assert_false(c.defs[3]->set_oom_score_adj);
	assert_true(c.defs[4]->set_oom_score_adj);
	assert_int_equal(c.defs[4]->oom_score_adj, -1000);
	assert_int_equal(c.defs[5]->oom_score_adj, 1000);
	assert_int_equal(c.defs[0]->memory_max, 256 << 20);
	assert_int_equal(c.defs[0]->memory_high, 200 << 20);
	assert_int_equal(c.defs[0]->pids_max, 64);
	assert_int_equal(c.defs[0]->kill_mode, KILL_CGROUP);
	assert_int_equal(c.defs[0]->kill_priority, 70);
	assert_int_equal(c.defs[1]->memory_max, 0);
	assert_int_equal(c.defs[1]->kill_mode, KILL_GROUP);
	assert_int_equal(c.defs[1]->kill_priority, KILL_PRIORITY_NEVER);
	assert_int_equal(c.defs[2]->kill_priority, KILL_PRIORITY_NEVER);
	assert_int_equal(c.defs[3]->kill_priority, 0);
	assert_int_equal(c.defs[3]->kill_mode, KILL_CGROUP);	/* default */
	conf_free(&c);

	expect("[service]\nexec = x\nmemory_max = 12\n", "web.ini:3: "
	    "memory_max: expected a size such as 256M (at least 1048576 "
	    "bytes) or max, not '12'\n");
	expect("[service]\nexec = x\nmemory_max = 100M\nmemory_high = 200M\n",
	    "web.ini:4: memory_high is above memory_max\n");
	expect("[service]\nexec = x\npids_max = 0\n", "web.ini:3: pids_max: "
	    "expected a number from 1 to 4194304 or max, not '0'\n");
	expect("[service]\nexec = x\nkill_mode = mixed\n", "web.ini:3: "
	    "kill_mode: expected process, group or cgroup, not 'mixed'\n");
	expect("[service]\nexec = x\nkill_priority = -1\n", "web.ini:3: "
	    "kill_priority: expected a number from 0 to 1000 or never, not "
	    "'-1'\n");
	expect("[service]\nexec = x\noom_score_adj = -1001\n", "web.ini:3: "
	    "oom_score_adj: expected a number from -1000 to 1000, not "
	    "'-1001'\n");
	expect("[service]\nexec = x\noom_score_adj = --5\n", "web.ini:3: "
	    "oom_score_adj: expected a number from -1000 to 1000, not "
	    "'--5'\n");
	expect("[service]\nexec = x\noom_score_adj = 1001\n", "web.ini:3: "
	    "oom_score_adj: expected a number from -1000 to 1000, not "
	    "'1001'\n");
}

/* metrics_listen and syslog_socket; the services' syslog keys. */
static void
test_observe_keys(void **state)
{
	struct conf	c;
	struct buf	b = { 0 };
	char		*got;

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "metrics_listen = 9100\nsyslog_socket = /run/l\nlog = syslog\n"),
	    0);
	assert_string_equal(c.sup.metrics_listen, "9100");
	assert_string_equal(c.sup.syslog_socket, "/run/l");
	assert_int_equal(c.sup.log.sink, SINK_SYSLOG);
	got = parse(&c, "web", "[service]\nexec = x\nsyslog_facility = local0\n"
	    "syslog_level = notice\n");
	assert_string_equal(got, "");
	free(got);
	assert_int_equal(c.defs[0]->log.sink, SINK_SYSLOG);	/* inherited */
	assert_int_equal(c.defs[0]->syslog_facility, 12);
	assert_int_equal(c.defs[0]->syslog_level, 5);
	assert_int_equal(c.defs[0]->syslog_error_level, 3);	/* err */
	conf_free(&c);

	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "metrics_listen = localhost:9100\nsyslog_socket = dev/log\n"),
	    -EINVAL);
	assert_int_equal(conf_parse_sup(&c, "q.ini", "[supervisor]\n"
	    "metrics_listen = 1.2.3.4:65536\n"), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data, "p.ini:2: metrics_listen: expected "
	    "HOST:PORT, [ADDR]:PORT or PORT (an address, not a name), or none; "
	    "not 'localhost:9100'\n"
	    "p.ini:3: syslog_socket: 'dev/log' is not an absolute path\n"
	    "q.ini:2: metrics_listen: expected HOST:PORT, [ADDR]:PORT or PORT "
	    "(an address, not a name), or none; not '1.2.3.4:65536'\n");
	buf_free(&b);
	conf_free(&c);
}

/* The killer's trigger and the cgroup settings of pidvisor.ini. */
static void
test_pressure_keys(void **state)
{
	struct conf	c;
	struct buf	b = { 0 };

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "pressure = full 50000 2000000\npressure_file = cgroup\n"
	    "pressure_kill_timeout = 500ms\ncgroup_root = /sys/fs/cgroup/x\n"
	    "cgroup_memory_high = 1G\npressure_calm = 3s\n"
	    "pressure_calm_max = 2m\npressure_critical = some 200ms 2s\n"
	    "pressure_min_available = 2.5%\npressure_min_priority = 0\n"
	    "pressure_policy = lmkd\n"), 0);
	assert_int_equal(c.sup.pressure_policy, 1);
	assert_int_equal(c.sup.pressure_crit_stall, 200000);
	assert_int_equal(c.sup.pressure_crit_window, 2000000);
	assert_false(c.sup.pressure_crit_full);
	assert_int_equal(c.sup.pressure_min_pct, 250);
	assert_int_equal(c.sup.pressure_min_priority, 0);
	assert_int_equal(c.sup.pressure_calm, 3000);
	assert_int_equal(c.sup.pressure_calm_max, 120000);
	assert_true(c.sup.pressure_full);
	assert_int_equal(c.sup.pressure_stall, 50000);
	assert_int_equal(c.sup.pressure_window, 2000000);
	assert_int_equal(c.sup.pressure_kill_timeout, 500);
	assert_string_equal(c.sup.pressure_file, "cgroup");
	assert_string_equal(c.sup.cgroup_root, "/sys/fs/cgroup/x");
	assert_int_equal(c.sup.cgroup_memory_high, 1 << 30);
	conf_free(&c);

	/* Durations too; a bare number stays microseconds. */
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "pressure = some 150ms 1s\npressure_calm = 1h30m\n"), 0);
	assert_int_equal(c.sup.pressure_stall, 150000);
	assert_int_equal(c.sup.pressure_window, 1000000);
	assert_int_equal(c.sup.pressure_calm, 5400000);
	conf_free(&c);

	/* The defaults: critical at full 300ms 1s, no floor, and the
	 * default kill_priority (0) no victim at medium pressure. */
	conf_init(&c);
	assert_int_equal(c.sup.pressure_crit_stall, 300000);
	assert_true(c.sup.pressure_crit_full);
	assert_int_equal(c.sup.pressure_kill_timeout, 300);
	assert_int_equal(c.sup.pressure_min_priority, 1);
	assert_int_equal(c.sup.pressure_policy, 0);
	assert_null(c.sup.pressure_min_str);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "pressure_min_available = 200M\npressure_critical = off\n"), 0);
	assert_int_equal(c.sup.pressure_min_available, 200 << 20);
	assert_int_equal(c.sup.pressure_min_pct, 0);
	assert_int_equal(c.sup.pressure_crit_stall, 0);
	conf_free(&c);

	conf_init(&c);
	assert_int_equal(c.sup.pressure_calm, 10000);
	assert_int_equal(c.sup.pressure_calm_max, 300000);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "pressure = some 1 100\npressure_file = relative\n"), -EINVAL);
	assert_int_equal(conf_parse_sup(&c, "q.ini", "[supervisor]\n"
	    "pressure = most 1 1000000\n"), -EINVAL);
	assert_int_equal(conf_parse_sup(&c, "r.ini", "[supervisor]\n"
	    "pressure = some 2000000 1000000\n"), -EINVAL);
	assert_int_equal(conf_parse_sup(&c, "s.ini", "[supervisor]\n"
	    "pressure_min_available = 60%\npressure_min_priority = 1001\n"
	    "pressure_critical = full 1s\n"), -EINVAL);
	assert_int_equal(conf_parse_sup(&c, "t.ini", "[supervisor]\n"
	    "pressure_min_available = lots\npressure_policy = oomd\n"),
	    -EINVAL);
	conf_errors(&c, &b);
	assert_non_null(strstr(b.data, "s.ini:2: pressure_min_available: "
	    "expected a percent above 0 and at most 50%, not '60%'"));
	assert_non_null(strstr(b.data, "t.ini:2: pressure_min_available: "
	    "expected off, a percent of the memory (5%) or a size (200M), "
	    "not 'lots'"));
	assert_non_null(strstr(b.data, "t.ini:3: pressure_policy: expected "
	    "pidvisor or lmkd, not 'oomd'"));
	assert_non_null(strstr(b.data, "s.ini:3: pressure_min_priority: "
	    "expected a kill_priority from 0 to 1000, not '1001'"));
	assert_non_null(strstr(b.data, "s.ini:4: pressure_critical: expected "
	    "off or some|full"));
	assert_non_null(strstr(b.data, "p.ini:2: pressure: expected off or "
	    "some|full STALL WINDOW"));
	assert_non_null(strstr(b.data, "q.ini:2: pressure:"));
	assert_non_null(strstr(b.data, "r.ini:2: pressure:"));
	assert_non_null(strstr(b.data, "p.ini:3: pressure_file: 'relative' "
	    "is not an absolute path"));
	buf_free(&b);
	conf_free(&c);
}

/*
 * Every key of the table, with a value that is not its default, written
 * the way `show` writes it.  A key added to the table without a line
 * here fails test_every_key_table.
 */
static const struct {
	uint8_t		 section;
	const char	*name;
	const char	*value;
} key_examples[] = {
	{ SEC_SERVICE, "exec", "/bin/other -x" },
	{ SEC_SERVICE, "restart", "never" },
	{ SEC_SERVICE, "restart_delay", "1s" },
	{ SEC_SERVICE, "restart_delay_max", "1m" },
	{ SEC_SERVICE, "success_exit_status", "143 SIGHUP" },
	{ SEC_SERVICE, "pid_file", "/run/web.pid" },
	{ SEC_SERVICE, "start_limit_burst", "9" },
	{ SEC_SERVICE, "start_limit_interval", "1h30m" },
	{ SEC_SERVICE, "ready", "fd:3" },
	{ SEC_SERVICE, "ready_timeout", "5s" },
	{ SEC_SERVICE, "watchdog", "2s" },
	{ SEC_SERVICE, "requires", "db cache" },
	{ SEC_SERVICE, "after", "db" },
	{ SEC_SERVICE, "stop_signal", "INT" },
	{ SEC_SERVICE, "stop_timeout", "250ms" },
	{ SEC_SERVICE, "user", "alice" },
	{ SEC_SERVICE, "group", "audio" },
	{ SEC_SERVICE, "workdir", "/srv" },
	{ SEC_SERVICE, "env", "A=1" },
	{ SEC_SERVICE, "umask", "0077" },
	{ SEC_SERVICE, "limit_nofile", "100" },
	{ SEC_SERVICE, "enabled", "no" },
	{ SEC_SERVICE, "log", "none" },
	{ SEC_SERVICE, "log_buffer", "8k" },
	{ SEC_SERVICE, "log_file_max", "2M" },
	{ SEC_SERVICE, "log_file_keep", "2" },
	{ SEC_SERVICE, "console", "yes" },
	{ SEC_SERVICE, "memory_max", "64M" },
	{ SEC_SERVICE, "memory_high", "32M" },
	{ SEC_SERVICE, "pids_max", "10" },
	{ SEC_SERVICE, "kill_mode", "process" },
	{ SEC_SERVICE, "kill_priority", "never" },
	{ SEC_SERVICE, "oom_score_adj", "-5" },
	{ SEC_SUPERVISOR, "control_socket", "/run/x/c.sock" },
	{ SEC_SUPERVISOR, "notify_dir", "/run/x/notify" },
	{ SEC_SUPERVISOR, "shutdown_timeout", "45s" },
	{ SEC_SUPERVISOR, "control_mode", "0660" },
	{ SEC_SUPERVISOR, "max_clients", "8" },
	{ SEC_SUPERVISOR, "client_timeout", "3s" },
	{ SEC_SUPERVISOR, "log", "none" },
	{ SEC_SUPERVISOR, "log_buffer", "8k" },
	{ SEC_SUPERVISOR, "log_file_max", "2M" },
	{ SEC_SUPERVISOR, "log_file_keep", "2" },
	{ SEC_SUPERVISOR, "log_dir", "/var/log/x" },
	{ SEC_SUPERVISOR, "log_level", "debug" },
	{ SEC_SUPERVISOR, "cgroup_root", "/sys/fs/cgroup/x" },
	{ SEC_SUPERVISOR, "cgroup_memory_high", "1G" },
	{ SEC_SUPERVISOR, "pressure", "full 100000 2000000" },
	{ SEC_SUPERVISOR, "pressure_file", "/proc/pressure/io" },
	{ SEC_SUPERVISOR, "pressure_reclaim", "mrelease" },
	{ SEC_SUPERVISOR, "pressure_kill_timeout", "500ms" },
	{ SEC_SUPERVISOR, "pressure_calm", "3s" },
	{ SEC_SUPERVISOR, "pressure_calm_max", "1m30s" },
	{ SEC_SUPERVISOR, "crash_action", "reboot" },
	{ SEC_SERVICE, "essential", "yes" },
	{ SEC_SUPERVISOR, "mode", "container" },
	{ SEC_SUPERVISOR, "control_group", "4711" },
	{ SEC_SUPERVISOR, "log_format", "json" },
	{ SEC_SERVICE, "settle", "2s" },
	{ SEC_SERVICE, "instances", "ttyS0 tty1" },
	{ SEC_SERVICE, "env_file", "-/etc/default/web" },
	{ SEC_SERVICE, "reload_signal", "USR1" },
	{ SEC_SERVICE, "reload_exec", "/bin/kill -HUP $MAINPID" },
	{ SEC_SERVICE, "start_pre_exec", "/bin/mkdir -p /run/web" },
	{ SEC_SERVICE, "start_post_exec", "/bin/echo up" },
	{ SEC_SERVICE, "stop_exec", "/bin/kill -TERM $MAINPID" },
	{ SEC_SERVICE, "stop_post_exec", "/bin/rm -f /run/web/pid" },
	{ SEC_SERVICE, "on_failure_exec", "/bin/echo failed" },
	{ SEC_SERVICE, "health_exec", "/bin/true" },
	{ SEC_SERVICE, "health_interval", "5s" },
	{ SEC_SERVICE, "health_timeout", "2s" },
	{ SEC_SERVICE, "health_retries", "5" },
	{ SEC_SERVICE, "health_start_period", "20s" },
	{ SEC_SUPERVISOR, "metrics_listen", "[::1]:9464" },
	{ SEC_SUPERVISOR, "metrics_users", "root" },
	{ SEC_SUPERVISOR, "syslog_socket", "/run/log.sock" },
	{ SEC_SERVICE, "syslog_facility", "local3" },
	{ SEC_SERVICE, "syslog_level", "notice" },
	{ SEC_SERVICE, "syslog_error_level", "warning" },
	{ SEC_SERVICE, "no_new_privs", "yes" },
	{ SEC_SERVICE, "capabilities", "CAP_CHOWN CAP_NET_BIND_SERVICE" },
	{ SEC_SERVICE, "private_tmp", "yes" },
	{ SEC_SERVICE, "private_network", "yes" },
	{ SEC_SERVICE, "private_devices", "yes" },
	{ SEC_SERVICE, "protect_kernel_tunables", "yes" },
	{ SEC_SERVICE, "protect_system", "strict" },
	{ SEC_SERVICE, "protect_home", "read-only" },
	{ SEC_SERVICE, "read_only_paths", "/srv -/opt/x" },
	{ SEC_SERVICE, "read_write_paths", "/var/lib/web" },
	{ SEC_SERVICE, "inaccessible_paths", "/etc/ssl/private" },
	{ SEC_SERVICE, "no_exec_paths", "/" },
	{ SEC_SERVICE, "exec_paths", "/usr -/opt/bin" },
	{ SEC_SERVICE, "protect_proc", "invisible" },
	{ SEC_SERVICE, "proc_subset", "pid" },
	{ SEC_SERVICE, "remove_ipc", "yes" },
	{ SEC_SERVICE, "syslog_identifier", "web-frontend" },
	{ SEC_SERVICE, "send_sighup", "yes" },
	{ SEC_SERVICE, "root_directory", "/srv/jail" },
	{ SEC_SERVICE, "syscall_filter", "~@mount @reboot ptrace" },
	{ SEC_SERVICE, "syscall_errno", "ENOSYS" },
	{ SEC_SERVICE, "nice", "-5" },
	{ SEC_SERVICE, "cpu_affinity", "0 2-3" },
	{ SEC_SERVICE, "io_class", "idle" },
	{ SEC_SERVICE, "io_priority", "6" },
	{ SEC_SERVICE, "cpu_weight", "50" },
	{ SEC_SERVICE, "cpu_max", "20ms 100ms" },
	{ SEC_SERVICE, "io_weight", "200" },
	{ SEC_SERVICE, "limit_as", "1G:2G" },
	{ SEC_SERVICE, "limit_core", "0" },
	{ SEC_SERVICE, "limit_cpu", "30:300" },
	{ SEC_SERVICE, "limit_data", "infinity" },
	{ SEC_SERVICE, "limit_fsize", "1M" },
	{ SEC_SERVICE, "limit_locks", "100" },
	{ SEC_SERVICE, "limit_memlock", "64k" },
	{ SEC_SERVICE, "limit_msgqueue", "800k" },
	{ SEC_SERVICE, "limit_nice", "30" },
	{ SEC_SERVICE, "limit_nproc", "50:60" },
	{ SEC_SERVICE, "limit_rss", "1G" },
	{ SEC_SERVICE, "limit_rtprio", "10" },
	{ SEC_SERVICE, "limit_rttime", "200000:1000000" },
	{ SEC_SERVICE, "limit_sigpending", "1000" },
	{ SEC_SERVICE, "limit_stack", "8M" },
	{ SEC_SERVICE, "listen", "tcp:127.0.0.1:8080" },
	{ SEC_SERVICE, "listen_backlog", "128" },
	{ SEC_SERVICE, "listen_owner", "alice" },
	{ SEC_SERVICE, "listen_mode", "0660" },
	{ SEC_SERVICE, "on_demand", "yes" },
	{ SEC_SERVICE, "accept", "yes" },
	{ SEC_SERVICE, "max_connections", "10" },
	{ SEC_SERVICE, "max_connections_per_source", "3" },
	{ SEC_SERVICE, "trigger_limit_interval", "10s" },
	{ SEC_SERVICE, "trigger_limit_burst", "7" },
	{ SEC_SERVICE, "fdstore_max", "4" },
	{ SEC_SUPERVISOR, "pressure_critical", "some 200000 2000000" },
	{ SEC_SUPERVISOR, "pressure_min_available", "5%" },
	{ SEC_SUPERVISOR, "pressure_min_priority", "100" },
	{ SEC_SUPERVISOR, "pressure_policy", "lmkd" },
	{ SEC_SERVICE, "memory_pressure_watch", "on" },
	{ SEC_SERVICE, "memory_pressure_threshold", "1s" },
	{ SEC_SERVICE, "on_calendar", "Mon..Fri 09:00 Europe/Berlin" },
	{ SEC_SERVICE, "on_boot", "15m" },
	{ SEC_SERVICE, "on_startup", "1h30m" },
	{ SEC_SERVICE, "on_active", "2d" },
	{ SEC_SERVICE, "on_unit_active", "7d" },
	{ SEC_SERVICE, "on_unit_inactive", "1m30s" },
	{ SEC_SERVICE, "persistent", "yes" },
	{ SEC_SERVICE, "randomized_delay", "12h" },
	{ SEC_SERVICE, "fixed_random_delay", "yes" },
	{ SEC_SERVICE, "accuracy", "1s" },
	{ SEC_SERVICE, "wake_system", "no" },
	{ SEC_SERVICE, "defer_under_pressure", "yes" },
	{ SEC_SERVICE, "defer_max", "10m" },
	{ SEC_SUPERVISOR, "state_dir", "/srv/pidvisor" },
	{ SEC_SUPERVISOR, "systemd_units", "yes" },
	{ SEC_SUPERVISOR, "unit_path", "/srv/units:/etc/units" },
	{ SEC_SERVICE, "condition", "path_exists !/etc/web/disabled" },
	{ SEC_SERVICE, "assert", "path_is_directory /srv/web" },
	{ SEC_SERVICE, "condition_exec", "/usr/bin/web-check" },
	{ SEC_SERVICE, "runtime_directory", "web web/sockets" },
	{ SEC_SERVICE, "state_directory", "web" },
	{ SEC_SERVICE, "cache_directory", "web" },
	{ SEC_SERVICE, "logs_directory", "web" },
	{ SEC_SERVICE, "configuration_directory", "web" },
	{ SEC_SERVICE, "runtime_directory_mode", "0750" },
	{ SEC_SERVICE, "state_directory_mode", "0700" },
	{ SEC_SERVICE, "cache_directory_mode", "0700" },
	{ SEC_SERVICE, "logs_directory_mode", "0750" },
	{ SEC_SERVICE, "configuration_directory_mode", "0750" },
	{ SEC_SERVICE, "runtime_directory_preserve", "restart" },
	{ SEC_SERVICE, "restart_prevent_exit_status", "255 SEGV" },
	{ SEC_SERVICE, "restart_force_exit_status", "75" },
	{ SEC_SERVICE, "tty", "/dev/tty1" },
	{ SEC_SERVICE, "tty_busy", "steal" },
	{ SEC_SERVICE, "tty_reset", "yes" },
	{ SEC_SERVICE, "tty_vhangup", "yes" },
	{ SEC_SERVICE, "tty_vt_disallocate", "yes" },
	{ SEC_SERVICE, "ignore_sigpipe", "yes" },
	{ SEC_SUPERVISOR, "watch_units", "yes" },
	{ SEC_SERVICE, "lock_personality", "yes" },
	{ SEC_SERVICE, "memory_deny_write_execute", "yes" },
	{ SEC_SERVICE, "restrict_realtime", "yes" },
	{ SEC_SERVICE, "restrict_suid_sgid", "yes" },
	{ SEC_SERVICE, "restrict_namespaces", "~net user" },
	{ SEC_SERVICE, "restrict_address_families", "AF_UNIX AF_INET AF_INET6" },
	{ SEC_SERVICE, "system_call_architectures", "native" },
	{ SEC_SERVICE, "protect_kernel_modules", "yes" },
	{ SEC_SERVICE, "protect_kernel_logs", "yes" },
	{ SEC_SERVICE, "protect_clock", "yes" },
	{ SEC_SERVICE, "protect_control_groups", "yes" },
	{ SEC_SERVICE, "protect_hostname", "yes" },
};

/* A key only a template takes. */
static bool
tmpl_key(const struct conf_key *k)
{
	return !strcmp(k->name, "instances") || !strcmp(k->name, "accept") ||
	    !strcmp(k->name, "max_connections") ||
	    !strcmp(k->name, "max_connections_per_source");
}

/*
 * Each key: changing it makes a different definition (but enabled) or
 * a different pidvisor.ini; show writes back what was parsed; a live
 * supervisor key copies over.  Every key of the table is here.
 */
static void
test_every_key_table(void **state)
{
	struct buf	 t = { 0 }, shown = { 0 };
	struct conf	 c;
	size_t		 i, j, n;

	(void)state;
	for (i = 0; i < K__COUNT; i++) {
		for (j = n = 0; j < ARRAY_SIZE(key_examples); j++)
			n += key_examples[j].section == conf_keys[i].section &&
			    !strcmp(key_examples[j].name, conf_keys[i].name);
		if (n != 1)
			print_error("key %s: %zu examples\n",
			    conf_keys[i].name, n);
		assert_int_equal(n, 1);
	}
	for (j = 0; j < ARRAY_SIZE(key_examples); j++) {
		const struct conf_key	*k = conf_key_find(
		    key_examples[j].section, key_examples[j].name);
		const void		*a, *b;
		struct conf		 d;

		assert_non_null(k);
		conf_init(&c);
		conf_init(&d);
		c.etc = d.etc = etc;
		t.len = 0;
		if (k->section == SEC_SERVICE) {
			/* ready = notify in both: watchdog needs it;
			 * pid_file, ready = forking. */
			buf_printf(&t, "[service]\n%s%s = %s\n",
			    strcmp(k->name, "exec") ? "exec = /bin/a\n" : "",
			    k->name, key_examples[j].value);
			if (strcmp(k->name, "ready"))
				buf_puts(&t, strcmp(k->name, "pid_file") ?
				    "ready = notify\n" : "ready = forking\n");
			/* The pace of a check needs the check. */
			if (!strncmp(k->name, "health_", 7) &&
			    strcmp(k->name, "health_exec"))
				buf_puts(&t, "health_exec = /bin/true\n");
			/* The options of sockets need one; accept, a
			 * template. */
			if ((!strncmp(k->name, "listen_", 7) ||
			    !strcmp(k->name, "on_demand") ||
			    (tmpl_key(k) && strcmp(k->name, "instances"))))
				buf_puts(&t, "listen = unix:/run/x.sock\n");
			if (!strncmp(k->name, "max_connections", 15))
				buf_puts(&t, "accept = yes\n");
			/* A timer's settings need a timer. */
			if (k - conf_keys > K_ON_UNIT_INACTIVE &&
			    k - conf_keys <= K_DEFER_MAX)
				buf_puts(&t, "on_calendar = daily\n");
			/* A trigger limit limits clients of a socket. */
			if (!strncmp(k->name, "trigger_limit_", 14))
				buf_puts(&t, "listen = unix:/run/x.sock\n"
				    "on_demand = yes\n");
			/* A terminal's steps need the terminal. */
			if (!strncmp(k->name, "tty_", 4))
				buf_puts(&t, "tty = /dev/tty1\n");
			buf_add(&t, "", 1);
			assert_int_equal(conf_parse_service(&c, "x.ini", "x",
			    "[service]\nexec = /bin/a\nready = notify\n"), 0);
			/* instances: in a template only. */
			const struct conf_tmpl	 tm = { "y@", "y@.ini",
						    t.data };
			struct svc_def		*yd;

			if ((!tmpl_key(k) ?
			    conf_parse_service(&c, "y.ini", "y", t.data) :
			    conf_instance(&c, &tm, "y@a", &yd)) < 0) {
				conf_errors(&c, &shown);
				print_error("%s", shown.data);
			}
			assert_int_equal(c.nerrs, 0);
			a = c.defs[0];
			b = c.defs[1];
			if (svc_def_equal(a, b) != !!(k->flags & KEY_LIVE))
				print_error("key %s\n", k->name);
			assert_true(svc_def_equal(a, b) ==
			    !!(k->flags & KEY_LIVE));
		} else {
			buf_printf(&t, "[supervisor]\n%s = %s\n", k->name,
			    key_examples[j].value);
			buf_add(&t, "", 1);
			assert_int_equal(conf_parse_sup(&c, "p.ini", t.data),
			    0);
			a = &d.sup;
			b = &c.sup;
		}
		/* wake_system: only its default is taken. */
		if (strcmp(k->name, "wake_system") != 0)
			assert_false(conf_key_equal(k, a, b));
		shown.len = 0;
		conf_key_show(&shown, k, b);
		buf_add(&shown, "", 1);
		assert_string_equal(shown.data, key_examples[j].value);
		if (k->section == SEC_SUPERVISOR && (k->flags & KEY_LIVE)) {
			assert_int_equal(conf_key_copy(k, &d.sup, b), 0);
			assert_true(conf_key_equal(k, &d.sup, b));
		}
		conf_free(&c);
		conf_free(&d);
	}
	buf_free(&t);
	buf_free(&shown);
}

/*
 * A command's words as its one line (a release before state version 11
 * kept reload_exec as words): argv_split() reads the line back as the
 * same words, quotes, blanks and backslashes too.
 */
static void
test_argv_to_line(void **state)
{
	static const char *const cases[][4] = {
		{ "/bin/kill", "-HUP", "$MAINPID", NULL },
		{ "/bin/sh", "-c", "echo \"a b\" \\ 'c'", NULL },
		{ "/usr/bin/x", "", "tab\there", NULL },
		{ "-first", "a\001b", "q\"uote", NULL },
	};
	size_t	i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char		**v = NULL, **back = NULL;
		const char	 *why;

		for (j = 0; cases[i][j]; j++)
			v = strv_add(v, cases[i][j]);
		assert_int_equal(conf_argv_to_line(&v), 0);
		assert_int_equal(strv_len(v), 1);
		assert_int_equal(argv_split(v[0], &back, &why), 0);
		for (j = 0; cases[i][j]; j++)
			assert_string_equal(back[j], cases[i][j]);
		assert_null(back[j]);
		strv_free(v);
		strv_free(back);
	}
}

/* An exit status list names a signal by its name only. */
static void
test_restart_listed(void **state)
{
	char	*v[] = { "6", "ABRT", NULL }, *w[] = { "6", NULL };

	(void)state;
	assert_true(restart_listed(v, 6, 0));
	assert_true(restart_listed(v, 0, 6));		/* by ABRT */
	assert_false(restart_listed(w, 0, 6));		/* 6: an exit code */
	assert_false(restart_listed(w, 7, 0));
}

/* A key of pidvisor.ini given twice is an error, as in [service]. */
static void
test_sup_key_twice(void **state)
{
	struct conf	c;
	struct buf	b = { 0 };

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "p.ini", "[supervisor]\n"
	    "max_clients = 8\nmax_clients = 9\n"), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data, "p.ini:3: 'max_clients' given twice "
	    "(first on line 2)\n");
	buf_free(&b);
	conf_free(&c);
}

/* Typos and systemd's names get a hint. */
static void
test_key_hints(void **state)
{
	(void)state;
	expect("[service]\nexec = /bin/true\nrestrat = never\n"
	    "ExecStart = /bin/true\nstop_timout = 1s\nfrobnicate = 1\n",
	    "web.ini:3: unknown key 'restrat' (did you mean 'restart'?)\n"
	    "web.ini:4: unknown key 'ExecStart' (systemd's name; pidvisor's "
	    "is 'exec')\n"
	    "web.ini:5: unknown key 'stop_timout' (did you mean "
	    "'stop_timeout'?)\n"
	    "web.ini:6: unknown key 'frobnicate'\n");
	expect("[Service]\nexec = /bin/true\n",
	    "web.ini:1: unknown section [Service] (section names are "
	    "lower-case: [service])\n"
	    "web.ini:1: missing required key 'exec'\n");
	expect("[Unit]\nexec = /bin/true\n",
	    "web.ini:1: unknown section [Unit] (systemd's; pidvisor has one "
	    "section, [service], where requires and after go too)\n"
	    "web.ini:1: missing required key 'exec'\n");
}

/* Equal definitions are those that would run the same way. */
static void
test_def_equal(void **state)
{
	static const char *const base = "[service]\nexec = /bin/a b\n"
	    "requires = db\nenv = A=1\n";
	static const char *const differ[] = {
		"[service]\nexec = /bin/a c\nrequires = db\nenv = A=1\n",
		"[service]\nexec = /bin/a b\nrequires = db2\nenv = A=1\n",
		"[service]\nexec = /bin/a b\nrequires = db\nenv = A=2\n",
		"[service]\nexec = /bin/a b\nrequires = db\nenv = A=1\n"
		    "restart = never\n",
		"[service]\nexec = /bin/a b\nrequires = db\nenv = A=1\n"
		    "log = none\n",
		"[service]\nexec = /bin/a b\nrequires = db\nenv = A=1\n"
		    "stop_timeout = 3s\n",
		"[service]\nexec = /bin/a b\nrequires = db\nenv = A=1\n"
		    "oom_score_adj = 0\n",
	};
	struct conf	c;
	size_t		i;
	char		name[16];

	(void)state;
	conf_init(&c);
	conf_parse_service(&c, "x", "x", base);
	conf_parse_service(&c, "y", "y", "[service]\nexec = /bin/a  \"b\"\n"
	    "requires = db\nenv = A=1\nenabled = no\n");
	assert_true(svc_def_equal(c.defs[0], c.defs[1]));
	for (i = 0; i < ARRAY_SIZE(differ); i++) {
		snprintf(name, sizeof(name), "d%zu", i);
		conf_parse_service(&c, name, name, differ[i]);
		assert_false(svc_def_equal(c.defs[0], c.defs[2 + i]));
	}
	assert_int_equal(c.nerrs, 0);
	conf_free(&c);
}

/* Long values go on over indented lines. */
static void
test_continuation(void **state)
{
	struct conf	 c;
	char		*errs;

	(void)state;
	conf_init(&c);
	errs = parse(&c, "a", "[service]\n"
	    "exec = /bin/echo one\n"
	    "    two \"three four\"\n"
	    "\tfive\n"
	    "env = A=1\n"
	    "  B=2\n");
	assert_string_equal(errs, "");
	free(errs);
	assert_string_equal(c.defs[0]->argv[1], "one");
	assert_string_equal(c.defs[0]->argv[2], "two");
	assert_string_equal(c.defs[0]->argv[3], "three four");
	assert_string_equal(c.defs[0]->argv[4], "five");
	assert_string_equal(c.defs[0]->env[1], "B=2");
	conf_free(&c);
}

/* Every error message, with its line. */
static void
test_errors(void **state)
{
	(void)state;
	expect("[service]\n", "web.ini:1: missing required key 'exec'\n");
	expect("", "web.ini:1: missing required key 'exec'\n");
	expect("[service]\nexec = x\nfoo = 1\n",
	    "web.ini:3: unknown key 'foo'\n");
	expect("[service]\nexec = x\nexec = y\n",
	    "web.ini:3: 'exec' given twice (first on line 2)\n");
	expect("exec = x\n",
	    "web.ini:1: key 'exec' outside the [service] section\n"
	    "web.ini:1: missing required key 'exec'\n");
	expect("[service]\nexec = x\n[unit]\nfoo = 1\nbar = 2\n",
	    "web.ini:3: unknown section [unit] (expected [service])\n");
	expect("[service\nexec = x\n",
	    "web.ini:1: missing ']' in section header\n"
	    "web.ini:1: missing required key 'exec'\n"
	    "web.ini:2: key 'exec' outside the [service] section\n");
	expect("[service]\nexec = x\njust words\n",
	    "web.ini:3: expected KEY = VALUE\n");
	expect("[service]\nexec = echo \"open\n",
	    "web.ini:2: exec: unterminated quote (\")\n");
	/* A quoted value arrives whole, its " ;" too; a bare one is a
	 * comment. */
	{
		struct conf	c;
		char		*errs;

		conf_init(&c);
		errs = parse(&c, "q", "[service]\nexec = /bin/sh -c \"echo a ; "
		    "echo b\" 'x ;y' ; a comment\n");
		assert_string_equal(errs, "");
		free(errs);
		assert_string_equal(c.defs[0]->argv[2], "echo a ; echo b");
		assert_string_equal(c.defs[0]->argv[3], "x ;y");
		assert_null(c.defs[0]->argv[4]);
		conf_free(&c);
	}
	expect("[service]\nexec = echo x\\\n",
	    "web.ini:2: exec: trailing backslash\n");
	expect("[service]\nexec = \"\"\"\"\n",
	    "web.ini:2: exec: the program name is empty\n");
	expect("[service]\nexec = x\nrestart = sometimes\n",
	    "web.ini:3: restart: expected always, on-failure, never, "
	    "on-success, on-abnormal, on-abort or on-watchdog, not "
	    "'sometimes'\n");
	expect("[service]\nexec = x\nrestart_delay = 5x\n",
	    "web.ini:3: restart_delay: invalid duration '5x' (use e.g. "
	    "100ms, 5s, 1h30m)\n");
	expect("[service]\nexec = x\nstop_timeout = 99999999999\n",
	    "web.ini:3: stop_timeout: duration '99999999999' is too long\n");
	expect("[service]\nexec = x\nrestart_delay = 5s\n"
	    "restart_delay_max = 1s\n",
	    "web.ini:4: restart_delay_max is shorter than restart_delay\n");
	expect("[service]\nexec = x\nrestart_delay = 1m\n",
	    "web.ini:3: restart_delay_max is shorter than restart_delay\n");
	expect("[service]\nexec = x\nstart_limit_burst = many\n",
	    "web.ini:3: start_limit_burst: expected a number from 0 to "
	    "100000, not 'many'\n");
	expect("[service]\nexec = x\npid_file = /run/x.pid\n",
	    "web.ini:3: pid_file: needs ready = forking (it names the "
	    "daemon)\n");
	expect("[service]\nexec = x\nready = forking\npid_file = x.pid\n",
	    "web.ini:4: pid_file: 'x.pid' is not an absolute path\n");
	expect("[service]\nexec = x\nsuccess_exit_status = 1 256\n",
	    "web.ini:3: success_exit_status: expected exit codes (0 to 255) "
	    "and signal names, not '256'\n");
	expect("[service]\nexec = x\nsuccess_exit_status = SIGFOO\n",
	    "web.ini:3: success_exit_status: expected exit codes (0 to 255) "
	    "and signal names, not 'SIGFOO'\n");
	expect("[service]\nexec = x\nready = fd:2\n",
	    "web.ini:3: ready: expected exec, fd:N, notify, exit, health or "
	    "forking (N from 3 to 1023), not 'fd:2'\n");
	expect("[service]\nexec = x\nready = socket\n",
	    "web.ini:3: ready: expected exec, fd:N, notify, exit, health or "
	    "forking (N from 3 to 1023), not 'socket'\n");
	expect("[service]\nexec = x\nwatchdog = 5s\n",
	    "web.ini:3: watchdog: needs ready = notify (pings come as "
	    "WATCHDOG=1)\n");
	expect("[service]\nexec = x\nstop_signal = SIGFOO\n",
	    "web.ini:3: stop_signal: unknown signal 'SIGFOO'\n");
	expect("[service]\nexec = x\nstop_signal = STOP\n",
	    "web.ini:3: stop_signal: unknown signal 'STOP'\n");
	expect("[service]\nexec = x\nworkdir = srv\n",
	    "web.ini:3: workdir: 'srv' is not an absolute path\n");
	expect("[service]\nexec = x\nenv = NOVALUE\n",
	    "web.ini:3: env: expected KEY=VALUE, not 'NOVALUE'\n");
	expect("[service]\nexec = x\nenv = 1X=2\n",
	    "web.ini:3: env: expected KEY=VALUE, not '1X=2'\n");
	expect("[service]\nexec = x\nenv = A-B=2\n",
	    "web.ini:3: env: invalid variable name in 'A-B=2'\n");
	expect("[service]\nexec = x\numask = 0999\n",
	    "web.ini:3: umask: expected an octal mode such as 022, not "
	    "'0999'\n");
	expect("[service]\nexec = x\nlimit_nofile = 0\n",
	    "web.ini:3: limit_nofile: expected a number from 1 to "
	    "1073741824, not '0'\n");
	expect("[service]\nexec = x\nenabled = maybe\n",
	    "web.ini:3: enabled: expected yes or no, not 'maybe'\n");
	expect("[service]\nexec = x\nrequires = bad/name\n",
	    "web.ini:3: requires: invalid service name 'bad/name'\n");
}

/* A message with a path in it: compare the start only. */
static void
test_errors_paths(void **state)
{
	struct conf	 c;
	char		*got;

	(void)state;
	conf_init(&c);
	c.etc = etc;
	got = parse(&c, "web", "[service]\nexec = x\nuser = mallory\n"
	    "group = nogroup\n");
	assert_non_null(strstr(got, "web.ini:4: group: no group 'nogroup' in "));
	assert_non_null(strstr(got, "web.ini:3: user: no user 'mallory' in "));
	free(got);
	conf_free(&c);

	conf_init(&c);
	c.etc = etc;
	got = parse(&c, "web", "[service]\nexec = x\nuser = 4242\n");
	assert_non_null(strstr(got, "web.ini:3: user: uid 4242 has no entry "
	    "in "));
	free(got);
	conf_free(&c);
}

/* All errors of a file are named, not just the first. */
static void
test_every_error_named(void **state)
{
	(void)state;
	expect("[service]\nrestart = x\nready = y\nfoo = z\nwhat\n",
	    "web.ini:1: missing required key 'exec'\n"
	    "web.ini:2: restart: expected always, on-failure, never, "
	    "on-success, on-abnormal, on-abort or on-watchdog, not "
	    "'x'\n"
	    "web.ini:3: ready: expected exec, fd:N, notify, exit, health or "
	    "forking (N from 3 to 1023), not 'y'\n"
	    "web.ini:4: unknown key 'foo'\n"
	    "web.ini:5: expected KEY = VALUE\n");
}

static void
test_line_too_long(void **state)
{
	struct buf	 t = { 0 };
	struct conf	 c;
	char		*got;

	(void)state;
	buf_puts(&t, "[service]\nexec = /bin/echo ");
	while (t.len < 400)
		buf_puts(&t, "word ");
	buf_puts(&t, "\nrestart = never\n");
	conf_init(&c);
	got = parse(&c, "web", t.data);
	assert_non_null(strstr(got, "web.ini:2: line too long (at most "));
	/* The tail of the long line is not taken for a line of its own. */
	assert_null(strstr(got, "web.ini:3"));
	assert_int_equal(c.defs[0]->restart, RESTART_NEVER);
	/* The long line was exec: that is the one error. */
	assert_null(strstr(got, "missing required key"));
	assert_int_equal(c.nerrs, 1);
	free(got);
	conf_free(&c);
	buf_free(&t);
}

static void
test_bad_name(void **state)
{
	struct conf	 c;
	char		*got;

	(void)state;
	conf_init(&c);
	got = parse(&c, "-web", "[service]\nexec = x\n");
	assert_string_equal(got, "-web.ini: '-web' is not a valid service "
	    "name (letters, digits, _.@- ; at most 64)\n");
	free(got);
	conf_free(&c);
	assert_true(conf_name_valid("getty@tty1"));
	assert_true(conf_name_valid("a.b_c-d"));
	assert_false(conf_name_valid("a b"));
	assert_false(conf_name_valid(".hidden"));
	assert_false(conf_name_valid(""));
}

/* Tree checks: unknown, self and cyclic dependencies. */
static void
test_dependencies(void **state)
{
	struct conf	 c;
	struct buf	 b = { 0 };

	(void)state;
	conf_init(&c);
	conf_parse_service(&c, "a.ini", "a", "[service]\nexec = x\n"
	    "requires = b\nafter = ghost\n");
	conf_parse_service(&c, "b.ini", "b", "[service]\nexec = x\n"
	    "\nrequires = c\n");
	conf_parse_service(&c, "c.ini", "c", "[service]\nexec = x\n"
	    "after = a\n");
	conf_parse_service(&c, "d.ini", "d", "[service]\nexec = x\n"
	    "requires = d\n");
	assert_int_equal(c.nerrs, 0);
	assert_int_equal(conf_check(&c), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data,
	    "a.ini:4: after: unknown service 'ghost'\n"
	    "c.ini:3: after: dependency cycle: a -> b -> c -> a\n"
	    "d.ini:3: requires: a service cannot depend on itself\n");
	buf_free(&b);
	conf_free(&c);

	/* The cycle alone, reported once though z depends on all of it. */
	conf_init(&c);
	conf_parse_service(&c, "a.ini", "a", "[service]\nexec = x\n"
	    "requires = b\n");
	conf_parse_service(&c, "b.ini", "b", "[service]\nexec = x\n"
	    "\nrequires = c\n");
	conf_parse_service(&c, "c.ini", "c", "[service]\nexec = x\n"
	    "after = a\n");
	conf_parse_service(&c, "z.ini", "z", "[service]\nexec = x\n"
	    "requires = a b c\n");
	assert_int_equal(conf_check(&c), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data, "c.ini:3: after: dependency cycle: "
	    "a -> b -> c -> a\n");
	buf_free(&b);
	conf_free(&c);
}

/* A long chain is checked without deep recursion. */
static void
test_long_chain(void **state)
{
	struct conf	c;
	char		name[32], text[128];
	int		i, n = 20000;

	(void)state;
	conf_init(&c);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%05d", i);
		if (i + 1 < n)
			snprintf(text, sizeof(text), "[service]\nexec = x\n"
			    "requires = s%05d\n", i + 1);
		else
			snprintf(text, sizeof(text), "[service]\nexec = x\n");
		conf_parse_service(&c, name, name, text);
	}
	assert_int_equal(conf_check(&c), 0);
	conf_free(&c);
}

static void
test_sup_conf(void **state)
{
	struct conf	c;
	struct buf	b = { 0 };

	(void)state;
	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "pidvisor.ini", "[supervisor]\n"
	    "control_socket = /run/x.sock\nnotify_dir = /run/n\n"
	    "control_mode = 0660\nmax_clients = 8\nclient_timeout = 2s\n"
	    "log_level = debug\n"), 0);
	assert_string_equal(c.sup.control_socket, "/run/x.sock");
	assert_string_equal(c.sup.notify_dir, "/run/n");
	assert_int_equal(c.sup.control_mode, 0660);
	assert_int_equal(c.sup.max_clients, 8);
	assert_int_equal(c.sup.client_timeout, 2000);
	assert_int_equal(c.sup.log_level, LOG_DEBUG);
	conf_free(&c);

	conf_init(&c);
	assert_int_equal(conf_parse_sup(&c, "pidvisor.ini", "[supervisor]\n"
	    "control_socket = relative\nmax_clients = 0\nlog_level = loud\n"
	    "bogus = 1\n[other]\nx = 1\n"), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data,
	    "pidvisor.ini:2: control_socket: 'relative' is not an absolute "
	    "path\n"
	    "pidvisor.ini:3: max_clients: expected a number from 1 to 4096, "
	    "not '0'\n"
	    "pidvisor.ini:4: log_level: expected error, warning, info or "
	    "debug, not 'loud'\n"
	    "pidvisor.ini:5: unknown key 'bogus'\n"
	    "pidvisor.ini:6: unknown section [other] (expected "
	    "[supervisor])\n");
	buf_free(&b);
	conf_free(&c);
}

/* Write a file under dir. */
static void
put(const char *dir, const char *name, const char *text)
{
	char	 path[256];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_load_dir(void **state)
{
	char		 dir[] = "/tmp/pidvisor-test-conf.XXXXXX", sub[128];
	char		 cmd[256];
	struct conf	 c;
	struct buf	 b = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/services", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put(dir, "pidvisor.ini", "[supervisor]\nmax_clients = 3\n");
	put(sub, "web.ini", "[service]\nexec = /bin/web\nrequires = db\n");
	put(sub, "db.ini", "[service]\nexec = /bin/db\n");
	put(sub, "README", "not a service\n");
	put(sub, ".hidden.ini", "[service]\nexec = x\n");
	conf_init(&c);
	assert_int_equal(conf_load(&c, dir), 0);
	assert_int_equal(c.ndefs, 2);
	assert_string_equal(c.defs[0]->name, "db");
	assert_string_equal(c.defs[1]->name, "web");
	assert_int_equal(c.sup.max_clients, 3);
	conf_free(&c);

	/* Errors in two files and a dependency: all reported. */
	put(sub, "web.ini", "[service]\nexec = /bin/web\nrequires = cache\n");
	put(sub, "db.ini", "[service]\nexec = /bin/db\nready = maybe\n");
	conf_init(&c);
	assert_int_equal(conf_load(&c, dir), -EINVAL);
	conf_errors(&c, &b);
	assert_non_null(strstr(b.data, "/services/db.ini:3: ready: "));
	assert_non_null(strstr(b.data, "/services/web.ini:3: requires: "
	    "unknown service 'cache'"));
	assert_int_equal(c.nerrs, 2);
	buf_free(&b);
	conf_free(&c);

	conf_init(&c);
	assert_int_equal(conf_load(&c, "/nonexistent/pidvisor"), -EINVAL);
	conf_errors(&c, &b);
	assert_string_equal(b.data, "/nonexistent/pidvisor: No such file or "
	    "directory\n");
	buf_free(&b);
	conf_free(&c);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ready = exit, settle, the reload keys: what does not go together. */
static void
test_task_keys(void **state)
{
	struct conf	 c;
	char		*errs;

	(void)state;
	conf_init(&c);
	errs = parse(&c, "init", "[service]\nexec = /bin/true\n"
	    "ready = exit\n");
	assert_string_equal(errs, "");
	assert_int_equal(c.defs[0]->restart, RESTART_NEVER);
	assert_int_equal(c.defs[0]->ready_timeout, 0);
	assert_int_equal(c.defs[0]->reload_signal, SIGHUP);
	free(errs);
	conf_free(&c);
	expect("[service]\nexec = /bin/true\nready = exit\nrestart = always\n"
	    "settle = 1s\n",
	    "web.ini:4: restart: always would run a task (ready = exit) again "
	    "each time it is done; use on-failure\n"
	    "web.ini:5: settle: a task (ready = exit) is ready when it exits "
	    "0, not after a time up\n");
	expect("[service]\nexec = /bin/true\nready = exit\n"
	    "reload_signal = USR1\n",
	    "web.ini:4: reload_signal: a task (ready = exit) has nothing "
	    "running to reload\n");
	expect("[service]\nexec = /bin/true\nreload_exec = /bin/kill $MAINPID\n"
	    "reload_signal = USR1\n",
	    "web.ini:4: reload_signal: give reload_signal or reload_exec, not "
	    "both\n");
	expect("[service]\nexec = /bin/true\nreload_signal = KILL\n",
	    "web.ini:3: reload_signal: KILL would not reload it\n");
	expect("[service]\nexec = /bin/true\nreload_exec = \"open\n",
	    "web.ini:3: reload_exec: unterminated quote (\")\n");
	expect("[service]\nexec = /bin/true\nenv_file = etc/x\n",
	    "web.ini:3: env_file: 'etc/x' is not an absolute path (a leading "
	    "'-' makes it optional: -/etc/default/NAME)\n");
	expect("[service]\nexec = /bin/true\ninstances = a b\n",
	    "web.ini:3: instances: only a template (services/NAME@.ini) has "
	    "instances\n");
}

/*
 * Templates: NAME@.ini makes NAME@INSTANCE for each of its instances,
 * %i and the others replaced; its errors once, FILE:LINE; a command's
 * instance (extra) too; one name defined twice is an error.
 */
static void
test_templates(void **state)
{
	char		 dir[] = "/tmp/pidvisor-test-tmpl.XXXXXX", sub[128];
	char		 cmd[256];
	struct conf	 c;
	struct buf	 b = { 0 };
	struct svc_def	*d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/services", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put(sub, "getty@.ini", "[service]\n; %x is fine in a comment\n"
	    "exec = /sbin/agetty %i 115200 --name %n --p %p 100%%\n"
	    "instances = ttyS0\n  tty1\nrequires = udev\n");
	put(sub, "udev.ini", "[service]\nexec = /bin/udev\n");
	conf_init(&c);
	c.extra = strv_add(NULL, "getty@tty9");
	c.extra = strv_add(c.extra, "gone@x");
	assert_int_equal(conf_load(&c, dir), 0);
	assert_int_equal(c.ndefs, 4);
	d = conf_find(&c, "getty@ttyS0");
	assert_non_null(d);
	assert_string_equal(d->argv[1], "ttyS0");
	assert_string_equal(d->argv[4], "getty@ttyS0");
	assert_string_equal(d->argv[6], "getty");
	assert_string_equal(d->argv[7], "100%");
	assert_false(d->dynamic);
	assert_non_null(conf_find(&c, "getty@tty1"));
	assert_true(conf_find(&c, "getty@tty9")->dynamic);
	assert_null(conf_find(&c, "getty@i"));	/* the probe is gone */
	assert_int_equal(c.ntmpls, 1);
	conf_free(&c);

	/* An unknown specifier: once, at its line, for all instances. */
	put(sub, "getty@.ini", "[service]\nexec = /sbin/agetty %i\n"
	    "instances = a b c\nworkdir = /srv/%z\n");
	conf_init(&c);
	assert_int_equal(conf_load(&c, dir), -EINVAL);
	conf_errors(&c, &b);
	assert_non_null(strstr(b.data, "/services/getty@.ini:4: unknown "
	    "specifier after '%'"));
	assert_int_equal(c.nerrs, 1);
	buf_free(&b);
	conf_free(&c);

	/* A dependency of an instance, and a name defined twice. */
	put(sub, "getty@.ini", "[service]\nexec = /sbin/agetty %i\n"
	    "instances = a\nafter = setup@%i\n");
	put(sub, "getty@a.ini", "[service]\nexec = /bin/x\n");
	conf_init(&c);
	assert_int_equal(conf_load(&c, dir), -EINVAL);
	conf_errors(&c, &b);
	assert_non_null(strstr(b.data, "/services/getty@.ini:4: after: "
	    "unknown service 'setup@a'"));
	assert_non_null(strstr(b.data, "service 'getty@a' is defined "
	    "twice"));
	assert_int_equal(c.nerrs, 2);
	buf_free(&b);
	conf_free(&c);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The configuration in force, as a re-exec writes it (conf_keys_save)
 * and the next binary reads it: the same definition, key by key; every
 * shorter state and an unknown key are refused, not misread.
 */
static void
test_state_roundtrip(void **state)
{
	struct conf	 c;
	struct svc_def	*d, *e, dflt;
	struct st_w	 w = { 0 };
	struct st_r	 r;
	struct sup_conf	 sc;
	size_t		 cut, i;
	char		*errs;

	(void)state;
	conf_init(&c);
	c.etc = etc;
	errs = parse(&c, "web",
	    "[service]\n"
	    "exec = /usr/bin/web --port \"8080\" a\\ b\n"
	    "restart = on-failure\n"
	    "ready = fd:5\n"
	    "requires = db\nafter = db cache\n"
	    "user = alice\n"
	    "env = A=1\nenv_file = -/etc/default/web\n"
	    "reload_exec = /bin/kill -HUP $MAINPID\n"
	    "umask = 027\nlimit_nofile = 4096\nmemory_max = 64M\n"
	    "kill_priority = 7\noom_score_adj = 300\nlog = file\n"
	    "log_buffer = 1M\nsettle = 2s\nenabled = no\n");
	assert_string_equal(errs, "");
	free(errs);
	errs = parse(&c, "x", "[service]\nexec = /bin/true\n");
	free(errs);
	d = conf_find(&c, "web");
	assert_non_null(d);
	/* Keys at their defaults, not given, are left out; read back onto
	 * the defaults, the definition is the same. */
	memset(&dflt, 0, sizeof(dflt));
	svc_def_defaults(&dflt, &c.sup);
	st_head(&w, STATE_VERSION);
	st_begin(&w, "svc");
	conf_keys_save(&w, SEC_SERVICE, d, &d->given, &dflt);
	st_end(&w);
	st_begin(&w, "sup");
	conf_keys_save(&w, SEC_SUPERVISOR, &c.sup, &c.sup.given, NULL);
	st_end(&w);
	conf_keys_free(SEC_SERVICE, &dflt);
	assert_null(memmem(w.b.data, w.b.len, "kill_mode", 9));
	st_head_done(&w);
	assert_false(w.nomem);
	memset(&sc, 0, sizeof(sc));
	/* Cut anywhere (its header saying so): never read past the end. */
	for (cut = 24; cut <= w.b.len; cut++) {
		uint64_t	len = cut;
		uint32_t	v;

		memcpy(w.b.data + 16, &len, sizeof(len));
		e = calloc(1, sizeof(*e));
		assert_non_null(e);
		svc_def_defaults(e, &c.sup);
		e->name = strdup("web");
		e->file = strdup("web.ini");
		i = st_r_open(&r, w.b.data, cut, &v) == 0 &&
		    st_enter(&r, "svc") &&
		    conf_keys_load(&r, SEC_SERVICE, e, &e->given) == 0;
		st_leave(&r);
		i = i && st_enter(&r, "sup") &&
		    conf_keys_load(&r, SEC_SUPERVISOR, &sc, &sc.given) == 0;
		st_r_close(&r);
		if (cut == w.b.len) {
			assert_true(i);
			assert_true(svc_def_equal(d, e));
			assert_string_equal(e->env_files[0], "-/etc/default/web");
			assert_int_equal(e->ready_fd, 5);
			assert_int_equal(e->ngroups, d->ngroups);
			assert_int_equal(e->memory_max, 64 << 20);
			assert_true(keyset_has(&e->given, K_MEMORY_MAX));
			assert_false(keyset_has(&e->given, K_CONSOLE));
			for (i = 0; i < K__COUNT; i++)
				if (conf_keys[i].section == SEC_SUPERVISOR)
					assert_true(conf_key_equal(&conf_keys[i],
					    &c.sup, &sc));
		}
		svc_def_free(e);
		conf_sup_free_fields(&sc);
	}
	/* A key this binary does not know (a newer one's) is left, and the
	 * key it has not got (an older one's) keeps its default. */
	memcpy(memmem(w.b.data, w.b.len, "restart", 7), "restarT", 7);
	e = calloc(1, sizeof(*e));
	assert_non_null(e);
	svc_def_defaults(e, &c.sup);
	{
		uint32_t	v;

		assert_int_equal(st_r_open(&r, w.b.data, w.b.len, &v), 0);
	}
	assert_true(st_enter(&r, "svc"));
	assert_int_equal(conf_keys_load(&r, SEC_SERVICE, e, &e->given), 0);
	st_r_close(&r);
	assert_int_equal(e->restart, RESTART_ALWAYS);
	assert_int_equal(e->ready_fd, 5);
	svc_def_free(e);
	st_w_free(&w);
	conf_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_task_keys),
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_ready_fd_and_credentials),
		cmocka_unit_test(test_continuation),
		cmocka_unit_test(test_log_keys),
		cmocka_unit_test(test_memory_keys),
		cmocka_unit_test(test_pressure_keys),
		cmocka_unit_test(test_observe_keys),
		cmocka_unit_test(test_def_equal),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_paths),
		cmocka_unit_test(test_every_error_named),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_bad_name),
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_sup_conf),
		cmocka_unit_test(test_load_dir),
		cmocka_unit_test(test_every_key_table),
		cmocka_unit_test(test_sup_key_twice),
		cmocka_unit_test(test_key_hints),
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_argv_to_line),
		cmocka_unit_test(test_restart_listed),
	};

	return cmocka_run_group_tests_name("conf", tests, setup, teardown);
}
