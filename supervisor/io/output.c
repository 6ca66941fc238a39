/*
 * output.c - what services print.  Each service that keeps its output
 * has two pipes whose read ends are on the loop; what comes is cut into
 * lines (line_split), and each line goes to the service's ring buffer
 * (`logs NAME`), to its sink (console, kmsg or a file) and to whoever
 * follows it (the output's line hook, ctl.c).  A flood is read a fair
 * share at a time, so that it starves no one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "syslogmsg.h"
#include "spawn.h"
#include "st.h"

/* Give out the unfinished line, if any. */
void
line_split_flush(struct line_split *ls, line_fn *fn, void *arg)
{
	if (ls->len) {
		fn(arg, ls->part, ls->len);
		ls->len = 0;
	}
}

/*
 * Cut what was read into lines; keep the unfinished one for later.
 * 0, or -ENOMEM: the rest of this read is lost.
 */
int
line_split_feed(struct line_split *ls, const char *p, size_t n, line_fn *fn,
    void *arg)
{
	const char	*nl;
	size_t		 take, k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		take = nl ? (size_t)(nl - p) : n;
		if (nl && take == 0 && ls->cut) {
			/* The end of a line already given out whole. */
			ls->cut = false;
			p++;
			n--;
			continue;
		}
		ls->cut = false;
		if (nl && ls->len == 0 && take <= LOG_LINE_MAX) {
			/* A whole line and nothing pending: no copy. */
			fn(arg, p, take);
			p += take + 1;
			n -= take + 1;
			continue;
		}
		if (ls->part == NULL &&
		    (ls->part = malloc(LOG_LINE_MAX)) == NULL)
			return -ENOMEM;
		while (take > 0) {
			k = LOG_LINE_MAX - ls->len;
			k = take < k ? take : k;
			memcpy(ls->part + ls->len, p, k);
			ls->len += (uint32_t)k;
			p += k;
			n -= k;
			take -= k;
			if (ls->len == LOG_LINE_MAX) {
				line_split_flush(ls, fn, arg);
				ls->cut = take == 0;
			}
		}
		if (nl) {
			line_split_flush(ls, fn, arg);
			ls->cut = false;
			p++;
			n--;
		}
	}
	return 0;
}

void
line_split_free(struct line_split *ls)
{
	free(ls->part);
	ls->part = NULL;
	ls->len = 0;
}

/* Does this service's output go anywhere? */
bool
output_wanted(const struct svc_def *d)
{
	return !d->console && d->tty == NULL && (d->log.sink != SINK_NONE || d->log.buffer);
}

/* Write a line to a service's log file; say so when that fails. */
static void
output_file(struct svc_out *out, const char *name, const struct svclog_line *l)
{
	const struct svc_def	*d = out->svc->def;
	const char		*dir = out->o->log_dir;
	struct buf		 b = { 0 };
	int			 rc;

	svclog_format(&b, name, l, SVCLOG_FILE);
	/* A full disk or the like: said once, lines kept in memory (logs
	 * NAME) meanwhile, and said again when it is over. */
	if ((rc = svclog_file_write(&out->file, dir, name, b.data, b.len,
	    d->log.file_max, d->log.file_keep)) < 0) {
		out->dropped++;
		if (out->file.lost++ == 0)
			log_warn("%s: cannot write its log in %s: %s; its "
			    "lines stay in memory only", name, dir,
			    rc == -EPERM ? "others may write in that "
			    "directory (it must be ours or root's, not group- "
			    "or world-writable)" : rc == -ELOOP ? "the log "
			    "file is a symlink" : rc == -EINVAL ? "the log "
			    "file is not a regular file" : strerror(-rc));
	} else if (out->file.lost) {
		log_info("%s: writing its log in %s again; %llu line%s not "
		    "written", name, dir, (unsigned long long)out->file.lost,
		    out->file.lost == 1 ? "" : "s");
		out->file.lost = 0;
	}
	buf_free(&b);
}

/* A line to the console; false if its queue had no room. */
static bool
output_console(const char *name, int stream, const struct svclog_line *l)
{
	struct buf	b = { 0 };
	bool		ok;

	console_line(&b, name, l);
	ok = console_put(stream, b.data, b.len);
	buf_free(&b);
	return ok;
}

/*
 * A line to syslog.  One the daemon does not take (not there yet, as at
 * boot, or its queue full) goes to the console instead; said once, and
 * again when lines go through.
 */
static void
output_syslog(struct svc_out *out, const char *name, int stream,
    const struct svclog_line *l)
{
	const struct svc_def	*d = out->svc->def;
	const char		*path = *out->o->syslog_path ?
				    *out->o->syslog_path : SYSLOG_PATH;
	int			 pri = syslog_facility_code(d->syslog_facility) *
				    8 + (stream == STREAM_ERR ?
				    d->syslog_error_level : d->syslog_level);
	int			 rc;

	if ((rc = syslog_send(out->o->syslogfd, path, pri, d->syslog_ident ?
	    d->syslog_ident : name, out->pid, l->text, l->len)) < 0) {
		if (out->syslog_lost++ == 0)
			log_warn("%s: %s takes no lines (%s); they go to the "
			    "console meanwhile", name, path, strerror(-rc));
		if (!output_console(name, stream, l))
			out->dropped++;
	} else if (out->syslog_lost) {
		log_info("%s: %s takes lines again (%llu went to the "
		    "console)", name, path,
		    (unsigned long long)out->syslog_lost);
		out->syslog_lost = 0;
	}
}

struct output_arg {
	struct svc_out	*out;
	int		 stream;
};

/* One whole line of output: to the ring, the sink, the followers. */
static void
output_line(void *arg, const char *text, size_t len)
{
	struct output_arg	*a = arg;
	struct svc_out		*out = a->out;
	const struct svc_def	*d = out->svc->def;
	struct svclog_line		 l = {
		.ts_ms = real_ms(), .seq = out->seq++, .pid = out->pid,
		.stream = (uint8_t)a->stream, .len = (uint32_t)len,
		.text = text,
	};
	struct buf		 b = { 0 };
	int			 sink = d->log.sink;

	if (d->log.buffer && out->ring == NULL)
		out->ring = ring_new(d->log.buffer);
	if (out->ring)
		ring_push(out->ring, &l);
	if (sink == SINK_KMSG && out->o->kmsgfd < 0)
		sink = SINK_CONSOLE;
	switch (sink) {
	case SINK_CONSOLE:
		if (!output_console(d->name, a->stream, &l))
			out->dropped++;
		break;
	case SINK_KMSG:
		/* kmsg escapes on its own; without its newline a record
		 * stays open, unseen. */
		buf_printf(&b, "<6>%s[%d]: ", d->name, (int)out->pid);
		buf_add(&b, text, len);
		buf_add(&b, "\n", 1);
		if (write(out->o->kmsgfd, b.data, b.len) < 0)
			out->dropped++;
		buf_free(&b);
		break;
	case SINK_FILE:
		output_file(out, d->name, &l);
		break;
	case SINK_SYSLOG:
		output_syslog(out, d->name, a->stream, &l);
		break;
	}
	if (out->o->line)
		out->o->line(out->o, out->svc, &l);
}

/* Read at most budget bytes of one stream. */
static void
output_read(struct svc_out *out, int stream, size_t budget)
{
	struct output_arg	a = { out, stream };
	char			buf[16384];
	ssize_t			n;

	while (budget > 0) {
		n = read(out->io[stream].fd, buf, budget < sizeof(buf) ?
		    budget : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		line_split_feed(&out->split[stream], buf, (size_t)n,
		    output_line, &a);
		budget -= (size_t)n;
	}
}

/* Output is there: take a fair share, so that a flood starves no one. */
static void
output_on_read(struct ev_loop *loop, ev_io *w, int revents)
{
	struct svc_out	*out = w->data;

	(void)loop;
	(void)revents;
	output_read(out, w == &out->io[STREAM_ERR], 65536);
}

/* Everything an instance wrote before it died, its last line too. */
void
output_drain(struct svc_out *out)
{
	int	i;

	if (out == NULL)
		return;
	for (i = 0; i < 2; i++) {
		struct output_arg	a = { out, i };

		output_read(out, i, 1 << 20);
		line_split_flush(&out->split[i], output_line, &a);
	}
}

/* The pipes of a service's output, made at its first start. */
int
output_new(struct output *o, struct svc *s, struct svc_out **outp)
{
	struct svc_out	*out;
	int		 i, p[2];

	if ((out = calloc(1, sizeof(*out))) == NULL)
		return -ENOMEM;
	out->o = o;
	out->svc = s;
	out->file.fd = -1;
	for (i = 0; i < 2; i++) {
		/* Only our end is non-blocking: the service's blocks. */
		if (pipe2(p, O_CLOEXEC) < 0 ||
		    fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
			int	err = errno;

			while (i-- > 0) {
				ev_io_stop(o->loop, &out->io[i]);
				close(out->io[i].fd);
				close(out->wfd[i]);
			}
			free(out);
			return -err;
		}
		out->wfd[i] = spawn_fd_keep(p[1]);
		ev_io_init(&out->io[i], output_on_read, spawn_fd_keep(p[0]),
		    EV_READ);
		out->io[i].data = out;
		ev_io_start(o->loop, &out->io[i]);
	}
	*outp = out;
	return 0;
}

/* Forget a service's output: pipes, buffers, file. */
void
output_free(struct svc_out *out)
{
	int	i;

	if (out == NULL)
		return;
	for (i = 0; i < 2; i++) {
		ev_io_stop(out->o->loop, &out->io[i]);
		close(out->io[i].fd);
		close(out->wfd[i]);
		line_split_free(&out->split[i]);
	}
	ring_free(out->ring);
	svclog_file_close(&out->file);
	free(out);
}

/*
 * A line of the ring, as one record: its time, number, process, stream
 * and text, packed (LINE_HEAD bytes, then the text).
 */
#define LINE_HEAD	(8 + 8 + 4 + 1)

static void
output_save_line(const struct svclog_line *l, void *arg)
{
	struct st_w	*w = arg;
	char		 head[LINE_HEAD];
	uint32_t	 pid = (uint32_t)l->pid;

	memcpy(head, &l->ts_ms, 8);
	memcpy(head + 8, &l->seq, 8);
	memcpy(head + 16, &pid, 4);
	head[20] = (char)l->stream;
	st_rec_parts(w, "line", head, LINE_HEAD, l->text, l->len);
}

/* A line saved by output_save_line() (or, by version 6, field by field). */
static bool
output_load_line(struct st_r *r, struct svclog_line *l)
{
	const char	*p;
	const void	*t;
	uint32_t	 n, pid = 0;

	memset(l, 0, sizeof(*l));
	if (!st_named(r)) {
		st_get_i64(r, "ts", &l->ts_ms);
		st_get_u64(r, "seq", &l->seq);
		st_get_u32(r, "pid", &pid);
		st_get_u8(r, "stream", &l->stream);
		st_get_bytes(r, "text", &t, &l->len);
		l->text = t;
		l->pid = (pid_t)pid;
		return !st_bad(r);
	}
	if (!st_get_bytes(r, "line", &t, &n) || t == NULL || n < LINE_HEAD)
		return false;
	p = t;
	memcpy(&l->ts_ms, p, 8);
	memcpy(&l->seq, p + 8, 8);
	memcpy(&pid, p + 16, 4);
	l->pid = (pid_t)pid;
	l->stream = (uint8_t)p[20];
	l->text = p + LINE_HEAD;
	l->len = n - LINE_HEAD;
	return true;
}

/*
 * A service's output, for the next binary (reexec.c): the pipes (what is
 * in them stays there, to be read by it), the unfinished lines, the
 * counters, the ring's lines and the log file.  out may be NULL.
 */
void
output_state_save(const struct svc_out *out, struct st_w *w)
{
	static const char *const name[2] = { "stdout", "stderr" };
	int			 i;

	st_u8(w, "has_out", out != NULL);
	if (out == NULL)
		return;
	st_begin(w, "out");
	for (i = 0; i < 2; i++) {
		st_begin(w, name[i]);
		st_fd_kept(w, "rfd", out->io[i].fd);
		st_fd_kept(w, "wfd", out->wfd[i]);
		st_bytes(w, "part", out->split[i].part ? out->split[i].part :
		    "", out->split[i].len);
		st_u8(w, "cut", out->split[i].cut);
		st_end(w);
	}
	st_u32(w, "pid", (uint32_t)out->pid);
	st_u64(w, "seq", out->seq);
	st_u64(w, "dropped", out->dropped);
	st_u32(w, "lines", (uint32_t)ring_count(out->ring));
	ring_walk(out->ring, SIZE_MAX, output_save_line, w);
	st_fd(w, "file_fd", out->file.fd);
	st_u64(w, "file_size", out->file.size);
	st_u64(w, "file_lost", out->file.lost);
	st_u8(w, "file_partial", out->file.partial);
	st_end(w);
}

/* What output_state_save() wrote, for service s; *outp NULL if none. */
int
output_state_load(struct output *o, struct svc *s, struct st_r *r,
    struct svc_out **outp)
{
	static const char *const name[2] = { "stdout", "stderr" };
	struct svc_out	*out;
	uint32_t	 n = 0, i, len, pid = 0;
	const void	*p;
	int		 k, fd;
	bool		 has = false;

	*outp = NULL;
	if (!st_get_bool(r, "has_out", &has) || !has)
		return st_bad(r) ? -EINVAL : 0;
	if (!st_enter(r, "out")) {
		st_fail(r, "%s: its output is missing", s->def->name);
		return -EINVAL;
	}
	if ((out = calloc(1, sizeof(*out))) == NULL)
		return -ENOMEM;
	out->o = o;
	out->svc = s;
	out->file.fd = -1;
	for (k = 0; k < 2; k++) {
		fd = out->wfd[k] = -1;
		if (!st_enter(r, name[k]))
			continue;
		st_get_fd_kept(r, "rfd", &fd);
		ev_io_init(&out->io[k], output_on_read, fd, EV_READ);
		out->io[k].data = out;
		st_get_fd_kept(r, "wfd", &out->wfd[k]);
		p = NULL;
		len = 0;
		st_get_bytes(r, "part", &p, &len);
		if (p && len > LOG_LINE_MAX)
			st_fail(r, "%s: an unfinished line of %u bytes",
			    s->def->name, len);
		if (p && len && !st_bad(r)) {
			if ((out->split[k].part = malloc(LOG_LINE_MAX)) == NULL)
				st_fail(r, "%s", strerror(ENOMEM));
			else
				memcpy(out->split[k].part, p, len);
			out->split[k].len = len;
		}
		st_get_bool(r, "cut", &out->split[k].cut);
		st_leave(r);
	}
	st_get_u32(r, "pid", &pid);
	out->pid = (pid_t)pid;
	st_get_u64(r, "seq", &out->seq);
	st_get_u64(r, "dropped", &out->dropped);
	st_get_u32(r, "lines", &n);
	if (n > r->n)
		st_fail(r, "%u lines, more than the state holds", n);
	if (n && s->def->log.buffer && (out->ring = ring_new(s->def->log.buffer))
	    == NULL)
		st_fail(r, "%s", strerror(ENOMEM));
	for (i = 0; i < n && !st_bad(r); i++) {
		struct svclog_line	l;

		if (!output_load_line(r, &l))
			break;
		if (l.text && out->ring)
			ring_push(out->ring, &l);
	}
	st_get_fd(r, "file_fd", &out->file.fd);
	st_get_u64(r, "file_size", &out->file.size);
	st_get_u64(r, "file_lost", &out->file.lost);
	st_get_bool(r, "file_partial", &out->file.partial);
	st_leave(r);
	if (st_bad(r) || out->io[0].fd < 0 || out->io[1].fd < 0) {
		st_fail(r, "%s: its output pipes are missing", s->def->name);
		for (k = 0; k < 2; k++)
			line_split_free(&out->split[k]);
		ring_free(out->ring);
		free(out);
		return -EINVAL;
	}
	for (k = 0; k < 2; k++)
		ev_io_start(o->loop, &out->io[k]);
	*outp = out;
	return 0;
}
