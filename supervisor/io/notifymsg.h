/* notifymsg.h - the sd_notify datagram */
#ifndef PIDVISOR_NOTIFYMSG_H
#define PIDVISOR_NOTIFYMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NOTIFY_MSG_MAX	4096

struct notify_msg {
	const char	*status;	/* STATUS=..., not NUL-terminated */
	size_t		 status_len;
	uint64_t	 extend_usec;	/* EXTEND_TIMEOUT_USEC=; 0: none */
	uint64_t	 monotonic_usec; /* MONOTONIC_USEC=; 0: none */
	int32_t		 mainpid;	/* MAINPID=; 0: none */
	int32_t		 err;		/* ERRNO=; -1: none */
	bool		 reloading;	/* RELOADING=1 */
	bool		 ready;		/* READY=1 */
	bool		 stopping;	/* STOPPING=1 */
	bool		 watchdog;	/* WATCHDOG=1 */
	bool		 watchdog_trigger;	/* WATCHDOG=trigger */
	bool		 fdstore;	/* FDSTORE=1 */
	bool		 fdstore_remove; /* FDSTOREREMOVE=1 */
	const char	*fdname;	/* FDNAME=..., not NUL-terminated */
	size_t		 fdname_len;
};

int	notify_parse(const char *buf, size_t len, struct notify_msg *m);
const struct ucred *notify_cmsgs(const struct msghdr *mh, int *fds,
	    size_t max, size_t *nfds, size_t *extra);

#endif
