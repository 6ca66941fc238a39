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
 *	to since (memory is back).
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
static int		 navail;
static volatile int	 done;
static long long	 total_kb;

static long long
meminfo(const char *key)
{
	char		buf[4096], *p;
	ssize_t		n;
	int		fd;

	if ((fd = open("/proc/meminfo", O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, key)) == NULL)
		return -1;
	return atoll(p + strlen(key));
}

static void *
sampler(void *arg)
{
	(void)arg;
	while (!done && navail < MAX_SAMPLES) {
		avail_t[navail] = now_us();
		avail_kb[navail++] = meminfo("MemAvailable:");
		sleep_us(10000);
	}
	return NULL;
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
	long long		end, t0, t, down = -1, back[256], low;
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
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "measure"))
		return measure(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: hh serve PATH KB | hh measure PATH SECONDS\n");
	return 2;
}
