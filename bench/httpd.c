/*
 * httpd.c - the small HTTP server of the sockets benchmark (bench/sockets.sh).
 *
 *   bench-httpd listen        serve fd 3, as socket activation gives it
 *                             (LISTEN_FDS, LISTEN_PID: sd_listen_fds())
 *   bench-httpd stdin         serve fd 0 (s6-fdholder-retrieve's way)
 *   bench-httpd bind PORT     bind 127.0.0.1:PORT itself, then serve it
 *   bench-httpd hold PORT PROG...
 *                             bind 127.0.0.1:PORT, make it fd 0, exec PROG
 *                             (to hand it to s6-fdholder-store)
 *
 * With READY_FD=N in its environment it writes a line on fd N once it
 * listens (s6's notification-fd).  One connection at a time: read the request head, answer 200 with
 * "Connection: close", close.  SIGTERM ends it between two requests, so
 * that a stop never cuts one: the benchmark counts what a restart costs
 * the clients who connect meanwhile, not a server's sloppy exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int
bind_port(const char *port)
{
	struct sockaddr_in	sa = { .sin_family = AF_INET };
	int			fd, one = 1;

	sa.sin_port = htons((unsigned short)atoi(port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4096) < 0) {
		perror("bench-httpd: bind");
		exit(1);
	}
	return fd;
}

/* Read a request head (up to the blank line) and answer it. */
static void
serve_one(int c)
{
	static const char	ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 3"
				    "\r\nConnection: close\r\n\r\nok\n";
	struct timeval		tv = { 5, 0 };
	char			buf[4096];
	size_t			n = 0;
	ssize_t			k;

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (n < sizeof(buf) - 1) {
		k = read(c, buf + n, sizeof(buf) - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		n += (size_t)k;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	(void)!write(c, ok, sizeof(ok) - 1);
}

int
main(int argc, char **argv)
{
	struct sigaction	sa = { .sa_handler = on_term };
	const char		*pid = getenv("LISTEN_PID");
	int			fd, c;

	if (argc >= 4 && !strcmp(argv[1], "hold")) {
		fd = bind_port(argv[2]);
		if (dup2(fd, 0) < 0)
			return 1;
		close(fd);
		execvp(argv[3], argv + 3);
		perror("bench-httpd: exec");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "bind")) {
		fd = bind_port(argv[2]);
	} else if (argc == 2 && !strcmp(argv[1], "stdin")) {
		fd = 0;
	} else if (argc == 2 && !strcmp(argv[1], "listen")) {
		if (pid == NULL || atoi(pid) != (int)getpid() ||
		    getenv("LISTEN_FDS") == NULL ||
		    atoi(getenv("LISTEN_FDS")) < 1) {
			fprintf(stderr, "bench-httpd: no LISTEN_FDS for us\n");
			return 1;
		}
		fd = 3;
	} else {
		fprintf(stderr, "usage: bench-httpd listen | stdin | bind PORT"
		    " | hold PORT PROG...\n");
		return 2;
	}
	/* s6's readiness (notification-fd): a line once we listen. */
	if (getenv("READY_FD") != NULL) {
		(void)!write(atoi(getenv("READY_FD")), "\n", 1);
		close(atoi(getenv("READY_FD")));
	}
	sigaction(SIGTERM, &sa, NULL);	/* no SA_RESTART: accept returns */
	signal(SIGPIPE, SIG_IGN);
	while (!stop) {
		if ((c = accept(fd, NULL, NULL)) < 0)
			continue;
		serve_one(c);
		close(c);
	}
	return 0;
}
