/* listen.h - the sockets pidvisor binds for a service (listen =) */
#ifndef PIDVISOR_LISTEN_H
#define PIDVISOR_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define LISTEN_MAX	16	/* listen keys of one service, at most */

enum listen_kind { LK_TCP, LK_TCP6, LK_UDP, LK_UDP6, LK_UNIX };

/* One listen value, parsed. */
struct listen_addr {
	uint8_t			 kind;		/* enum listen_kind */
	socklen_t		 len;
	struct sockaddr_storage	 sa;
};

/* How the sockets of a service are made (its listen_* keys). */
struct listen_opts {
	uint32_t	backlog;
	mode_t		mode;		/* unix sockets */
	uid_t		uid;		/* ... their owner */
	gid_t		gid;
};

int	listen_parse(const char *spec, struct listen_addr *a, char *err,
	    size_t n);
bool	listen_same(const struct listen_addr *a, const struct listen_addr *b);
struct file_id;
int	listen_bind(const char *spec, const struct listen_opts *o,
	    struct file_id *id, char *err, size_t n);
int	listen_update(int fd, const char *spec, const struct listen_opts *o,
	    const struct file_id *id, char *err, size_t n);
bool	listen_is_stream(const char *spec);
void	listen_unlink(const char *spec, const struct file_id *id);

#endif
