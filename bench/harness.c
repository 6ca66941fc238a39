/*
 * harness.c - measures a supervisor from the outside, the same way for
 * pidvisor and its peers.
 *
 *   harness latency FIFO N WAIT_MS       kill each new instance after
 *                                        WAIT_MS; kill to next start
 *   harness count FIFO SECONDS           start lines per second
 *   harness first FIFO SECONDS           the time stamp of the first line
 *   harness now                          CLOCK_MONOTONIC, ns
 *   harness ctl SOCKET CLIENTS SECONDS WORD...
 *                                        requests per second
 *   harness ctl-latency SOCKET N WORD... median and p90 round trip
 *   harness ctl-watch SOCKET SECONDS WORD...
 *                                        the same request every 10 ms for
 *                                        SECONDS: median, p99, max
 *   harness http-latency PORT N          N times GET /metrics from
 *                                        127.0.0.1:PORT, each on a new
 *                                        connection, read to its end:
 *                                        median, p90, max, the bytes
 *   harness reexec SOCKET N              N times: reexec, then status;
 *                                        from asking to the new binary's
 *                                        answer: median and max
 *   harness wakeups PID SECONDS          context switches per second
 *   harness cpu PID SECONDS N            its CPU time (user + system) in
 *                                        N windows of SECONDS: median,
 *                                        min and max, % of one CPU
 *   harness mem PID...                   summed Rss and Pss (kB)
 *
 * Output: one line of "key=value" pairs.  This is a test program: it
 * does kill(2) by PID, as an outside killer would; pidvisor does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "proto.h"


/* Read one "PID NS" line within deadline_ns; 0 on success. */
static int
read_line(int fd, int *pid, int64_t *ts, int64_t deadline)
{
	static char	buf[8192];
	static size_t	len;
	char		*nl;
	struct pollfd	p = { .fd = fd, .events = POLLIN };
	ssize_t		n;
	long long	t;

	for (;;) {
		if ((nl = memchr(buf, '\n', len)) != NULL) {
			*nl = '\0';
			if (sscanf(buf, "%d %lld", pid, &t) != 2)
				return -1;
			*ts = t;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			return 0;
		}
		if (now_ns() > deadline ||
		    poll(&p, 1, (int)((deadline - now_ns()) / 1000000) + 1) <= 0)
			return -1;
		if ((n = read(fd, buf + len, sizeof(buf) - len)) <= 0)
			return -1;
		len += (size_t)n;
	}
}

static int
latency(const char *fifo, int n, int wait_ms)
{
	int64_t	*lat = calloc((size_t)n, sizeof(*lat)), t0, ts;
	int	 fd = open(fifo, O_RDWR), pid, next, i;

	if (lat == NULL || fd < 0 ||
	    read_line(fd, &pid, &ts, now_ns() + 30000000000LL) < 0) {
		fprintf(stderr, "harness: the service never started\n");
		free(lat);
		return 1;
	}
	for (i = 0; i < n; i++) {
		usleep((useconds_t)wait_ms * 1000);
		t0 = now_ns();
		kill(pid, SIGKILL);
		if (read_line(fd, &next, &ts, now_ns() + 10000000000LL) < 0) {
			fprintf(stderr, "harness: no restart within 10 s\n");
			free(lat);
			return 1;
		}
		lat[i] = ts - t0;
		pid = next;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp64);
	printf("median_us=%.1f p90_us=%.1f n=%d\n", lat[n / 2] / 1000.0,
	    lat[n * 9 / 10] / 1000.0, n);
	free(lat);
	return 0;
}

/* Count newlines on fd until the deadline. */
static long
count_lines(int fd, int64_t deadline, long stop_at)
{
	char		buf[65536];
	struct pollfd	p = { .fd = fd, .events = POLLIN };
	long		lines = 0;
	ssize_t		n, i;

	while (now_ns() < deadline && lines < stop_at) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			continue;
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	}
	return lines;
}

static int
count(const char *fifo, double secs)
{
	int	fd = open(fifo, O_RDWR | O_NONBLOCK);
	int64_t	t0 = now_ns();
	long	lines = count_lines(fd, t0 + (int64_t)(secs * 1e9), LONG_MAX);

	printf("starts_per_s=%.0f starts=%ld seconds=%.1f\n",
	    lines / ((now_ns() - t0) / 1e9), lines, secs);
	return 0;
}

static int
first(const char *fifo, double secs)
{
	int	fd = open(fifo, O_RDWR), pid;
	int64_t	ts;

	if (read_line(fd, &pid, &ts, now_ns() + (int64_t)(secs * 1e9)) < 0) {
		fprintf(stderr, "harness: no start line\n");
		return 1;
	}
	printf("pid=%d ts=%lld\n", pid, (long long)ts);
	return 0;
}

/* One control request; 0 when an END frame with code 0 arrived. */
static int
ctl_once(const char *sock, char *req, size_t reqlen, char *buf, size_t len)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	uint8_t			hdr[CTL_HDR_SIZE] = { CTL_VERSION,
				    CTL_REQUEST };
	int32_t			code;
	uint32_t		l = (uint32_t)reqlen, flen;
	size_t			got = 0, off;
	ssize_t			n;
	int			fd, rc = -1;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	memcpy(hdr + 4, &l, 4);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, hdr, 8) != 8 || write(fd, req, reqlen) != (ssize_t)l)
		goto out;
	while ((n = read(fd, buf + got, len - got)) > 0) {
		got += (size_t)n;
		/* Skip whole frames; done at the END frame. */
		for (off = 0; off + 8 <= got; off += 8 + flen) {
			memcpy(&flen, buf + off + 4, 4);
			if (off + 8 + flen > got)
				break;
			if (buf[off + 1] == CTL_END) {
				if (flen >= 4)
					memcpy(&code, buf + off + 8, 4);
				rc = flen >= 4 && code == CTL_OK ? 0 : -1;
				goto out;
			}
		}
		memmove(buf, buf + off, got - off);
		got -= off;
		if (got == len)
			goto out;
	}
out:
	close(fd);
	return rc;
}

/* The request payload: the words, each with its NUL. */
static size_t
request(char **words, int n, char *out)
{
	size_t	len = 0;
	int	i;

	for (i = 0; i < n; i++) {
		strcpy(out + len, words[i]);
		len += strlen(words[i]) + 1;
	}
	return len;
}

static int
ctl_rate(const char *sock, int clients, double secs, char **words, int nw)
{
	static char	buf[1 << 20];
	char		req[1024];
	size_t		len = request(words, nw, req);
	int		p[2], i;
	long		total = 0, one;

	if (pipe(p) < 0)
		return 1;
	for (i = 0; i < clients; i++) {
		if (fork() == 0) {
			int64_t	end = now_ns() + (int64_t)(secs * 1e9);
			long	done = 0;

			while (now_ns() < end)
				if (ctl_once(sock, req, len, buf, sizeof(buf)) == 0)
					done++;
			(void)!write(p[1], &done, sizeof(done));
			_exit(0);
		}
	}
	close(p[1]);
	while (read(p[0], &one, sizeof(one)) == sizeof(one))
		total += one;
	while (wait(NULL) > 0)
		;
	printf("requests_per_s=%.0f clients=%d seconds=%.1f\n",
	    total / secs, clients, secs);
	return 0;
}

/*
 * The request, n times back to back (n > 0), or every 10 ms for secs:
 * the round trips' median and p90, or median, p99 and max.
 */
static int
ctl_times(const char *sock, int n, double secs, char **words, int nw)
{
	static char	 buf[1 << 22];
	char		 req[1024];
	size_t		 len = request(words, nw, req);
	int		 i, max = n > 0 ? n : (int)(secs * 100) + 1;
	int64_t		*lat = calloc((size_t)max, sizeof(*lat)), t0;
	int64_t		 end = now_ns() + (int64_t)(secs * 1e9);
	struct timespec	 tick = { 0, 10000000 };

	for (i = 0; i < max && (n > 0 || now_ns() < end); i++) {
		t0 = now_ns();
		if (ctl_once(sock, req, len, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "harness: request failed\n");
			return 1;
		}
		lat[i] = now_ns() - t0;
		if (n == 0)
			nanosleep(&tick, NULL);
	}
	if (i == 0)
		return 1;
	qsort(lat, (size_t)i, sizeof(*lat), cmp64);
	if (n > 0)
		printf("median_ms=%.2f p90_ms=%.2f n=%d\n", lat[i / 2] / 1e6,
		    lat[i * 9 / 10] / 1e6, i);
	else
		printf("median_ms=%.2f p99_ms=%.2f max_ms=%.2f n=%d\n",
		    lat[i / 2] / 1e6, lat[i * 99 / 100] / 1e6,
		    lat[i - 1] / 1e6, i);
	free(lat);
	return 0;
}

/* N scrapes, one after the other: connect, GET, read to the close. */
static int
http_times(int port, int n)
{
	static char		 buf[1 << 16];
	static const char	 req[] = "GET /metrics HTTP/1.1\r\n"
				    "Host: 127.0.0.1\r\nAccept: text/plain\r\n\r\n";
	struct sockaddr_in	 sa = { .sin_family = AF_INET,
				    .sin_port = htons((uint16_t)port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int64_t			*lat = calloc((size_t)n, sizeof(*lat)), t0;
	size_t			 bytes = 0;
	ssize_t			 r;
	int			 i, fd;

	if (lat == NULL || n < 1)
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		bytes = 0;
		if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
			fprintf(stderr, "harness: http: %s\n", strerror(errno));
			return 1;
		}
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			bytes += (size_t)r;
		close(fd);
		if (bytes < 12 || r < 0) {
			fprintf(stderr, "harness: http: a short answer\n");
			return 1;
		}
		lat[i] = now_ns() - t0;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp64);
	printf("median_ms=%.2f p90_ms=%.2f max_ms=%.2f bytes=%zu n=%d\n",
	    lat[n / 2] / 1e6, lat[n * 9 / 10] / 1e6, lat[n - 1] / 1e6, bytes,
	    n);
	free(lat);
	return 0;
}

/*
 * From sending `reexec` to the answer of `status` by the binary that
 * took over (reexec is answered by it, status is its second request).
 */
static int
reexec_times(const char *sock, int n)
{
	static char	 buf[1 << 22];
	char		*rx[] = { "reexec" }, *st[] = { "status" };
	char		 rxreq[64], streq[64];
	size_t		 rxlen = request(rx, 1, rxreq), stlen = request(st, 1, streq);
	int64_t		*lat = calloc((size_t)n, sizeof(*lat)), t0;
	int		 i;

	if (lat == NULL || n < 1)
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (ctl_once(sock, rxreq, rxlen, buf, sizeof(buf)) < 0 ||
		    ctl_once(sock, streq, stlen, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "harness: reexec or status failed\n");
			free(lat);
			return 1;
		}
		lat[i] = now_ns() - t0;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp64);
	printf("median_ms=%.2f max_ms=%.2f n=%d\n", lat[n / 2] / 1e6,
	    lat[n - 1] / 1e6, n);
	free(lat);
	return 0;
}

/* Voluntary plus involuntary context switches of pid. */
static long
switches(int pid)
{
	char	path[64], line[128];
	long	v, total = 0;
	FILE	*f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			total += v;
	fclose(f);
	return total;
}

static int
wakeups(int pid, double secs)
{
	long	a = switches(pid), b;

	usleep((useconds_t)(secs * 1e6));
	b = switches(pid);
	printf("wakeups_per_s=%.2f seconds=%.1f\n", (b - a) / secs, secs);
	return 0;
}

/* User plus system time of pid, in clock ticks. */
static long
cpu_ticks(int pid)
{
	char		 path[64], buf[1024], *p;
	unsigned long	 ut, st;
	FILE		*f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* After the command's ')': state is field 3, utime 14, stime 15. */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
cpu(int pid, double secs, int n)
{
	double	 hz = (double)sysconf(_SC_CLK_TCK), *v;
	long	 a, b;
	int	 i;

	if (n < 1 || (v = calloc((size_t)n, sizeof(*v))) == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		int64_t	t0 = now_ns(), t1;

		a = cpu_ticks(pid);
		usleep((useconds_t)(secs * 1e6));
		b = cpu_ticks(pid);
		t1 = now_ns();
		if (a < 0 || b < 0) {
			free(v);
			return 1;
		}
		v[i] = 100. * ((double)(b - a) / hz) / ((double)(t1 - t0) /
		    1e9);
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("cpu_pct=%.2f min_pct=%.2f max_pct=%.2f windows=%d "
	    "seconds=%.1f\n", v[n / 2], v[0], v[n - 1], n, secs);
	free(v);
	return 0;
}

static int
mem(int argc, char **argv)
{
	char	path[64], line[128];
	long	v, rss = 0, pss = 0;
	FILE	*f;
	int	i;

	for (i = 0; i < argc; i++) {
		snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", argv[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Rss: %ld", &v) == 1)
				rss += v;
			else if (sscanf(line, "Pss: %ld", &v) == 1)
				pss += v;
		}
		fclose(f);
	}
	printf("rss_kb=%ld pss_kb=%ld processes=%d\n", rss, pss, argc);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "latency") == 0)
		return latency(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "count") == 0)
		return count(argv[2], atof(argv[3]));
	if (argc == 4 && strcmp(argv[1], "first") == 0)
		return first(argv[2], atof(argv[3]));
	if (argc == 2 && strcmp(argv[1], "now") == 0) {
		printf("%lld\n", (long long)now_ns());
		return 0;
	}
	if (argc >= 6 && strcmp(argv[1], "ctl") == 0)
		return ctl_rate(argv[2], atoi(argv[3]), atof(argv[4]),
		    argv + 5, argc - 5);
	if (argc >= 5 && strcmp(argv[1], "ctl-latency") == 0)
		return ctl_times(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) :
		    1, 0, argv + 4, argc - 4);
	if (argc >= 5 && strcmp(argv[1], "ctl-watch") == 0)
		return ctl_times(argv[2], 0, atof(argv[3]), argv + 4, argc - 4);
	if (argc == 4 && strcmp(argv[1], "http-latency") == 0)
		return http_times(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "reexec") == 0)
		return reexec_times(argv[2], atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "wakeups") == 0)
		return wakeups(atoi(argv[2]), atof(argv[3]));
	if (argc == 5 && strcmp(argv[1], "cpu") == 0)
		return cpu(atoi(argv[2]), atof(argv[3]), atoi(argv[4]));
	if (argc >= 3 && strcmp(argv[1], "mem") == 0)
		return mem(argc - 2, argv + 2);
	fprintf(stderr, "usage: see bench/harness.c\n");
	return 2;
}
