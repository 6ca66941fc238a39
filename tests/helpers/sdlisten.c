/*
 * sdlisten.c - a service that takes its sockets the way a systemd
 * daemon does, through Debian's libsystemd: sd_listen_fds_with_names()
 * and sd_is_socket*().  Prints, on one line each:
 *
 *   listen N          what sd_listen_fds_with_names() returned
 *   fd FD NAME KIND   per fd: its name, and inet-stream, inet-dgram,
 *                     unix-stream or other (sd_is_socket_inet/_unix)
 *
 * then answers every stream client of its first fd with "sd PID\n", for
 * ever (a test waits for it; the supervisor ends it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

int
main(void)
{
	char	**names = NULL, msg[64];
	int	  n, i, fd, c;

	n = sd_listen_fds_with_names(1, &names);
	printf("listen %d\n", n);
	for (i = 0; i < n; i++) {
		fd = SD_LISTEN_FDS_START + i;
		printf("fd %d %s %s\n", fd, names ? names[i] : "-",
		    sd_is_socket_inet(fd, AF_UNSPEC, SOCK_STREAM, 1, 0) > 0 ?
		    "inet-stream" : sd_is_socket_inet(fd, AF_UNSPEC,
		    SOCK_DGRAM, -1, 0) > 0 ? "inet-dgram" :
		    sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0 ?
		    "unix-stream" : "other");
	}
	/* LISTEN_* went with unset_environment: a child would not see them. */
	printf("env %s\n", getenv("LISTEN_FDS") ? "kept" : "unset");
	fflush(stdout);
	if (n < 1)
		return 1;
	snprintf(msg, sizeof(msg), "sd %d\n", (int)getpid());
	for (;;) {
		if ((c = accept(SD_LISTEN_FDS_START, NULL, NULL)) < 0)
			continue;
		(void)!write(c, msg, strlen(msg));
		close(c);
	}
}
