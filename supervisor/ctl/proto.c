/* proto.c - frames and requests of the control protocol (see proto.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"

#define VERB_ENTRY(id, fn, name, min, max, flags, usage, help)		\
	[VERB_##id] = { name, min, max, flags, usage, help },
const struct ctl_verb ctl_verbs[VERB__COUNT] = {
	CTL_VERBS(VERB_ENTRY)
};

/* The verb named name, or NULL. */
const struct ctl_verb *
ctl_verb_find(const char *name)
{
	int	i;

	for (i = 0; i < VERB__COUNT; i++)
		if (strcmp(name, ctl_verbs[i].name) == 0)
			return &ctl_verbs[i];
	return NULL;
}

/* Append one frame. */
int
ctl_frame_put(struct buf *b, uint8_t type, const void *p, uint32_t len)
{
	uint8_t	hdr[CTL_HDR_SIZE] = { CTL_VERSION, type, 0, 0 };

	memcpy(hdr + 4, &len, sizeof(len));
	if (buf_add(b, hdr, sizeof(hdr)) < 0 || buf_add(b, p, len) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * Take one frame from the front of in[0..n).  Returns the bytes it spans,
 * 0 if more bytes are needed, -EPROTO for another version or type,
 * -EMSGSIZE if the payload would exceed max.  The header is checked
 * before the payload has arrived, so a huge length is refused at once.
 */
int
ctl_frame_get(const void *in, size_t n, uint32_t max, struct ctl_frame *f)
{
	const uint8_t	*p = in;
	uint32_t	 len;

	if (n < CTL_HDR_SIZE)
		return 0;
	if (p[0] != CTL_VERSION || p[2] != 0 || p[3] != 0)
		return -EPROTO;
	if (p[1] < CTL_REQUEST || p[1] > CTL_NOTE)
		return -EPROTO;
	memcpy(&len, p + 4, sizeof(len));
	if (len > max)
		return -EMSGSIZE;
	if (n - CTL_HDR_SIZE < len)
		return 0;
	f->type = p[1];
	f->len = len;
	f->payload = (const char *)p + CTL_HDR_SIZE;
	return (int)(CTL_HDR_SIZE + len);
}

/* Append the END frame: a code and a message. */
int
ctl_end_put(struct buf *b, int code, const char *msg)
{
	uint8_t		hdr[CTL_HDR_SIZE] = { CTL_VERSION, CTL_END, 0, 0 };
	int32_t		c = code;
	size_t		mlen = strlen(msg);
	uint32_t	len;

	if (mlen > CTL_FRAME_MAX - sizeof(c) - 1)
		mlen = CTL_FRAME_MAX - sizeof(c) - 1;
	len = (uint32_t)(sizeof(c) + mlen + 1);
	memcpy(hdr + 4, &len, sizeof(len));
	if (buf_add(b, hdr, sizeof(hdr)) < 0 || buf_add(b, &c, sizeof(c)) < 0 ||
	    buf_add(b, msg, mlen) < 0 || buf_add(b, "", 1) < 0)
		return -ENOMEM;
	return 0;
}

/* Read an END frame.  -EBADMSG if it is malformed. */
int
ctl_end_get(const struct ctl_frame *f, int *code, const char **msg)
{
	int32_t	c;

	if (f->type != CTL_END || f->len < sizeof(c) + 1 ||
	    f->payload[f->len - 1] != '\0')
		return -EBADMSG;
	memcpy(&c, f->payload, sizeof(c));
	*code = c;
	*msg = f->payload + sizeof(c);
	return 0;
}

/* Append a REQUEST frame carrying argv. */
int
ctl_req_put(struct buf *b, int argc, char *const argv[])
{
	struct buf	p = { 0 };
	int		i, rc;

	for (i = 0; i < argc; i++)
		if (buf_add(&p, argv[i], strlen(argv[i]) + 1) < 0) {
			buf_free(&p);
			return -ENOMEM;
		}
	if (p.len > CTL_REQ_MAX) {
		buf_free(&p);
		return -EMSGSIZE;
	}
	rc = ctl_frame_put(b, CTL_REQUEST, p.data, (uint32_t)p.len);
	buf_free(&p);
	return rc;
}

/*
 * Split a REQUEST payload into at most max words (pointers into the
 * payload).  Returns the count, or -EBADMSG if the payload is empty or
 * does not end in NUL, -E2BIG if it has more than max words.
 */
int
ctl_req_get(const struct ctl_frame *f, char **argv, int max)
{
	const char	*p = f->payload, *end = f->payload + f->len;
	int		 argc = 0;

	if (f->type != CTL_REQUEST || f->len == 0 || end[-1] != '\0')
		return -EBADMSG;
	while (p < end) {
		if (argc == max)
			return -E2BIG;
		argv[argc++] = (char *)p;
		p += strlen(p) + 1;
	}
	return argc;
}

/*
 * An option that takes a value, either way: "--long=V", "--long V",
 * "-xV" or "-x V" (short may be NULL).  Returns 1 with *v set (NULL if
 * the value is missing) and *i past what it took, or 0 if argv[*i] is
 * not this option.
 */
static int
ctl_opt_value(int argc, char *const argv[], int *i, const char *lng,
    const char *shrt, const char **v)
{
	const char	*s = argv[*i];
	size_t		 n = strlen(lng);

	if (strncmp(s, lng, n) == 0 && s[n] == '=') {
		*v = s + n + 1;
		return 1;
	}
	if (strcmp(s, lng) != 0 && (shrt == NULL || strncmp(s, shrt, 2)))
		return 0;
	if (shrt != NULL && strncmp(s, shrt, 2) == 0 && s[2] != '\0') {
		*v = s + 2;
		return 1;
	}
	*v = *i + 1 < argc ? argv[++*i] : NULL;
	return 1;
}

/* Is argv[i] an option whose value is the next word? */
static bool
ctl_opt_takes_next(const char *s)
{
	return !strcmp(s, "-n") || !strcmp(s, "--lines") ||
	    !strcmp(s, "--binary") || !strcmp(s, "--timeout") ||
	    !strcmp(s, "--iterations") || !strcmp(s, "--base-time");
}

/*
 * Parse VERB [ARGS] for both ends, with the verb's options anywhere
 * (before the verb too).  On error, err says what is wrong (with the
 * usage) and the result is -EINVAL.
 */
int
ctl_args_parse(int argc, char *const argv[], struct ctl_args *a, char *err,
    size_t errlen)
{
	const struct ctl_verb	*v = NULL;
	const char		*val;
	int			 i, vi;
	bool			 dashdash = false;	/* "--": no more options */

	memset(a, 0, sizeof(*a));
	a->timeout = CTL_WAIT_DEFAULT;
	a->lines = UINT32_MAX;
	a->iterations = 1;
	if (argc < 1) {
		snprintf(err, errlen, "no verb given");
		return -EINVAL;
	}
	/* The verb is the first word that is not an option. */
	for (vi = 0; vi < argc; vi++) {
		if (ctl_opt_takes_next(argv[vi]))
			vi++;
		else if (argv[vi][0] != '-' || argv[vi][1] == '\0')
			break;
	}
	if (vi >= argc) {
		snprintf(err, errlen, "no verb given");
		return -EINVAL;
	}
	if ((v = ctl_verb_find(argv[vi])) == NULL) {
		snprintf(err, errlen, "unknown verb '%.64s'", argv[vi]);
		return -EINVAL;
	}
	a->verb = (int)(v - ctl_verbs);
	for (i = 0; i < argc; i++) {
		const char	*s = argv[i];

		if (i == vi)
			continue;
		if (!dashdash && i > vi && strcmp(s, "--") == 0) {
			dashdash = true;
		} else if (dashdash) {
			if (a->npos == v->max) {
				snprintf(err, errlen, "too many arguments; "
				    "usage: %s", v->usage);
				return -EINVAL;
			}
			a->pos[a->npos++] = s;
		} else if ((v->flags & VF_WAIT) && strcmp(s, "--wait") == 0) {
			a->wait = true;
		} else if ((v->flags & VF_JSON) && strcmp(s, "--json") == 0) {
			a->json = true;
		} else if ((v->flags & VF_ALL) && strcmp(s, "--all") == 0) {
			a->all = true;
		} else if ((v->flags & VF_NOW) && strcmp(s, "--now") == 0) {
			a->now = true;
		} else if ((v->flags & VF_FOLLOW) && strcmp(s, "-f") == 0) {
			a->follow = true;
		} else if ((v->flags & VF_LINES) && ctl_opt_value(argc, argv,
		    &i, "--lines", "-n", &val)) {
			uint64_t	n;

			if (val == NULL || parse_u64(val, UINT32_MAX - 1,
			    &n) < 0) {
				snprintf(err, errlen, "-n needs a number of "
				    "lines; usage: %s", v->usage);
				return -EINVAL;
			}
			a->lines = (uint32_t)n;
		} else if ((v->flags & VF_BINARY) && ctl_opt_value(argc, argv,
		    &i, "--binary", NULL, &val)) {
			if (val == NULL || val[0] != '/') {
				snprintf(err, errlen, "--binary needs an absolute "
				    "path; usage: %s", v->usage);
				return -EINVAL;
			}
			a->binary = val;
		} else if ((v->flags & VF_ITER) && ctl_opt_value(argc, argv,
		    &i, "--iterations", NULL, &val)) {
			uint64_t	n;

			if (val == NULL || parse_u64(val, 10000, &n) < 0) {
				snprintf(err, errlen, "--iterations needs a "
				    "number up to 10000; usage: %s", v->usage);
				return -EINVAL;
			}
			a->iterations = (uint32_t)n;
		} else if ((v->flags & VF_BASE) && ctl_opt_value(argc, argv,
		    &i, "--base-time", NULL, &val)) {
			if (val == NULL) {
				snprintf(err, errlen, "--base-time needs a "
				    "time; usage: %s", v->usage);
				return -EINVAL;
			}
			a->base_time = val;
		} else if ((v->flags & VF_TIMEOUT) && ctl_opt_value(argc, argv,
		    &i, "--timeout", NULL, &val)) {
			if (val == NULL || parse_duration(val, &a->timeout) < 0 ||
			    a->timeout == 0) {
				snprintf(err, errlen, "invalid timeout '%.64s'; "
				    "usage: %s", val ? val : "", v->usage);
				return -EINVAL;
			}
		} else if (s[0] == '-' && s[1] != '\0') {
			snprintf(err, errlen, "unknown option '%.64s'; usage: "
			    "%s", s, v->usage);
			return -EINVAL;
		} else if (a->npos == v->max) {
			snprintf(err, errlen, "too many arguments; usage: %s",
			    v->usage);
			return -EINVAL;
		} else {
			a->pos[a->npos++] = s;
		}
	}
	if (a->npos < v->min) {
		snprintf(err, errlen, "missing arguments; usage: %s", v->usage);
		return -EINVAL;
	}
	return 0;
}

/* Does the request wait up to its --timeout for the services? */
bool
ctl_args_wait(const struct ctl_args *a)
{
	return a->wait || a->verb == VERB_WAIT ||
	    (a->verb == VERB_RELOAD && a->npos > 0);
}

/*
 * The places the control socket goes when no one says where, in order:
 *   root:   /run/pidvisor/control.sock, then /tmp/pidvisor-0/control.sock
 *   others: $XDG_RUNTIME_DIR/pidvisor/control.sock (if set), then
 *           /tmp/pidvisor-UID/control.sock; a client tries
 *           /run/pidvisor/control.sock last (a root pidvisor's).
 * pidvisor takes the first whose directory it can use (a read-only root
 * file system with a writable /run or /tmp); pidvisorctl the first where
 * a socket is.  *owner is whose the directory must be (root's, or the
 * caller's): anyone else's could hold a socket that answers in our place.
 */
const char *
ctl_socket_default(int i, bool server, char *buf, size_t n, uid_t *owner)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");
	uid_t		 uid = geteuid();

	*owner = uid;
	if (uid == 0 || (xdg != NULL && xdg[0] != '/'))
		xdg = NULL;
	if (uid == 0) {
		if (i == 0)
			return CTL_SOCKET_DEFAULT;
		if (i == 1) {
			snprintf(buf, n, "/tmp/pidvisor-0/control.sock");
			return buf;
		}
		return NULL;
	}
	if (xdg == NULL)
		i++;
	if (i == 0 && (size_t)snprintf(buf, n, "%s/pidvisor/control.sock",
	    xdg) < n)
		return buf;
	if (i <= 1) {
		snprintf(buf, n, "/tmp/pidvisor-%u/control.sock", (unsigned)uid);
		return buf;
	}
	*owner = 0;
	if (i == 2 && !server)
		return CTL_SOCKET_DEFAULT;
	return NULL;
}

/*
 * Is the directory of socket path owner's and writable by no one else?
 * 0, or -errno with why in why.
 */
int
ctl_socket_dir_safe(const char *path, uid_t owner, char *why, size_t n)
{
	char		 dir[CTL_SOCKET_PATH_MAX];
	const char	*slash = strrchr(path, '/');
	struct stat	 st;

	if (slash == NULL || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(why, n, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (lstat(dir, &st) < 0) {
		snprintf(why, n, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, n, "%s: not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, n, "%s is owned by uid %u, mode %04o (it must be "
		    "uid %u's and writable by no one else)", dir,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
		    (unsigned)owner);
		return -EPERM;
	}
	return 0;
}

/*
 * Make the directory of a default socket path ready: /run/pidvisor as
 * it is (root's), a directory of our own anywhere else; one that is
 * there already must be ours and writable by no one else, or someone
 * could put a socket of theirs in our place.  Root's is 0755, so that
 * the services' users reach the notify socket in it; another user's
 * 0700.  0, or -errno with why in why.
 */
int
ctl_socket_dir(const char *path, char *why, size_t n)
{
	char		 dir[CTL_SOCKET_PATH_MAX];
	const char	*slash = strrchr(path, '/');
	struct stat	 st;
	mode_t		 mode = geteuid() == 0 ? 0755 : 0700;
	int		 fd, rc;

	if (slash == NULL || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(why, n, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (mkdir(dir, mode) < 0 && errno != EEXIST) {
		snprintf(why, n, "%s", strerror(errno));
		return -errno;
	}
	if ((rc = ctl_socket_dir_safe(path, geteuid(), why, n)) < 0)
		return rc;
	/* Ours: the mode we want (one an older pidvisor made 0700). */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0) ||
	    access(dir, W_OK) < 0) {
		rc = -errno;
		snprintf(why, n, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	close(fd);
	return 0;
}
