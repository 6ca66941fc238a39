/*
 * svc.c - the tiny static service every supervisor runs in the benchmarks.
 *
 *   bench-svc [fifo=PATH] [stamp=PATH] [ready=N] [sleep|exit]
 *
 * Started as "run" it reads them from ./args instead (runsv, s6-supervise
 * and supervise run ./run in the service directory; s6-supervise passes
 * the service's name as an argument).
 * fifo=PATH: write "PID CLOCK_MONOTONIC-ns\n" to the FIFO at start (a
 * reader must be there; if none is, the line is dropped).  stamp=PATH:
 * append "CLOCK_REALTIME-ns\n" to the file or tty, in one write (a
 * timer's lateness).  ready=N: write a newline on fd N and close it.
 * sleep: wait forever; exit: exit 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
act(const char *a)
{
	char		line[64];
	struct timespec	ts;
	int		fd, n;

	if (strncmp(a, "fifo=", 5) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n = snprintf(line, sizeof(line), "%d %lld\n", (int)getpid(),
		    (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		if ((fd = open(a + 5, O_WRONLY | O_NONBLOCK)) >= 0) {
			(void)!write(fd, line, (size_t)n);
			close(fd);
		}
	} else if (strncmp(a, "stamp=", 6) == 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		n = snprintf(line, sizeof(line), "%lld\n",
		    (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		fd = open(a + 6, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY,
		    0644);
		if (fd >= 0) {
			(void)!write(fd, line, (size_t)n);
			close(fd);
		}
	} else if (strncmp(a, "ready=", 6) == 0) {
		(void)!write(atoi(a + 6), "\n", 1);
		close(atoi(a + 6));
	} else if (strcmp(a, "sleep") == 0) {
		for (;;)
			pause();
	} else if (strcmp(a, "exit") == 0) {
		_exit(0);
	}
}

int
main(int argc, char **argv)
{
	char	 buf[1024], *p, *save = NULL, *base;
	ssize_t	 n;
	int	 i, fd;

	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strcmp(base, "run") != 0) {
		for (i = 1; i < argc; i++)
			act(argv[i]);
		return 0;
	}
	if ((fd = open("args", O_RDONLY)) < 0)
		return 2;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 2;
	buf[n] = '\0';
	for (p = strtok_r(buf, " \n", &save); p; p = strtok_r(NULL, " \n", &save))
		act(p);
	return 0;
}
