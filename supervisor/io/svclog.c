/*
 * svclog.c - what services print.
 *
 * A ring buffer per service keeps its last lines, each with a time
 * stamp, the PID that was running and the stream it came from; the
 * oldest lines go when a new one needs room, so memory is bounded by
 * log_buffer.  Lines also go to one sink: the console (through a queue
 * that never blocks the loop; when it is full, lines are dropped and
 * counted), /dev/kmsg, or a file per service rotated by size.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "svclog.h"

#define CONSOLE_QUEUE_MAX	(256 * 1024)

struct rec {
	int64_t		ts_ms;
	uint64_t	seq;
	int32_t		pid;
	uint32_t	len;
	uint8_t		stream;
};

struct svclog_ring {
	size_t	cap;
	size_t	head;		/* offset of the oldest record */
	size_t	used;		/* bytes held */
	size_t	count;		/* lines held */
	char	data[];
};

/* A ring of cap bytes. */
struct svclog_ring *
ring_new(size_t cap)
{
	struct svclog_ring	*r;

	if (cap < sizeof(struct rec) + 64)
		return NULL;
	if ((r = malloc(sizeof(*r) + cap)) == NULL)
		return NULL;
	r->cap = cap;
	r->head = r->used = r->count = 0;
	return r;
}

void
ring_free(struct svclog_ring *r)
{
	free(r);
}

/* Copy n bytes into the ring at off, wrapping at the end. */
static void
ring_put(struct svclog_ring *r, size_t off, const void *src, size_t n)
{
	size_t	first = r->cap - off < n ? r->cap - off : n;

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, n - first);
}

/* Copy n bytes out of the ring from off, wrapping at the end. */
static void
ring_get(const struct svclog_ring *r, size_t off, void *dst, size_t n)
{
	size_t	first = r->cap - off < n ? r->cap - off : n;

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, n - first);
}

/* Forget the oldest line. */
static void
ring_drop(struct svclog_ring *r)
{
	struct rec	h;
	size_t		n;

	ring_get(r, r->head, &h, sizeof(h));
	n = sizeof(h) + h.len;
	r->head = (r->head + n) % r->cap;
	r->used -= n;
	r->count--;
}

/* Add a line, dropping the oldest ones until it fits. */
void
ring_push(struct svclog_ring *r, const struct svclog_line *l)
{
	struct rec	h = {
		.ts_ms = l->ts_ms, .seq = l->seq, .pid = l->pid,
		.len = l->len, .stream = l->stream,
	};
	size_t		room = r->cap - sizeof(h), tail;

	if (h.len > room)
		h.len = (uint32_t)room;
	while (r->used + sizeof(h) + h.len > r->cap)
		ring_drop(r);
	tail = (r->head + r->used) % r->cap;
	ring_put(r, tail, &h, sizeof(h));
	ring_put(r, (tail + sizeof(h)) % r->cap, l->text, h.len);
	r->used += sizeof(h) + h.len;
	r->count++;
}

/* How many lines the ring holds. */
size_t
ring_count(const struct svclog_ring *r)
{
	return r ? r->count : 0;
}

/* Call fn for each of the last n lines, oldest first. */
void
ring_walk(const struct svclog_ring *r, size_t n,
    void (*fn)(const struct svclog_line *, void *), void *arg)
{
	struct svclog_line	 l;
	struct rec	 h;
	size_t		 off, i, skip;
	char		*text;

	if (r == NULL || r->count == 0 || (text = malloc(r->cap)) == NULL)
		return;
	skip = r->count > n ? r->count - n : 0;
	off = r->head;
	for (i = 0; i < r->count; i++) {
		ring_get(r, off, &h, sizeof(h));
		off = (off + sizeof(h)) % r->cap;
		if (i >= skip) {
			ring_get(r, off, text, h.len);
			l.ts_ms = h.ts_ms;
			l.seq = h.seq;
			l.pid = h.pid;
			l.stream = h.stream;
			l.len = h.len;
			l.text = text;
			fn(&l, arg);
		}
		off = (off + h.len) % r->cap;
	}
	free(text);
}

/*
 * One line as `logs` shows it:
 *   2026-12-03T09:10:11.123Z web[123] stdout: text
 * with control characters escaped (SVCLOG_TEXT) or as written (a log
 * file, SVCLOG_FILE), or as a JSON object (without a newline).
 */
void
svclog_format(struct buf *b, const char *name, const struct svclog_line *l,
    enum svclog_fmt fmt)
{
	char	when[40];

	format_rfc3339(when, sizeof(when), l->ts_ms);
	if (fmt != SVCLOG_JSON) {
		buf_printf(b, "%s %s[%d] %s: ", when, name, (int)l->pid,
		    l->stream == STREAM_ERR ? "stderr" : "stdout");
		if (fmt == SVCLOG_FILE)
			buf_add(b, l->text, l->len);
		else
			buf_add_escaped(b, l->text, l->len);
		buf_add(b, "\n", 1);
		return;
	}
	buf_printf(b, "{\"time\":\"%s\",\"service\":", when);
	buf_json_str(b, name);
	buf_printf(b, ",\"pid\":%d,\"stream\":\"%s\",\"seq\":%llu,\"line\":",
	    (int)l->pid, l->stream == STREAM_ERR ? "stderr" : "stdout",
	    (unsigned long long)l->seq);
	buf_json_strn(b, l->text, l->len);
	buf_add(b, "}", 1);
}

/*
 * pidvisor's console: its stdout and its stderr, each with its own
 * queue.  A service's stdout lines go to our stdout, its stderr lines
 * and our own messages to our stderr: what a container runtime records
 * as the two streams (kubectl logs, podman logs).
 */
struct console_ch {
	ev_io		 w;
	int		 fd;		/* -1: not set up, write directly */
	int		 stdfd;
	struct buf	 q;
	uint64_t	 dropped;	/* since the last note */
};

static struct ev_loop		*con_loop;
static struct console_ch	 con[2] = {
	[STREAM_OUT] = { .fd = -1, .stdfd = STDOUT_FILENO },
	[STREAM_ERR] = { .fd = -1, .stdfd = STDERR_FILENO },
};
static int			 con_format;	/* enum log_format */

/* Write what the console takes; stop watching once the queue is empty. */
static void
console_flush(struct console_ch *ch)
{
	ssize_t	n;
	char	note[96];

	while (ch->q.len > 0) {
		n = write(ch->fd, ch->q.data, ch->q.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {		/* the console is gone: drop */
			buf_consume(&ch->q, ch->q.len);
			break;
		}
		buf_consume(&ch->q, (size_t)n);
		if (ch->q.len == 0 && ch->dropped) {
			n = snprintf(note, sizeof(note), "pidvisor: %llu log "
			    "lines dropped: the console was too slow\n",
			    (unsigned long long)ch->dropped);
			ch->dropped = 0;
			buf_add(&ch->q, note, (size_t)n);
		}
	}
	ev_io_stop(con_loop, &ch->w);
}

static void
console_on_writable(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	console_flush(container_of(w, struct console_ch, w));
}

/* Our own messages, in the console's format. */
static void
console_log(const char *p, size_t n)
{
	struct svclog_line	l = { .ts_ms = real_ms(), .pid = getpid(),
				    .stream = STREAM_ERR };
	struct buf		b = { 0 };

	if (con_format == LOGF_TEXT) {
		console_put(STREAM_ERR, p, n);
		return;
	}
	if (n >= 10 && memcmp(p, "pidvisor: ", 10) == 0) {
		p += 10;
		n -= 10;
	}
	if (n > 0 && p[n - 1] == '\n')
		n--;
	l.text = p;
	l.len = (uint32_t)n;
	console_line(&b, "pidvisor", &l);
	console_put(STREAM_ERR, b.data, b.len);
	buf_free(&b);
}

/*
 * From now on the console is written without blocking: a terminal or a
 * pipe gets a file description of its own with O_NONBLOCK (not shared
 * with services that inherit fd 1 or 2); a regular file is written as
 * it is.
 */
void
console_init(struct ev_loop *loop)
{
	struct console_ch	*ch;
	struct stat		 st;
	char			 path[32];
	size_t			 i;
	int			 fd;

	con_loop = loop;
	for (i = 0; i < ARRAY_SIZE(con); i++) {
		ch = &con[i];
		fd = -1;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", ch->stdfd);
		if (fstat(ch->stdfd, &st) == 0 && !S_ISREG(st.st_mode))
			fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC |
			    O_NOCTTY);
		if (fd < 0)
			fd = fcntl(ch->stdfd, F_DUPFD_CLOEXEC, 3);
		ch->fd = fd;
		ev_io_init(&ch->w, console_on_writable, fd, EV_WRITE);
	}
	log_hook = console_log;
}

/* How lines look from now on (pidvisor.ini's log_format). */
void
console_set_format(int f)
{
	con_format = f;
	/* Before console_init too: every line of ours in that format. */
	if (log_hook == NULL)
		log_hook = console_log;
}

/*
 * A service's line for the console, in its format, with its newline:
 *   text     web[123]: line
 *   rfc3339  2026-12-03T09:10:11.123Z web[123] stdout: line
 *   json     {"time":...,"service":"web","pid":123,...,"line":"..."}
 */
void
console_line(struct buf *b, const char *name, const struct svclog_line *l)
{
	switch (con_format) {
	case LOGF_RFC3339:
		svclog_format(b, name, l, SVCLOG_TEXT);
		return;
	case LOGF_JSON:
		svclog_format(b, name, l, SVCLOG_JSON);
		buf_add(b, "\n", 1);
		return;
	default:
		buf_printf(b, "%s[%d]: ", name, (int)l->pid);
		/* The console is a terminal: no raw control bytes. */
		buf_add_escaped(b, l->text, l->len);
		buf_add(b, "\n", 1);
	}
}

/*
 * Queue text for one stream of the console; false if it was dropped
 * because the queue is full (whoever reads it is too slow).
 */
bool
console_put(int stream, const char *p, size_t n)
{
	struct console_ch	*ch = &con[stream == STREAM_OUT ? STREAM_OUT :
				    STREAM_ERR];

	if (ch->fd < 0) {
		(void)!write(ch->stdfd, p, n);
		return true;
	}
	if (ch->q.len + n > CONSOLE_QUEUE_MAX) {
		ch->dropped++;
		return false;
	}
	buf_add(&ch->q, p, n);
	console_flush(ch);
	if (ch->q.len > 0 && !ev_is_active(&ch->w))
		ev_io_start(con_loop, &ch->w);
	return true;
}

/*
 * Write out what is queued, waiting for the console at most us
 * microseconds in all: before an exec (reexec.c) or at the end.
 */
void
console_drain(int64_t us)
{
	struct console_ch	*ch;
	struct pollfd		 pfd;
	int64_t			 end = mono_us() + us, left;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(con); i++) {
		ch = &con[i];
		if (ch->fd < 0)
			continue;
		while (ch->q.len > 0 && (left = end - mono_us()) > 0) {
			console_flush(ch);
			pfd.fd = ch->fd;
			pfd.events = POLLOUT;
			if (ch->q.len > 0 && poll(&pfd, 1,
			    (int)(left / 1000) + 1) <= 0)
				break;
		}
	}
}

/*
 * Flush what is queued, for at most a second in all (a reader that does
 * not read must not keep us from exiting), and go back to plain stdio.
 */
void
console_close(void)
{
	struct console_ch	*ch;
	size_t			 i;

	log_hook = NULL;
	console_drain(1000000);
	for (i = 0; i < ARRAY_SIZE(con); i++) {
		ch = &con[i];
		if (ch->fd < 0)
			continue;
		ev_io_stop(con_loop, &ch->w);
		buf_free(&ch->q);
		close(ch->fd);
		ch->fd = -1;
	}
}

/*
 * Open dir/name.log for appending.  Only in a directory that no one
 * else can write in (owned by root or by us, not group- or
 * world-writable: -EPERM otherwise), so that no one can put a symlink
 * or a FIFO there; and even so never through a symlink (O_NOFOLLOW)
 * and only to a regular file (-EINVAL), without blocking on the open.
 */
static int
svclog_file_open(struct svclog_file *f, const char *dir, const char *name)
{
	char		path[4096];
	struct stat	st;
	int		dfd, fd, err;

	snprintf(path, sizeof(path), "%s/%s.log", dir, name);
	mkdir_parent(path, 0755);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(dfd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		return -EPERM;
	}
	snprintf(path, sizeof(path), "%s.log", name);
	fd = openat(dfd, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0640);
	err = errno;
	close(dfd);
	if (fd < 0)
		return -err;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, O_APPEND) < 0) {
		close(fd);
		return -EINVAL;
	}
	f->fd = fd;
	f->size = (uint64_t)st.st_size;
	return 0;
}

/* name.log becomes name.log.1, .1 becomes .2, ...; keep of them stay. */
static void
svclog_file_rotate(struct svclog_file *f, const char *dir, const char *name,
    uint32_t keep)
{
	char		from[4096], to[4096];
	uint32_t	i;

	svclog_file_close(f);
	snprintf(to, sizeof(to), "%s/%s.log.%u", dir, name, keep + 1);
	unlink(to);
	for (i = keep; i > 0; i--) {
		if (i == 1)
			snprintf(from, sizeof(from), "%s/%s.log", dir, name);
		else
			snprintf(from, sizeof(from), "%s/%s.log.%u", dir, name,
			    i - 1);
		snprintf(to, sizeof(to), "%s/%s.log.%u", dir, name, i);
		rename(from, to);
	}
	if (keep == 0) {
		snprintf(from, sizeof(from), "%s/%s.log", dir, name);
		unlink(from);
	}
}

/* Append text to the service's file, rotating first if it would exceed max. */
int
svclog_file_write(struct svclog_file *f, const char *dir, const char *name,
    const char *text, size_t n, uint64_t max, uint32_t keep)
{
	uint64_t	start;
	ssize_t		w;
	int		rc;

	if (f->fd >= 0 && f->size > 0 && f->size + n > max)
		svclog_file_rotate(f, dir, name, keep);
	if (f->fd < 0 && (rc = svclog_file_open(f, dir, name)) < 0)
		return rc;
	/* A line cut short that could not be taken back: end it. */
	if (f->partial) {
		if ((w = write(f->fd, "\n", 1)) != 1)
			return w < 0 ? -errno : -EIO;
		f->partial = false;
		f->size++;
	}
	start = f->size;
	while (n > 0) {
		w = write(f->fd, text, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			/* Whole lines only: take back the part written. */
			if (f->size > start && ftruncate(f->fd,
			    (off_t)start) == 0)
				f->size = start;
			f->partial = f->size > start;
			return rc;
		}
		text += w;
		n -= (size_t)w;
		f->size += (uint64_t)w;
	}
	return 0;
}

void
svclog_file_close(struct svclog_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->size = 0;
	f->partial = false;
}
