/*
 * reclaim.c - how fast a killed process's memory comes back, by path.
 *
 *   reclaim RUNS SIZE_MB...
 *
 * For each size, RUNS times each path: a victim allocates and touches
 * SIZE_MB, then is killed through its pidfd by
 *   kill      SIGKILL; the victim frees its memory as it exits
 *   mrelease  SIGKILL, then process_mrelease() reaps it here
 *   reap      pidfd_send_signal(SIGKILL, PIDFD_SIGNAL_LOCAL_REAP): both at once
 * while one busy process per CPU keeps the CPUs taken (the victim then
 * has to compete to run its own exit).  "Back" is when MemFree has
 * regained 90% of the victim's size; "dead" when the pidfd says so.
 * Prints one "size_mb= path= back_ms= dead_ms= runs=" line per pair
 * (medians), the paths the kernel does not have as "missing".
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PIDFD_SIGNAL_LOCAL_REAP
#define PIDFD_SIGNAL_LOCAL_REAP	(1U << 30)
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease	448
#endif

enum { P_KILL, P_MRELEASE, P_REAP, P__COUNT };
static const char *const pname[] = { "kill", "mrelease", "reap" };

static long long
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* MemFree in bytes, read fast. */
static long long
mem_free(void)
{
	static char	buf[4096];
	FILE		*f = fopen("/proc/meminfo", "r");
	long long	 kb = 0;
	char		*p;
	size_t		 n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strstr(buf, "MemFree:")) != NULL)
		kb = atoll(p + 8);
	return kb * 1024;
}

static int
cmpd(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One kill of a victim of mb MiB by path; times in ms. */
static int
one(int mb, int path, double *back_ms, double *dead_ms)
{
	int		p[2], pidfd, rc;
	pid_t		pid;
	char		c;
	long long	before, t0, t, back = -1, dead = -1;
	struct pollfd	pf;
	siginfo_t	si;

	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		size_t	len = (size_t)mb << 20;
		char	*m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (m == MAP_FAILED)
			_exit(1);
		memset(m, 1, len);
		(void)!write(p[1], "r", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return -1;
	close(p[0]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	before = mem_free();

	t0 = now_us();
	if (path == P_REAP) {
		rc = (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL,
		    PIDFD_SIGNAL_LOCAL_REAP);
	} else {
		rc = (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		if (rc == 0 && path == P_MRELEASE)
			syscall(SYS_process_mrelease, pidfd, 0);
	}
	if (rc < 0)
		return -1;
	pf.fd = pidfd;
	pf.events = POLLIN;
	while (back < 0 || dead < 0) {
		t = now_us();
		if (back < 0 && mem_free() >= before + (long long)mb * 943718)
			back = t;
		if (dead < 0 && poll(&pf, 1, 0) == 1)
			dead = t;
		if (t - t0 > 60000000)
			break;
	}
	waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
	close(pidfd);
	*back_ms = back < 0 ? -1 : (back - t0) / 1000.0;
	*dead_ms = dead < 0 ? -1 : (dead - t0) / 1000.0;
	return 0;
}

int
main(int argc, char **argv)
{
	int	runs, i, s, path, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pid_t	*hog;
	double	*back, *dead;

	if (argc < 3)
		return 2;
	runs = atoi(argv[1]);
	back = calloc((size_t)runs, sizeof(*back));
	dead = calloc((size_t)runs, sizeof(*dead));
	hog = calloc((size_t)ncpu, sizeof(*hog));
	for (i = 0; i < ncpu; i++)
		if ((hog[i] = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				;
		}
	for (s = 2; s < argc; s++) {
		for (path = 0; path < P__COUNT; path++) {
			for (i = 0; i < runs; i++)
				if (one(atoi(argv[s]), path, &back[i],
				    &dead[i]) < 0)
					break;
			if (i < runs) {
				printf("size_mb=%s path=%s missing\n", argv[s],
				    pname[path]);
				continue;
			}
			qsort(back, (size_t)runs, sizeof(*back), cmpd);
			qsort(dead, (size_t)runs, sizeof(*dead), cmpd);
			printf("size_mb=%s path=%s back_ms=%.2f dead_ms=%.2f "
			    "runs=%d\n", argv[s], pname[path], back[runs / 2],
			    dead[runs / 2], runs);
			fflush(stdout);
		}
	}
	for (i = 0; i < ncpu; i++)
		kill(hog[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
