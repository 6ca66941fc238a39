/*
 * notifymsg.c - parse an sd_notify datagram: newline-separated KEY=VALUE
 * assignments.  Unknown keys are ignored, as systemd does; a datagram
 * with a NUL byte or a line without '=' is refused whole.
 */
#include <errno.h>
#include <string.h>

#include "notifymsg.h"

/* Is line[0..len) exactly "key=value"? */
static bool
is(const char *line, size_t len, const char *kv)
{
	return strlen(kv) == len && memcmp(line, kv, len) == 0;
}

/* Is line[0..len) "key=N" with N a decimal number up to max? */
static bool
num(const char *line, size_t len, const char *key, uint64_t max,
    uint64_t *out)
{
	size_t		klen = strlen(key), i;
	uint64_t	v = 0;

	if (len <= klen || memcmp(line, key, klen) != 0)
		return false;
	for (i = klen; i < len; i++) {
		if (line[i] < '0' || line[i] > '9' || i - klen >= 19)
			return false;
		v = v * 10 + (uint64_t)(line[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* Parse buf[0..len).  0, or -EBADMSG. */
int
notify_parse(const char *buf, size_t len, struct notify_msg *m)
{
	const char	*p = buf, *end = buf + len, *nl;
	size_t		 n;
	uint64_t	 v;

	memset(m, 0, sizeof(*m));
	m->err = -1;
	if (len == 0 || len > NOTIFY_MSG_MAX || memchr(buf, '\0', len))
		return -EBADMSG;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0 && memchr(p, '=', n) == NULL)
			return -EBADMSG;
		if (is(p, n, "READY=1"))
			m->ready = true;
		else if (is(p, n, "STOPPING=1"))
			m->stopping = true;
		else if (is(p, n, "WATCHDOG=1"))
			m->watchdog = true;
		else if (is(p, n, "WATCHDOG=trigger"))
			m->watchdog_trigger = true;
		else if (is(p, n, "RELOADING=1"))
			m->reloading = true;
		else if (num(p, n, "MAINPID=", INT32_MAX, &v))
			m->mainpid = (int32_t)v;
		else if (num(p, n, "ERRNO=", 4095, &v))
			m->err = (int32_t)v;
		else if (num(p, n, "EXTEND_TIMEOUT_USEC=", UINT64_MAX, &v))
			m->extend_usec = v;
		else if (num(p, n, "MONOTONIC_USEC=", UINT64_MAX, &v))
			m->monotonic_usec = v;
		else if (is(p, n, "FDSTORE=1"))
			m->fdstore = true;
		else if (is(p, n, "FDSTOREREMOVE=1"))
			m->fdstore_remove = true;
		else if (n >= 7 && memcmp(p, "STATUS=", 7) == 0) {
			m->status = p + 7;
			m->status_len = n - 7;
		} else if (n >= 7 && memcmp(p, "FDNAME=", 7) == 0) {
			m->fdname = p + 7;
			m->fdname_len = n - 7;
		}
		p += n + (nl != NULL);
	}
	return 0;
}

/*
 * The ancillary data of one received datagram: the sender's credentials
 * (NULL if none came) and the fds it carries, at most max of them into
 * fds (*nfds says how many; the rest, if any, are left where they are
 * and counted in *extra).  Never reads past msg_controllen, whatever a
 * header's length says.
 */
const struct ucred *
notify_cmsgs(const struct msghdr *mh, int *fds, size_t max, size_t *nfds,
    size_t *extra)
{
	const struct ucred	*cred = NULL;
	const char		*base = mh->msg_control;
	struct cmsghdr		*c;
	size_t			 k, n, off;

	*nfds = *extra = 0;
	if (base == NULL)
		return NULL;
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh,
	    c)) {
		off = (size_t)((const char *)c - base);
		if (c->cmsg_len < CMSG_LEN(0) ||
		    c->cmsg_len > mh->msg_controllen - off)
			break;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(*cred))) {
			cred = (const struct ucred *)(const void *)CMSG_DATA(c);
		} else if (c->cmsg_type == SCM_RIGHTS) {
			n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (k = 0; k < n; k++) {
				if (*nfds == max) {
					(*extra)++;
					continue;
				}
				memcpy(&fds[(*nfds)++], CMSG_DATA(c) +
				    k * sizeof(int), sizeof(int));
			}
		}
	}
	return cred;
}
