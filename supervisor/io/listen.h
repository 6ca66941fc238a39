/* listen.h - the sockets pidvisor binds for a service (listen =) */
#ifndef PIDVISOR_LISTEN_H
#define PIDVISOR_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define LISTEN_MAX	16	/* listen keys of one service, at most */

#define LISTEN_NAME_MAX	255	/* a name in LISTEN_FDNAMES (systemd's) */
#define LISTEN_SYMLINKS	8	/* symlink= options of one value */

enum listen_kind { LK_TCP, LK_TCP6, LK_UDP, LK_UDP6, LK_UNIX, LK_UNIX_DGRAM,
	LK_UNIX_SEQPACKET, LK_NETLINK };

#define LO_PASSCRED	0x01	/* pass_credentials: SO_PASSCRED */
#define LO_PASSSEC	0x02	/* pass_security: SO_PASSSEC */
#define LO_DUAL		0x04	/* dual_stack: an IPv6 socket takes v4 */

/* One listen value, parsed: its address, then its options. */
struct listen_addr {
	uint8_t			 kind;		/* enum listen_kind */
	uint8_t			 flags;		/* LO_* */
	int			 proto;		/* netlink: its family */
	socklen_t		 len;
	struct sockaddr_storage	 sa;
	uint32_t		 rcvbuf;	/* receive_buffer=, or 0 */
	uint32_t		 sndbuf;	/* send_buffer=, or 0 */
	uint32_t		 dmode;		/* directory_mode=: its missing
						 * directories made so; 0: not */
	char			 name[LISTEN_NAME_MAX + 1];	/* or "" */
	const char		*symlink[LISTEN_SYMLINKS];	/* in the
						 * value, each ' '-ended */
	size_t			 nsymlink;
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
bool	listen_is_unix(const char *spec);
const char *listen_name(const char *spec, char *buf, size_t n);
void	listen_unlink(const char *spec, const struct file_id *id);
void	listen_relink(const char *old, const char *spec);

#endif
