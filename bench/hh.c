/*
 * hh.c - the head-to-head of low-memory killers (qemu/bench/hh-run.sh).
 *
 *   hh serve PATH KB
 *	The protected, latency-sensitive service: on a unix socket at
 *	PATH, answers each byte with a byte, after taking KB KiB of fresh
 *	memory, touching it and giving it back (as a request handler
 *	does): under memory pressure that allocation is where it stalls.
 *
 *   hh measure PATH SECONDS
 *	Pings the service every 10 ms for SECONDS (each ping waits at
 *	most 5 s; a refused or lost connection counts as a stall until
 *	it answers again) and samples MemAvailable every 10 ms.  Prints:
 *	  pings=N rtt_p50_ms=X rtt_p99_ms=X rtt_max_ms=X
 *	  episodes=N back_median_ms=X back_max_ms=X
 *	an episode running from MemAvailable going under 8% of MemTotal
 *	(the onset of pressure) until it is 32 MiB over the lowest it fell
 *	to since (memory is back).  Then, for the pressure benchmark
 *	(qemu/bench-pressure.sh):
 *	  rtt_p999_ms=X over_slo_ms=X stall_max_ms=X onset_ms=N
 *	over_slo_ms the time pings took beyond a 50 ms SLO, summed;
 *	stall_max_ms the longest run of 10 ms samples in each of which the
 *	system's PSI "full" total grew by at least half the interval;
 *	onset_ms the first such sample, in ms of the day (CLOCK_REALTIME,
 *	UTC, as pidvisorctl's events), or -1.
 *
 *   hh thrash FILE MB
 *	A working set of file pages: FILE made MB MiB (unless it is),
 *	mapped shared, and read a page at a time, round and round, for
 *	ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES	(1 << 16)

static long long
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void
sleep_us(long long us)
{
	struct timespec	ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int
serve(const char *path, long kb)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	size_t			len = (size_t)kb << 10;
	char			c, *m;
	int			s, c_fd;

	signal(SIGPIPE, SIG_IGN);	/* a pinger that gave up is no death */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s, 4) < 0) {
		perror("hh serve");
		return 1;
	}
	for (;;) {
		if ((c_fd = accept(s, NULL, NULL)) < 0)
			continue;
		while (read(c_fd, &c, 1) == 1) {
			m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m != MAP_FAILED) {
				memset(m, c, len);
				munmap(m, len);
			}
			if (write(c_fd, &c, 1) != 1)
				break;
		}
		close(c_fd);
	}
}

static long long	 avail_kb[MAX_SAMPLES], avail_t[MAX_SAMPLES];
static long long	 full_us[MAX_SAMPLES], real_ms[MAX_SAMPLES];
static int		 navail;
static volatile int	 done;
static long long	 total_kb;

/* A small file into buf, NUL-ended; 0 or -1. */
static int
read_file(const char *path, char *buf, size_t len)
{
	ssize_t		n;
	int		fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static long long
meminfo(const char *key)
{
	char		buf[4096], *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0 ||
	    (p = strstr(buf, key)) == NULL)
		return -1;
	return atoll(p + strlen(key));
}

/* The system's PSI "full" total of memory, us; -1 if none. */
static long long
full_total(void)
{
	char		buf[512], *p;

	if (read_file("/proc/pressure/memory", buf, sizeof(buf)) < 0 ||
	    (p = strstr(buf, "full ")) == NULL ||
	    (p = strstr(p, "total=")) == NULL)
		return -1;
	return atoll(p + 6);
}

static void *
sampler(void *arg)
{
	struct timespec	ts;

	(void)arg;
	while (!done && navail < MAX_SAMPLES) {
		clock_gettime(CLOCK_REALTIME, &ts);
		real_ms[navail] = (ts.tv_sec % 86400) * 1000LL +
		    ts.tv_nsec / 1000000;
		full_us[navail] = full_total();
		avail_t[navail] = now_us();
		avail_kb[navail++] = meminfo("MemAvailable:");
		sleep_us(10000);
	}
	return NULL;
}

/* The figures of the pressure benchmark (see the top). */
static void
stall_figures(const long long *sorted, int n, long long slo_excess)
{
	long long	run = 0, best = 0, onset = -1;
	int		i;

	for (i = 1; i < navail; i++) {
		long long	dt = avail_t[i] - avail_t[i - 1];

		if (full_us[i] >= 0 && full_us[i - 1] >= 0 &&
		    (full_us[i] - full_us[i - 1]) * 2 >= dt) {
			run += dt;
			if (onset < 0)
				onset = real_ms[i - 1];
		} else {
			run = 0;
		}
		if (run > best)
			best = run;
	}
	printf("rtt_p999_ms=%.2f over_slo_ms=%.1f stall_max_ms=%.1f "
	    "onset_ms=%lld\n", sorted[(n * 999) / 1000] / 1000.0,
	    slo_excess / 1000.0, best / 1000.0, onset);
}

/* hh thrash FILE MB: read a file's pages round and round. */
static int
thrash(const char *path, long mb)
{
	size_t		len = (size_t)mb << 20, off;
	volatile char	sum = 0;
	char		*m, page[4096];
	int		fd;

	memset(page, 'x', sizeof(page));
	if ((fd = open(path, O_RDWR | O_CREAT, 0600)) < 0) {
		perror("hh thrash");
		return 1;
	}
	/* Made once (the runner makes it at its start), then only read. */
	for (off = (size_t)lseek(fd, 0, SEEK_END) >= len ? len : 0; off < len;
	    off += sizeof(page))
		if (pwrite(fd, page, sizeof(page), (off_t)off) < 0) {
			perror("hh thrash: write");
			return 1;
		}
	fsync(fd);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("hh thrash: mmap");
		return 1;
	}
	/* Dropped from the cache: what is read comes back as refaults. */
	posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
	for (;;)
		for (off = 0; off < len; off += 4096)
			sum += m[off];
	return 0;
}

static int
connect_to(const char *path)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		s = -1;
	}
	return s;
}

static int
cmpll(const void *a, const void *b)
{
	long long	x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int
measure(const char *path, int seconds)
{
	static long long	rtt[MAX_SAMPLES];
	long long		end, t0, t, down = -1, back[256], low, slo = 0;
	int			n = 0, s = -1, i, neps = 0;
	struct pollfd		pfd = { .events = POLLIN };
	pthread_t		th;
	char			c = 'p';

	/* The instrument must not stall on its own pages. */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	signal(SIGPIPE, SIG_IGN);
	total_kb = meminfo("MemTotal:");
	pthread_create(&th, NULL, sampler, NULL);
	end = now_us() + seconds * 1000000LL;
	while ((t0 = now_us()) < end && n < MAX_SAMPLES) {
		if (s < 0 && (s = connect_to(path)) < 0) {
			if (down < 0)
				down = t0;
			sleep_us(10000);
			continue;
		}
		pfd.fd = s;
		if (write(s, &c, 1) != 1 || poll(&pfd, 1, 5000) != 1 ||
		    read(s, &c, 1) != 1) {
			close(s);
			s = -1;
			if (down < 0)
				down = t0;
			continue;
		}
		t = now_us();
		/* After an outage, the ping that ends it carries it. */
		rtt[n++] = t - (down >= 0 ? down : t0);
		down = -1;
		if (t - t0 < 10000)
			sleep_us(10000 - (t - t0));
	}
	done = 1;
	pthread_join(th, NULL);
	if (n == 0) {
		printf("pings=0\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (rtt[i] > 50000)
			slo += rtt[i] - 50000;
	qsort(rtt, (size_t)n, sizeof(*rtt), cmpll);
	printf("pings=%d rtt_p50_ms=%.2f rtt_p99_ms=%.2f rtt_max_ms=%.2f\n",
	    n, rtt[n / 2] / 1000.0, rtt[(n * 99) / 100] / 1000.0,
	    rtt[n - 1] / 1000.0);
	/*
	 * Episodes: from MemAvailable going under 8% of MemTotal (onset)
	 * until memory comes back, 32 MiB over the lowest it fell to since
	 * (a kill took effect, or the workload let go).
	 */
	for (i = 0, t0 = -1, low = 0; i < navail && neps < 256; i++) {
		if (avail_kb[i] < 0)
			continue;
		if (t0 < 0 && avail_kb[i] < total_kb * 8 / 100) {
			t0 = avail_t[i];
			low = avail_kb[i];
		} else if (t0 >= 0 && avail_kb[i] < low) {
			low = avail_kb[i];
		} else if (t0 >= 0 && avail_kb[i] >= low + 32 * 1024) {
			back[neps++] = avail_t[i] - t0;
			t0 = -1;
		}
	}
	if (neps) {
		qsort(back, (size_t)neps, sizeof(*back), cmpll);
		printf("episodes=%d back_median_ms=%.1f back_max_ms=%.1f\n",
		    neps, back[neps / 2] / 1000.0, back[neps - 1] / 1000.0);
	} else {
		printf("episodes=0 back_median_ms=0 back_max_ms=0\n");
	}
	stall_figures(rtt, n, slo);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "measure"))
		return measure(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "thrash"))
		return thrash(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: hh serve PATH KB | hh measure PATH SECONDS | "
	    "hh thrash FILE MB\n");
	return 2;
}
