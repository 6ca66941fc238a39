/*
 * fault.c - allocation failure injection for the sanitized pidvisor of
 * the tests (never in the real one).  Linked with --wrap for malloc,
 * calloc, realloc, strdup and strndup; ctl.c brackets each control
 * request with fault_begin() and fault_end().
 *
 * PIDVISOR_FAULT_ALLOC=FILE: at the start of each request FILE is read
 * as a number K; the K-th allocation made while handling that request
 * fails with ENOMEM (0 or no file: none).  A test writes K and sends a
 * request, for K = 1, 2, ... until one goes through untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
char	*__real_strdup(const char *);
char	*__real_strndup(const char *, size_t);

static long	fault_at;	/* fail the allocation with this number */
static long	fault_n;	/* allocations in this request */
static bool	fault_on;

void
fault_begin(void)
{
	const char	*path = getenv("PIDVISOR_FAULT_ALLOC");
	char		 b[32];
	ssize_t		 n;
	int		 fd;

	fault_at = fault_n = 0;
	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	b[n > 0 ? n : 0] = '\0';
	fault_at = strtol(b, NULL, 10);
	fault_on = fault_at > 0;
}

void
fault_end(void)
{
	fault_on = false;
}

/* Is this allocation the one to fail? */
static bool
fault_now(void)
{
	if (!fault_on || ++fault_n != fault_at)
		return false;
	errno = ENOMEM;
	return true;
}

void *
__wrap_malloc(size_t n)
{
	return fault_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return fault_now() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return fault_now() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
	return fault_now() ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
	return fault_now() ? NULL : __real_strndup(s, n);
}
