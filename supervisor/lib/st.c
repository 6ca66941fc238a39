/*
 * st.c - the state stream of a re-exec (st.h): records written by the
 * binary that re-executes, found by name by the next (or, from a binary
 * of version 6, taken in the order they were written), every read
 * checked against the end.  (A service's state is svc.c's.)
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

static void
st_raw_u32(struct st_w *w, uint32_t v)
{
	st_put(w, &v, sizeof(v));
}

/*
 * A record's kind and name, and its value if it is one of a fixed size
 * (v, n; else NULL, 0: it follows): one copy, the hot path of a state
 * of thousands of services.
 */
static void
st_rec_val(struct st_w *w, uint8_t kind, const char *name, const void *v,
    size_t n)
{
	size_t	len = strlen(name);
	char	*p;

	if (len > 255)
		len = 255;
	if (buf_reserve(&w->b, 2 + len + n) < 0) {
		w->nomem = true;
		return;
	}
	p = w->b.data + w->b.len;
	p[0] = (char)kind;
	p[1] = (char)len;
	/* A name is counted, not ended. */
	memcpy(p + 2, name, len);	/* NOLINT(bugprone-not-null-terminated-result) */
	if (n > 0)
		memcpy(p + 2 + len, v, n);
	w->b.len += 2 + len + n;
	w->b.data[w->b.len] = '\0';
}

static void
st_rec(struct st_w *w, uint8_t kind, const char *name)
{
	st_rec_val(w, kind, name, NULL, 0);
}

/* The header, as every version has it; its length is st_head_done()'s. */
void
st_head(struct st_w *w, uint32_t version)
{
	uint64_t	len = 0;

	st_raw_u32(w, 8);
	st_put(w, STATE_MAGIC, 8);
	st_raw_u32(w, version);
	st_put(w, &len, sizeof(len));
}

void
st_head_done(struct st_w *w)
{
	uint64_t	len = w->b.len;

	if (!w->nomem && w->b.len >= 24)
		memcpy(w->b.data + 16, &len, sizeof(len));
}

void
st_u8(struct st_w *w, const char *name, uint8_t v)
{
	st_rec_val(w, ST_U8, name, &v, sizeof(v));
}

void
st_u32(struct st_w *w, const char *name, uint32_t v)
{
	st_rec_val(w, ST_U32, name, &v, sizeof(v));
}

void
st_u64(struct st_w *w, const char *name, uint64_t v)
{
	st_rec_val(w, ST_U64, name, &v, sizeof(v));
}

void
st_i64(struct st_w *w, const char *name, int64_t v)
{
	st_rec_val(w, ST_I64, name, &v, sizeof(v));
}

void
st_bytes(struct st_w *w, const char *name, const void *p, uint32_t n)
{
	st_rec(w, ST_BYTES, name);
	st_raw_u32(w, n);
	st_put(w, p, n);
}

/* Bytes in two parts, as one record (a head and a text, say). */
void
st_rec_parts(struct st_w *w, const char *name, const void *a, uint32_t an,
    const void *b, uint32_t bn)
{
	st_rec(w, ST_BYTES, name);
	st_raw_u32(w, an + bn);
	st_put(w, a, an);
	st_put(w, b, bn);
}

static void
st_raw_str(struct st_w *w, const char *s)
{
	if (s == NULL) {
		st_raw_u32(w, STATE_NULL);
		return;
	}
	st_raw_u32(w, (uint32_t)strlen(s));
	st_put(w, s, strlen(s));
}

void
st_str(struct st_w *w, const char *name, const char *s)
{
	st_rec(w, ST_STR, name);
	st_raw_str(w, s);
}

/* A NULL-terminated vector: its count (STATE_NULL: NULL), its strings. */
void
st_strv(struct st_w *w, const char *name, char *const *v)
{
	size_t	i, n = strv_len(v);

	st_rec(w, ST_STRV, name);
	st_raw_u32(w, v == NULL ? STATE_NULL : (uint32_t)n);
	for (i = 0; v != NULL && i < n; i++)
		st_raw_str(w, v[i]);
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
st_fd(struct st_w *w, const char *name, int fd)
{
	st_rec(w, ST_FD, name);
	st_raw_u32(w, (uint32_t)fd);
	if (fd >= 0 && !st_fd_add(&w->fds, &w->nfds, &w->capfds, fd))
		w->nomem = true;
}

void
st_fd_kept(struct st_w *w, const char *name, int fd)
{
	st_rec(w, ST_FD, name);
	st_raw_u32(w, (uint32_t)fd);
}

/* A group begins: the records up to st_end() are its value. */
void
st_begin(struct st_w *w, const char *name)
{
	st_rec(w, ST_GROUP, name);
	if (w->depth >= STATE_DEPTH) {
		w->nomem = true;	/* a bug: refused, never cut */
		return;
	}
	w->open[w->depth++] = w->b.len;
	st_raw_u32(w, 0);
}

void
st_end(struct st_w *w)
{
	size_t		at;
	uint32_t	len;

	if (w->depth == 0) {
		w->nomem = true;
		return;
	}
	at = w->open[--w->depth];
	len = (uint32_t)(w->b.len - at - 4);
	if (!w->nomem)
		memcpy(w->b.data + at, &len, sizeof(len));
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

/* n bytes at off, or NULL (and the error) past end. */
static const void *
st_at(struct st_r *r, size_t off, size_t n, size_t end)
{
	if (st_bad(r))
		return NULL;
	if (off > end || n > end - off) {
		st_fail(r, "the state ends early, at byte %zu of %zu", off,
		    r->n);
		return NULL;
	}
	return r->p + off;
}

/* Version 6: n bytes at the cursor. */
static const void *
st_take(struct st_r *r, size_t n)
{
	const void	*p = st_at(r, r->off, n, r->n);

	if (p != NULL)
		r->off += n;
	return p;
}

static uint32_t
st_u32_at(const void *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The length of a value of kind at off (before end), or 0 on an error. */
static size_t
st_value_len(struct st_r *r, uint8_t kind, size_t off, size_t end)
{
	static const uint8_t	fixed[] = {
		[ST_U8] = 1, [ST_U32] = 4, [ST_U64] = 8, [ST_I64] = 8,
		[ST_FD] = 4,
	};
	const void		*p;
	uint32_t		 n, i, l;
	size_t			 len;

	if (kind < sizeof(fixed) && fixed[kind])
		return st_at(r, off, fixed[kind], end) ? fixed[kind] : 0;
	if ((p = st_at(r, off, 4, end)) == NULL)
		return 0;
	n = st_u32_at(p);
	switch (kind) {
	case ST_STR:
	case ST_BYTES:
	case ST_GROUP:
		len = 4 + (n == STATE_NULL ? 0 : (size_t)n);
		return st_at(r, off, len, end) ? len : 0;
	case ST_STRV:
		len = 4;
		for (i = 0; n != STATE_NULL && i < n; i++) {
			if ((p = st_at(r, off + len, 4, end)) == NULL)
				return 0;
			l = st_u32_at(p);
			len += 4 + (l == STATE_NULL ? 0 : (size_t)l);
			if (st_at(r, off, len, end) == NULL)
				return 0;
		}
		return len;
	}
	st_fail(r, "a record of kind %u, which this binary does not know",
	    kind);
	return 0;
}

/* Named: the records of a group, at [off, end), in a new frame. */
static bool
st_push(struct st_r *r, size_t off, size_t end)
{
	struct st_frame	*f;
	struct st_rec	*rec, *nv;
	const uint8_t	*h;
	size_t		 len;

	if (r->depth >= STATE_DEPTH) {
		st_fail(r, "groups nested deeper than %d", STATE_DEPTH);
		return false;
	}
	f = &r->fr[r->depth];
	f->n = f->next = 0;
	while (off < end && !st_bad(r)) {
		if ((h = st_at(r, off, 2, end)) == NULL ||
		    st_at(r, off + 2, h[1], end) == NULL)
			break;
		if (f->n == f->cap) {
			if ((nv = realloc(f->v, (f->cap ? 2 * f->cap : 32) *
			    sizeof(*nv))) == NULL) {
				st_fail(r, "%s", strerror(ENOMEM));
				break;
			}
			f->v = nv;
			f->cap = f->cap ? 2 * f->cap : 32;
		}
		rec = &f->v[f->n];
		rec->kind = h[0];
		rec->nlen = h[1];
		rec->name = (const char *)h + 2;
		rec->used = false;
		off += 2 + (size_t)h[1];
		if ((len = st_value_len(r, rec->kind, off, end)) == 0)
			break;
		rec->off = (uint32_t)(off + (rec->kind == ST_GROUP ? 4 : 0));
		rec->len = (uint32_t)(len - (rec->kind == ST_GROUP ? 4 : 0));
		off += len;
		f->n++;
	}
	r->depth++;
	return !st_bad(r);
}

/* Named: the first record of this name not taken yet, of kind. */
static const struct st_rec *
st_find(struct st_r *r, const char *name, uint8_t kind)
{
	struct st_frame	*f;
	struct st_rec	*rec;
	size_t		 n = strlen(name);
	uint32_t	 i;

	if (st_bad(r) || r->depth == 0)
		return NULL;
	f = &r->fr[r->depth - 1];
	for (i = f->next; i < f->n; i++) {
		rec = &f->v[i];
		if (rec->used || rec->nlen != n ||
		    memcmp(rec->name, name, n) != 0)
			continue;
		if (rec->kind != kind && !((rec->kind == ST_STR ||
		    rec->kind == ST_BYTES) && (kind == ST_STR ||
		    kind == ST_BYTES))) {
			st_fail(r, "'%s' is of kind %u in the state, %u here",
			    name, rec->kind, kind);
			return NULL;
		}
		rec->used = true;
		while (f->next < f->n && f->v[f->next].used)
			f->next++;
		return rec;
	}
	return NULL;
}

/*
 * The value of a fixed size of name: named, its record's (NULL if there
 * is none); version 6, the next n bytes.
 */
static const void *
st_value(struct st_r *r, const char *name, uint8_t kind, size_t n)
{
	const struct st_rec	*rec;

	if (!r->named)
		return st_take(r, n);
	if ((rec = st_find(r, name, kind)) == NULL)
		return NULL;
	return r->p + rec->off;
}

#define ST_GET(type, fn, kind)						\
bool									\
fn(struct st_r *r, const char *name, type *out) /* NOLINT */	\
{									\
	const void	*p = st_value(r, name, kind, sizeof(type));	\
									\
	if (p == NULL)							\
		return false;						\
	memcpy(out, p, sizeof(type));					\
	return true;							\
}

ST_GET(uint8_t, st_get_u8, ST_U8)
ST_GET(uint32_t, st_get_u32, ST_U32)
ST_GET(int32_t, st_get_i32, ST_U32)
ST_GET(uint64_t, st_get_u64, ST_U64)
ST_GET(int64_t, st_get_i64, ST_I64)

bool
st_get_bool(struct st_r *r, const char *name, bool *out)
{
	uint8_t	v;

	if (!st_get_u8(r, name, &v))
		return false;
	*out = v != 0;
	return true;
}

/*
 * A count of things that follow, each at least a byte: no more than the
 * state has left (a count read from a bad state allocates nothing big).
 */
bool
st_get_count(struct st_r *r, const char *name, uint32_t *out)
{
	uint32_t	n = 0;

	if (!st_get_u32(r, name, &n))
		return false;
	if (n > (r->named ? r->n : r->n - r->off)) {
		st_fail(r, "%u %s, more than the state holds", n, name);
		return false;
	}
	*out = n;
	return true;
}

/* A length and its bytes at *p (NULL for STATE_NULL). */
bool
st_get_bytes(struct st_r *r, const char *name, const void **p, uint32_t *n)
{
	const struct st_rec	*rec = NULL;
	const void		*lp;

	if (r->named && (rec = st_find(r, name, ST_BYTES)) == NULL)
		return false;
	if (rec != NULL) {
		*n = st_u32_at(r->p + rec->off);
		*p = *n == STATE_NULL ? NULL : r->p + rec->off + 4;
		return true;
	}
	if ((lp = st_take(r, 4)) == NULL)
		return false;
	*n = st_u32_at(lp);
	*p = *n == STATE_NULL ? NULL : st_take(r, *n);
	return !st_bad(r);
}

/* The string at p, n bytes, into *out (NULL for NULL); false: an error. */
static bool
st_make_str(struct st_r *r, const char *p, uint32_t n, char **out)
{
	*out = NULL;
	if (p == NULL)
		return !st_bad(r);
	if (memchr(p, '\0', n) != NULL) {
		st_fail(r, "a string with a NUL in it");
		return false;
	}
	if ((*out = strndup(p, n)) == NULL)
		st_fail(r, "%s", strerror(ENOMEM));
	return *out != NULL;
}

/* A string, in *out (NULL for NULL); false if there is none. */
bool
st_get_str(struct st_r *r, const char *name, char **out)
{
	const void	*p;
	uint32_t	 n;

	if (!st_get_bytes(r, name, &p, &n))
		return false;
	return st_make_str(r, p, n, out);
}

/* Version 6's strings of a vector: taken from the cursor. */
static bool
st_strv_take(struct st_r *r, uint32_t n, char **v)
{
	const void	*lp, *p;
	uint32_t	 i, l;

	for (i = 0; i < n; i++) {
		if ((lp = st_take(r, 4)) == NULL)
			return false;
		l = st_u32_at(lp);
		p = l == STATE_NULL ? NULL : st_take(r, l);
		if (p == NULL || !st_make_str(r, p, l, &v[i]))
			return false;
	}
	return true;
}

bool
st_get_strv(struct st_r *r, const char *name, char ***out)
{
	const struct st_rec	*rec = NULL;
	const void		*lp;
	uint32_t		 n, i, l;
	size_t			 off;
	char			**v;

	if (r->named && (rec = st_find(r, name, ST_STRV)) == NULL)
		return false;
	if (rec != NULL)
		n = st_u32_at(r->p + rec->off);
	else if ((lp = st_take(r, 4)) != NULL)
		n = st_u32_at(lp);
	else
		return false;
	*out = NULL;
	if (n == STATE_NULL)
		return true;
	if (n > r->n) {
		st_fail(r, "%u strings, more than the state holds", n);
		return false;
	}
	if ((v = calloc((size_t)n + 1, sizeof(*v))) == NULL) {
		st_fail(r, "%s", strerror(ENOMEM));
		return false;
	}
	if (rec == NULL) {
		if (!st_strv_take(r, n, v)) {
			strv_free(v);
			st_fail(r, "a NULL in a list of strings");
			return false;
		}
	} else {
		for (i = 0, off = rec->off + 4; i < n; i++) {
			l = st_u32_at(r->p + off);
			if (l == STATE_NULL || !st_make_str(r, (const char *)
			    r->p + off + 4, l, &v[i])) {
				strv_free(v);
				st_fail(r, "a NULL in a list of strings");
				return false;
			}
			off += 4 + l;
		}
	}
	*out = v;
	return true;
}

/*
 * An fd the previous binary left us, by number (not checked one by one:
 * at 10,000 services that is 50,000 calls; the loop finds a bad one).
 * st_get_fd(): close-on-exec once all is read (st_r_cloexec());
 * st_get_fd_kept(): stays inheritable, as spawn_fd_keep() makes them.
 * -1 stands for none.
 */
bool
st_get_fd_kept(struct st_r *r, const char *name, int *out)
{
	const void	*p = st_value(r, name, ST_FD, 4);
	int		 fd;

	if (p == NULL)
		return false;
	fd = (int)st_u32_at(p);
	*out = fd < 0 ? -1 : fd;
	return true;
}

bool
st_get_fd(struct st_r *r, const char *name, int *out)
{
	if (!st_get_fd_kept(r, name, out))
		return false;
	if (*out >= 0 && !st_fd_add(&r->fds, &r->nfds, &r->capfds, *out))
		st_fail(r, "%s", strerror(ENOMEM));
	return true;
}

/*
 * Into the next group of this name (named; false if there is none,
 * leaving where we are); version 6 has no groups: true.
 */
bool
st_enter(struct st_r *r, const char *name)
{
	const struct st_rec	*rec;

	if (!r->named)
		return !st_bad(r);
	if ((rec = st_find(r, name, ST_GROUP)) == NULL)
		return false;
	return st_push(r, rec->off, (size_t)rec->off + rec->len);
}

/*
 * Named: the name (of len bytes, not NUL-ended) of the i-th record of
 * the group entered, and whether it is a group; NULL past the last.
 * For a reader that goes by what the state has, not by what it knows.
 */
const char *
st_rec_at(const struct st_r *r, uint32_t i, uint8_t *len, bool *group)
{
	const struct st_frame	*f;

	if (!r->named || r->depth == 0 || st_bad(r))
		return NULL;
	f = &r->fr[r->depth - 1];
	if (i >= f->n)
		return NULL;
	*len = f->v[i].nlen;
	*group = f->v[i].kind == ST_GROUP;
	return f->v[i].name;
}

/* Out of the group entered: what was not read of it is left. */
void
st_leave(struct st_r *r)
{
	if (!r->named || r->depth <= 1)
		return;
	r->depth--;
	r->fr[r->depth].n = r->fr[r->depth].next = 0;
}

/*
 * Does the state have what came with version (st.h)?  Version 6 wrote
 * no name: what came after it is not there to read.
 */
bool
st_since(const struct st_r *r, uint32_t version)
{
	return r->named || r->version >= version;
}

/*
 * Open a state of n bytes at p: its header, and (named) its records.
 * 0 with *version; -EINVAL with the error in r.
 */
int
st_r_open(struct st_r *r, const void *p, size_t n, uint32_t *version)
{
	const unsigned char	*h;
	uint64_t		 len;

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->n = n;
	if ((h = st_take(r, 4 + 8 + 4 + 8)) == NULL ||
	    st_u32_at(h) != 8 || memcmp(h + 4, STATE_MAGIC, 8) != 0) {
		st_fail(r, "not a pidvisor state");
		return -EINVAL;
	}
	*version = r->version = st_u32_at(h + 12);
	memcpy(&len, h + 16, sizeof(len));
	if (len != n) {
		st_fail(r, "the state is %zu bytes, its header says %llu", n,
		    (unsigned long long)len);
		return -EINVAL;
	}
	if (r->version < STATE_OLDEST || (r->version > STATE_OLDEST &&
	    r->version < STATE_NAMED)) {
		st_fail(r, "state version %u; this binary reads %d and %d on",
		    r->version, STATE_OLDEST, STATE_NAMED);
		return -EINVAL;
	}
	r->named = r->version >= STATE_NAMED;
	if (r->named && !st_push(r, r->off, n))
		return -EINVAL;
	return 0;
}

/* Done reading: what the groups held goes. */
void
st_r_close(struct st_r *r)
{
	int	i;

	for (i = 0; i < STATE_DEPTH; i++) {
		free(r->fr[i].v);
		memset(&r->fr[i], 0, sizeof(r->fr[i]));
	}
	r->depth = 0;
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
