/* svclog.h - service output: ring buffers, line format, sinks */
#ifndef PIDVISOR_SVCLOG_H
#define PIDVISOR_SVCLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "util.h"

#define LOG_LINE_MAX	4096	/* longer lines are split */

enum log_stream {
	STREAM_OUT,
	STREAM_ERR,
};

struct log_line {
	int64_t		 ts_ms;		/* CLOCK_REALTIME */
	uint64_t	 seq;		/* per service, from 0 */
	pid_t		 pid;
	uint8_t		 stream;	/* enum log_stream */
	uint32_t	 len;
	const char	*text;		/* not NUL-terminated */
};

/* A ring of whole lines; the oldest go when a new one needs room. */
struct log_ring;

struct log_ring	*ring_new(size_t);
void		 ring_free(struct log_ring *);
void		 ring_push(struct log_ring *, const struct log_line *);
size_t		 ring_count(const struct log_ring *);
void		 ring_walk(const struct log_ring *, size_t,
		     void (*)(const struct log_line *, void *), void *);

void		 log_line_format(struct buf *, const char *,
		     const struct log_line *, bool);

/* Lines for pidvisor's console: queued, never blocking the loop. */
void		 console_init(struct ev_loop *);
void		 console_write(const char *, size_t);
void		 console_close(void);

/* A service's log file: NAME.log in a directory, rotated by size. */
struct log_file {
	int		 fd;
	uint64_t	 size;
	uint64_t	 lost;		/* lines not written since an error */
	bool		 partial;	/* the file ends in half a line */
};

int		 log_file_write(struct log_file *, const char *, const char *,
		     const char *, size_t, uint64_t, uint32_t);
void		 log_file_close(struct log_file *);

#endif
