/*
 * listen.c - the sockets pidvisor binds for a service and holds for it
 * (listen =, systemd's socket activation): what a listen value means,
 * and binding it.  socks.c holds them across restarts and passes them.
 *
 *   tcp:HOST:PORT  tcp6:[ADDR]:PORT  udp:HOST:PORT  udp6:[ADDR]:PORT
 *   unix:/PATH
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
};

/* An inet value: HOST:PORT (v4) or [ADDR]:PORT (v6). */
static int
listen_parse_inet(const char *spec, const char *v, bool v6,
    struct listen_addr *a, char *err, size_t n)
{
	char		 buf[80];
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

/* Parse a listen value; 0, or -EINVAL with why in err. */
int
listen_parse(const char *spec, struct listen_addr *a, char *err, size_t n)
{
	struct sockaddr_un	*un = (struct sockaddr_un *)&a->sa;
	const char		*v = NULL;
	size_t			 i, len;

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
		    "tcp6:[ADDR]:PORT, udp:HOST:PORT, udp6:[ADDR]:PORT or "
		    "unix:/PATH", spec);
		return -EINVAL;
	}
	if (a->kind != LK_UNIX)
		return listen_parse_inet(spec, v, a->kind == LK_TCP6 ||
		    a->kind == LK_UDP6, a, err, n);
	len = strlen(v);
	if (v[0] != '/' || len >= sizeof(un->sun_path) || v[len - 1] == '/' ||
	    strstr(v, "/../") || strstr(v, "/./")) {
		snprintf(err, n, "'%s': expected unix:/PATH, an absolute path "
		    "of at most %zu bytes", spec, sizeof(un->sun_path) - 1);
		return -EINVAL;
	}
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, v, len + 1);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	return 0;
}

/* Do two parsed values name one socket? */
bool
listen_same(const struct listen_addr *a, const struct listen_addr *b)
{
	bool	sa = a->kind == LK_UDP || a->kind == LK_UDP6;
	bool	sb = b->kind == LK_UDP || b->kind == LK_UDP6;

	return sa == sb && a->len == b->len && memcmp(&a->sa, &b->sa,
	    a->len) == 0;
}

bool
listen_is_stream(const char *spec)
{
	return strncmp(spec, "udp", 3) != 0;
}

/* The path of a unix value, or NULL. */
static const char *
listen_path(const char *spec)
{
	return strncmp(spec, "unix:", 5) == 0 ? spec + 5 : NULL;
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
listen_path_free(int dfd, const char *name, const char *path)
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
	/* Non-blocking: a full backlog must not hold us. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)&un, sizeof(un));
	rc = rc == 0 || errno == EAGAIN ? -EADDRINUSE : 0;
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
listen_bind_path(int fd, const char *path, const struct listen_opts *o,
    struct stat *st)
{
	char			 name[NAME_MAX + 1];
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	int			 dfd, rc;

	if ((dfd = listen_dir(path, name, sizeof(name))) < 0)
		return dfd;
	if ((rc = listen_path_free(dfd, name, path)) < 0) {
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
	const char	*path = listen_path(spec);
	char		 proc[40];
	struct stat	 st;
	int		 pfd = -1, rc = 0;

	if (listen_is_stream(spec) && listen(fd, (int)o->backlog) < 0)
		rc = -errno;
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
	const char		*path = listen_path(spec);
	int			 fd, rc = 0, one = 1, type;

	if (listen_parse(spec, &a, err, n) < 0)
		return -EINVAL;
	type = listen_is_stream(spec) ? SOCK_STREAM : SOCK_DGRAM;
	memset(&st, 0, sizeof(st));
	if ((fd = socket(a.sa.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0) {
		rc = -errno;
		goto fail;
	}
	if (a.sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (path)
		rc = listen_bind_path(fd, path, o, &st);
	else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)), bind(fd, (const struct sockaddr *)&a.sa, a.len) < 0)
		rc = -errno;
	if (rc == 0 && type == SOCK_STREAM && listen(fd, (int)o->backlog) < 0)
		rc = -errno;
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
 * Remove the path of a unix socket we held, if it is still that one:
 * by its name in its directory's fd.
 */
void
listen_unlink(const char *spec, const struct file_id *id)
{
	const char	*path = listen_path(spec);
	char		 name[NAME_MAX + 1];
	struct stat	 st;
	int		 dfd;

	if (path == NULL || id->ino == 0 ||
	    (dfd = listen_dir(path, name, sizeof(name))) < 0)
		return;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode) && st.st_dev == id->dev &&
	    st.st_ino == id->ino)
		unlinkat(dfd, name, 0);
	close(dfd);
}
