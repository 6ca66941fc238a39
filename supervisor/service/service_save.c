/*
 * service_save.c - a service's part of a re-exec's state, as
 * SERVICE_STATE (service.h) lists it: written by name, read back by the
 * next binary, which puts the service back on its loop (its death, its
 * readiness, its timer, a forking search that goes on).
 */
#include <errno.h>
#include <stdint.h>

#include "core.h"
#include "service.h"
#include "st.h"
#include "util.h"

/* A watched ev_io's fd, or -1. */
static int
service_watched(const ev_io *w)
{
	return ev_is_active(w) ? w->fd : -1;
}

#define SERVICE_SAVE_SVC(n, v)	svc_save(&(v), w);
#define SERVICE_SAVE_WATCH(n, v) st_fd_kept(w, n, service_watched(&(v)));
#define SERVICE_SAVE_OUT(n, v)	output_state_save((v), w);
#define SERVICE_SAVE_NSOCK(n, v) notifysock_state_save(&(v), w);
#define SERVICE_SAVE_SOCKS(n, v) socks_save((v), w);
#define SERVICE_SAVE_NS(n, v)	st_begin(w, n);				\
				st_fd_kept(w, "mnt", (v).mnt);		\
				st_fd_kept(w, "net", (v).net);		\
				st_fd_kept(w, "root", (v).root);	\
				st_end(w);
#define SERVICE_SAVE_FD(n, v)	st_fd_kept(w, n, (v));
#define SERVICE_SAVE_U64(n, v)	st_u64(w, n, (v));
#define SERVICE_SAVE_BOOL(n, v)	st_u8(w, n, (v) ? 1 : 0);
#define SERVICE_SAVE_FORK(n, v)	st_u8(w, n, (v).active ? 1 : 0);
#define SERVICE_SAVE_TIMER(n, v) timer_save(&(v), w);
#define SERVICE_SAVE(name, how, since)	SERVICE_SAVE_##how(#name, ss->name)

/*
 * A re-exec's state of a service, field by field as SERVICE_STATE says
 * (service.h): what it is now, its fds and its output.
 */
void
service_save(const struct service *ss, struct st_w *w)
{
	st_begin(w, "service");
	SERVICE_STATE(SERVICE_SAVE)
	st_end(w);
}

#define SERVICE_LOAD_SVC(n, v)	if (svc_load(&(v), r) < 0) return -EINVAL;
#define SERVICE_LOAD_WATCH(n, v) { int fd = -1;				\
				st_get_fd_kept(r, n, &fd);		\
				service_watch(core, &(v), fd); }
#define SERVICE_LOAD_OUT(n, v)	if (output_state_load(core->output,	\
				    &ss->svc, r, &(v)) < 0) return -EINVAL;
#define SERVICE_LOAD_NSOCK(n, v) if (notifysock_state_load(&(v), r) < 0) \
					return -EINVAL;
#define SERVICE_LOAD_SOCKS(n, v) if (socks_load(&ss->svc, r) < 0)	\
					return -EINVAL;
#define SERVICE_LOAD_NS(n, v)	if (st_enter(r, n)) {			\
					st_get_fd_kept(r, "mnt", &(v).mnt); \
					st_get_fd_kept(r, "net", &(v).net); \
					st_get_fd_kept(r, "root",	\
					    &(v).root);			\
					st_leave(r);			\
				}
#define SERVICE_LOAD_FD(n, v)	st_get_fd_kept(r, n, &(v));
#define SERVICE_LOAD_U64(n, v)	st_get_u64(r, n, &(v));
#define SERVICE_LOAD_BOOL(n, v)	st_get_bool(r, n, &(v));
#define SERVICE_LOAD_FORK(n, v)	st_get_bool(r, n, &(v).active);
#define SERVICE_LOAD_TIMER(n, v) timer_load(&(v), r);
#define SERVICE_LOAD(name, how, since)					\
	if (st_since(r, since)) {					\
		SERVICE_LOAD_##how(#name, ss->name)			\
	}

/* Watch fd with w, if it is one. */
static void
service_watch(struct core *core, ev_io *w, int fd)
{
	if (fd < 0)
		return;
	ev_io_set(w, fd, EV_READ);
	ev_io_start(core->loop, w);
}

/*
 * The inverse of service_save(), and the service back on our loop: its
 * death, its readiness, its timer (whose deadline is on the monotonic
 * clock, now_us being that clock now).  0, or -EINVAL with the error in r.
 */
int
service_load(struct core *core, struct service *ss, struct st_r *r,
    int64_t now_us)
{
	struct svc	*s = &ss->svc;

	if (!st_enter(r, "service")) {
		st_fail(r, "%s: no state", s->def->name);
		return -EINVAL;
	}
	SERVICE_STATE(SERVICE_LOAD)
	if (!st_since(r, 10))
		timer_start(&ss->sched);	/* the release before's */
	st_leave(r);
	if (st_bad(r))
		return -EINVAL;
	if (s->pidfd >= 0 && ss->fork.active) {
		forking_start(&ss->fork);	/* its first process is gone */
	} else if (s->pidfd >= 0) {
		ss->pm.kind = PM_MAIN;
		pidmap_add(core->pids, &ss->pm, s->pid);
		ev_io_set(&ss->death, s->pidfd, EV_READ);
		ev_io_start(core->loop, &ss->death);
	}
	if (s->deadline) {
		/* Never early: the deadline is in whole ms. */
		int64_t	left = s->deadline * 1000 + 999 - now_us;

		ev_timer_set(&ss->timer, left > 0 ? (double)left / 1e6 : 0., 0.);
		ev_timer_start(core->loop, &ss->timer);
	}
	if (ss->removing)
		ev_prepare_start(core->loop, &core->gc_w);
	if (s->state == SVC_LISTENING && socks_watch(s, true) < 0)
		log_err("%s: its sockets are not watched", s->def->name);
	health_changed(&ss->health, SVC__STATES);	/* its checks, afresh */
	return 0;
}
