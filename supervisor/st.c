/*
 * st.c - the state stream of a re-exec (st.h): its bytes put in order by
 * the binary that re-executes, taken in the same order by the next, every
 * read checked against the end.  (A service's state is svc.c's.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"

static void
st_put(struct st_w *w, const void *p, size_t n)
{
	if (buf_add(&w->b, p, n) < 0)
		w->nomem = true;
}

void
st_u8(struct st_w *w, uint8_t v)
{
	st_put(w, &v, sizeof(v));
}

void
st_u32(struct st_w *w, uint32_t v)
{
	st_put(w, &v, sizeof(v));
}

void
st_u64(struct st_w *w, uint64_t v)
{
	st_put(w, &v, sizeof(v));
}

void
st_i64(struct st_w *w, int64_t v)
{
	st_put(w, &v, sizeof(v));
}

void
st_bytes(struct st_w *w, const void *p, uint32_t n)
{
	st_u32(w, n);
	st_put(w, p, n);
}

void
st_str(struct st_w *w, const char *s)
{
	if (s == NULL)
		st_u32(w, STATE_NULL);
	else
		st_bytes(w, s, (uint32_t)strlen(s));
}

/* A NULL-terminated vector: its count (STATE_NULL: NULL), its strings. */
void
st_strv(struct st_w *w, char *const *v)
{
	size_t	i, n;

	if (v == NULL) {
		st_u32(w, STATE_NULL);
		return;
	}
	n = strv_len(v);
	st_u32(w, (uint32_t)n);
	for (i = 0; i < n; i++)
		st_str(w, v[i]);
}

/* Add fd to a list that grows. */
static bool
st_fd_add(int **v, size_t *n, size_t *cap, int fd)
{
	if (*n == *cap) {
		size_t	 c = *cap ? 2 * *cap : 64;
		int	*nv = realloc(*v, c * sizeof(*nv));

		if (nv == NULL)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = fd;
	return true;
}

/*
 * An fd the next binary takes over: its number.  st_fd(): a close-on-exec
 * fd, made inheritable just before the exec (and close-on-exec again if
 * it fails); st_fd_kept(): one of spawn_fd_keep(), inheritable already.
 */
void
st_fd(struct st_w *w, int fd)
{
	st_u32(w, (uint32_t)fd);
	if (fd >= 0 && !st_fd_add(&w->fds, &w->nfds, &w->capfds, fd))
		w->nomem = true;
}

void
st_fd_kept(struct st_w *w, int fd)
{
	st_u32(w, (uint32_t)fd);
}

void
st_w_free(struct st_w *w)
{
	buf_free(&w->b);
	free(w->fds);
	memset(w, 0, sizeof(*w));
}

void
st_fail(struct st_r *r, const char *fmt, ...)
{
	va_list	ap;

	if (st_bad(r))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	if (r->err[0] == '\0')
		snprintf(r->err, sizeof(r->err), "bad state");
}

/* n bytes at the cursor, or NULL (and the error) past the end. */
static const void *
st_take(struct st_r *r, size_t n)
{
	const void	*p;

	if (st_bad(r))
		return NULL;
	if (n > r->n - r->off) {
		st_fail(r, "the state ends early, at byte %zu of %zu", r->off,
		    r->n);
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	return p;
}

#define ST_GET(type, name)						\
type									\
name(struct st_r *r)							\
{									\
	const void	*p = st_take(r, sizeof(type));			\
	type		 v = 0;						\
									\
	if (p)								\
		memcpy(&v, p, sizeof(v));				\
	return v;							\
}

ST_GET(uint8_t, st_get_u8)
ST_GET(uint32_t, st_get_u32)
ST_GET(uint64_t, st_get_u64)
ST_GET(int64_t, st_get_i64)

const void *
st_get_bytes(struct st_r *r, uint32_t *n)
{
	*n = st_get_u32(r);
	if (*n == STATE_NULL)
		return NULL;
	return st_take(r, *n);
}

/* A string, in *out (NULL for NULL); false on an error. */
bool
st_get_str(struct st_r *r, char **out)
{
	uint32_t	 n;
	const char	*p = st_get_bytes(r, &n);

	*out = NULL;
	if (p == NULL)
		return !st_bad(r);
	if (memchr(p, '\0', n) != NULL) {
		st_fail(r, "a string with a NUL in it, at byte %zu", r->off);
		return false;
	}
	if ((*out = strndup(p, n)) == NULL)
		st_fail(r, "%s", strerror(ENOMEM));
	return *out != NULL;
}

/*
 * A count of things that follow, each at least a byte: no more than the
 * state has left (a count read from a bad state allocates nothing big).
 */
uint32_t
st_get_count(struct st_r *r, const char *what)
{
	uint32_t	n = st_get_u32(r);

	if (n > r->n - r->off) {
		st_fail(r, "%u %s, more than the state holds", n, what);
		return 0;
	}
	return n;
}

bool
st_get_strv(struct st_r *r, char ***out)
{
	uint32_t	n = st_get_u32(r), i;
	char		**v;

	*out = NULL;
	if (n == STATE_NULL || st_bad(r))
		return !st_bad(r);
	if (n > r->n - r->off) {
		st_fail(r, "%u strings, more than the state holds", n);
		return false;
	}
	if ((v = calloc((size_t)n + 1, sizeof(*v))) == NULL) {
		st_fail(r, "%s", strerror(ENOMEM));
		return false;
	}
	for (i = 0; i < n; i++)
		if (!st_get_str(r, &v[i]) || v[i] == NULL) {
			st_fail(r, "a NULL in a list of strings");
			strv_free(v);
			return false;
		}
	*out = v;
	return true;
}

/*
 * An fd the previous binary left us, by number (not checked one by one:
 * at 10,000 services that is 50,000 calls; the loop finds a bad one).
 * st_get_fd(): close-on-exec once all is read (st_r_cloexec());
 * st_get_fd_kept(): stays inheritable, as spawn_fd_keep() makes them.
 */
int
st_get_fd_kept(struct st_r *r)
{
	int	fd = (int)st_get_u32(r);

	return st_bad(r) || fd < 0 ? -1 : fd;
}

int
st_get_fd(struct st_r *r)
{
	int	fd = st_get_fd_kept(r);

	if (fd >= 0 && !st_fd_add(&r->fds, &r->nfds, &r->capfds, fd))
		st_fail(r, "%s", strerror(ENOMEM));
	return fd;
}

/* All is read: what was close-on-exec is again; the list goes. */
void
st_r_cloexec(struct st_r *r)
{
	size_t	i;

	for (i = 0; i < r->nfds; i++)
		fcntl(r->fds[i], F_SETFD, FD_CLOEXEC);
	free(r->fds);
	r->fds = NULL;
	r->nfds = r->capfds = 0;
}
