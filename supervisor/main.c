/* main.c - pidvisor: an init-style process supervisor */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "proto.h"
#include "sup.h"

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

/* --check: load the tree as pidvisor would, say what is wrong. */
static int
check(const char *confdir)
{
	struct conf	c;
	struct buf	errs = { 0 };
	int		rc;

	conf_init(&c);
	rc = conf_load(&c, confdir);
	conf_errors(&c, &errs);
	if (errs.len)
		fwrite(errs.data, 1, errs.len, stderr);
	if (rc == 0 && check_env_files(&c) > 0)
		rc = -EINVAL;
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
