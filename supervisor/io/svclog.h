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

struct svclog_line {
	int64_t		 ts_ms;		/* CLOCK_REALTIME */
	uint64_t	 seq;		/* per service, from 0 */
	pid_t		 pid;
	uint8_t		 stream;	/* enum log_stream */
	uint32_t	 len;
	const char	*text;		/* not NUL-terminated */
};

/* A ring of whole lines; the oldest go when a new one needs room. */
struct svclog_ring;

struct svclog_ring	*ring_new(size_t cap);
void		 ring_free(struct svclog_ring *r);
void		 ring_push(struct svclog_ring *r, const struct svclog_line *l);
size_t		 ring_count(const struct svclog_ring *r);
void		 ring_walk(const struct svclog_ring *r, size_t n,
		     void (*fn)(const struct svclog_line *, void *), void *arg);

/* How a line is written: for a terminal, for a file, as JSON. */
enum svclog_fmt {
	SVCLOG_TEXT,		/* control characters escaped as \xNN */
	SVCLOG_FILE,		/* the bytes as the service wrote them */
	SVCLOG_JSON,
};

void		 svclog_format(struct buf *b, const char *name,
		     const struct svclog_line *l, enum svclog_fmt fmt);

/* Lines for pidvisor's console: queued, never blocking the loop. */
void		 console_init(struct ev_loop *loop);
void		 console_set_format(int f);	/* enum log_format */
void		 console_line(struct buf *b, const char *name,
		     const struct svclog_line *l);
bool		 console_put(int stream, const char *p, size_t n);
void		 console_drain(int64_t us);
void		 console_close(void);

/* A service's log file: NAME.log in a directory, rotated by size. */
struct svclog_file {
	int		 fd;
	uint64_t	 size;
	uint64_t	 lost;		/* lines not written since an error */
	bool		 partial;	/* the file ends in half a line */
};

int		 svclog_file_write(struct svclog_file *f, const char *dir,
		     const char *name, const char *text, size_t n,
		     uint64_t max, uint32_t keep);
void		 svclog_file_close(struct svclog_file *f);

#endif
