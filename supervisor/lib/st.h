/* st.h - the state stream: what a re-exec hands the next binary, as bytes */
#ifndef PIDVISOR_ST_H
#define PIDVISOR_ST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * The state is a header (STATE_MAGIC, the version, the length of what
 * follows) and then records, each a kind, a name and a value: numbers
 * and fds in host byte order (the same machine reads them), strings and
 * bytes as their length and themselves (a NULL string: the length
 * STATE_NULL), and groups, whose value is records (a struct, an item of
 * a list: a list is a count and groups of one name).  A reader takes
 * what it knows by name and kind, skips what it does not (a field of a
 * newer release: a downgrade), and keeps its default where a record is
 * missing (a field of an older release, or one dropped since: an
 * upgrade).  So a field is added or dropped without a new format; the
 * version says which fields a release writes, and a test keeps the list
 * (tests/unit/state_fields.txt): a change of the list needs a new
 * version.
 *
 * Version 6 (pidvisor 0.x up to ba4044a) wrote the same values with no
 * kinds, names or groups, in a fixed order: a reader of version 6 reads
 * them in that order (st_since() leaves out what came later), kept for
 * one release.
 */
#define STATE_MAGIC	"PVSTATE"	/* with its NUL: 8 bytes */
#ifndef STATE_VERSION
#define STATE_VERSION	12	/* 8: named records; 9: forking; 10: timers;
				 * 11: reload_exec's lines; 12: each key's
				 * FILE:LINE, a unit's drop-ins */
#endif
#ifndef STATE_NAMED
#define STATE_NAMED	8	/* the first version of named records */
#endif
#ifndef STATE_OLDEST
#define STATE_OLDEST	6	/* the oldest version read (positional) */
#endif
#define STATE_NULL	UINT32_MAX
#define STATE_DEPTH	8	/* groups in groups, at most */

enum st_kind {
	ST_U8 = 1, ST_U32, ST_U64, ST_I64, ST_STR, ST_STRV, ST_BYTES, ST_FD,
	ST_GROUP,
};

/* Writing: the bytes, and the fds they name (kept open across exec). */
struct st_w {
	struct buf	 b;
	int		*fds;
	size_t		 nfds;
	size_t		 capfds;
	size_t		 open[STATE_DEPTH];	/* groups begun: their lengths */
	int		 depth;
	bool		 nomem;
};

void	st_head(struct st_w *w, uint32_t version);
void	st_head_done(struct st_w *w);
void	st_u8(struct st_w *w, const char *name, uint8_t v);
void	st_u32(struct st_w *w, const char *name, uint32_t v);
void	st_u64(struct st_w *w, const char *name, uint64_t v);
void	st_i64(struct st_w *w, const char *name, int64_t v);
void	st_bytes(struct st_w *w, const char *name, const void *p,
	    uint32_t n);
void	st_rec_parts(struct st_w *w, const char *name, const void *a,
	    uint32_t an, const void *b, uint32_t bn);
void	st_str(struct st_w *w, const char *name, const char *s);
void	st_strv(struct st_w *w, const char *name, char *const *v);
void	st_fd(struct st_w *w, const char *name, int fd);
void	st_fd_kept(struct st_w *w, const char *name, int fd);
void	st_begin(struct st_w *w, const char *name);
void	st_end(struct st_w *w);
void	st_w_free(struct st_w *w);

/* A record of a group, found by its name (named versions). */
struct st_rec {
	const char	*name;
	uint32_t	 off;		/* its value */
	uint32_t	 len;
	uint8_t		 nlen;
	uint8_t		 kind;		/* enum st_kind */
	bool		 used;
};

struct st_frame {
	struct st_rec	*v;		/* kept for the next group this deep */
	uint32_t	 cap;
	uint32_t	 n;
	uint32_t	 next;		/* the first one not used */
};

/*
 * Reading: a cursor (version 6: records in order) or the records of the
 * groups entered (named: by name); the first error sticks, and every
 * read after it finds nothing.  fds: those to be close-on-exec again
 * once all is read.
 */
struct st_r {
	const unsigned char	*p;
	size_t			 n;
	size_t			 off;
	uint32_t		 version;
	bool			 named;
	struct st_frame		 fr[STATE_DEPTH];
	int			 depth;
	int			*fds;
	size_t			 nfds;
	size_t			 capfds;
	char			 err[160];
};

int	 st_r_open(struct st_r *r, const void *p, size_t n,
	    uint32_t *version);
void	 st_r_close(struct st_r *r);
bool	 st_get_u8(struct st_r *r, const char *name, uint8_t *out);
bool	 st_get_bool(struct st_r *r, const char *name, bool *out);
bool	 st_get_u32(struct st_r *r, const char *name, uint32_t *out);
bool	 st_get_i32(struct st_r *r, const char *name, int32_t *out);
bool	 st_get_u64(struct st_r *r, const char *name, uint64_t *out);
bool	 st_get_i64(struct st_r *r, const char *name, int64_t *out);
bool	 st_get_count(struct st_r *r, const char *name, uint32_t *out);
bool	 st_get_bytes(struct st_r *r, const char *name, const void **p,
	    uint32_t *n);
bool	 st_get_str(struct st_r *r, const char *name, char **out);
bool	 st_get_strv(struct st_r *r, const char *name, char ***out);
bool	 st_get_fd(struct st_r *r, const char *name, int *out);
bool	 st_get_fd_kept(struct st_r *r, const char *name, int *out);
bool	 st_enter(struct st_r *r, const char *name);
const char *st_rec_at(const struct st_r *r, uint32_t i, uint8_t *len,
	    bool *group);
void	 st_leave(struct st_r *r);
bool	 st_since(const struct st_r *r, uint32_t version);
void	 st_r_cloexec(struct st_r *r);
void	 st_fail(struct st_r *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
static inline bool
st_bad(const struct st_r *r)
{
	return r->err[0] != '\0';
}

/* Are its records named (else version 6's, in order)? */
static inline bool
st_named(const struct st_r *r)
{
	return r->named;
}

#endif
