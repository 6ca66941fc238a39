/* main.c - pidvisor: an init-style process supervisor */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cond.h"
#include "proto.h"
#include "rmtree.h"
#include "sup.h"
#include "security.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: pidvisor [-qv] [-c CONFDIR] [-s SOCKET]\n"
	    "       pidvisor --check [-c CONFDIR]\n"
	    "  -c, --confdir=CONFDIR  configuration (default /etc/pidvisor)\n"
	    "  -s, --socket=SOCKET    control socket (default "
	    "$PIDVISOR_SOCKET,\n"
	    "                         else %s)\n"
	    "  -q, --quiet            fewer messages\n"
	    "  -v, --verbose          more messages\n"
	    "  -n, --check            check the configuration, print every "
	    "error,\n"
	    "                         exit 1 if there is one; run nothing\n"
	    "  -V, --version          print the version\n"
	    "      --state-versions   the state versions it can take over "
	    "(reexec)\n"
	    "  -h, --help             this help\n", CTL_SOCKET_DEFAULT);
}

/*
 * --check: the env files, read as we are (the service reads them as its
 * own user when it starts, and may be able to read less).  A missing
 * required one is a warning: it may be there by the time the service
 * starts.  The number of errors, counted in c too.
 */
static size_t
check_env_files(struct conf *c)
{
	char	err[512];
	size_t	i, j, bad = 0;
	int	rc;

	for (i = 0; i < c->ndefs; i++) {
		const struct svc_def	*d = c->defs[i];

		for (j = 0; d->env_files && d->env_files[j]; j++) {
			rc = env_file_check(d->env_files[j], d->set_uid ?
			    d->uid : geteuid(), err, sizeof(err));
			if (rc == -ENOENT) {
				fprintf(stderr, "%s: warning: env_file: %s\n",
				    d->file, err);
			} else if (rc < 0) {
				fprintf(stderr, "%s: env_file: %s\n", d->file,
				    err);
				bad++;
			}
		}
	}
	c->nerrs += bad;
	return bad;
}

/* May uid (in gid and groups) execute the file st says? */
static bool
check_exec_mode(const struct stat *st, uid_t uid, gid_t gid,
    const gid_t *groups, size_t ngroups)
{
	size_t	i;

	if (!S_ISREG(st->st_mode))
		return false;
	if (uid == 0)
		return (st->st_mode & 0111) != 0;
	if (st->st_uid == uid)
		return (st->st_mode & 0100) != 0;
	if (st->st_gid == gid)
		return (st->st_mode & 0010) != 0;
	for (i = 0; i < ngroups; i++)
		if (st->st_gid == groups[i])
			return (st->st_mode & 0010) != 0;
	return (st->st_mode & 0001) != 0;
}

/*
 * --check: a service's program, found as its exec would find it (its
 * PATH, else ours), must be a file its user may execute; else a
 * warning (it may be installed by the time the service starts).
 * Programs named through $VARIABLES are not known until then.
 */
static void
check_execs(const struct conf *c)
{
	const char	*path, *prog, *p, *end;
	char		 file[4096];
	struct stat	 st;
	size_t		 i, j;
	bool		 found, ok;

	for (i = 0; i < c->ndefs; i++) {
		const struct svc_def	*d = c->defs[i];
		uid_t			 uid = d->set_uid ? d->uid : geteuid();
		gid_t			 gid = d->set_gid ? d->gid : getegid();

		if (d->argv == NULL || (prog = d->argv[0]) == NULL ||
		    strchr(prog, '$') != NULL)
			continue;
		path = getenv("PATH") ? getenv("PATH") : PATH_DEFAULT;
		for (j = 0; d->env && d->env[j]; j++)
			if (strncmp(d->env[j], "PATH=", 5) == 0)
				path = d->env[j] + 5;
		found = ok = false;
		for (p = strchr(prog, '/') ? "" : path; p != NULL && !ok;
		    p = *end ? end + 1 : NULL) {
			end = strchrnul(p, ':');
			if (strchr(prog, '/'))
				snprintf(file, sizeof(file), "%s", prog);
			else
				snprintf(file, sizeof(file), "%.*s/%s",
				    (int)(end - p), p, prog);
			if (stat(file, &st) < 0)
				continue;
			found = true;
			ok = check_exec_mode(&st, uid, gid, d->groups,
			    d->ngroups);
		}
		if (!ok)
			fprintf(stderr, "%s: warning: exec: %s %s\n", d->file,
			    prog, found ? "is not a file its user may execute" :
			    strchr(prog, '/') ? "does not exist" :
			    "is not found in PATH");
	}
}

/* --check: load the tree as pidvisor would, say what is wrong. */
static int
check(const char *confdir)
{
	struct conf	c;
	struct buf	errs = { 0 };
	size_t		i;
	int		rc;

	conf_init(&c);
	c.check_def = security_conf_check;
	rc = conf_load(&c, confdir);
	conf_errors(&c, &errs);
	if (errs.len)
		fwrite(errs.data, 1, errs.len, stderr);
	for (i = 0; c.warns && c.warns[i]; i++)
		fprintf(stderr, "warning: %s\n", c.warns[i]);
	if (rc == 0 && check_env_files(&c) > 0)
		rc = -EINVAL;
	if (rc == 0)
		check_execs(&c);
	if (rc < 0)
		fprintf(stderr, "pidvisor: %zu error%s in %s\n", c.nerrs,
		    c.nerrs == 1 ? "" : "s", confdir);
	else
		printf("%s: %zu service%s, no errors\n", confdir, c.ndefs,
		    c.ndefs == 1 ? "" : "s");
	buf_free(&errs);
	conf_free(&c);
	return rc < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const char	*confdir = "/etc/pidvisor", *sock = NULL;
	struct sup	 sup;
	static const struct option longopts[] = {
		{ "confdir", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "check", no_argument, NULL, 'n' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		/* A re-exec's (reexec.c): not for people. */
		{ "state-versions", no_argument, NULL, 'S' },
		{ "restore", required_argument, NULL, 'R' },
		{ "previous", required_argument, NULL, 'P' },
		{ "fallback", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct sup_restore rs;
	const char	*fallback = NULL;
	int		 ch, rc, level = LOG_INFO, state = -1, prev = -1;
	bool		 only_check = false;

	/* A start's conditions, checked by its first hook (cond.c). */
	if (argc >= 2 && getpid() != 1 &&
	    strcmp(argv[1], "--test-conditions") == 0)
		return cond_main(argc - 2, argv + 2);
	/* A stopped service's runtime_directory, by its last hook. */
	if (argc >= 2 && getpid() != 1 &&
	    strcmp(argv[1], "--remove-directories") == 0)
		return rmtree_main(argc - 2, argv + 2);
	/* As PID 1 the kernel may pass boot arguments: ignore unknown ones. */
	opterr = getpid() != 1;
	while ((ch = getopt_long(argc, argv, "c:s:qvnVh", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n':
			only_check = true;
			break;
		case 'c':
			confdir = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 'q':
			level = LOG_WARN;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		case 'V':
			printf("pidvisor %s (protocol %d)\n", PIDVISOR_VERSION,
			    CTL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'S':
			return reexec_versions();
		case 'R':
			state = atoi(optarg);
			break;
		case 'P':
			prev = atoi(optarg);
			break;
		case 'F':
			fallback = optarg;
			break;
		default:
			if (getpid() == 1)
				break;
			usage(stderr);
			return 2;
		}
	}
	if (only_check)
		return check(confdir);
	log_level = level;
	if (state >= 0) {
		/* The name we had (init), not the new file's. */
		const char	*base = strrchr(argv[0], '/');

		prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
		if (reexec_open(&rs, state, prev, fallback, argv[0]) < 0)
			reexec_fail(&rs, rs.r.err);
	}
	if (sup_init(&sup, confdir, sock, state >= 0 ? &rs : NULL) < 0) {
		if (getpid() != 1 || sup.container) {
			sup_free(&sup);
			return 2;
		}
		log_err("PID 1 cannot start its loop; halting");
		for (;;)
			pause();
	}
	sup.argv0 = argv[0];
	rc = sup_run(&sup);
	if (getpid() == 1 && !sup.container) {
		/* A machine's PID 1 must not exit: the kernel would panic. */
		log_err("the loop ended; PID 1 stays");
		for (;;)
			pause();
	}
	sup_free(&sup);
	return rc;
}
