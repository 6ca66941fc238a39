/*
 * pidvisorctl.c - the control client.  A thin shell around one request:
 * check the arguments (with the same parser the server uses), send them,
 * print what comes back, exit with the code the server gave.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

#define CLIENT_TIMEOUT	30000	/* ms, for requests that do not wait */

static const char	*prog = "pidvisorctl";

static void
usage(FILE *f)
{
	int	i;

	fprintf(f, "usage: %s [-s SOCKET] VERB [ARGS]\n", prog);
	for (i = 0; i < VERB__COUNT; i++)
		fprintf(f, "       %s %s\n", prog, ctl_verbs[i].usage);
	fprintf(f, "SOCKET defaults to $PIDVISOR_SOCKET, else %s\n",
	    CTL_SOCKET_DEFAULT);
}

static void
die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3),
    noreturn));

/* Print an error and exit with code. */
static void
die(int code, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* Connect, mapping failures to our exit codes. */
static int
client_connect(const char *path)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		die(CTL_EUSAGE, "socket path too long: %s", path);
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		die(CTL_EFAIL, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EACCES || errno == EPERM)
			die(CTL_EPERM, "permission denied: %s", path);
		die(CTL_EUNREACH, "cannot reach pidvisor at %s: %s", path,
		    strerror(errno));
	}
	return fd;
}

/* Wait until fd is ready for events, or die at the deadline. */
static void
client_poll(int fd, short events, int64_t deadline)
{
	struct pollfd	p = { .fd = fd, .events = events };
	int64_t		left;
	int		rc;

	for (;;) {
		if ((left = deadline - mono_ms()) <= 0)
			die(CTL_EFAIL, "timed out waiting for pidvisor");
		rc = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (rc > 0)
			return;
		if (rc < 0 && errno != EINTR)
			die(CTL_EFAIL, "poll: %s", strerror(errno));
	}
}

/* Send the whole request. */
static void
client_send(int fd, const struct buf *req, int64_t deadline)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < req->len) {
		client_poll(fd, POLLOUT, deadline);
		n = send(fd, req->data + off, req->len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return;		/* it may have answered: read that */
		if (n < 0)
			die(CTL_EUNREACH, "send: %s", strerror(errno));
		off += (size_t)n;
	}
}

/* Read frames until END; print output; return the code. */
static int
client_recv(int fd, int64_t deadline)
{
	struct buf		in = { 0 };
	struct ctl_frame	f;
	const char		*msg;
	ssize_t			n;
	int			rc, code;

	for (;;) {
		while ((rc = ctl_frame_get(in.data, in.len, CTL_FRAME_MAX,
		    &f)) > 0) {
			if (f.type == CTL_OUTPUT) {
				fwrite(f.payload, 1, f.len, stdout);
			} else if (f.type == CTL_NOTE) {
				fflush(stdout);
				fprintf(stderr, "%s: %.*s", prog, (int)f.len,
				    f.payload);
			} else if (f.type == CTL_END &&
			    ctl_end_get(&f, &code, &msg) == 0) {
				fflush(stdout);
				if (*msg)
					fprintf(stderr, "%s: %s\n", prog, msg);
				buf_free(&in);
				return code;
			} else {
				die(CTL_EFAIL, "malformed reply");
			}
			buf_consume(&in, (size_t)rc);
		}
		if (rc < 0)
			die(CTL_EFAIL, "malformed reply (%s)", strerror(-rc));
		fflush(stdout);		/* logs -f: show lines as they come */
		if (buf_reserve(&in, 65536) < 0)
			die(CTL_EFAIL, "%s", strerror(ENOMEM));
		client_poll(fd, POLLIN, deadline);
		n = recv(fd, in.data + in.len, 65536, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(CTL_EUNREACH, "pidvisor closed the connection");
		in.len += (size_t)n;
	}
}

int
main(int argc, char **argv)
{
	const char	*sock = getenv("PIDVISOR_SOCKET");
	struct ctl_args	 a;
	struct buf	 req = { 0 };
	char		 err[256];
	int64_t		 deadline;
	int		 ch, fd, code;

	while ((ch = getopt(argc, argv, "+s:h")) != -1) {
		switch (ch) {
		case 's':
			sock = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return CTL_EUSAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr);
		return CTL_EUSAGE;
	}
	if (ctl_args_parse(argc, argv, &a, err, sizeof(err)) < 0)
		die(CTL_EUSAGE, "%s", err);
	if (a.verb == VERB_VERSION)
		printf("pidvisorctl %s (protocol %d)\n", PIDVISOR_VERSION,
		    CTL_VERSION);
	if (sock == NULL || *sock == '\0')
		sock = CTL_SOCKET_DEFAULT;
	if (ctl_req_put(&req, argc, argv) < 0)
		die(CTL_EUSAGE, "request too large");
	if (a.follow)
		deadline = INT64_MAX;	/* until Ctrl-C */
	else
		deadline = mono_ms() + ((a.wait || a.verb == VERB_WAIT) ?
		    (int64_t)a.timeout + 5000 : CLIENT_TIMEOUT);
	fd = client_connect(sock);
	client_send(fd, &req, deadline);
	buf_free(&req);
	code = client_recv(fd, deadline);
	close(fd);
	return code;
}
