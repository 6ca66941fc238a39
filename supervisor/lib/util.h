/* util.h - small helpers shared by pidvisor and pidvisorctl */
#ifndef PIDVISOR_UTIL_H
#define PIDVISOR_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

#ifndef PIDVISOR_VERSION		/* a test build gives its own */
#define PIDVISOR_VERSION "0.1.0"
#endif

/*
 * Recover the struct that embeds member from a pointer to it; type-checked.
 * (make lint gives cppcheck a plain one: it misreads the typeof.)
 */
#ifndef container_of
#define container_of(ptr, type, member) __extension__ ({		\
	const __typeof__(((type *)0)->member) *container_of_p = (ptr);	\
	(type *)(void *)((char *)container_of_p - offsetof(type, member)); })
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A growable byte buffer; data is always NUL-terminated when len > 0. */
struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
	bool	 nomem;		/* an append failed: the text is incomplete */
};

int	buf_reserve(struct buf *b, size_t more);
int	buf_add(struct buf *b, const void *p, size_t n);
int	buf_puts(struct buf *b, const char *s);
int	buf_printf(struct buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	buf_consume(struct buf *b, size_t n);
void	buf_free(struct buf *b);
int	buf_json_str(struct buf *b, const char *s);
int	buf_add_escaped(struct buf *b, const char *s, size_t n);
int	buf_json_strn(struct buf *b, const char *s, size_t n);
size_t	utf8_valid_len(const char *s, size_t n);

/* Clocks: CLOCK_MONOTONIC in ms and us; CLOCK_REALTIME in ms. */
int64_t	mono_ms(void);
int64_t	mono_us(void);
int64_t	real_ms(void);
int64_t	real_us(void);
int64_t	proc_start_ms(void);

/* A small file (under dirfd, or AT_FDCWD) in one read, NUL-terminated. */
ssize_t	read_small(int dirfd, const char *path, char *buf, size_t len);
int	open_regular(int dirfd, const char *path);

/* Which file a path named when we made it (unix_bind, unix_unlink). */
struct file_id {
	dev_t	dev;
	ino_t	ino;
};

int	unix_bind(const char *path, int type, mode_t mode, gid_t gid,
	    struct file_id *id);
void	unix_unlink(const char *path, const struct file_id *id);
void	fd_close_safe(int fd);
int	fsgid_swap(gid_t gid);
int	read_file(int dirfd, const char *path, size_t max, struct buf *b);

int	parse_duration(const char *s, uint32_t *ms);
int	parse_duration_us(const char *s, uint64_t bare_us, uint64_t max_us,
	    uint64_t *us);
void	format_duration(char *out, size_t n, int64_t ms);
void	format_rfc3339(char *out, size_t n, int64_t ms);
int	parse_u64(const char *s, uint64_t max, uint64_t *out);
int	sd_bool(const char *v);
size_t	str_distance(const char *a, const char *b, size_t max);
int	parse_size(const char *s, uint64_t max, uint64_t *out);
#define SOCK_UNREAD_MAX	4096	/* bytes a peer may send after its request */
bool	sock_peer_gone(int fd, size_t *unread);
struct sockaddr_storage;
int	parse_inet_addr(const char *s, struct sockaddr_storage *ss,
	    socklen_t *len);
void	format_inet_addr(char *out, size_t n, const struct sockaddr_storage *ss);
int	signal_parse(const char *s);
const char *signal_name(int sig);

int	mkdir_parent(const char *path, mode_t mode);
int	argv_split(const char *s, char ***argvp, const char **why);
void	strv_free(char **v);
size_t	strv_len(char *const *v);
char	**strv_add(char **v, const char *s);
char	**strv_dup(char *const *v);
bool	strv_equal(char *const *a, char *const *b);

/* Logging: the supervisor's own messages, to stderr (the console). */
enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };
extern int log_level;
extern void (*log_hook)(const char *, size_t);	/* instead of stderr */
/* And also (log = syslog): the message alone, without its newline. */
extern void (*log_also)(int level, const char *msg, size_t n);
void	log_msg(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	do { if (log_level >= LOG_DEBUG)		\
	log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

/* Tests only: allocation failure injection (tests/helpers/fault.c). */
#ifdef PV_FAULT
void	fault_begin(void);
void	fault_end(void);
#else
#define fault_begin()	((void)0)
#define fault_end()	((void)0)
#endif

#endif
