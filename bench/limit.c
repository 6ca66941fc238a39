/*
 * limit.c - the floor no supervisor can beat on this machine.
 *
 * A loop with no supervisor logic at all: it spawns bench-svc with
 * clone3(CLONE_PIDFD) (the same spawn as pidvisor's: CLONE_VM on a
 * stack of its own) and waits until it has exec'd, as posix_spawn does;
 * then it waits on the pidfd with poll(), reaps with waitid(P_PIDFD),
 * and starts the next.
 *
 *   limit latency N WAIT_MS FIFO SVC    kill to next start: median p90 (us)
 *   limit throughput SECONDS N FIFO SVC N services that exit: starts/s
 *                                       (instances that wrote their line)
 *   limit startall N SVC                N services, fd readiness: total us
 *
 * Output: one line of "key=value" pairs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "spawn.h"

extern char **environ;

static struct spawn_proc	proc;	/* one at a time; keeps its stack */


/* Start argv; the pidfd, or exit. */
static int
start(char **argv, int ready_pipe)
{
	struct spawn_req	r = {
		.argv = argv, .envp = environ, .path = "/usr/bin:/bin",
		.ready_fd = 3, .ready_pipe = ready_pipe,
		.stdio = { -1, -1, -1 }, .cgroup_fd = -1,
		.nofile_cur = 1024, .nofile_max = 4096,
	};
	struct spawn_result	res;

	if (spawn_start(&proc, &r, &res) < 0 ||
	    spawn_wait(&proc, res.pidfd) < 0 || proc.err) {
		fprintf(stderr, "limit: spawn %s failed\n", argv[0]);
		exit(1);
	}
	spawn_release(&proc);
	return res.pidfd;
}

/* Wait for and reap the process behind pidfd. */
static void
reap(int pidfd)
{
	struct pollfd	p = { .fd = pidfd, .events = POLLIN };
	siginfo_t	si;

	poll(&p, 1, -1);
	waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | __WALL);
	close(pidfd);
}

/* The next "PID NS" line from the FIFO; its time stamp. */
static int64_t
next_stamp(FILE *f)
{
	long long	ts;
	int		pid;

	if (fscanf(f, "%d %lld", &pid, &ts) != 2) {
		fprintf(stderr, "limit: no start line\n");
		exit(1);
	}
	return ts;
}

static int
latency(int n, int wait_ms, const char *fifo, char *svc)
{
	char		 arg[512], *argv[] = { svc, arg, "sleep", NULL };
	int64_t		*lat = calloc((size_t)n, sizeof(*lat)), t0;
	FILE		*f;
	int		 pidfd, i;

	snprintf(arg, sizeof(arg), "fifo=%s", fifo);
	f = fdopen(open(fifo, O_RDWR), "r");
	pidfd = start(argv, -1);
	next_stamp(f);
	for (i = 0; i < n; i++) {
		usleep((useconds_t)wait_ms * 1000);
		t0 = now_ns();
		pidfd_signal(pidfd, SIGKILL);
		reap(pidfd);
		pidfd = start(argv, -1);
		lat[i] = next_stamp(f) - t0;
	}
	pidfd_signal(pidfd, SIGKILL);
	reap(pidfd);
	qsort(lat, (size_t)n, sizeof(*lat), cmp64);
	printf("median_us=%.1f p90_us=%.1f n=%d\n", lat[n / 2] / 1000.0,
	    lat[n * 9 / 10] / 1000.0, n);
	return 0;
}

static int
throughput(double secs, int n, const char *fifo, char *svc)
{
	char		 arg[512], *argv[] = { svc, arg, "exit", NULL };
	struct pollfd	*p = calloc((size_t)n + 1, sizeof(*p));
	char		 buf[65536];
	int64_t		 end, t0;
	long		 starts = 0, lines = 0;
	siginfo_t	 si;
	ssize_t		 r;
	int		 i;

	snprintf(arg, sizeof(arg), "fifo=%s", fifo);
	p[n].fd = open(fifo, O_RDWR | O_NONBLOCK);
	p[n].events = POLLIN;
	t0 = now_ns();
	end = t0 + (int64_t)(secs * 1e9);
	for (i = 0; i < n; i++) {
		p[i].fd = start(argv, -1);
		p[i].events = POLLIN;
		starts++;
	}
	while (now_ns() < end) {
		if (poll(p, (nfds_t)n + 1, 100) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!p[i].revents)
				continue;
			waitid(P_PIDFD, (id_t)p[i].fd, &si, WEXITED | __WALL);
			close(p[i].fd);
			p[i].fd = start(argv, -1);
			starts++;
		}
		if (p[n].revents)
			while ((r = read(p[n].fd, buf, sizeof(buf))) > 0)
				for (i = 0; i < r; i++)
					lines += buf[i] == '\n';
	}
	for (i = 0; i < n; i++)
		reap(p[i].fd);
	/* Counted as for the supervisors: instances that wrote their line. */
	printf("starts_per_s=%.0f starts=%ld spawned=%ld seconds=%.1f\n",
	    lines / ((now_ns() - t0) / 1e9), lines, starts, secs);
	return 0;
}

static int
startall(int n, char *svc)
{
	char		*argv[] = { svc, "ready=3", "sleep", NULL };
	int		*pidfd = calloc((size_t)n, sizeof(int));
	struct pollfd	*p = calloc((size_t)n, sizeof(*p));
	int		 i, left = n, pp[2];
	int64_t		 t0 = now_ns();
	char		 c;

	for (i = 0; i < n; i++) {
		if (pipe2(pp, O_CLOEXEC) < 0)
			return 1;
		/* What we hold stays above SPAWN_FD_LOW, as pidvisor
		 * does: each child then copies only our low fds. */
		pidfd[i] = spawn_fd_keep(start(argv, pp[1]));
		close(pp[1]);
		p[i].fd = spawn_fd_keep(pp[0]);
		p[i].events = POLLIN;
	}
	while (left > 0) {
		poll(p, (nfds_t)n, -1);
		for (i = 0; i < n; i++)
			if (p[i].fd >= 0 && p[i].revents) {
				(void)!read(p[i].fd, &c, 1);
				close(p[i].fd);
				p[i].fd = -1;
				left--;
			}
	}
	printf("all_ready_us=%.0f n=%d\n", (now_ns() - t0) / 1000.0, n);
	for (i = 0; i < n; i++)
		pidfd_signal(pidfd[i], SIGKILL);
	for (i = 0; i < n; i++)
		reap(pidfd[i]);
	return 0;
}

int
main(int argc, char **argv)
{
	spawn_init();
	spawn_proc_init(&proc);
	if (argc == 6 && strcmp(argv[1], "latency") == 0)
		return latency(atoi(argv[2]), atoi(argv[3]), argv[4], argv[5]);
	if (argc == 6 && strcmp(argv[1], "throughput") == 0)
		return throughput(atof(argv[2]), atoi(argv[3]), argv[4],
		    argv[5]);
	if (argc == 4 && strcmp(argv[1], "startall") == 0)
		return startall(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: limit latency N WAIT_MS FIFO SVC | "
	    "throughput SECONDS N FIFO SVC | startall N SVC\n");
	return 2;
}
