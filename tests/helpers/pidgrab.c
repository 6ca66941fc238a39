/*
 * pidgrab.c - hold a chosen PID, for the PID-reuse test.
 *
 *   pidgrab PID
 *
 * Run inside the PID namespace under test: create a child whose PID is
 * exactly PID (clone3 with set_tid; root only), print "grabbed PID",
 * then wait for standard input to close.  Then report whether the child
 * is still alive ("alive", exit 0) or what killed it ("dead: signal N",
 * exit 1), and kill and reap it.  Nothing is left behind.
 */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct clone_args	a;
	pid_t			want, pid;
	int			pidfd = -1, rc;
	siginfo_t		si;
	char			buf[64];

	if (argc != 2)
		return 2;
	want = (pid_t)atoi(argv[1]);
	memset(&a, 0, sizeof(a));
	a.flags = CLONE_PIDFD;
	a.pidfd = (uint64_t)(uintptr_t)&pidfd;
	a.exit_signal = SIGCHLD;
	a.set_tid = (uint64_t)(uintptr_t)&want;
	a.set_tid_size = 1;
	pid = (pid_t)syscall(SYS_clone3, &a, sizeof(a));
	if (pid < 0) {
		printf("clone3 set_tid %d: %s\n", (int)want, strerror(errno));
		return 2;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	printf("grabbed %d\n", (int)pid);
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	memset(&si, 0, sizeof(si));
	rc = waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG);
	if (rc == 0 && si.si_pid == 0) {
		printf("alive\n");
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
		return 0;
	}
	printf("dead: signal %d\n", si.si_status);
	return 1;
}
