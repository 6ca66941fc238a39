/* output.h - what services print: pipes, lines, the ring, the sinks */
#ifndef PIDVISOR_OUTPUT_H
#define PIDVISOR_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "conf.h"
#include "svc.h"
#include "svclog.h"

/*
 * Bytes in, whole lines out: a line longer than LOG_LINE_MAX comes out
 * in pieces of that size.  A pure function of what is fed (unit-tested).
 */
struct line_split {
	char		*part;		/* the unfinished line, or NULL */
	uint32_t	 len;
	bool		 cut;		/* a piece of LOG_LINE_MAX went out
					 * just now: a newline next ends it */
};

typedef void	line_fn(void *arg, const char *text, size_t len);

int	line_split_feed(struct line_split *ls, const char *p, size_t n,
	    line_fn *fn, void *arg);
void	line_split_flush(struct line_split *ls, line_fn *fn, void *arg);
void	line_split_free(struct line_split *ls);

/* What every service's output shares: the loop, the sinks, the hook. */
struct output {
	struct ev_loop	*loop;
	int		 kmsgfd;	/* -1: kmsg lines go to the console */
	const char	*log_dir;
	int		 syslogfd;	/* log = syslog; -1: none */
	char *const	*syslog_path;	/* the live key; NULL: /dev/log */
	/* Every line, once it is in the ring and the sink (followers). */
	void		(*line)(struct output *, struct svc *,
			    const struct svclog_line *);
	void		*ctx;
};

/*
 * A service's output: two pipes, made at its first start and kept
 * across restarts (so that what an orphan writes is still caught), whose
 * write ends become the stdout and stderr of every instance.
 */
struct svc_out {
	struct output		*o;
	struct svc		*svc;
	ev_io			 io[2];		/* read ends: stdout, stderr */
	int			 wfd[2];
	struct line_split	 split[2];
	pid_t			 pid;		/* the instance that writes */
	uint64_t		 seq;		/* lines so far */
	uint64_t		 dropped;	/* lines no sink took */
	struct svclog_ring		*ring;		/* made at the first line */
	struct svclog_file		 file;
	uint64_t		 syslog_lost;	/* lines since it failed */
};

bool	output_wanted(const struct svc_def *d);
int	output_new(struct output *o, struct svc *s, struct svc_out **outp);
void	output_drain(struct svc_out *out);
void	output_free(struct svc_out *out);

struct st_w;
struct st_r;
void	output_state_save(const struct svc_out *out, struct st_w *w);
int	output_state_load(struct output *o, struct svc *s, struct st_r *r,
	    struct svc_out **outp);

#endif
