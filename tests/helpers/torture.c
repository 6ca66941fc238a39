/*
 * torture.c - PID-reuse torture, in the guest (pidvisor is PID 1).
 *
 *   torture svc
 *	a service instance: lives 0-4 ms, then exits 0 or 1.
 *   torture run SECONDS MIN_RESTARTS NAME...
 *	the torture.  With a small kernel.pid_max (the caller sets it),
 *	PIDs wrap within moments while, for at least SECONDS and until the
 *	services NAME... (crash-looping, restart_delay 0) have restarted
 *	MIN_RESTARTS times:
 *	- decoys: a population of short-lived processes that take the PIDs
 *	  the dead leave behind and record every signal they receive, with
 *	  its sender (si_pid); their parent records any that dies of a
 *	  signal (SIGKILL cannot be caught);
 *	- a burner that forks and reaps as fast as it can;
 *	- a naive supervisor: it remembers its children's PIDs, reaps them,
 *	  and a moment later kill(pid, SIGUSR2)s them, the bug pidfds exist
 *	  for;
 *	- a driver that, at random moments, tells pidvisor to signal,
 *	  restart, stop and start, or pressure-kill a service.
 *	A signal on a decoy from PID 1 (pidvisor), or a decoy killed, is a
 *	misdirected signal from pidvisor: there must be none.  One from the
 *	naive supervisor shows that the test can see the bug: there must
 *	be some.  Prints one key=value line; exit 0 when both hold.
 *
 * This is a test program: the naive supervisor uses kill(2) by PID on
 * purpose.  Nothing of it outlives it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DECOYS	48

extern char	**environ;

struct rec {
	int32_t	decoy;		/* its PID */
	int32_t	sig;		/* > 0: received; < 0: died of -sig */
	int32_t	from;		/* si_pid of the sender */
};

static int	rec_w = -1;	/* decoys write records here */
static int	stop_r = -1;	/* readable (EOF) once the run is over */
static int	stop_w = -1;	/* the run's: closed when it is over */

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_us(long us)
{
	struct timespec	ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
stopped(void)
{
	struct pollfd	p = { .fd = stop_r, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	struct rec	r = { (int32_t)getpid(), sig, (int32_t)si->si_pid };

	(void)uc;
	(void)!write(rec_w, &r, sizeof(r));	/* atomic: < PIPE_BUF */
}

/* A decoy: record every signal for a while, then go. */
static void
decoy(unsigned seed)
{
	struct sigaction	sa;
	int			sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			sigaction(sig, &sa, NULL);
	/* Born with every signal blocked: none is lost before this. */
	sigemptyset(&sa.sa_mask);
	sigprocmask(SIG_SETMASK, &sa.sa_mask, NULL);
	sleep_us(5000 + (long)(rand_r(&seed) % 150000));
	_exit(0);
}

/* Keep DECOYS decoys alive, replacing each as it exits. */
static void
decoy_master(void)
{
	unsigned	seed = (unsigned)getpid();
	siginfo_t	si;
	sigset_t	all;
	pid_t		pid;
	int		alive = 0;

	/* Decoys inherit the mask: a signal that comes before their
	 * handlers is recorded, not fatal. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	while (!stopped()) {
		while (alive < DECOYS) {
			unsigned	s = (unsigned)rand_r(&seed);

			if ((pid = fork()) == 0)
				decoy(s);
			if (pid < 0)
				break;
			alive++;
		}
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED) < 0)
			continue;
		alive--;
		if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
			struct rec	r = { si.si_pid, -si.si_status, 0 };

			(void)!write(rec_w, &r, sizeof(r));
		}
	}
	while (alive > 0 && waitid(P_ALL, 0, &si, WEXITED) == 0)
		alive--;
	_exit(0);
}

/* Use up PIDs as fast as possible. */
static void
burner(void)
{
	pid_t	pid;

	while (!stopped()) {
		if ((pid = fork()) == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	_exit(0);
}

/*
 * What a supervisor that keeps PIDs does: its services die and are
 * reaped; later (50-500 ms, the time a PID takes to come round here)
 * it signals the PIDs it remembers.  Reports how many kills it sent
 * (through the pipe out).
 */
#define NAIVE_KEEP	256

static void
naive(int out)
{
	struct { pid_t pid; int64_t at; } q[NAIVE_KEEP];
	unsigned	seed = (unsigned)getpid();
	long		kills = 0;
	size_t		head = 0, tail = 0;
	pid_t		pid;

	while (!stopped()) {
		if (tail - head < NAIVE_KEEP && (pid = fork()) >= 0) {
			if (pid == 0)
				_exit(0);
			waitpid(pid, NULL, 0);
			q[tail % NAIVE_KEEP].pid = pid;
			q[tail++ % NAIVE_KEEP].at = now_ms() + 50 +
			    rand_r(&seed) % 450;
		}
		while (head < tail && (q[head % NAIVE_KEEP].at <= now_ms() ||
		    tail - head == NAIVE_KEEP)) {
			/* The bug, on purpose. */
			if (kill(q[head++ % NAIVE_KEEP].pid, SIGUSR2) == 0)
				kills++;
		}
		sleep_us(1000);
	}
	(void)!write(out, &kills, sizeof(kills));
	_exit(0);
}

/* Run pidvisorctl with these words; its exit status. */
static int
ctl(const char *a, const char *b, const char *c)
{
	char	*argv[] = { "pidvisorctl", (char *)a, (char *)b, (char *)c,
	    NULL };
	pid_t	 pid;
	int	 st, fd;
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	if (posix_spawnp(&pid, "pidvisorctl", &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The restarts of the services, summed, from status --json. */
static long
restarts(char **names, int n)
{
	static char	buf[1 << 16];
	long		sum = 0;
	int		p[2], i, st;
	size_t		len = 0;
	ssize_t		r;
	pid_t		pid;
	char		*s;

	for (i = 0; i < n; i++) {
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		if ((pid = fork()) == 0) {
			dup2(p[1], 1);
			execlp("pidvisorctl", "pidvisorctl", "status", names[i],
			    "--json", (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		len = 0;
		while ((r = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		close(p[0]);
		buf[len] = '\0';
		if (pid > 0)
			waitpid(pid, &st, 0);
		if ((s = strstr(buf, "\"restarts\":")) == NULL)
			return -1;
		sum += strtol(s + 11, NULL, 10);
	}
	return sum;
}

struct tally {
	long	pv_bad;		/* a decoy signalled by PID 1 */
	long	killed;		/* a decoy killed (SIGKILL) */
	long	naive_bad;	/* a decoy signalled by the naive one */
	long	other;
};

/* Count what the decoys have recorded so far. */
static void
tally(int fd, pid_t naive_pid, struct tally *t)
{
	struct rec	rv[256];
	ssize_t		got, i;

	while ((got = read(fd, rv, sizeof(rv))) > 0) {
		for (i = 0; i < got / (ssize_t)sizeof(*rv); i++) {
			if (rv[i].sig < 0)
				t->killed++;
			else if (rv[i].from == 1)
				t->pv_bad++;
			else if (rv[i].from == naive_pid)
				t->naive_bad++;
			else
				t->other++;
		}
	}
}

static pid_t
child(void (*fn)(void))
{
	pid_t	pid = fork();

	if (pid == 0) {
		close(stop_w);	/* or the stop never comes */
		fn();
	}
	return pid;
}

static int
run(double secs, long min_restarts, char **names, int n)
{
	int		 rec[2], stop[2], nv[2], i;
	pid_t		 master, burn, nai;
	long		 r0, r1 = 0, actions = 0, naive_kills = 0;
	struct tally	 t = { 0 };
	unsigned	 seed = (unsigned)getpid();
	int64_t		 start = now_ms(), end = start + (int64_t)(secs * 1000);
	int64_t		 next_count = 0;
	struct pollfd	 p;

	if (pipe2(rec, O_CLOEXEC) < 0 || pipe2(stop, O_CLOEXEC) < 0 ||
	    pipe2(nv, O_CLOEXEC) < 0)
		return 2;
	rec_w = rec[1];
	stop_r = stop[0];
	stop_w = stop[1];
	for (i = 0; i < n; i++)
		if (ctl("start", names[i], NULL) != 0) {
			fprintf(stderr, "torture: cannot start %s\n", names[i]);
			return 2;
		}
	if ((r0 = restarts(names, n)) < 0)
		return 2;
	master = child(decoy_master);
	burn = child(burner);
	if ((nai = fork()) == 0) {
		close(stop_w);
		naive(nv[1]);
	}
	close(rec[1]);
	close(stop[0]);
	close(nv[1]);
	fcntl(rec[0], F_SETFL, O_NONBLOCK);

	for (;;) {
		/* Drain the decoys' records; wait a random moment. */
		p.fd = rec[0];
		p.events = POLLIN;
		poll(&p, 1, (int)(rand_r(&seed) % 20));
		tally(rec[0], nai, &t);
		if (now_ms() >= next_count) {
			r1 = restarts(names, n) - r0;
			next_count = now_ms() + 1000;
			if (now_ms() >= end && r1 >= min_restarts)
				break;
			if (now_ms() >= end + 3000000)
				break;	/* never forever */
		}
		/* Something to pidvisor, at a random moment. */
		i = (int)(rand_r(&seed) % (unsigned)n);
		switch (rand_r(&seed) % 6) {
		case 0:
			ctl("signal", names[i], "USR1");
			break;
		case 1:
			ctl("signal", names[i], "TERM");
			break;
		case 2:
			ctl("restart", names[i], NULL);
			break;
		case 3:
			ctl("stop", names[i], NULL);
			sleep_us(rand_r(&seed) % 3000);
			ctl("start", names[i], NULL);
			break;
		case 4:
			ctl("pressure", "kill", names[i]);
			break;
		case 5:
			ctl("signal", names[i], "KILL");
			break;
		}
		actions++;
	}

	close(stop[1]);		/* everyone stops */
	waitpid(burn, NULL, 0);
	waitpid(nai, NULL, 0);
	waitpid(master, NULL, 0);
	(void)!read(nv[0], &naive_kills, sizeof(naive_kills));
	tally(rec[0], nai, &t);
	for (i = 0; i < n; i++)
		ctl("stop", names[i], NULL);
	printf("restarts=%ld seconds=%.1f ctl_actions=%ld "
	    "pidvisor_misdirected=%ld decoys_killed=%ld naive_kills=%ld "
	    "naive_misdirected=%ld other_signals=%ld\n", r1,
	    (double)(now_ms() - start) / 1000, actions, t.pv_bad, t.killed,
	    naive_kills, t.naive_bad, t.other);
	return r1 >= min_restarts && t.pv_bad == 0 && t.killed == 0 &&
	    t.naive_bad > 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct timespec	ts;

	if (argc == 2 && strcmp(argv[1], "svc") == 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sleep_us(ts.tv_nsec % 4000);
		_exit((int)(ts.tv_nsec / 4000 % 2));
	}
	if (argc >= 5 && strcmp(argv[1], "run") == 0)
		return run(atof(argv[2]), atol(argv[3]), argv + 4, argc - 4);
	fprintf(stderr, "usage: torture svc | torture run SECONDS "
	    "MIN_RESTARTS NAME...\n");
	return 2;
}
