/* main.c - pidvisor: an init-style process supervisor */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "sup.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: pidvisor [-qvV] [-c CONFDIR] [-s SOCKET]\n"
	    "  -c CONFDIR  configuration (default /etc/pidvisor)\n"
	    "  -s SOCKET   control socket (default $PIDVISOR_SOCKET, else "
	    "%s)\n"
	    "  -q / -v     fewer / more messages\n"
	    "  -V          print the version\n", CTL_SOCKET_DEFAULT);
}

int
main(int argc, char **argv)
{
	const char	*confdir = "/etc/pidvisor", *sock = NULL;
	struct sup	 sup;
	int		 ch, rc, level = LOG_INFO;

	/* As PID 1 the kernel may pass boot arguments: ignore unknown ones. */
	opterr = getpid() != 1;
	while ((ch = getopt(argc, argv, "c:s:qvVh")) != -1) {
		switch (ch) {
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
		default:
			if (getpid() == 1)
				break;
			usage(stderr);
			return 2;
		}
	}
	log_level = level;
	if (sup_init(&sup, confdir, sock) < 0) {
		if (getpid() != 1) {
			sup_free(&sup);
			return 1;
		}
		log_err("PID 1 cannot start its loop; halting");
		for (;;)
			pause();
	}
	rc = sup_run(&sup);
	if (getpid() == 1) {
		/* PID 1's exit would panic the kernel: never return. */
		log_err("the loop ended; PID 1 stays");
		for (;;)
			pause();
	}
	sup_free(&sup);
	return rc;
}
