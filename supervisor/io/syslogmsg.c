/*
 * syslogmsg.c - log = syslog: a line as one datagram to the syslog
 * daemon's socket (/dev/log, or syslog_socket), in the format glibc's
 * syslog(3) sends there (RFC 3164: <PRI>TIMESTAMP TAG[PID]: MESSAGE),
 * which rsyslog, syslog-ng and busybox syslogd all take.  Sent with
 * MSG_DONTWAIT on one unbound socket: a daemon that is not there or
 * does not keep up costs the line, never a wait.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "syslogmsg.h"
#include "util.h"

/* syslog_facility's index: kern..ftp are 0..11, local0..7 16..23. */
int
syslog_facility_code(int index)
{
	return index < 12 ? index : index + 4;
}

int
syslog_open(void)
{
	return socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

/*
 * One line: pri is facility * 8 + level.  0, or -errno (ENOENT: no
 * daemon; EAGAIN: its queue is full; ECONNREFUSED: it went away).
 */
int
syslog_send(int fd, const char *path, int pri, const char *tag, pid_t pid,
    const char *msg, size_t len)
{
	static const char	mon[][4] = { "Jan", "Feb", "Mar", "Apr", "May",
				    "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
				    "Dec" };
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	char			head[128];
	struct iovec		iov[2];
	struct msghdr		mh = { .msg_name = &sa, .msg_iov = iov,
				    .msg_iovlen = 2 };
	struct tm		tm;
	time_t			t = time(NULL);
	int			n;

	if (fd < 0)
		return -EBADF;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	mh.msg_namelen = (socklen_t)sizeof(sa);
	gmtime_r(&t, &tm);
	n = snprintf(head, sizeof(head), "<%d>%s %2d %02d:%02d:%02d %s[%d]: ",
	    pri, mon[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    tag, (int)pid);
	if (n < 0 || (size_t)n >= sizeof(head))
		return -EINVAL;
	iov[0].iov_base = head;
	iov[0].iov_len = (size_t)n;
	iov[1].iov_base = (void *)msg;
	iov[1].iov_len = len;
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}
