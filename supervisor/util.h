/* util.h - small helpers shared by pidvisor and pidvisorctl */
#ifndef PIDVISOR_UTIL_H
#define PIDVISOR_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PIDVISOR_VERSION "0.1.0"

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

int	buf_reserve(struct buf *, size_t);
int	buf_add(struct buf *, const void *, size_t);
int	buf_puts(struct buf *, const char *);
int	buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	buf_consume(struct buf *, size_t);
void	buf_free(struct buf *);
int	buf_json_str(struct buf *, const char *);
int	buf_json_strn(struct buf *, const char *, size_t);
size_t	utf8_valid_len(const char *, size_t);

/* Clocks: CLOCK_MONOTONIC in ms and us; CLOCK_REALTIME in ms. */
int64_t	mono_ms(void);
int64_t	mono_us(void);
int64_t	real_ms(void);

/* A small file (under dirfd, or AT_FDCWD) in one read, NUL-terminated. */
ssize_t	read_small(int, const char *, char *, size_t);
int	read_file(const char *, size_t, struct buf *);

int	parse_duration(const char *, uint32_t *);
void	format_duration(char *, size_t, int64_t);
int	parse_u64(const char *, uint64_t, uint64_t *);
int	parse_size(const char *, uint64_t, uint64_t *);
int	signal_parse(const char *);
const char *signal_name(int);

int	mkdir_parent(const char *, mode_t);
int	argv_split(const char *, char ***, const char **);
void	strv_free(char **);
size_t	strv_len(char *const *);
bool	strv_equal(char *const *, char *const *);

/* Logging: the supervisor's own messages, to stderr (the console). */
enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };
extern int log_level;
extern void (*log_hook)(const char *, size_t);	/* instead of stderr */
void	log_msg(int, const char *, ...) __attribute__((format(printf, 2, 3)));
#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	do { if (log_level >= LOG_DEBUG)		\
	log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

/* Tests only: allocation failure injection (tests/host/fault.c). */
#ifdef PV_FAULT
void	fault_begin(void);
void	fault_end(void);
#else
#define fault_begin()	((void)0)
#define fault_end()	((void)0)
#endif

#endif
