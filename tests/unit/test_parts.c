/* test_parts.c - the pure pieces of the daemon: environment, PID map,
 * line splitter */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "env.h"
#include "listen.h"
#include "output.h"
#include "pidmap.h"
#include "service.h"
#include "status.h"
#include "timer.h"
#include "util.h"

/* Is var (KEY=VALUE) in env, exactly? */
static int
env_count(char **env, const char *var)
{
	int	n = 0;

	for (; *env; env++)
		n += strcmp(*env, var) == 0;
	return n;
}

static size_t
env_len(char **env)
{
	size_t	n = 0;

	while (env[n])
		n++;
	return n;
}

static void
test_env_base(void **state)
{
	char *const	 base[] = { "HOME=/", "PATH=/bin", "NOTIFY_SOCKET=/up",
			    "TERM=vt100", NULL };
	char		**env;
	const char	*path;

	(void)state;
	const struct env_req	r = { .base = base };

	/* No keys, not notify: ours, less our parent's notify socket. */
	assert_int_equal(env_build(&r, &env, &path, NULL), 0);
	assert_string_equal(path, "/bin");
	assert_int_equal(env_len(env), 3);
	assert_int_equal(env_count(env, "HOME=/"), 1);
	assert_int_equal(env_count(env, "TERM=vt100"), 1);
	assert_int_equal(env_count(env, "NOTIFY_SOCKET=/up"), 0);
	env_free(env);
}

static void
test_env_keys(void **state)
{
	char *const	 base[] = { "HOME=/", "PATH=/bin", "HOMER=x", NULL };
	char *const	 keys[] = { "HOME=/srv", "PATH=/opt/bin", "A=", NULL };
	char		**env;
	const char	*path;

	const struct env_req	r = { .base = base, .keys = keys,
				    .notify = "/run/n.sock" };

	(void)state;
	assert_int_equal(env_build(&r, &env, &path, NULL), 0);
	assert_string_equal(path, "/opt/bin");
	assert_int_equal(env_len(env), 5);
	assert_int_equal(env_count(env, "HOME=/"), 0);
	assert_int_equal(env_count(env, "HOME=/srv"), 1);
	assert_int_equal(env_count(env, "HOMER=x"), 1);	/* a longer name */
	assert_int_equal(env_count(env, "A="), 1);
	assert_int_equal(env_count(env, "NOTIFY_SOCKET=/run/n.sock"), 1);
	env_free(env);
}

static void
test_env_no_path(void **state)
{
	char *const	 base[] = { "HOME=/", NULL };
	char		**env;
	const char	*path = "x";

	const struct env_req	r = { .base = base };

	(void)state;
	assert_int_equal(env_build(&r, &env, &path, NULL), 0);
	assert_null(path);
	assert_int_equal(env_len(env), 1);
	env_free(env);
	env_free(NULL);
}

/* The watchdog's variables: ours, never our parent's. */
static void
test_env_watchdog(void **state)
{
	char *const	 base[] = { "HOME=/", "WATCHDOG_PID=1", "A=base", NULL };
	char *const	 keys[] = { "A=key", "B=key", NULL };
	const struct env_req	r = { .base = base, .keys = keys,
				    .watchdog_ms = 1500 };
	char		**env, *slot;
	const char	*path;

	(void)state;
	assert_int_equal(env_build(&r, &env, &path, &slot), 0);
	assert_int_equal(env_count(env, "A=key"), 1);
	assert_int_equal(env_count(env, "A=base"), 0);
	assert_int_equal(env_count(env, "B=key"), 1);
	assert_int_equal(env_count(env, "HOME=/"), 1);
	assert_int_equal(env_count(env, "WATCHDOG_PID=1"), 0);
	assert_int_equal(env_count(env, "WATCHDOG_USEC=1500000"), 1);
	assert_non_null(slot);
	strcpy(slot, "4242");
	assert_int_equal(env_count(env, "WATCHDOG_PID=4242"), 1);
	assert_int_equal(env_len(env), 5);
	env_free(env);
}

/* Socket activation's variables: ours, LISTEN_PID's room for the child. */
static void
test_env_listen(void **state)
{
	char *const	 base[] = { "LISTEN_FDS=9", "LISTEN_PID=1",
			    "LISTEN_FDNAMES=x", "A=base", NULL };
	char		*slot = NULL, *wslot;
	const struct env_req	r = { .base = base, .listen_fds = 2,
				    .listen_names = "web:stored",
				    .listen_slot = &slot };
	char		**env;
	const char	*path;

	(void)state;
	assert_int_equal(env_build(&r, &env, &path, &wslot), 0);
	assert_null(wslot);
	assert_int_equal(env_count(env, "LISTEN_FDS=9"), 0);
	assert_int_equal(env_count(env, "LISTEN_FDS=2"), 1);
	assert_int_equal(env_count(env, "LISTEN_FDNAMES=web:stored"), 1);
	assert_non_null(slot);
	strcpy(slot, "77");
	assert_int_equal(env_count(env, "LISTEN_PID=77"), 1);
	assert_int_equal(env_count(env, "LISTEN_PID=1"), 0);
	assert_int_equal(env_len(env), 4);
	env_free(env);
}

/*
 * MEMORY_PRESSURE_WATCH and MEMORY_PRESSURE_WRITE: ours, never our
 * parent's; the trigger as systemd writes it, base64 with its NUL
 * ("some 200000 2000000\0").
 */
static void
test_env_memory_pressure(void **state)
{
	char *const	 base[] = { "MEMORY_PRESSURE_WATCH=/x",
			    "MEMORY_PRESSURE_WRITE=eA==", "A=base", NULL };
	struct env_req	 r = { .base = base,
			    .mp_watch = "/sys/fs/cgroup/pidvisor/web/"
			    "memory.pressure", .mp_threshold_ms = 200 };
	char		**env, *slot;
	const char	*path;

	(void)state;
	assert_int_equal(env_build(&r, &env, &path, &slot), 0);
	assert_int_equal(env_count(env, "MEMORY_PRESSURE_WATCH=/sys/fs/"
	    "cgroup/pidvisor/web/memory.pressure"), 1);
	assert_int_equal(env_count(env, "MEMORY_PRESSURE_WRITE="
	    "c29tZSAyMDAwMDAgMjAwMDAwMAA="), 1);
	assert_int_equal(env_count(env, "MEMORY_PRESSURE_WATCH=/x"), 0);
	assert_int_equal(env_len(env), 3);
	env_free(env);
	r.mp_watch = NULL;
	assert_int_equal(env_build(&r, &env, &path, &slot), 0);
	assert_int_equal(env_len(env), 1);
	env_free(env);
}

/* listen values: what each means, and what is refused. */
static void
test_listen_parse(void **state)
{
	static const char *const good[] = {
		"tcp:127.0.0.1:80", "tcp:*:8080", "tcp:localhost:1",
		"tcp6:[::1]:443", "tcp6:*:22", "udp:10.0.0.1:53",
		"udp6:[fe80::1]:9", "unix:/run/x.sock",
	};
	static const char *const bad[] = {
		"tcp:host:80", "tcp:127.0.0.1:0", "tcp:127.0.0.1:65536",
		"tcp:127.0.0.1", "tcp6:::1:80", "tcp:[::1]:80", "unix:run/x",
		"unix:/a/../b", "unix:/run/", "sctp:1.2.3.4:5", "tcp::80", "",
		"unix:/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	struct listen_addr	a, b;
	char			err[256];
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		if (listen_parse(good[i], &a, err, sizeof(err)) < 0)
			print_error("%s: %s\n", good[i], err);
		assert_int_equal(listen_parse(good[i], &a, err, sizeof(err)),
		    0);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (listen_parse(bad[i], &a, err, sizeof(err)) == 0)
			print_error("%s: taken\n", bad[i]);
		assert_int_equal(listen_parse(bad[i], &a, err, sizeof(err)),
		    -EINVAL);
		assert_non_null(strstr(err, "expected"));
	}
	/* One address: the same socket, whatever the spelling. */
	assert_int_equal(listen_parse("tcp:localhost:80", &a, err,
	    sizeof(err)), 0);
	assert_int_equal(listen_parse("tcp:127.0.0.1:80", &b, err,
	    sizeof(err)), 0);
	assert_true(listen_same(&a, &b));
	assert_int_equal(listen_parse("udp:127.0.0.1:80", &b, err,
	    sizeof(err)), 0);
	assert_false(listen_same(&a, &b));
	assert_int_equal(listen_parse("tcp:127.0.0.1:81", &b, err,
	    sizeof(err)), 0);
	assert_false(listen_same(&a, &b));
}

/* A scratch directory for env files, removed by the test. */
static char	envdir[64];

static void
envdir_file(const char *name, const char *text)
{
	char	path[128];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", envdir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* env_load over files (as written, '-' first if optional) on base. */
static int
envl(char *const *base, char *const *files, uid_t owner, char ***envp,
    struct env_fail *f, char **mem)
{
	static char		*ptrs[ENV_FILE_VARS + 16];
	struct env_load		 l = { .files = files, .envp = ptrs,
				       .owner = owner };
	size_t			 n = 0;

	while (base[n]) {
		ptrs[n] = base[n];
		n++;
	}
	l.nenv = n;
	l.cap = n + ENV_FILE_VARS;
	l.buflen = ENV_LOAD_BUF(strv_len(files));
	*mem = l.buf = malloc(l.buflen);
	assert_non_null(l.buf);
	*envp = ptrs;
	memset(f, 0, sizeof(*f));
	return env_load(&l, f);
}

/* Env files override env keys and each other; ours stay ours. */
static void
test_env_load(void **state)
{
	char *const	 base[] = { "HOME=/", "A=key", "B=key",
			    "NOTIFY_SOCKET=/run/n", NULL };
	char		 p1[96], p2[96], p3[96], msg[256], **env, *mem;
	char *const	 files[] = { p1, p2, p3, NULL };
	struct env_fail	 f;

	(void)state;
	snprintf(envdir, sizeof(envdir), "/tmp/pv-envtest.XXXXXX");
	assert_non_null(mkdtemp(envdir));
	envdir_file("e1", "A=f1\nC=f1\nA=f2\nNOTIFY_SOCKET=/evil\n");
	envdir_file("e2", "C=f2\nPATH=/opt/bin");
	snprintf(p1, sizeof(p1), "%s/e1", envdir);
	snprintf(p2, sizeof(p2), "-%s/missing", envdir);
	snprintf(p3, sizeof(p3), "%s/e2", envdir);
	assert_int_equal(envl(base, files, 0, &env, &f, &mem), 0);
	assert_int_equal(env_count(env, "A=f2"), 1);
	assert_int_equal(env_count(env, "A=f1"), 0);
	assert_int_equal(env_count(env, "A=key"), 0);
	assert_int_equal(env_count(env, "B=key"), 1);
	assert_int_equal(env_count(env, "C=f2"), 1);
	assert_int_equal(env_count(env, "NOTIFY_SOCKET=/run/n"), 1);
	assert_int_equal(env_count(env, "NOTIFY_SOCKET=/evil"), 0);
	assert_string_equal(env_path(env), "/opt/bin");
	assert_int_equal(env_len(env), 6);
	free(mem);

	/* A required file missing; a bad line: where, never what. */
	p2[0] = '/';
	memmove(p2, p2 + 1, strlen(p2));
	assert_int_equal(envl(base, files, 0, &env, &f, &mem), -1);
	env_fail_format(&f, files, msg, sizeof(msg));
	assert_int_equal(f.file, 1);
	assert_true(strstr(msg, "missing: No such file or directory") != NULL);
	free(mem);
	envdir_file("missing", "OK=1\n  secret value\n");
	assert_int_equal(envl(base, files, 0, &env, &f, &mem), -1);
	env_fail_format(&f, files, msg, sizeof(msg));
	assert_true(strstr(msg, "/missing:2:3: expected KEY=VALUE") != NULL);
	assert_null(strstr(msg, "secret"));
	free(mem);
	snprintf(msg, sizeof(msg), "rm -rf %s", envdir);
	assert_int_equal(system(msg), 0);
}

/* A symlink is followed only if root or the service's user owns it. */
static void
test_env_symlinks(void **state)
{
	char *const	 base[] = { NULL };
	char		 p1[96], link[128], msg[256], **env, *mem;
	char *const	 files[] = { p1, NULL };
	struct env_fail	 f;

	(void)state;
	snprintf(envdir, sizeof(envdir), "/tmp/pv-envtest.XXXXXX");
	assert_non_null(mkdtemp(envdir));
	envdir_file("real", "A=1\n");
	snprintf(p1, sizeof(p1), "%s/link", envdir);
	snprintf(link, sizeof(link), "%s/real", envdir);
	assert_int_equal(symlink("real", p1), 0);
	assert_int_equal(envl(base, files, 4242, &env, &f, &mem), 0);
	assert_int_equal(env_count(env, "A=1"), 1);
	free(mem);
	if (geteuid() != 0)	/* only root can give it away */
		goto out;
	assert_int_equal(lchown(p1, 4242, 4242), 0);
	assert_int_equal(envl(base, files, 4242, &env, &f, &mem), 0);
	free(mem);
	assert_int_equal(lchown(p1, 4343, 4343), 0);
	assert_int_equal(envl(base, files, 4242, &env, &f, &mem), -1);
	env_fail_format(&f, files, msg, sizeof(msg));
	assert_int_equal(f.what, ENV_SYMLINK);
	assert_true(strstr(msg, "owned by uid 4343") != NULL);
	free(mem);
	/* The same in a directory on the way. */
	unlink(p1);
	snprintf(link, sizeof(link), "%s/dir", envdir);
	assert_int_equal(symlink(".", link), 0);
	assert_int_equal(lchown(link, 4343, 4343), 0);
	snprintf(p1, sizeof(p1), "%s/dir/real", envdir);
	assert_int_equal(envl(base, files, 0, &env, &f, &mem), -1);
	assert_int_equal(f.what, ENV_SYMLINK);
	free(mem);
	/* Not a regular file. */
	snprintf(p1, sizeof(p1), "%s", envdir);
	assert_int_equal(envl(base, files, 0, &env, &f, &mem), -1);
	assert_int_equal(f.what, ENV_NOT_REGULAR);
	free(mem);
out:
	snprintf(msg, sizeof(msg), "rm -rf %s", envdir);
	assert_int_equal(system(msg), 0);
}

/* Parse an env file; the variables, or the error, in one string. */
static char *
envf(const char *text)
{
	static char	 out[1024];
	char		 buf[1024], msg[256];
	char *const	 files[] = { "/etc/x", NULL };
	struct env_fail	 f = { 0 };
	size_t		 n, i, len = strlen(text);
	long		 o;
	char		*p;

	out[0] = '\0';
	/* In place, as env_load does it. */
	memcpy(buf, text, len);
	if ((o = env_file_parse(buf, buf, len, &n, &f)) < 0) {
		env_fail_format(&f, files, msg, sizeof(msg));
		snprintf(out, sizeof(out), "ERR %s", msg);
		return out;
	}
	assert_true((size_t)o <= len + 1);
	for (i = 0, p = buf; i < n; i++, p += strlen(p) + 1) {
		strcat(out, p);
		strcat(out, "|");
	}
	return out;
}

/* systemd's EnvironmentFile= quoting, and FILE:LINE:COL for a bad line. */
static void
test_env_file_parse(void **state)
{
	(void)state;
	assert_string_equal(envf("A=1\n# c\n; c\n\n  B = two words  \n"),
	    "A=1|B=two words|");
	assert_string_equal(envf("A='x  y' \nB=\"q \\\" \\$ \\n\"\nC="),
	    "A=x  y|B=q \" $ \\n|C=|");
	assert_string_equal(envf("A=one\\\ntwo\nB='l1\nl2'\nC=a\\ b"),
	    "A=onetwo|B=l1\nl2|C=a b|");
	assert_string_equal(envf("A=\"x\"y'z'\nB=it's"), "A=xy'z'|B=it's|");
	assert_string_equal(envf("# a comment \\\n still\nA=1"), "A=1|");
	assert_string_equal(envf("A=1\nnot a line\n"),
	    "ERR /etc/x:2:1: expected KEY=VALUE");
	assert_string_equal(envf("A=1\n  export B=2\n"),
	    "ERR /etc/x:2:3: not a variable name: write it without 'export'");
	assert_string_equal(envf("\n\nA='open\nB=2\n"),
	    "ERR /etc/x:3:1: the single quote is not closed");
	assert_string_equal(envf("1A=x"),
	    "ERR /etc/x:1:1: not a variable name (letters, digits, _; not a "
	    "digit first)");
	assert_string_equal(envf("A=\"x\\q\""), "A=x\\q|");
}

struct pm_item {
	struct pidmap_node	node;
	int			id;
};

/* Expand with room from env_expand_room; the words joined with '|'. */
static int
expand(const char *const *argv, char *const *envp, char *out, size_t n)
{
	struct env_expand	x;
	size_t			i, len = 0;
	int			rc;

	env_expand_room((char *const *)argv, 64, &x.cap, &x.buflen);
	x.argv = calloc(x.cap, sizeof(char *));
	x.buf = malloc(x.buflen);
	assert_non_null(x.argv);
	assert_non_null(x.buf);
	out[0] = '\0';
	if ((rc = env_expand_argv((char *const *)argv, envp, &x)) == 0)
		for (i = 0; x.argv[i]; i++)
			len += (size_t)snprintf(out + len, n - len, "%s%s",
			    i ? "|" : "", x.argv[i]);
	free(x.argv);
	free(x.buf);
	return rc;
}

/* $VAR alone: its words; ${VAR}: one word's part; $$: a dollar. */
static void
test_env_expand(void **state)
{
	char *const	 envp[] = { "OPTS=-o  a -p\tb ", "ONE=x y", "EMPTY=",
			    "N2=v", NULL };
	char		 out[256];

	(void)state;
	assert_false(env_argv_has_vars((char *const []){ "a", "b", NULL }));
	assert_true(env_argv_has_vars((char *const []){ "a", "$$", NULL }));
	assert_int_equal(expand((const char *[]){ "sshd", "-D", "$OPTS",
	    NULL }, envp, out, sizeof(out)), 0);
	assert_string_equal(out, "sshd|-D|-o|a|-p|b");
	assert_int_equal(expand((const char *[]){ "a", "--x=${ONE}", "${ONE}",
	    "$EMPTY", "$UNSET", "${UNSET}", "$$ONE", "$ONE.", "${N2}${N2}",
	    "${bad-name}", "$", NULL }, envp, out, sizeof(out)), 0);
	assert_string_equal(out, "a|--x=x y|x y||$ONE|$ONE.|vv|${bad-name}|$");
	assert_int_equal(expand((const char *[]){ "$UNSET", NULL }, envp, out,
	    sizeof(out)), -ENOEXEC);
}

static void
test_pidmap(void **state)
{
	struct pidmap	 m = { 0 };
	struct pm_item	 v[100];
	size_t		 i;

	(void)state;
	assert_null(pidmap_get(&m, 5));
	assert_int_equal(pidmap_reserve(&m, 10), 0);
	for (i = 0; i < 10; i++) {
		v[i].id = (int)i;
		pidmap_add(&m, &v[i].node, (pid_t)(1000 + i * 64));
	}
	/* Growing keeps what is in. */
	assert_int_equal(pidmap_reserve(&m, 100), 0);
	for (i = 10; i < 100; i++) {
		v[i].id = (int)i;
		pidmap_add(&m, &v[i].node, (pid_t)(1000 + i * 64));
	}
	assert_int_equal(m.n, 100);
	for (i = 0; i < 100; i++)
		assert_ptr_equal(pidmap_get(&m, (pid_t)(1000 + i * 64)),
		    &v[i].node);
	assert_null(pidmap_get(&m, 1001));
	assert_null(pidmap_get(&m, 0));
	assert_null(pidmap_get(&m, -1));
	for (i = 0; i < 100; i += 2)
		pidmap_del(&m, &v[i].node);
	assert_int_equal(m.n, 50);
	for (i = 0; i < 100; i++)
		assert_ptr_equal(pidmap_get(&m, (pid_t)(1000 + i * 64)),
		    i % 2 ? &v[i].node : NULL);
	pidmap_free(&m);
}

/* What the splitter gave out, one string per line. */
struct lines {
	char	*v[16];
	size_t	 n;
};

static void
collect(void *arg, const char *text, size_t len)
{
	struct lines	*l = arg;

	assert_true(l->n < ARRAY_SIZE(l->v));
	l->v[l->n] = strndup(text, len);
	l->n++;
}

static void
lines_free(struct lines *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
}

static void
test_split_lines(void **state)
{
	struct line_split	ls = { 0 };
	struct lines		l = { 0 };

	(void)state;
	/* Whole lines, and a line across three reads. */
	assert_int_equal(line_split_feed(&ls, "a\nbc\n", 5, collect, &l), 0);
	assert_int_equal(line_split_feed(&ls, "de", 2, collect, &l), 0);
	assert_int_equal(line_split_feed(&ls, "f", 1, collect, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(line_split_feed(&ls, "g\n\nh", 4, collect, &l), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0], "a");
	assert_string_equal(l.v[1], "bc");
	assert_string_equal(l.v[2], "defg");
	assert_string_equal(l.v[3], "");
	/* The last, unfinished line comes out when flushed, once. */
	line_split_flush(&ls, collect, &l);
	line_split_flush(&ls, collect, &l);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.v[4], "h");
	lines_free(&l);
	line_split_free(&ls);
}

static void
test_split_long(void **state)
{
	struct line_split	 ls = { 0 };
	struct lines		 l = { 0 };
	size_t			 n = 2 * LOG_LINE_MAX + 10;
	char			*big = malloc(n + 1);

	(void)state;
	memset(big, 'x', n);
	big[n] = '\n';
	/* A line longer than LOG_LINE_MAX: in pieces of that size. */
	assert_int_equal(line_split_feed(&ls, big, n + 1, collect, &l), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(strlen(l.v[0]), LOG_LINE_MAX);
	assert_int_equal(strlen(l.v[1]), LOG_LINE_MAX);
	assert_int_equal(strlen(l.v[2]), 10);
	lines_free(&l);
	/* Exactly LOG_LINE_MAX and its newline: one line, no empty one. */
	assert_int_equal(line_split_feed(&ls, big, LOG_LINE_MAX, collect,
	    &l), 0);
	assert_int_equal(line_split_feed(&ls, "\n", 1, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(strlen(l.v[0]), LOG_LINE_MAX);
	lines_free(&l);
	/* A piece, the rest up to LOG_LINE_MAX with its newline, and
	 * then a newline: that one is an empty line. */
	assert_int_equal(line_split_feed(&ls, big, 5, collect, &l), 0);
	assert_int_equal(line_split_feed(&ls, big, LOG_LINE_MAX - 5, collect,
	    &l), 0);
	assert_int_equal(line_split_feed(&ls, "\n", 1, collect, &l), 0);
	assert_int_equal(l.n, 1);
	lines_free(&l);
	/* Then a newline of its own is an empty line again. */
	assert_int_equal(line_split_feed(&ls, "\n", 1, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "");
	lines_free(&l);
	line_split_free(&ls);
	free(big);
}

static void
test_status_text(void **state)
{
	struct svc_status	v[2] = {
		{ .name = "web", .state = SVC_READY, .pid = 42,
		  .uptime_ms = 65000, .restarts = 3, .reason = "ready",
		  .have_memory = true, .memory = 3 << 20, .oom = 1,
		  .oom_kill = 2, .status_text = "up\x1b[2J\x7f\xc2\x9b" "2J"
		  "\xc2\x9d" "0;t\x07 \xc3\xa9" },
		{ .name = "a-longer-name", .state = SVC_FAILED,
		  .restarts = 0, .reason = "env_file: /x\x1b]0;t\x07:1:1" },
	};
	struct buf		b = { 0 };
	int			w = status_width(v, 2);

	(void)state;
	assert_int_equal(w, 13);
	status_text_header(&b, w);
	status_text(&b, &v[0], w);
	status_text(&b, &v[1], w);
	buf_add(&b, "", 1);
	assert_string_equal(b.data,
	    "NAME          STATE        PID   UPTIME RESTARTS REASON\n"
	    "web           ready         42    1m05s        3 ready "
	    "(memory 3.0M, oom 1, oom_kill 2) [up\\x1b[2J\\x7f\\xc2\\x9b2J"
	    "\\xc2\\x9d0;t\\x07 \xc3\xa9]\n"
	    "a-longer-name failed         -        -        0 "
	    "env_file: /x\\x1b]0;t\\x07:1:1\n");
	buf_free(&b);
}

/* A finished task: its run time after the reason; ERRNO= in words. */
static void
test_status_done(void **state)
{
	struct svc_status	s = {
		.name = "init", .state = SVC_DONE, .reason = "exited with "
		"code 0", .reason_has_exit = true, .have_memory = true,
		.ran_at_ms = 1764925811123LL, .exited_at_ms = 1764925812623LL,
		.err = 5,
	};
	struct buf		b = { 0 };

	(void)state;
	status_text(&b, &s, 4);
	buf_add(&b, "", 1);
	assert_string_equal(b.data, "init done           -        -        0 "
	    "exited with code 0; ran at 2025-12-05T09:10:11.123Z for 1.5s; "
	    "errno 5 (Input/output error) (memory 0.0M, oom 0, oom_kill 0)\n");
	buf_free(&b);
}

static void
test_status_json(void **state)
{
	struct svc_status	a = {
		.name = "w\"eb", .state = SVC_READY, .pid = 42,
		.uptime_ms = 1500, .restarts = 1, .reason = "ready",
		.have_memory = true, .memory = 4096, .oom = 0, .oom_kill = 1,
		.kill_mode = KILL_GROUP, .kill_mode_real = KILL_PROCESS,
		.ready_at_ms = 1764925811000LL,
	}, b = { .name = "x", .state = SVC_STOPPED, .reason = "stopped",
		.status_text = "o\xc2\x9bk", .essential = true, .log_dropped = 7,
		.exited_at_ms = 1764925811123LL, .exit_sig = 9 };
	struct buf		out = { 0 };

	(void)state;
	status_json(&out, &a);
	status_json(&out, &b);
	buf_add(&out, "", 1);
	assert_string_equal(out.data,
	    "{\"name\":\"w\\\"eb\",\"state\":\"ready\",\"pid\":42,"
	    "\"uptime_ms\":1500,\"restarts\":1,\"reason\":\"ready\","
	    "\"status_text\":null,\"memory\":4096,\"oom\":0,"
	    "\"oom_kill\":1,\"kill_mode\":\"group\","
	    "\"kill_mode_effective\":\"process\",\"essential\":false,"
	    "\"log_dropped\":0,\"reloading\":false,\"health\":null,"
	    "\"next_run\":null,\"errno\":null,"
	    "\"started_at\":null,\"ready_at\":\"2025-12-05T09:10:11.000Z\","
	    "\"exit_code\":null,\"exit_signal\":null,\"exited_at\":null}"
	    "{\"name\":\"x\",\"state\":\"stopped\",\"pid\":null,"
	    "\"uptime_ms\":null,\"restarts\":0,\"reason\":\"stopped\","
	    "\"status_text\":\"o\\u009bk\",\"memory\":null,\"oom\":null,"
	    "\"oom_kill\":null,\"kill_mode\":\"process\","
	    "\"kill_mode_effective\":\"process\",\"essential\":true,"
	    "\"log_dropped\":7,\"reloading\":false,\"health\":null,"
	    "\"next_run\":null,\"errno\":null,"
	    "\"started_at\":null,\"ready_at\":null,\"exit_code\":137,"
	    "\"exit_signal\":\"KILL\","
	    "\"exited_at\":\"2025-12-05T09:10:11.123Z\"}");
	buf_free(&out);
}

/*
 * Every field of struct service is in SERVICE_STATE or SERVICE_SKIPPED
 * (as test_svc.c checks struct svc's): a field cannot be added without
 * saying what a re-exec does with it.
 */
struct field_at {
	const char	*name;
	size_t		 off, size, align;
};

static int
field_at_cmp(const void *a, const void *b)
{
	const struct field_at	*x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

#define SERVICE_AT(f)	{ #f, offsetof(struct service, f),		\
			  sizeof(((struct service *)0)->f),		\
			  __alignof__(((struct service *)0)->f) },
#define SERVICE_AT3(f, how, since)	SERVICE_AT(f)

static void
test_service_fields(void **state)
{
	struct field_at	v[] = { SERVICE_STATE(SERVICE_AT3)
			    SERVICE_SKIPPED(SERVICE_AT) };
	size_t		i, end = 0, n = ARRAY_SIZE(v);

	(void)state;
	qsort(v, n, sizeof(*v), field_at_cmp);
	for (i = 0; i < n; i++) {
		end = (end + v[i].align - 1) / v[i].align * v[i].align;
		if (v[i].off != end)
			print_error("%s: a field before it is in no list\n",
			    v[i].name);
		assert_int_equal(v[i].off, end);
		end = v[i].off + v[i].size;
	}
	assert_int_equal((end + __alignof__(struct service) - 1) /
	    __alignof__(struct service) * __alignof__(struct service),
	    sizeof(struct service));
}

/*
 * A timer's wake-up within its accuracy: on the minute's grid shifted by
 * the perturb if that falls in [a, b], else on a finer one, else b.
 */
static void
test_timer_coalesce(void **state)
{
	const int64_t	s = 1000000;

	(void)state;
	assert_int_equal(timer_coalesce(5 * s, 5 * s, 0), 5 * s);
	assert_int_equal(timer_coalesce(5 * s, 5 * s + 1, 0), 5 * s);
	/* 67 s: a minute plus the perturb */
	assert_int_equal(timer_coalesce(10 * s + 5000, 70 * s, 7 * s),
	    67 * s);
	/* two timers due in one window wake together */
	assert_int_equal(timer_coalesce(61 * s, 121 * s, 7 * s),
	    timer_coalesce(64 * s, 125 * s, 7 * s));
	/* no minute's point within: 10 s's, then 1 s's */
	assert_int_equal(timer_coalesce(61 * s, 75 * s, 30 * s), 70 * s);
	assert_int_equal(timer_coalesce(61 * s, 62 * s, 30 * s), 61 * s);
	/* 250 ms's, then b itself */
	assert_int_equal(timer_coalesce(61100000, 61400000, 30 * s),
	    61250000);
	assert_int_equal(timer_coalesce(61100000, 61200000, 30 * s),
	    61200000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_base),
		cmocka_unit_test(test_env_listen),
		cmocka_unit_test(test_env_memory_pressure),
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_env_keys),
		cmocka_unit_test(test_env_no_path),
		cmocka_unit_test(test_env_watchdog),
		cmocka_unit_test(test_env_load),
		cmocka_unit_test(test_env_symlinks),
		cmocka_unit_test(test_env_file_parse),
		cmocka_unit_test(test_env_expand),
		cmocka_unit_test(test_pidmap),
		cmocka_unit_test(test_split_lines),
		cmocka_unit_test(test_split_long),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_status_done),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_timer_coalesce),
		cmocka_unit_test(test_service_fields),
	};

	return cmocka_run_group_tests_name("parts", tests, NULL, NULL);
}
