/*
 * ctlraw.c - talk to the control socket the way a broken or hostile
 * client would, for the host tests.
 *
 *   ctlraw SOCKET garbage|oversized|badversion|noterm|badtype|
 *                 toomany    send that, print "CODE message" of the reply
 *   ctlraw SOCKET hangup     send half a header and close
 *   ctlraw SOCKET noread MS [WORD...]
 *                            send a request (status by default), never read
 *                            the reply; print "sent", then "dropped" once
 *                            the server has given up on us, or "kept"
 *                            after MS
 *   ctlraw SOCKET silent N MS
 *                            hold N connections that send nothing; print
 *                            "held N", then "closed K" once the server has
 *                            closed them all or MS passed without news
 *   ctlraw SOCKET many N MS [WORD...]
 *                            N clients at once, each sends the request
 *                            (status by default) and reads its reply;
 *                            print "ok K other M none L" (END code 0,
 *                            another code, no reply within MS)
 *   ctlraw SOCKET later [WORD...]
 *                            connect, print "connected", wait for a line
 *                            on standard input, then send the request
 *                            and print "CODE message" of the reply
 *   ctlraw SOCKET junk MS [WORD...]
 *                            send a request (events by default), then
 *                            bytes, as fast as the server takes them,
 *                            reading what it sends; print "dropped" once
 *                            it has closed the connection (a send
 *                            fails), or "kept" after MS
 *   ctlraw PORT httpjunk MS  the same with GET /metrics to 127.0.0.1:PORT
 *   ctlraw SOCKET midreply   ask for status, read 16 bytes, close
 *   ctlraw SOCKET nul|utf8   a request with empty words (NULs in a
 *                            row), or a service name that is not UTF-8
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#define VERSION	2

static int
dial(const char *path)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("ctlraw: connect");
		exit(2);
	}
	return fd;
}

static void
frame(int fd, uint8_t ver, uint8_t type, uint32_t len, const void *p,
    size_t plen)
{
	uint8_t	h[8] = { ver, type, 0, 0 };

	memcpy(h + 4, &len, 4);
	(void)!send(fd, h, 8, MSG_NOSIGNAL);
	if (plen)
		(void)!send(fd, p, plen, MSG_NOSIGNAL);
}

/* Read the reply; print the END frame as "CODE message". */
static int
reply(int fd)
{
	static uint8_t	buf[1 << 20];
	size_t		len = 0;
	ssize_t		n;
	uint32_t	flen;
	int32_t		code;

	while ((n = recv(fd, buf + len, sizeof(buf) - len, 0)) > 0)
		len += (size_t)n;
	for (size_t off = 0; off + 8 <= len; off += 8 + flen) {
		memcpy(&flen, buf + off + 4, 4);
		if (buf[off + 1] == 3 && off + 8 + flen <= len) {
			memcpy(&code, buf + off + 8, 4);
			printf("%d %s\n", code, (char *)buf + off + 12);
			return 0;
		}
	}
	printf("no reply (%zu bytes)\n", len);
	return 1;
}

/* The request words of argv[from...], NUL-terminated each, or status. */
static size_t
words(char *req, size_t size, int argc, char **argv, int from)
{
	size_t	len = 0;
	int	i;

	for (i = from; i < argc && len + strlen(argv[i]) < size; i++) {
		strcpy(req + len, argv[i]);
		len += strlen(argv[i]) + 1;
	}
	if (len == 0) {
		strcpy(req, "status");
		len = 7;
	}
	return len;
}

/* N clients at once; each reads its reply to the end. */
static int
many(const char *path, int n, int ms, int argc, char **argv)
{
	struct pollfd	*p = calloc((size_t)n, sizeof(*p));
	uint8_t		**buf = calloc((size_t)n, sizeof(*buf));
	size_t		*len = calloc((size_t)n, sizeof(*len));
	struct rlimit	 rl;
	char		 req[512];
	size_t		 rlen = words(req, sizeof(req), argc, argv, 5);
	int		 i, left = n, ok = 0, other = 0, none = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < n; i++) {
		p[i].fd = dial(path);
		p[i].events = POLLIN;
		buf[i] = malloc(1 << 16);
		frame(p[i].fd, VERSION, 1, (uint32_t)rlen, req, rlen);
	}
	while (left > 0 && poll(p, (nfds_t)n, ms) > 0) {
		for (i = 0; i < n; i++) {
			ssize_t	r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = recv(p[i].fd, buf[i] + len[i], (1 << 16) - len[i],
			    MSG_DONTWAIT);
			if (r > 0 && len[i] + (size_t)r < (1 << 16)) {
				len[i] += (size_t)r;
				continue;
			}
			close(p[i].fd);
			p[i].fd = -1;
			left--;
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t	flen;
		int32_t		code = -1;
		size_t		off;

		for (off = 0; off + 8 <= len[i]; off += 8 + flen) {
			memcpy(&flen, buf[i] + off + 4, 4);
			if (buf[i][off + 1] == 3 && off + 12 <= len[i])
				memcpy(&code, buf[i] + off + 8, 4);
		}
		if (p[i].fd >= 0 || code < 0)
			none++;
		else if (code == 0)
			ok++;
		else
			other++;
		if (p[i].fd >= 0)
			close(p[i].fd);
		free(buf[i]);
	}
	printf("ok %d other %d none %d\n", ok, other, none);
	free(p);
	free(buf);
	free(len);
	return 0;
}

/*
 * Send junk on fd, reading whatever comes, until the server closes the
 * connection (1) or ms pass (0).
 */
static int
junk(int fd, int ms)
{
	static char	 b[4096];
	struct pollfd	 p = { .fd = fd, .events = POLLIN | POLLOUT };
	struct timespec	 t0, t;
	long		 left;

	memset(b, 'j', sizeof(b));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return 0;
		/* Its end of the reply (a shutdown) is not the close. */
		if ((p.revents & POLLIN) &&
		    recv(fd, b + 2048, 2048, MSG_DONTWAIT) == 0)
			p.events = POLLOUT;
		if (p.revents & (POLLHUP | POLLERR))
			return 1;
		if ((p.revents & POLLOUT) && send(fd, b, 512, MSG_NOSIGNAL |
		    MSG_DONTWAIT) < 0 && errno != EAGAIN)
			return 1;
	}
}

int
main(int argc, char **argv)
{
	const char	*mode;
	int		 fd;

	if (argc < 3)
		return 2;
	mode = argv[2];
	if (!strcmp(mode, "silent")) {
		int		 n = argc > 3 ? atoi(argv[3]) : 1, closed = 0, i;
		int		 ms = argc > 4 ? atoi(argv[4]) : 10000;
		struct pollfd	*p = calloc((size_t)n, sizeof(*p));
		char		 b[64];

		for (i = 0; i < n; i++) {
			p[i].fd = dial(argv[1]);
			p[i].events = POLLIN;
		}
		printf("held %d\n", n);
		fflush(stdout);
		/* Until the server has closed them all, or the deadline. */
		while (closed < n && poll(p, (nfds_t)n, ms) > 0) {
			for (i = 0; i < n; i++) {
				if (p[i].fd < 0 || !p[i].revents)
					continue;
				if (recv(p[i].fd, b, sizeof(b), MSG_DONTWAIT) <= 0) {
					close(p[i].fd);
					p[i].fd = -1;
					closed++;
				}
			}
		}
		printf("closed %d\n", closed);
		return 0;
	}
	if (!strcmp(mode, "httpjunk")) {
		struct sockaddr_in	a = { .sin_family = AF_INET };
		static const char	get[] = "GET /metrics HTTP/1.1\r\n\r\n";

		a.sin_port = htons((uint16_t)atoi(argv[1]));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return 2;
		(void)!send(fd, get, sizeof(get) - 1, 0);
		printf("%s\n", junk(fd, argc > 3 ? atoi(argv[3]) : 10000) ?
		    "dropped" : "kept");
		return 0;
	}
	if (!strcmp(mode, "many"))
		return many(argv[1], argc > 3 ? atoi(argv[3]) : 100,
		    argc > 4 ? atoi(argv[4]) : 10000, argc, argv);
	fd = dial(argv[1]);
	if (!strcmp(mode, "midreply")) {
		char	b[16];

		frame(fd, VERSION, 1, 7, "status", 7);
		(void)!recv(fd, b, sizeof(b), MSG_WAITALL);
		close(fd);
		return 0;
	}
	if (!strcmp(mode, "later")) {
		char	req[512], line[64];
		size_t	len = words(req, sizeof(req), argc, argv, 3);

		printf("connected\n");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			return 2;
		frame(fd, VERSION, 1, (uint32_t)len, req, len);
		shutdown(fd, SHUT_WR);
		return reply(fd);
	}
	if (!strcmp(mode, "junk")) {
		char	req[512];
		size_t	len;

		if (argc < 5) {
			argv[argc] = "events";
			argc++;
		}
		len = words(req, sizeof(req), argc, argv, 4);
		frame(fd, VERSION, 1, (uint32_t)len, req, len);
		printf("%s\n", junk(fd, argc > 3 ? atoi(argv[3]) : 10000) ?
		    "dropped" : "kept");
		return 0;
	}
	if (!strcmp(mode, "noread")) {
		struct pollfd	p = { .fd = fd, .events = POLLRDHUP };
		int		rcvbuf = 4096;

		char		req[512];
		size_t		len = words(req, sizeof(req), argc, argv, 4);

		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		frame(fd, VERSION, 1, (uint32_t)len, req, len);
		printf("sent\n");
		fflush(stdout);
		if (poll(&p, 1, argc > 3 ? atoi(argv[3]) : 10000) == 1 &&
		    (p.revents & (POLLRDHUP | POLLHUP)))
			printf("dropped\n");
		else
			printf("kept\n");
		return 0;
	}
	if (!strcmp(mode, "garbage")) {
		(void)!send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, 0);
	} else if (!strcmp(mode, "oversized")) {
		static char	big[65536];

		memset(big, 'x', sizeof(big));
		frame(fd, VERSION, 1, 1U << 30, big, sizeof(big));
	} else if (!strcmp(mode, "badversion")) {
		frame(fd, 99, 1, 7, "status", 7);
	} else if (!strcmp(mode, "noterm")) {
		frame(fd, VERSION, 1, 6, "status", 6);
	} else if (!strcmp(mode, "badtype")) {
		frame(fd, VERSION, 2, 7, "status", 7);
	} else if (!strcmp(mode, "toomany")) {
		char	p[64];

		memset(p, 0, sizeof(p));
		frame(fd, VERSION, 1, sizeof(p), p, sizeof(p));
	} else if (!strcmp(mode, "nul")) {
		frame(fd, VERSION, 1, 8, "stop\0\0\0", 8);
	} else if (!strcmp(mode, "utf8")) {
		frame(fd, VERSION, 1, 12, "status\0\xff\xfe\xc3(", 12);
	} else if (!strcmp(mode, "hangup")) {
		(void)!send(fd, "\1\1\0", 3, 0);
		close(fd);
		return 0;
	} else {
		return 2;
	}
	shutdown(fd, SHUT_WR);
	return reply(fd);
}
