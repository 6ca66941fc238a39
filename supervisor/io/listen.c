/*
 * listen.c - the sockets pidvisor binds for a service and holds for it
 * (listen =, systemd's socket activation): what a listen value means,
 * and binding it.  socks.c holds them across restarts and passes them.
 *
 *   tcp:HOST:PORT  tcp6:[ADDR]:PORT  udp:HOST:PORT  udp6:[ADDR]:PORT
 *   unix:/PATH  unix-dgram:/PATH  unix-seqpacket:/PATH
 *   netlink:FAMILY:GROUP
 *
 * then options (listen_parse_opts()): a name for LISTEN_FDNAMES,
 * symlinks to a unix socket, SO_PASSCRED and friends.
 *
 * A HOST is a numeric address (no name is looked up: that could wait on
 * a resolver), "*" for any, or "localhost".  A stream socket listens
 * with listen_backlog; a unix socket is made with its mode and group
 * from its birth (umask, setfsgid), then given to its owner, so that no
 * moment exists in which others may connect to it; its directory is
 * held by fd, and where another user may change a directory on its
 * path, it is born in a directory of ours and renamed into place, so
 * that no other file can be where we chown it (listen_bind_aside()).  A socket is made
 * non-blocking; socks.c makes it blocking for a service that takes it.
 */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "listen.h"
#include "rawpath.h"
#include "util.h"

static const struct {
	const char	*prefix;
	uint8_t		 kind;
} listen_kinds[] = {
	{ "tcp:", LK_TCP }, { "tcp6:", LK_TCP6 }, { "udp:", LK_UDP },
	{ "udp6:", LK_UDP6 }, { "unix:", LK_UNIX },
	{ "unix-dgram:", LK_UNIX_DGRAM },
	{ "unix-seqpacket:", LK_UNIX_SEQPACKET }, { "netlink:", LK_NETLINK },
};

/* The netlink families by systemd's names for them (ListenNetlink=). */
static const struct {
	const char	*name;
	int		 proto;
} listen_netlink[] = {
	{ "route", 0 }, { "firewall", 3 }, { "inet-diag", 4 }, { "nflog", 5 },
	{ "xfrm", 6 }, { "selinux", 7 }, { "iscsi", 8 }, { "audit", 9 },
	{ "fib-lookup", 10 }, { "connector", 11 }, { "netfilter", 12 },
	{ "ip6-fw", 13 }, { "dnrtmsg", 14 }, { "kobject-uevent", 15 },
	{ "generic", 16 }, { "scsitransport", 18 }, { "ecryptfs", 19 },
	{ "rdma", 20 },
};

static bool
listen_kind_unix(uint8_t kind)
{
	return kind == LK_UNIX || kind == LK_UNIX_DGRAM ||
	    kind == LK_UNIX_SEQPACKET;
}

/* An inet value: HOST:PORT (v4) or [ADDR]:PORT (v6). */
static int
listen_parse_inet(const char *spec, const char *v, bool v6,
    struct listen_addr *a, char *err, size_t n)
{
	char		 buf[192];
	const char	*colon = strrchr(v, ':');
	uint64_t	 port;

	if (colon == NULL || parse_u64(colon + 1, 65535, &port) < 0 ||
	    port == 0) {
		snprintf(err, n, "'%s': expected %s:PORT with a port from 1 "
		    "to 65535", spec, v6 ? "[ADDR]" : "HOST");
		return -EINVAL;
	}
	if (!v6 && (size_t)(colon - v) == 1 && v[0] == '*')
		snprintf(buf, sizeof(buf), "0.0.0.0:%s", colon + 1);
	else if (!v6 && strncmp(v, "localhost:", 10) == 0)
		snprintf(buf, sizeof(buf), "127.0.0.1:%s", colon + 1);
	else if (v6 && strncmp(v, "*:", 2) == 0)
		snprintf(buf, sizeof(buf), "[::]:%s", colon + 1);
	else
		snprintf(buf, sizeof(buf), "%s", v);
	if ((v6 ? buf[0] != '[' : buf[0] == '[' || colon == v) ||
	    parse_inet_addr(buf, &a->sa, &a->len) < 0) {
		snprintf(err, n, "'%s': expected %s:PORT, %s (no name is "
		    "looked up)", spec, v6 ? "[ADDR]" : "HOST",
		    v6 ? "ADDR an IPv6 address or *" :
		    "HOST an IPv4 address, * or localhost");
		return -EINVAL;
	}
	return 0;
}

/* A netlink value: FAMILY:GROUP, the family by name or number. */
static int
listen_parse_netlink(const char *spec, const char *v, struct listen_addr *a,
    char *err, size_t n)
{
	struct sockaddr_nl	*nl = (struct sockaddr_nl *)&a->sa;
	const char		*colon = strrchr(v, ':');
	char			 fam[32];
	uint64_t		 u, group;
	size_t			 i;

	if (colon == NULL || (size_t)(colon - v) >= sizeof(fam) ||
	    parse_u64(colon + 1, UINT32_MAX, &group) < 0)
		goto bad;
	snprintf(fam, sizeof(fam), "%.*s", (int)(colon - v), v);
	for (i = 0; i < ARRAY_SIZE(listen_netlink); i++)
		if (strcmp(listen_netlink[i].name, fam) == 0)
			break;
	if (i < ARRAY_SIZE(listen_netlink))
		a->proto = listen_netlink[i].proto;
	else if (parse_u64(fam, 31, &u) == 0)	/* MAX_LINKS 32 */
		a->proto = (int)u;
	else
		goto bad;
	nl->nl_family = AF_NETLINK;
	nl->nl_groups = (uint32_t)group;
	a->len = sizeof(*nl);
	return 0;
bad:
	snprintf(err, n, "'%s': expected netlink:FAMILY:GROUP, FAMILY a number "
	    "below 32 or route, audit, kobject-uevent, generic, ...", spec);
	return -EINVAL;
}

/*
 * The options after the address, blank-separated: name=NAME,
 * symlink=/PATH (again for more), pass_credentials, pass_security,
 * receive_buffer=SIZE, send_buffer=SIZE, dual_stack.
 */
static int
listen_parse_opts(const char *spec, const char *s, struct listen_addr *a,
    char *err, size_t n)
{
	const char	*w, *eq, *p;
	size_t		 len;
	uint64_t	 size;

	for (; *(s += strspn(s, " \t")) != '\0'; s += len) {
		w = s;
		len = strcspn(s, " \t");
		eq = memchr(w, '=', len);
		if (len == 16 && strncmp(w, "pass_credentials", len) == 0)
			a->flags |= LO_PASSCRED;
		else if (len == 13 && strncmp(w, "pass_security", len) == 0)
			a->flags |= LO_PASSSEC;
		else if (len == 10 && strncmp(w, "dual_stack", len) == 0)
			a->flags |= LO_DUAL;
		else if (eq && eq - w == 4 && strncmp(w, "name", 4) == 0) {
			if (len - 5 == 0 || len - 5 > LISTEN_NAME_MAX)
				goto bad;
			for (p = eq + 1; p < w + len; p++)
				if (*p <= ' ' || *p >= 127 || *p == ':')
					goto bad;
			snprintf(a->name, sizeof(a->name), "%.*s",
			    (int)(len - 5), eq + 1);
		} else if (eq && eq - w == 7 && strncmp(w, "symlink", 7) == 0) {
			if (eq[1] != '/' || len - 8 >=
			    sizeof(((struct sockaddr_un *)0)->sun_path) ||
			    w[len - 1] == '/' ||
			    a->nsymlink == LISTEN_SYMLINKS)
				goto bad;
			a->symlink[a->nsymlink++] = eq + 1;
		} else if (eq && eq - w == 14 &&
		    strncmp(w, "directory_mode", 14) == 0) {
			char	num[16];

			snprintf(num, sizeof(num), "%.*s",
			    (int)(w + len - eq - 1), eq + 1);
			if (w + len - eq - 1 >= (long)sizeof(num) ||
			    num[0] == '\0' || strlen(num) > 5 ||
			    num[strspn(num, "01234567")] != '\0' ||
			    (size = strtoul(num, NULL, 8)) > 07777)
				goto bad;
			a->dmode = (uint32_t)size | 0x10000;
		} else if (eq && ((eq - w == 14 &&
		    strncmp(w, "receive_buffer", 14) == 0) || (eq - w == 11 &&
		    strncmp(w, "send_buffer", 11) == 0))) {
			char	num[32];

			snprintf(num, sizeof(num), "%.*s",
			    (int)(w + len - eq - 1), eq + 1);
			if (parse_size(num, INT32_MAX, &size) < 0 || size == 0)
				goto bad;
			*(eq - w == 14 ? &a->rcvbuf : &a->sndbuf) =
			    (uint32_t)size;
		} else
			goto bad;
	}
	if ((a->flags & LO_DUAL) && a->kind != LK_TCP6 && a->kind != LK_UDP6) {
		snprintf(err, n, "'%s': dual_stack is for a tcp6: or udp6: "
		    "socket", spec);
		return -EINVAL;
	}
	if ((a->nsymlink > 0 || a->dmode) && !listen_kind_unix(a->kind)) {
		snprintf(err, n, "'%s': only a unix socket has a symlink= or "
		    "a directory_mode=", spec);
		return -EINVAL;
	}
	if ((a->flags & (LO_PASSCRED | LO_PASSSEC)) &&
	    !listen_kind_unix(a->kind) && a->kind != LK_NETLINK) {
		snprintf(err, n, "'%s': pass_credentials and pass_security are "
		    "for unix and netlink sockets", spec);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, n, "'%s': '%.*s' is not an option of a socket (name=NAME, "
	    "symlink=/PATH (at most %d), directory_mode=MODE, "
	    "pass_credentials, pass_security, receive_buffer=SIZE, "
	    "send_buffer=SIZE, dual_stack)", spec,
	    (int)len, w, LISTEN_SYMLINKS);
	return -EINVAL;
}

/* Parse a listen value; 0, or -EINVAL with why in err. */
int
listen_parse(const char *spec, struct listen_addr *a, char *err, size_t n)
{
	struct sockaddr_un	*un = (struct sockaddr_un *)&a->sa;
	const char		*v = NULL;
	char			 addr[sizeof(un->sun_path) + 64];
	size_t			 i, len;
	int			 rc;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < ARRAY_SIZE(listen_kinds); i++)
		if (strncmp(spec, listen_kinds[i].prefix,
		    strlen(listen_kinds[i].prefix)) == 0) {
			v = spec + strlen(listen_kinds[i].prefix);
			a->kind = listen_kinds[i].kind;
			break;
		}
	if (v == NULL) {
		snprintf(err, n, "'%s': expected tcp:HOST:PORT, "
		    "tcp6:[ADDR]:PORT, udp:HOST:PORT, udp6:[ADDR]:PORT, "
		    "unix:/PATH, unix-dgram:/PATH, unix-seqpacket:/PATH or "
		    "netlink:FAMILY:GROUP", spec);
		return -EINVAL;
	}
	len = strcspn(v, " \t");
	if (len >= sizeof(addr)) {
		snprintf(err, n, "'%.60s...': an address too long", spec);
		return -EINVAL;
	}
	snprintf(addr, sizeof(addr), "%.*s", (int)len, v);
	if (a->kind == LK_NETLINK)
		rc = listen_parse_netlink(spec, addr, a, err, n);
	else if (!listen_kind_unix(a->kind))
		rc = listen_parse_inet(spec, addr, a->kind == LK_TCP6 ||
		    a->kind == LK_UDP6, a, err, n);
	else if (addr[0] != '/' || len >= sizeof(un->sun_path) ||
	    addr[len - 1] == '/' || strstr(addr, "/../") ||
	    strstr(addr, "/./")) {
		snprintf(err, n, "'%s': expected %.*s/PATH, an absolute path "
		    "of at most %zu bytes and no blank", spec, (int)(v - spec),
		    spec, sizeof(un->sun_path) - 1);
		return -EINVAL;
	} else {
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, addr, len + 1);
		a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    len + 1);
		rc = 0;
	}
	return rc < 0 ? rc : listen_parse_opts(spec, v + len, a, err, n);
}

/*
 * Do two parsed values name one socket?  Two unix sockets of one path
 * do, whatever their types; tcp and udp have ports of their own.
 */
bool
listen_same(const struct listen_addr *a, const struct listen_addr *b)
{
	bool	sa = a->kind == LK_UDP || a->kind == LK_UDP6;
	bool	sb = b->kind == LK_UDP || b->kind == LK_UDP6;

	if ((a->kind == LK_NETLINK) != (b->kind == LK_NETLINK) ||
	    a->proto != b->proto)
		return false;
	return sa == sb && a->len == b->len && memcmp(&a->sa, &b->sa,
	    a->len) == 0;
}

static uint8_t
listen_kind(const char *spec)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(listen_kinds); i++)
		if (strncmp(spec, listen_kinds[i].prefix,
		    strlen(listen_kinds[i].prefix)) == 0)
			return listen_kinds[i].kind;
	return LK_UDP;
}

/* Does it take connections (listen(), accept())? */
bool
listen_is_stream(const char *spec)
{
	uint8_t	k = listen_kind(spec);

	return k == LK_TCP || k == LK_TCP6 || k == LK_UNIX ||
	    k == LK_UNIX_SEQPACKET;
}

bool
listen_is_unix(const char *spec)
{
	return listen_kind_unix(listen_kind(spec));
}

/* Its name= option, in buf; NULL if it has none. */
const char *
listen_name(const char *spec, char *buf, size_t n)
{
	struct listen_addr	a;
	char			err[8];

	if (listen_parse(spec, &a, err, sizeof(err)) < 0 || a.name[0] == '\0')
		return NULL;
	snprintf(buf, n, "%s", a.name);
	return buf;
}

/* The path of a unix value (in a), or NULL. */
static const char *
listen_path(const char *spec, struct listen_addr *a)
{
	char	err[8];

	if (listen_parse(spec, a, err, sizeof(err)) < 0 ||
	    !listen_kind_unix(a->kind))
		return NULL;
	return ((struct sockaddr_un *)&a->sa)->sun_path;
}

/*
 * The directory of a unix socket's path, by fd, and the socket's name in
 * it: looked up a component at a time (rawpath.c), a symlink followed
 * only if root or we own it.  The fd, or -errno.
 */
static int
listen_dir(const char *path, char *name, size_t n)
{
	struct rawpath	 rp;
	const char	*slash = strrchr(path, '/');
	char		 dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int		 root, fd;

	if (slash == NULL || strlen(slash + 1) >= n)
		return -EINVAL;
	snprintf(name, n, "%s", slash + 1);
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
	    (int)(slash - path), path);
	if ((root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	fd = (int)rawpath_open(root, dir, geteuid(), O_PATH | O_DIRECTORY,
	    &rp);
	close(root);
	return fd;
}

/*
 * Make the missing directories of a unix socket's path (mode, root's or
 * ours), each by name in its parent held by fd, as listen_dir() looks
 * them up; then listen_dir()'s fd.  -errno if one cannot be made.
 */
static int
listen_mkdirs(const char *path, mode_t mode, char *name, size_t n)
{
	char		 dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char		 leaf[NAME_MAX + 1];
	const char	*q;
	int		 pfd, dfd;

	for (q = strchr(path + 1, '/'); q != NULL; q = strchr(q + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s/x", (int)(q - path), path);
		/* dir's own parent, and dir's name in it */
		if ((pfd = listen_dir(dir, leaf, sizeof(leaf))) >= 0) {
			close(pfd);
			continue;
		}
		if (pfd != -ENOENT)
			return pfd;
		snprintf(dir, sizeof(dir), "%.*s", (int)(q - path), path);
		if ((pfd = listen_dir(dir, leaf, sizeof(leaf))) < 0)
			return pfd;
		if (mkdirat(pfd, leaf, mode) == 0) {
			/* Its mode exactly, whatever our umask. */
			if ((dfd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC)) >= 0) {
				fchmod(dfd, mode);
				close(dfd);
			}
		} else if (errno != EEXIST) {
			int	rc = -errno;

			close(pfd);
			return rc;
		}
		close(pfd);
	}
	return listen_dir(path, name, n);
}

/* May a user but root or us change what st is (a sticky one aside)? */
static bool
listen_open_to_others(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return true;
	return (st->st_mode & 022) && !(st->st_mode & S_ISVTX);
}

/*
 * Is the path of a socket safe to bind by name: each directory on its
 * way root's or ours and changed by no one else (sticky ones aside), no
 * symlink, the last the directory dfd holds?  Then no one can move the
 * name bind() makes, or put another file in its place before we chown.
 */
static bool
listen_path_safe(const char *path, int dfd)
{
	char		 name[NAME_MAX + 1];
	const char	*p = path, *q;
	struct stat	 st, dst;
	int		 dir, fd;
	bool		 safe = false;

	if (fstat(dfd, &dst) < 0 ||
	    (dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	for (;;) {
		if (fstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    listen_open_to_others(&st))
			break;
		while (*p == '/')
			p++;
		if ((q = strchr(p, '/')) == NULL) {	/* p: the socket */
			safe = st.st_dev == dst.st_dev &&
			    st.st_ino == dst.st_ino;
			break;
		}
		if ((size_t)(q - p) >= sizeof(name))
			break;
		memcpy(name, p, (size_t)(q - p));
		name[q - p] = '\0';
		if ((fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			break;
		close(dir);
		dir = fd;
		p = q;
	}
	close(dir);
	return safe;
}

/*
 * A unix socket's name in dfd is free for us: nothing there, or a socket
 * that nobody listens on (a stale one of ours, after a crash), which
 * goes.
 */
static int
listen_path_free(int dfd, const char *name, const char *path, int type)
{
	struct sockaddr_un	un = { .sun_family = AF_UNIX };
	struct stat		st, again;
	int			fd, rc;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	/* Through our fd of its directory, if that is short enough. */
	if (snprintf(un.sun_path, sizeof(un.sun_path), "/proc/self/fd/%d/%s",
	    dfd, name) >= (int)sizeof(un.sun_path))
		snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	/* Non-blocking: a full backlog must not hold us.  A socket of
	 * another type is someone's (EPROTOTYPE): in use. */
	if ((fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0)
		return -errno;
	/* Stale only if no one listens (refused); anything else (EAGAIN,
	 * EPROTOTYPE, a connected datagram socket's EPERM): in use. */
	rc = connect(fd, (const struct sockaddr *)&un, sizeof(un));
	rc = rc < 0 && (errno == ECONNREFUSED || errno == ENOENT) ? 0 :
	    -EADDRINUSE;
	close(fd);
	if (rc == 0 && fstatat(dfd, name, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
	    again.st_dev == st.st_dev && again.st_ino == st.st_ino &&
	    unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* Bind fd at the sun_path of un, its mode and group those of o. */
static int
listen_bind_un(int fd, const struct sockaddr_un *un, const struct listen_opts *o)
{
	mode_t	old;
	int	ofsgid, rc;

	/* Its mode and group from its birth; then its owner. */
	old = umask(~o->mode & 0777);
	ofsgid = fsgid_swap(o->gid);
	rc = bind(fd, (const struct sockaddr *)un, sizeof(*un)) < 0 ?
	    -errno : 0;
	fsgid_swap((gid_t)ofsgid);
	umask(old);
	return rc;
}

/*
 * Bind a unix socket at name in dfd, where someone but root or us may
 * change a directory on the way: bound in a directory of our own made
 * there (mode 0700), given to its owner there, and renamed into place
 * (never over anything): no moment exists in which another user could
 * put another file under the name we chown.  The socket's address
 * (getsockname) is then the path it was born at, not its name.
 */
static int
listen_bind_aside(int fd, int dfd, const char *name,
    const struct listen_opts *o, struct stat *st)
{
	static unsigned		 seq;
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	struct stat		 ts;
	char			 tmp[64];
	int			 tfd, rc;

	snprintf(tmp, sizeof(tmp), ".pidvisor-%d-%u", (int)getpid(), seq++);
	if (mkdirat(dfd, tmp, 0700) < 0)
		return -errno;
	if ((tfd = openat(dfd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || fstat(tfd, &ts) < 0) {
		rc = -errno;
		goto out;
	}
	rc = ts.st_uid != geteuid() || (ts.st_mode & 077) ? -EPERM : 0;
	snprintf(un.sun_path, sizeof(un.sun_path), "/proc/self/fd/%d/s", tfd);
	if (rc == 0)
		rc = listen_bind_un(fd, &un, o);
	if (rc == 0 && o->uid != geteuid() && fchownat(tfd, "s", o->uid,
	    (gid_t)-1, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (rc == 0 && fstatat(tfd, "s", st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (rc == 0 && renameat2(tfd, "s", dfd, name, RENAME_NOREPLACE) < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(tfd, "s", 0);
out:
	if (tfd >= 0)
		close(tfd);
	unlinkat(dfd, tmp, AT_REMOVEDIR);
	return rc;
}

/*
 * Bind a unix socket at path: by its name where no one but root or we
 * may change a directory on the way (its address is its path), else
 * aside (listen_bind_aside()).  Its owner given by fd, never by path.
 * 0 with *st the socket file's, or -errno.
 */
static int
listen_bind_path(int fd, const char *path, int type,
    const struct listen_opts *o, uint32_t dmode, struct stat *st)
{
	char			 name[NAME_MAX + 1];
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	int			 dfd, rc;

	if ((dfd = listen_dir(path, name, sizeof(name))) == -ENOENT && dmode)
		dfd = listen_mkdirs(path, (mode_t)(dmode & 07777), name,
		    sizeof(name));
	if (dfd < 0)
		return dfd;
	if ((rc = listen_path_free(dfd, name, path, type)) < 0) {
		close(dfd);
		return rc;
	}
	if (!listen_path_safe(path, dfd)) {
		rc = listen_bind_aside(fd, dfd, name, o, st);
		close(dfd);
		return rc;
	}
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	rc = listen_bind_un(fd, &un, o);
	if (rc == 0 && o->uid != geteuid() && fchownat(dfd, name, o->uid,
	    (gid_t)-1, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (rc == 0 && fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	close(dfd);
	return rc;
}

/* Its socket options (a value's options), set on fd; 0 or -errno. */
static int
listen_sockopts(int fd, const struct listen_addr *a, bool bound)
{
	int	one = 1, zero = 0, v;

	/* Before the bind only (the kernel refuses it after). */
	if (!bound && a->sa.ss_family == AF_INET6 && setsockopt(fd,
	    IPPROTO_IPV6, IPV6_V6ONLY, a->flags & LO_DUAL ? &zero : &one,
	    sizeof(one)) < 0)
		return -errno;
	/* Set either way on a socket that has them: a reload may take
	 * them off. */
	if ((listen_kind_unix(a->kind) || a->kind == LK_NETLINK) &&
	    (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, a->flags & LO_PASSCRED ?
	    &one : &zero, sizeof(one)) < 0 || setsockopt(fd, SOL_SOCKET,
	    SO_PASSSEC, a->flags & LO_PASSSEC ? &one : &zero,
	    sizeof(one)) < 0))
		return -errno;
	/* Past the sysctl's cap where we may (CAP_NET_ADMIN), as systemd. */
	v = (int)a->rcvbuf;
	if (v > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
	    sizeof(v)) < 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v,
	    sizeof(v)) < 0)
		return -errno;
	v = (int)a->sndbuf;
	if (v > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v,
	    sizeof(v)) < 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v,
	    sizeof(v)) < 0)
		return -errno;
	return 0;
}

/*
 * Its symlink= options: each a link to its path, made by name in its
 * directory (held by fd as a socket's); a link already there is
 * replaced; one that cannot be made is said (of spec) and the next
 * tried, as systemd's Symlinks=: a link does not keep the socket from
 * being bound (another daemon may have put its own socket there:
 * rsyslog's at /dev/log).  With drop, removed instead, each only if it
 * still points to the path.
 */
static void
listen_symlinks(const struct listen_addr *a, bool drop, const char *spec)
{
	const char	*path = ((const struct sockaddr_un *)&a->sa)->sun_path;
	char		 link[PATH_MAX], name[NAME_MAX + 1], to[PATH_MAX];
	struct stat	 st;
	ssize_t		 len;
	size_t		 i;
	int		 dfd, rc = 0;
	bool		 mine;

	for (i = 0; i < a->nsymlink; i++) {
		snprintf(link, sizeof(link), "%.*s",
		    (int)strcspn(a->symlink[i], " \t"), a->symlink[i]);
		rc = 0;
		if ((dfd = listen_dir(link, name, sizeof(name))) < 0) {
			if (!drop)
				log_warn("listen %s: symlink=%s: %s; not made",
				    spec, link, strerror(-dfd));
			continue;
		}
		len = readlinkat(dfd, name, to, sizeof(to) - 1);
		if (len >= 0)
			to[len] = '\0';
		/* A link is ours only if root's or ours: in a sticky
		 * directory another user may have made one first. */
		mine = len >= 0 && fstatat(dfd, name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && (st.st_uid == 0 ||
		    st.st_uid == geteuid());
		if (drop) {
			if (mine && strcmp(to, path) == 0)
				unlinkat(dfd, name, 0);
		} else if (mine && strcmp(to, path) == 0) {
			;	/* there already */
		} else if (len < 0 && fstatat(dfd, name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0) {
			rc = -EEXIST;
		} else if ((len >= 0 && unlinkat(dfd, name, 0) < 0) ||
		    symlinkat(path, dfd, name) < 0) {
			rc = -errno;
		}
		if (rc < 0)
			log_warn("listen %s: symlink=%s: %s; not made", spec,
			    link, rc == -EEXIST ? "something that is not a "
			    "link is there" : strerror(-rc));
		close(dfd);
	}
}

/*
 * Backlog, mode and owner of a socket we hold (a reload changed them).
 * A unix socket's path is opened without following a link and must be
 * still ours (id): in a sticky directory another user could put a link
 * there, and we would change whatever it points to.
 */
int
listen_update(int fd, const char *spec, const struct listen_opts *o,
    const struct file_id *id, char *err, size_t n)
{
	struct listen_addr	 a;
	const char		*path = listen_path(spec, &a);
	char			 proc[40];
	struct stat		 st;
	int			 pfd = -1, rc = 0;

	if (listen_is_stream(spec) && listen(fd, (int)o->backlog) < 0)
		rc = -errno;
	if (rc == 0)
		rc = listen_sockopts(fd, &a, true);
	if (rc == 0 && path) {
		if ((pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
		    fstat(pfd, &st) < 0)
			rc = -errno;
		else if (st.st_dev != id->dev || st.st_ino != id->ino)
			rc = -ESTALE;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
		if (rc == 0 && (fchownat(pfd, "", o->uid, o->gid,
		    AT_EMPTY_PATH) < 0 || chmod(proc, o->mode) < 0))
			rc = -errno;
		if (pfd >= 0)
			close(pfd);
		if (rc == 0)
			listen_symlinks(&a, false, spec);
	}
	if (rc < 0)
		snprintf(err, n, "listen %s: %s", spec, rc == -ESTALE ?
		    "its path is no longer our socket" : strerror(-rc));
	return rc;
}

/*
 * Bind a listen value: the fd, non-blocking and close-on-exec; or
 * -errno, with "listen SPEC: why" in err.
 */
int
listen_bind(const char *spec, const struct listen_opts *o, struct file_id *id,
    char *err, size_t n)
{
	struct stat		 st;
	struct listen_addr	 a;
	const char		*path;
	int			 fd, rc = 0, one = 1, type;

	if (listen_parse(spec, &a, err, n) < 0)
		return -EINVAL;
	path = listen_kind_unix(a.kind) ?
	    ((struct sockaddr_un *)&a.sa)->sun_path : NULL;
	type = a.kind == LK_NETLINK ? SOCK_RAW : a.kind == LK_UNIX_SEQPACKET ?
	    SOCK_SEQPACKET : listen_is_stream(spec) ? SOCK_STREAM : SOCK_DGRAM;
	memset(&st, 0, sizeof(st));
	if ((fd = socket(a.sa.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    a.proto)) < 0) {
		rc = -errno;
		goto fail;
	}
	rc = listen_sockopts(fd, &a, false);
	if (rc == 0 && path)
		rc = listen_bind_path(fd, path, type, o, a.dmode, &st);
	else if (rc == 0 && ((a.kind != LK_NETLINK && setsockopt(fd,
	    SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)&a.sa, a.len) < 0))
		rc = -errno;
	if (rc == 0 && type != SOCK_DGRAM && type != SOCK_RAW &&
	    listen(fd, (int)o->backlog) < 0)
		rc = -errno;
	if (rc == 0 && path)
		listen_symlinks(&a, false, spec);
	if (rc < 0) {
		if (path && rc != -EEXIST && rc != -EADDRINUSE)
			listen_unlink(spec, &(struct file_id){ st.st_dev,
			    st.st_ino });
		close(fd);
		goto fail;
	}
	memset(id, 0, sizeof(*id));
	if (path) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	return fd;
fail:
	snprintf(err, n, "listen %s: %s%s", spec, rc == -EEXIST ?
	    "something that is not a socket is there" : strerror(-rc),
	    rc == -ENOENT && path ? " (its directory is missing)" : "");
	return rc;
}

/*
 * A socket kept across a reload, its value now spec: the links of its
 * value before (old) that spec no longer names go.
 */
void
listen_relink(const char *old, const char *spec)
{
	struct listen_addr	 a, b;
	char			 err[8];
	size_t			 i, j, n, keep = 0;

	if (listen_parse(old, &a, err, sizeof(err)) < 0 ||
	    listen_parse(spec, &b, err, sizeof(err)) < 0 ||
	    !listen_kind_unix(a.kind))
		return;
	for (i = 0; i < a.nsymlink; i++) {
		n = strcspn(a.symlink[i], " \t");
		for (j = 0; j < b.nsymlink; j++)
			if (strcspn(b.symlink[j], " \t") == n &&
			    strncmp(a.symlink[i], b.symlink[j], n) == 0)
				break;
		if (j == b.nsymlink)
			a.symlink[keep++] = a.symlink[i];
	}
	a.nsymlink = keep;	/* those to drop */
	listen_symlinks(&a, true, spec);
}

/*
 * Remove the path of a unix socket we held, if it is still that one:
 * by its name in its directory's fd.
 */
void
listen_unlink(const char *spec, const struct file_id *id)
{
	struct listen_addr	 a;
	const char		*path = listen_path(spec, &a);
	char			 name[NAME_MAX + 1];
	struct stat		 st;
	int			 dfd;

	if (path == NULL || id->ino == 0 ||
	    (dfd = listen_dir(path, name, sizeof(name))) < 0)
		return;
	listen_symlinks(&a, true, spec);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode) && st.st_dev == id->dev &&
	    st.st_ino == id->ino)
		unlinkat(dfd, name, 0);
	close(dfd);
}
