/*
 * pidvisorctl.c - the control client.  A thin shell around one request:
 * check the arguments (with the same parser the server uses), send them,
 * print what comes back, exit with the code the server gave.
 */
#include <errno.h>
#include <glob.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "calshow.h"
#include "proto.h"

#define CLIENT_TIMEOUT	30000	/* ms, for requests that do not wait */
/* ms past --timeout: the daemon's own answer to a wait comes first */
#define CLIENT_MARGIN	5000

static const char	*prog = "pidvisorctl";

/* The usage: every verb with its arguments and what it does. */
static void
usage(FILE *f)
{
	int	i;

	fprintf(f, "usage: %s [-s SOCKET] VERB [ARGS] [OPTIONS]\n\n"
	    "verbs:\n", prog);
	for (i = 0; i < VERB__COUNT; i++)
		fprintf(f, "  %-44s %s\n", ctl_verbs[i].usage,
		    ctl_verbs[i].help);
	fprintf(f, "  %-44s %s\n\n", "help [VERB]", "this, or one verb's");
	fprintf(f, "options (anywhere on the line):\n"
	    "  -s SOCKET, --socket=SOCKET  the control socket (default "
	    "$PIDVISOR_SOCKET,\n"
	    "                              else %s,\n"
	    "                              see pidvisorctl(8) for other "
	    "users)\n"
	    "  -h, --help                  this help\n"
	    "  --version                   pidvisorctl's version\n\n"
	    "exit status: 0 ok, 1 failed, 2 usage, 3 not ready, 4 no such "
	    "service,\n5 permission denied, 6 pidvisor unreachable; see "
	    "pidvisorctl(8)\n", CTL_SOCKET_DEFAULT);
}

/* help VERB: its usage and what it does; 0, or 2 if there is none. */
static int
usage_verb(const char *name)
{
	const struct ctl_verb	*v = ctl_verb_find(name);

	if (v == NULL) {
		fprintf(stderr, "%s: unknown verb '%s'; %s help lists them\n",
		    prog, name, prog);
		return CTL_EUSAGE;
	}
	printf("usage: %s %s\n%s%s\n", prog, v->usage, v->help,
	    (v->flags & VF_ROOT) ? " (root only)" : "");
	return 0;
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

static const char	*others_hint(const char *tried);

/*
 * Connect, mapping failures to our exit codes; then make sure that who
 * answers is root, us, or owner (whose the socket's place is), before
 * a byte of the request goes: a socket another user put there would
 * take the request and answer what it likes.
 */
static int
client_connect(const char *path, uid_t owner, bool named)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	struct ucred		cr;
	socklen_t		len = sizeof(cr);
	int			fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		die(CTL_EUSAGE, "socket path too long: %s", path);
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		die(CTL_EFAIL, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int	err = errno;

		if (err == EACCES || err == EPERM)
			die(CTL_EPERM, "permission denied: %s", path);
		die(CTL_EUNREACH, "cannot reach pidvisor at %s: %s%s", path,
		    strerror(err), named ? "" : others_hint(path));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		die(CTL_EUNREACH, "%s: SO_PEERCRED: %s", path, strerror(errno));
	if (cr.uid != 0 && cr.uid != geteuid() && cr.uid != owner)
		die(CTL_EUNREACH, "%s: answered by uid %u, neither root, you, "
		    "nor uid %u: nothing sent", path, (unsigned)cr.uid,
		    (unsigned)owner);
	return fd;
}

/*
 * Where no socket answers in our places: the sockets of pidvisors in
 * the other known places (another user's), as a hint for -s.
 */
static const char *
others_hint(const char *tried)
{
	static const char *const places[] = {
		CTL_SOCKET_DEFAULT, "/tmp/pidvisor-*/control.sock",
		"/run/user/*/pidvisor/control.sock",
	};
	static char	 hint[1024];
	struct stat	 st;
	glob_t		 g;
	size_t		 i, j, len = 0;

	hint[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(places); i++) {
		if (glob(places[i], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (j = 0; j < g.gl_pathc; j++) {
			const char	*p = g.gl_pathv[j];

			if (strcmp(p, tried) == 0 || lstat(p, &st) < 0 ||
			    !S_ISSOCK(st.st_mode) || len >= sizeof(hint))
				continue;
			len += (size_t)snprintf(hint + len, sizeof(hint) - len,
			    "%s%s (uid %u)", len ? ", " : "; sockets found "
			    "elsewhere (pidvisorctl -s PATH): ", p,
			    (unsigned)st.st_uid);
		}
		globfree(&g);
	}
	return hint;
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

/*
 * Where the control socket is, when no one says (see proto.c): the
 * first place with a socket, in a directory that its owner alone may
 * write; *owner is who that is.  A socket in a place another user could
 * have written is not used, and said so if there is no other.
 */
static const char *
default_socket(char *buf, size_t n, uid_t *owner)
{
	const char	*p;
	char		 why[256], first[512] = "";
	struct stat	 st;
	int		 i;

	for (i = 0; (p = ctl_socket_default(i, false, buf, n, owner)) != NULL;
	    i++) {
		if (lstat(p, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (ctl_socket_dir_safe(p, *owner, why, sizeof(why)) == 0)
			return p;
		if (first[0] == '\0')
			snprintf(first, sizeof(first), "%s: %s", p, why);
	}
	if (first[0] != '\0')
		die(CTL_EUNREACH, "%s: not used", first);
	return ctl_socket_default(0, false, buf, n, owner);
}

int
main(int argc, char **argv)
{
	const char	*sock = getenv("PIDVISOR_SOCKET");
	struct ctl_args	 a;
	struct buf	 req = { 0 };
	char		 err[256], sockbuf[CTL_SOCKET_PATH_MAX];
	int64_t		 deadline;
	uid_t		 owner;
	int		 i, n, fd, code;
	bool		 help = false, version = false, named;

	/* Our own options, anywhere; the rest is the request. */
	for (i = 1, n = 0; i < argc; i++) {
		const char	*a = argv[i];

		if (!strcmp(a, "-s") || !strcmp(a, "--socket")) {
			if (i + 1 == argc)
				die(CTL_EUSAGE, "%s needs a socket path", a);
			sock = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0)
			sock = a + 9;
		else if (strncmp(a, "-s", 2) == 0 && a[2] != '\0')
			sock = a + 2;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			help = true;
		else if (strcmp(a, "--version") == 0)
			version = true;
		else
			argv[n++] = argv[i];
	}
	argc = n;
	if (version) {
		printf("pidvisorctl %s (protocol %d)\n", PIDVISOR_VERSION,
		    CTL_VERSION);
		return 0;
	}
	if (argc > 0 && strcmp(argv[0], "help") == 0) {
		if (argc > 2)
			die(CTL_EUSAGE, "usage: %s help [VERB]", prog);
		if (argc == 2)
			return usage_verb(argv[1]);
		help = true;
	}
	if (help) {
		for (i = 0; i < argc; i++)
			if (ctl_verb_find(argv[i]) != NULL)
				return usage_verb(argv[i]);
		usage(stdout);
		return 0;
	}
	if (argc == 0) {
		usage(stderr);
		return CTL_EUSAGE;
	}
	if (ctl_args_parse(argc, argv, &a, err, sizeof(err)) < 0)
		die(CTL_EUSAGE, "%s", err);
	if (ctl_verbs[a.verb].flags & VF_LOCAL)
		return calshow(&a);
	if (a.verb == VERB_VERSION)
		printf("pidvisorctl %s (protocol %d)\n", PIDVISOR_VERSION,
		    CTL_VERSION);
	named = sock != NULL && *sock != '\0';
	if (!named) {
		sock = default_socket(sockbuf, sizeof(sockbuf), &owner);
	} else {
		struct stat	st;

		/* Named: whoever owns the socket file may answer too. */
		owner = lstat(sock, &st) == 0 ? st.st_uid : 0;
	}
	if (ctl_req_put(&req, argc, argv) < 0)
		die(CTL_EUSAGE, "request too large");
	if (a.follow || a.verb == VERB_EVENTS)
		deadline = INT64_MAX;	/* until Ctrl-C */
	else
		deadline = mono_ms() + (ctl_args_wait(&a) ?
		    (int64_t)a.timeout + CLIENT_MARGIN : CLIENT_TIMEOUT);
	fd = client_connect(sock, owner, named);
	client_send(fd, &req, deadline);
	buf_free(&req);
	code = client_recv(fd, deadline);
	close(fd);
	return code;
}
