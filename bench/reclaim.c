/*
 * reclaim.c - how fast a killed process's memory comes back, by path,
 * when the victim cannot run its own exit.
 *
 *   reclaim RUNS RESTRICT SIZE_MB...
 *
 * The case of the article this project began with: the victim sits in a
 * cgroup that gets almost no CPU (RESTRICT "weight": cpu.weight 1;
 * "max": cpu.max of 5 ms per 100 ms; "none": no cgroup of its own), and
 * one busy process per CPU keeps the CPUs taken, so a plain SIGKILL
 * returns its memory only as fast as it gets to run its exit.  For each
 * size, RUNS victims of SIZE_MB (allocated and touched before they are
 * moved into their cgroup) are killed through their pidfd by each path:
 *   kill      SIGKILL; the victim frees its memory as it exits
 *   boost     move the victim to a cgroup of its own with the default
 *             share, then SIGKILL (what reviewers of the 2019 RFC
 *             proposed instead of a kernel reap)
 *   mrelease  SIGKILL, then process_mrelease() from a worker thread, as
 *             a killer that must not block does it (lmkd, pidvisor)
 *   reap      pidfd_send_signal(SIGKILL, PIDFD_SIGNAL_LOCAL_REAP): a
 *             kernel worker reaps at once (our kernel series, 0003)
 * mrelease and reap run twice: with the killer (this thread and the
 * worker) at nice 0, and at nice -20, where the kernel reaps on its
 * high-priority queue: the same priority for the same job.  "Back" is
 * when MemFree has regained 90% of the victim's size, polled every
 * millisecond; "dead" when the pidfd says so.  Prints one line per
 * size, path and nice, the medians:
 *   restrict=R size_mb=N path=P nice=I back_ms=X dead_ms=Y runs=N
 *   timeouts=T
 * (a run not over in 180 s counts as 180 s, and in T).  mrelease adds
 * esrch=E, the calls that found the victim had no mm left (it was past
 * exit_mm(), and its own exit_mmap() frees the memory), and the medians
 * of the two kinds of run apart: back_mm_ms=X (the call reaped) and
 * back_esrch_ms=Y ("-" where there is none).  "missing" for a path the
 * kernel does not have.
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

#define CG		"/sys/fs/cgroup/reclaim"
#define TIMEOUT_US	(180LL * 1000000)

enum { P_KILL, P_BOOST, P_MRELEASE, P_REAP, P__COUNT };
static const char *const pname[] = { "kill", "boost", "mrelease", "reap" };

static int	req[2], res[2];		/* to and from the worker thread */
static pid_t	worker_tid;

/* The paths and the killer's nice value for each. */
static const struct {
	int	path, nice;
} combo[] = {
	{ P_KILL, 0 }, { P_BOOST, 0 }, { P_MRELEASE, 0 }, { P_REAP, 0 },
	{ P_MRELEASE, -20 }, { P_REAP, -20 },
};

static long long
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* MemFree in bytes. */
static long long
mem_free(void)
{
	char		buf[4096], *p;
	long long	kb = 0;
	ssize_t		n;
	int		fd;

	if ((fd = open("/proc/meminfo", O_RDONLY)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "MemFree:")) != NULL)
		kb = atoll(p + 8);
	return kb * 1024;
}

static int
put(const char *path, const char *val)
{
	int	fd = open(path, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return rc;
}

static int
move(const char *cg, pid_t pid)
{
	char	path[128], v[32];

	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", CG, cg);
	snprintf(v, sizeof(v), "%d", (int)pid);
	return put(path, v);
}

/* The cgroups: busy (the hogs), victim (restricted), boost (plain). */
static int
cgroups(const char *restrict_)
{
	mkdir(CG, 0755);
	if (put("/sys/fs/cgroup/cgroup.subtree_control", "+cpu") < 0 ||
	    put(CG "/cgroup.subtree_control", "+cpu") < 0) {
		perror("reclaim: the cpu controller");
		return -1;
	}
	mkdir(CG "/busy", 0755);
	mkdir(CG "/victim", 0755);
	mkdir(CG "/boost", 0755);
	put(CG "/victim/cpu.weight", "100");
	put(CG "/victim/cpu.max", "max 100000");
	if (!strcmp(restrict_, "weight"))
		return put(CG "/victim/cpu.weight", "1");
	if (!strcmp(restrict_, "max"))
		return put(CG "/victim/cpu.max", "5000 100000");
	return 0;
}

/* The worker: process_mrelease() on each pidfd it is given. */
static void *
worker(void *arg)
{
	int	fd, err;

	(void)arg;
	__atomic_store_n(&worker_tid, (pid_t)syscall(SYS_gettid),
	    __ATOMIC_RELEASE);
	while (read(req[0], &fd, sizeof(fd)) == sizeof(fd)) {
		err = syscall(SYS_process_mrelease, fd, 0) < 0 ? errno : 0;
		if (write(res[1], &err, sizeof(err)) != sizeof(err))
			break;
	}
	return NULL;
}

static int
cmpd(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of the n values in v (sorted here); -1 if none. */
static double
median(double *v, int n)
{
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return v[n / 2];
}

/* The killer, this thread and the worker, at nice value n. */
static void
killer_nice(int n)
{
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), n);
	setpriority(PRIO_PROCESS, (id_t)worker_tid, n);
}

/*
 * One kill of a victim of mb MiB by path; times in ms, and for mrelease
 * what process_mrelease() said (0 or an errno) in *err.  -1: no such
 * path.
 */
static int
one(int mb, int path, const char *cg, double *back_ms, double *dead_ms,
    int *err)
{
	int		p[2], pidfd, rc = 0;
	pid_t		pid;
	char		c;
	long long	before, t0, t, back = -1, dead = -1;
	struct pollfd	pf;
	siginfo_t	si;
	struct timespec	ms = { 0, 1000000 };

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
	if (cg && move(cg, pid) < 0) {
		perror("reclaim: the victim's cgroup");
		return -1;
	}
	before = mem_free();

	t0 = now_us();
	switch (path) {
	case P_REAP:
		rc = (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL,
		    PIDFD_SIGNAL_LOCAL_REAP);
		break;
	case P_BOOST:
		rc = move("boost", pid);
		/* FALLTHROUGH */
	case P_KILL:
	case P_MRELEASE:
		if (rc == 0)
			rc = (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL,
			    NULL, 0);
		if (rc == 0 && path == P_MRELEASE &&
		    write(req[1], &pidfd, sizeof(pidfd)) != sizeof(pidfd))
			rc = -1;
		break;
	}
	if (rc < 0) {
		kill(pid, SIGKILL);
		waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
		close(pidfd);
		return -1;
	}
	pf.fd = pidfd;
	pf.events = POLLIN;
	while (back < 0 || dead < 0) {
		t = now_us();
		if (back < 0 && mem_free() >= before + (long long)mb * 943718)
			back = t;
		if (dead < 0 && poll(&pf, 1, 0) == 1)
			dead = t;
		if (t - t0 > TIMEOUT_US)
			break;
		nanosleep(&ms, NULL);
	}
	*err = 0;
	if (path == P_MRELEASE && read(res[0], err, sizeof(*err)) !=
	    sizeof(*err))
		*err = EIO;
	waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
	close(pidfd);
	/* Not within the time out: counted as the time out. */
	*back_ms = ((back < 0 ? t0 + TIMEOUT_US : back) - t0) / 1000.0;
	*dead_ms = ((dead < 0 ? t0 + TIMEOUT_US : dead) - t0) / 1000.0;
	return back < 0 || dead < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	int		 runs, i, s, c, path, rc, late, err, nmm, nes;
	int		 ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	const char	*restrict_, *cg;
	pthread_t	 th;
	pid_t		*hog;
	double		*back, *dead, *bmm, *bes;

	if (argc < 4) {
		fprintf(stderr, "usage: reclaim RUNS weight|max|none "
		    "SIZE_MB...\n");
		return 2;
	}
	runs = atoi(argv[1]);
	restrict_ = argv[2];
	cg = strcmp(restrict_, "none") ? "victim" : NULL;
	if (cgroups(restrict_) < 0 || pipe(req) < 0 || pipe(res) < 0 ||
	    pthread_create(&th, NULL, worker, NULL))
		return 1;
	while (__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE) == 0)
		usleep(100);
	back = calloc((size_t)runs, sizeof(*back));
	dead = calloc((size_t)runs, sizeof(*dead));
	bmm = calloc((size_t)runs, sizeof(*bmm));
	bes = calloc((size_t)runs, sizeof(*bes));
	hog = calloc((size_t)ncpu, sizeof(*hog));
	for (i = 0; i < ncpu; i++) {
		if ((hog[i] = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				;
		}
		move("busy", hog[i]);
	}
	for (s = 3; s < argc; s++) {
		for (c = 0; c < (int)(sizeof(combo) / sizeof(combo[0]));
		    c++) {
			path = combo[c].path;
			if (!cg && path == P_BOOST)
				continue;
			killer_nice(combo[c].nice);
			for (i = late = nmm = nes = 0; i < runs; i++) {
				if ((rc = one(atoi(argv[s]), path, cg, &back[i],
				    &dead[i], &err)) < 0)
					break;
				late += rc;
				if (err == ESRCH)
					bes[nes++] = back[i];
				else
					bmm[nmm++] = back[i];
			}
			killer_nice(0);
			if (i < runs) {
				printf("restrict=%s size_mb=%s path=%s nice=%d "
				    "missing\n", restrict_, argv[s],
				    pname[path], combo[c].nice);
				fflush(stdout);
				continue;
			}
			printf("restrict=%s size_mb=%s path=%s nice=%d "
			    "back_ms=%.2f dead_ms=%.2f runs=%d timeouts=%d",
			    restrict_, argv[s], pname[path], combo[c].nice,
			    median(back, runs), median(dead, runs), runs, late);
			if (path == P_MRELEASE) {
				printf(" esrch=%d", nes);
				if (nmm)
					printf(" back_mm_ms=%.2f",
					    median(bmm, nmm));
				else
					printf(" back_mm_ms=-");
				if (nes)
					printf(" back_esrch_ms=%.2f",
					    median(bes, nes));
				else
					printf(" back_esrch_ms=-");
			}
			printf("\n");
			fflush(stdout);
		}
	}
	for (i = 0; i < ncpu; i++)
		kill(hog[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	rmdir(CG "/busy");
	rmdir(CG "/victim");
	rmdir(CG "/boost");
	rmdir(CG);
	return 0;
}
