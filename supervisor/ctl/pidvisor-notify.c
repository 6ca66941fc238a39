/*
 * pidvisor-notify.c - send an sd_notify message, then exec a command.
 *
 *   pidvisor-notify [-r] [-s STATUS] [-S] [-w] [-- COMMAND [ARG...]]
 *
 * The supervisor accepts notifications only from a service's main
 * process.  A helper that sends and exits has a PID of its own and is
 * ignored; a helper that sends and then execs the service keeps the
 * service's PID, so `exec pidvisor-notify -r -- mydaemon` in a script
 * works.  Exit codes: 0 sent, 1 failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The usage: to stdout and 0 when asked for, else to stderr and 2. */
static void
usage(int code)
{
	fprintf(code ? stderr : stdout, "usage: pidvisor-notify [-r] "
	    "[-s STATUS] [-S] [-w] [-- COMMAND [ARG...]]\n"
	    "  -r, --ready            READY=1\n"
	    "  -s, --status=STATUS    STATUS=STATUS\n"
	    "  -S, --stopping         STOPPING=1\n"
	    "  -w, --watchdog         WATCHDOG=1\n"
	    "  -h, --help             this\n");
	exit(code);
}

/* Send msg to $NOTIFY_SOCKET (a path, or @name for the abstract space). */
static int
notify_send(const char *msg)
{
	struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
	const char		*path = getenv("NOTIFY_SOCKET");
	socklen_t		 len;
	int			 fd, rc;

	if (path == NULL || *path == '\0') {
		fprintf(stderr, "pidvisor-notify: NOTIFY_SOCKET is not set\n");
		return -1;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "pidvisor-notify: NOTIFY_SOCKET too long\n");
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	rc = (int)sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
	    (struct sockaddr *)&sa, len);
	if (rc < 0)
		fprintf(stderr, "pidvisor-notify: %s: %s\n", path,
		    strerror(errno));
	close(fd);
	return rc < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	char	msg[4096] = "";
	size_t	n = 0;
	int	ch;

	static const struct option longopts[] = {
		{ "ready", no_argument, NULL, 'r' },
		{ "status", required_argument, NULL, 's' },
		{ "stopping", no_argument, NULL, 'S' },
		{ "watchdog", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((ch = getopt_long(argc, argv, "+rs:Swh", longopts, NULL)) !=
	    -1) {
		const char	*add = NULL;

		switch (ch) {
		case 'r':
			add = "READY=1\n";
			break;
		case 'S':
			add = "STOPPING=1\n";
			break;
		case 'w':
			add = "WATCHDOG=1\n";
			break;
		case 's':
			if (strchr(optarg, '\n'))
				usage(2);
			n += (size_t)snprintf(msg + n, sizeof(msg) - n,
			    "STATUS=%s\n", optarg);
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
		if (add)
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s",
			    add);
		if (n >= sizeof(msg))
			usage(2);
	}
	if (n == 0)
		usage(2);
	if (notify_send(msg) < 0 && optind == argc)
		return 1;
	if (optind == argc)
		return 0;
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "pidvisor-notify: %s: %s\n", argv[optind],
	    strerror(errno));
	return 127;
}
