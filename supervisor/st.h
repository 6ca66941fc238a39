/* st.h - the state stream: what a re-exec hands the next binary, as bytes */
#ifndef PIDVISOR_ST_H
#define PIDVISOR_ST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * The state is a header (STATE_MAGIC, the version, the length of what
 * follows) and fields in a fixed order, each in host byte order (the
 * same machine reads it).  A string is its length and its bytes; NULL is
 * the length STATE_NULL.  Configuration is written key by key with the
 * key's name, so that a binary whose structs differ still reads it; what
 * a version holds is in reexec.c.  Any change to what is written is a new
 * version; a binary says which versions it reads (--state-versions).
 */
#define STATE_MAGIC	"PVSTATE"	/* with its NUL: 8 bytes */
#ifndef STATE_VERSION
#define STATE_VERSION	7	/* 7: the namespaces hooks join */
#endif
#define STATE_NULL	UINT32_MAX

/* Writing: the bytes, and the fds they name (kept open across exec). */
struct st_w {
	struct buf	 b;
	int		*fds;
	size_t		 nfds;
	size_t		 capfds;
	bool		 nomem;
};

void	st_u8(struct st_w *w, uint8_t v);
void	st_u32(struct st_w *w, uint32_t v);
void	st_u64(struct st_w *w, uint64_t v);
void	st_i64(struct st_w *w, int64_t v);
void	st_bytes(struct st_w *w, const void *p, uint32_t n);
void	st_str(struct st_w *w, const char *s);
void	st_strv(struct st_w *w, char *const *v);
void	st_fd(struct st_w *w, int fd);
void	st_fd_kept(struct st_w *w, int fd);
void	st_w_free(struct st_w *w);

/* Reading: a cursor; the first error sticks, and every read after it
 * gives zeros.  fds: those to be close-on-exec again once all is read. */
struct st_r {
	const unsigned char	*p;
	size_t			 n;
	size_t			 off;
	int			*fds;
	size_t			 nfds;
	size_t			 capfds;
	char			 err[160];
};

uint8_t	 st_get_u8(struct st_r *r);
uint32_t st_get_u32(struct st_r *r);
uint64_t st_get_u64(struct st_r *r);
int64_t	 st_get_i64(struct st_r *r);
uint32_t st_get_count(struct st_r *r, const char *what);
const void *st_get_bytes(struct st_r *r, uint32_t *n);
bool	 st_get_str(struct st_r *r, char **out);
bool	 st_get_strv(struct st_r *r, char ***out);
int	 st_get_fd(struct st_r *r);
int	 st_get_fd_kept(struct st_r *r);
void	 st_r_cloexec(struct st_r *r);
void	 st_fail(struct st_r *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
static inline bool
st_bad(const struct st_r *r)
{
	return r->err[0] != '\0';
}

#endif
