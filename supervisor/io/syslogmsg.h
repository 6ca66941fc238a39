/* syslogmsg.h - lines to the syslog daemon's datagram socket */
#ifndef PIDVISOR_SYSLOGMSG_H
#define PIDVISOR_SYSLOGMSG_H

#include <stddef.h>
#include <sys/types.h>

#define SYSLOG_PATH	"/dev/log"

int	syslog_facility_code(int index);
int	syslog_open(void);
int	syslog_send(int fd, const char *path, int pri, const char *tag,
	    pid_t pid, const char *msg, size_t len);

#endif
