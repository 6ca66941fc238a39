/*
 * timer.c - a service's timer, as systemd.timer(5) has it: the next
 * elapse of its on_calendar expressions and on_* spans, its randomized
 * delay and accuracy, the trigger (a start, unless the service still
 * runs or a command stopped it), persistent's stamp on disk, and
 * defer_under_pressure.  One libev watcher per armed timer, on the heap
 * libev keeps: timers not due wake nobody.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calendar.h"
#include "conf.h"
#include "core.h"
#include "pressure.h"
#include "st.h"
#include "timer.h"
#include "tz.h"
#include "util.h"

/* A deferred run looks at the pressure again this often (s). */
#define TIMER_DEFER_LOOK	1.0

const char *const timer_skip_names[SKIP__COUNT] = {
	[SKIP_RUNNING] = "running", [SKIP_STOPPED] = "stopped",
};

/* Both clocks, read together (us). */
struct timer_now {
	int64_t	real;
	int64_t	mono;
};

static struct timer_now
timer_now(void)
{
	return (struct timer_now){ real_us(), mono_us() };
}

/*
 * A wake-up in [a, b] that other timers share: on a minute's grid
 * shifted by this boot's perturb, else on 10 s's, 1 s's or 250 ms's;
 * else b (as sd-event chooses within a timer's accuracy, so that timers
 * due in one window wake the machine once).
 */
int64_t
timer_coalesce(int64_t a, int64_t b, int64_t perturb)
{
	static const int64_t	grid[] = { 60000000, 10000000, 1000000,
	    250000 };
	int64_t			c;
	size_t			i;

	if (b <= a + 1)
		return a;
	for (i = 0; i < ARRAY_SIZE(grid); i++) {
		c = b / grid[i] * grid[i] + perturb % grid[i];
		if (c >= b) {
			if (c < grid[i])
				return b;
			c -= grid[i];
		}
		if (c >= a)
			return c;
	}
	return b;
}

static void
timer_cal_free(struct timer *t)
{
	size_t	i;

	for (i = 0; i < t->ncal; i++)
		calendar_free(&t->cal[i]);
	free(t->cal);
	t->cal = NULL;
	t->ncal = 0;
}

/* Parse the definition's on_calendar (checked when it was loaded). */
static void
timer_cal_make(struct timer *t)
{
	const struct svc_def	*d = t->svc->def;
	size_t			 n = strv_len(d->on_calendar), i;
	struct cal_error	 e = { 0 };

	timer_cal_free(t);
	t->def = d;
	if (n == 0 || (t->cal = calloc(n, sizeof(*t->cal))) == NULL) {
		if (n > 0)
			log_err("%s: timer: %s", d->name, strerror(ENOMEM));
		return;
	}
	for (i = 0; i < n; i++)
		if (calendar_parse(d->on_calendar[i], tz_system(),
		    &t->cal[t->ncal], &e) == 0)
			t->ncal++;
		else
			log_err("%s: timer: on_calendar '%s': %s", d->name,
			    d->on_calendar[i], e.what);
}

/* FNV-1a, 64 bits: fixed_random_delay's hash of the machine and name. */
static uint64_t
timer_hash(const char *a, const char *b)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *a; a++)
		h = (h ^ (uint8_t)*a) * 1099511628211ULL;
	h = (h ^ '/') * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (uint8_t)*b) * 1099511628211ULL;
	return h;
}

/* A randomized delay, in ms: drawn afresh, or fixed for this machine. */
static uint64_t
timer_random(const struct timer *t)
{
	const struct svc_def	*d = t->svc->def;
	uint64_t		 r;

	if (d->randomized_delay == 0)
		return 0;
	if (d->fixed_random_delay)
		r = timer_hash(t->core->machine_id, d->name);
	else
		r = (uint64_t)arc4random() << 32 | arc4random();
	return r % d->randomized_delay;
}

/* Is a state one of rest (systemd's inactive)? */
static bool
timer_rest(enum svc_state st)
{
	return st == SVC_STOPPED || st == SVC_DONE || st == SVC_FAILED ||
	    st == SVC_SKIPPED;
}

/* A span key's value in ms. */
static uint64_t
timer_span(const struct svc_def *d, unsigned k)
{
	return *(const uint64_t *)(const void *)((const char *)d +
	    conf_keys[k].f[0].off);
}

/* The spans: each key, and its bit if it elapses once. */
static const struct {
	unsigned	key;
	uint8_t		once;
} timer_spans[] = {
	{ K_ON_BOOT, TIMER_DONE_BOOT }, { K_ON_STARTUP, TIMER_DONE_STARTUP },
	{ K_ON_ACTIVE, TIMER_DONE_ACTIVE }, { K_ON_UNIT_ACTIVE, 0 },
	{ K_ON_UNIT_INACTIVE, 0 },
};

/* Where a span counts from, on the monotonic clock; -1: not yet. */
static int64_t
timer_span_base(const struct timer *t, unsigned k)
{
	const struct core	*c = t->core;
	int64_t			 a;

	switch (k) {
	case K_ON_BOOT:		/* a container's boot is our start */
		return c->container ? c->start_mono : 0;
	case K_ON_STARTUP:
		return c->start_mono;
	case K_ON_ACTIVE:
		return t->armed_mono;
	case K_ON_UNIT_ACTIVE:
		a = t->active_mono;
		break;
	default:
		a = t->inactive_mono;
	}
	a = a > t->elapsed_mono ? a : t->elapsed_mono;
	return a > 0 ? a : -1;	/* never ran, never elapsed: none */
}

/*
 * The next elapse: the earliest of each expression's next after the
 * last elapse (or the arming), and of each span's from its base; a
 * one-shot span is done once it elapsed after a trigger.  Then the
 * randomized delay.  As systemd's timer_enter_waiting().
 */
static void
timer_compute(struct timer *t, const struct timer_now *now)
{
	const struct svc_def	*d = t->svc->def;
	int64_t			 best = INT64_MAX, mono = 0, n, base;
	size_t			 i;

	/* The wall clock was set back: what was is now (systemd's too). */
	if (t->elapsed_real > now->real)
		t->elapsed_real = now->real;
	if (t->armed_real > now->real)
		t->armed_real = now->real;
	base = t->elapsed_real ? t->elapsed_real : t->armed_real;
	for (i = 0; i < t->ncal; i++)
		if (calendar_next(&t->cal[i], tz_system(), base, &n) == 0 &&
		    n < best)
			best = n;
	if (best != INT64_MAX && best < t->core->start_real &&
	    t->core->start_real <= now->real)
		best = t->core->start_real;	/* missed while we were down */
	for (i = 0; i < ARRAY_SIZE(timer_spans); i++) {
		unsigned	k = timer_spans[i].key;

		if (!keyset_has(&d->given, k) || (t->done &
		    timer_spans[i].once) || (base = timer_span_base(t, k)) < 0)
			continue;
		/* A span from the service's own start or end counts while
		 * it is at rest (timer_changed computes it again then). */
		if (!timer_spans[i].once && !timer_rest(t->svc->state))
			continue;
		n = base + (int64_t)timer_span(d, k) * 1000;
		if (timer_spans[i].once && t->elapsed_real && n <= now->mono) {
			t->done |= timer_spans[i].once;
			continue;
		}
		if (n + now->real - now->mono < best) {
			best = n + now->real - now->mono;
			mono = n;
		}
	}
	if (best == INT64_MAX) {
		t->next_real = t->next_mono = 0;
		return;
	}
	t->next_real = best + (int64_t)t->random_ms * 1000;
	t->next_mono = mono ? mono + (int64_t)t->random_ms * 1000 : 0;
}

/* Watch for the next elapse, within the accuracy; or for none. */
static void
timer_arm(struct timer *t)
{
	struct core		*c = t->core;
	struct timer_now	 now = timer_now();
	int64_t			 acc = (int64_t)t->svc->def->accuracy * 1000;

	ev_periodic_stop(c->loop, &t->real_w);
	ev_timer_stop(c->loop, &t->mono_w);
	if (!t->armed || t->next_real == 0)
		return;
	if (t->next_mono) {
		ev_now_update(c->loop);	/* the delay counts from now */
		t->wake = timer_coalesce(t->next_mono, t->next_mono + acc,
		    c->perturb);
		ev_timer_set(&t->mono_w, t->wake > now.mono ?
		    (double)(t->wake - now.mono) / 1e6 : 0., 0.);
		ev_timer_start(c->loop, &t->mono_w);
	} else {
		t->wake = timer_coalesce(t->next_real, t->next_real + acc,
		    c->perturb);
		ev_periodic_set(&t->real_w, (double)t->wake / 1e6, 0., NULL);
		ev_periodic_start(c->loop, &t->real_w);
	}
}

/*
 * persistent's stamps: STATE_DIR/timers, made 0700 if need be, ours and
 * written by no one else (else -1, said by the caller).
 */
static int
timer_stamp_dir(const struct timer *t)
{
	const char	*dir = t->core->sc->state_dir ?
			    t->core->sc->state_dir : STATE_DIR_DEFAULT;
	struct stat	 st;
	int		 fd, tfd;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	if ((fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (mkdirat(fd, "timers", 0700) < 0 && errno != EEXIST) {
		close(fd);
		return -1;
	}
	tfd = openat(fd, "timers", O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	close(fd);
	if (tfd >= 0 && (fstat(tfd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 022))) {
		close(tfd);
		errno = EPERM;
		return -1;
	}
	return tfd;
}

/*
 * The stamp of the last elapse: a regular file of its own, its time the
 * elapse's (us), made if there is none.  0, or -errno (said).
 */
static int
timer_stamp_write(const struct timer *t, int64_t us)
{
	const char	*name = t->svc->def->name;
	struct timespec	 ts[2];
	struct stat	 st;
	int		 dfd, fd = -1, rc = 0;

	ts[0].tv_sec = us / 1000000;
	ts[0].tv_nsec = us % 1000000 * 1000;
	ts[1] = ts[0];
	if ((dfd = timer_stamp_dir(t)) >= 0 &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = !S_ISREG(st.st_mode) || st.st_nlink != 1 ? -EPERM :
		    utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW) < 0 ? -errno :
		    0;
	else if (dfd < 0 || (fd = openat(dfd, name, O_WRONLY | O_CREAT |
	    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 || futimens(fd, ts) < 0)
		rc = -errno;
	if (rc < 0)
		log_warn("%s: timer: its stamp in %s/timers: %s", name,
		    t->core->sc->state_dir ? t->core->sc->state_dir :
		    STATE_DIR_DEFAULT, strerror(-rc));
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* persistent: the last elapse from before we (or the machine) stopped. */
static void
timer_stamp_read(struct timer *t, const struct timer_now *now)
{
	struct stat	st;
	int64_t		us;
	int		dfd;

	if ((dfd = timer_stamp_dir(t)) < 0) {
		timer_stamp_write(t, now->real);	/* says why */
		return;
	}
	if (fstatat(dfd, t->svc->def->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode)) {
		close(dfd);
		timer_stamp_write(t, now->real);
		return;
	}
	close(dfd);
	us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
	if (us < now->real && us > t->elapsed_real) {
		t->elapsed_real = us;
		t->last_real = us;
	}
}

static void
timer_event(struct timer *t, const char *what)
{
	if (t->core->timer_event != NULL)
		t->core->timer_event(t->core, t->svc, what);
}

/*
 * defer_under_pressure: hold a due run while the killer sees medium
 * pressure or worse, for at most defer_max.  Held: true, and the
 * pressure is looked at again soon.
 */
static bool
timer_defer(struct timer *t, const struct timer_now *now)
{
	const struct svc_def	*d = t->svc->def;
	char			 span[32];

	if (!d->defer_under_pressure ||
	    pressure_level(t->core->pr) < LEVEL_MEDIUM) {
		if (t->deferred_mono) {
			format_duration(span, sizeof(span),
			    (now->mono - t->deferred_mono) / 1000);
			log_info("%s: timer: runs: the memory pressure is "
			    "over (deferred %s)", d->name, span);
		}
		t->deferred_mono = 0;
		return false;
	}
	format_duration(span, sizeof(span), (int64_t)d->defer_max);
	if (t->deferred_mono == 0) {
		t->deferred_mono = now->mono;
		log_info("%s: timer: deferred: memory pressure (for at most "
		    "%s)", d->name, span);
		timer_event(t, "deferred: memory pressure");
	} else if (now->mono - t->deferred_mono >=
	    (int64_t)d->defer_max * 1000) {
		log_warn("%s: timer: runs: memory pressure for longer than "
		    "defer_max (%s)", d->name, span);
		t->deferred_mono = 0;
		return false;
	}
	ev_timer_stop(t->core->loop, &t->mono_w);
	ev_timer_set(&t->mono_w, TIMER_DEFER_LOOK, 0.);
	ev_timer_start(t->core->loop, &t->mono_w);
	return true;
}

/*
 * An elapse: start the service (svc_trigger), or say why not; the stamp;
 * the next elapse, with a new randomized delay.
 */
static void
timer_elapse(struct timer *t, const struct timer_now *now)
{
	const struct svc_def	*d = t->svc->def;
	int			 rc;

	if (timer_defer(t, now))
		return;
	t->elapsed_real = now->real;
	t->elapsed_mono = now->mono;
	if ((rc = svc_trigger(t->svc)) == 0) {
		t->triggers++;
		t->last_real = now->real;
		log_info("%s: timer: started", d->name);
		timer_event(t, "triggered");
	} else {
		enum timer_skip	why = rc == -EBUSY ? SKIP_RUNNING :
				    SKIP_STOPPED;

		t->skipped[why]++;
		log_info("%s: timer: nothing started: %s", d->name,
		    why == SKIP_RUNNING ? "the run before still runs" :
		    "a command stopped it");
		timer_event(t, why == SKIP_RUNNING ? "skipped: running" :
		    "skipped: stopped");
	}
	if (d->persistent)
		timer_stamp_write(t, now->real);
	t->random_ms = timer_random(t);
	timer_compute(t, now);
	timer_arm(t);
}

/* The watcher's wake-up: an elapse, unless a clock moved it early. */
static void
timer_wake(struct timer *t)
{
	struct timer_now	now = timer_now();

	if (!t->armed)
		return;
	if (t->deferred_mono == 0 && (t->next_real == 0 || (t->next_mono ?
	    now.mono < t->next_mono : now.real < t->next_real))) {
		timer_arm(t);
		return;
	}
	timer_elapse(t, &now);
}

static void
timer_on_real(struct ev_loop *loop, ev_periodic *w, int revents)
{
	(void)loop;
	(void)revents;
	timer_wake(container_of(w, struct timer, real_w));
}

static void
timer_on_mono(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	timer_wake(container_of(w, struct timer, mono_w));
}

/* The first 32 hex digits of a file (an id), dashes left out; 0. */
static int
timer_read_id(const char *path, char out[33])
{
	char	buf[64];
	size_t	i, n = 0;

	if (read_small(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return -1;
	for (i = 0; buf[i] != '\0' && n < 32; i++)
		if (isxdigit((unsigned char)buf[i]))
			out[n++] = buf[i];
	out[n] = '\0';
	return n == 32 ? 0 : -1;
}

/*
 * What every timer counts from: our start on both clocks (start_ms,
 * real, an exec keeps it), this boot's perturb (from its id, as sd-event
 * takes it), the machine's id (fixed_random_delay's).
 */
void
timer_core_init(struct core *c, int64_t start_ms, bool container)
{
	struct timer_now	now = timer_now();
	char			boot[33] = "";
	uint64_t		a, b;

	c->start_real = start_ms > 0 ? start_ms * 1000 : now.real;
	c->start_mono = now.mono - (now.real - c->start_real);
	if (c->start_mono < 0)
		c->start_mono = 0;
	c->container = container;
	if (timer_read_id("/proc/sys/kernel/random/boot_id", boot) == 0 &&
	    sscanf(boot, "%16" SCNx64 "%16" SCNx64, &a, &b) == 2)
		c->perturb = (int64_t)((a ^ b) % 60000000);
	if (timer_read_id("/etc/machine-id", c->machine_id) < 0)
		memcpy(c->machine_id, boot, sizeof(boot));
}

void
timer_init(struct timer *t, struct core *core, struct svc *s)
{
	memset(t, 0, sizeof(*t));
	t->core = core;
	t->svc = s;
	ev_periodic_init(&t->real_w, timer_on_real, 0., 0., NULL);
	ev_timer_init(&t->mono_w, timer_on_mono, 0., 0.);
}

/* Compute and watch the next elapse of an armed timer. */
static void
timer_rearm(struct timer *t, bool redraw)
{
	struct timer_now	now = timer_now();

	if (t->def != t->svc->def || (t->cal == NULL && t->svc->def->on_calendar))
		timer_cal_make(t);
	if (redraw)
		t->random_ms = timer_random(t);
	timer_compute(t, &now);
	timer_arm(t);
}

/* Arm the timer of an enabled timed service, from now. */
void
timer_start(struct timer *t)
{
	struct timer_now	now = timer_now();

	if (t->armed || !svc_timed(t->svc) || !t->svc->def->enabled)
		return;
	t->armed = true;
	t->armed_real = now.real;
	t->armed_mono = now.mono;
	t->done = 0;
	timer_cal_make(t);
	if (t->svc->def->persistent)
		timer_stamp_read(t, &now);
	timer_rearm(t, true);
}

/* Disarm: no elapse until timer_start(). */
void
timer_stop(struct timer *t)
{
	t->armed = false;
	t->deferred_mono = 0;
	t->next_real = t->next_mono = 0;
	ev_periodic_stop(t->core->loop, &t->real_w);
	ev_timer_stop(t->core->loop, &t->mono_w);
}

void
timer_free(struct timer *t)
{
	if (t->core != NULL)
		timer_stop(t);
	timer_cal_free(t);
}

/*
 * The service moved: when it left rest and came back is what
 * on_unit_active and on_unit_inactive count from.
 */
void
timer_changed(struct timer *t, enum svc_state from)
{
	bool	was = timer_rest(from), is = timer_rest(t->svc->state);

	if (was == is)
		return;
	if (was)
		t->active_mono = mono_us();
	else
		t->inactive_mono = mono_us();
	if (t->armed && t->deferred_mono == 0 &&
	    (keyset_has(&t->svc->def->given, K_ON_UNIT_ACTIVE) ||
	    keyset_has(&t->svc->def->given, K_ON_UNIT_INACTIVE)))
		timer_rearm(t, false);
}

/*
 * A reload replaced the definition: a changed timer (or one enabled or
 * disabled) is armed afresh; an unchanged one keeps its next elapse and
 * its randomized delay.
 */
void
timer_reloaded(struct timer *t, const struct svc_def *old)
{
	const struct svc_def	*d = t->svc->def;
	bool			 want = svc_timed(t->svc) && d->enabled;

	if (!want) {
		timer_stop(t);
		timer_cal_free(t);
		return;
	}
	if (t->armed && conf_timer_equal(old, d)) {
		timer_cal_make(t);	/* the same, of the new definition */
		return;
	}
	if (t->armed) {
		timer_stop(t);
		timer_cal_make(t);
		t->armed = true;
		timer_rearm(t, true);
		return;
	}
	timer_start(t);
}

/*
 * The system's zone changed (tz_system_reload()): an armed calendar
 * timer's next elapse is computed again in the new zone, from its last
 * elapse, with the same randomized delay (as systemd on a zone change).
 */
void
timer_zone_changed(struct timer *t)
{
	if (!t->armed || t->deferred_mono != 0 ||
	    t->svc->def->on_calendar == NULL)
		return;
	timer_cal_make(t);
	timer_rearm(t, false);
}

void
timer_status(const struct timer *t, struct timer_status *st)
{
	memset(st, 0, sizeof(*st));
	st->timed = svc_timed(t->svc);
	st->armed = t->armed;
	st->deferred = t->deferred_mono != 0;
	st->next_real = t->armed ? t->next_real : 0;
	st->last_real = t->last_real;
	st->triggers = t->triggers;
	memcpy(st->skipped, t->skipped, sizeof(st->skipped));
}

/* A re-exec's state of the timer (the rest is made again). */
void
timer_save(const struct timer *t, struct st_w *w)
{
	st_begin(w, "timer");
	st_u8(w, "armed", t->armed);
	st_u8(w, "done", t->done);
	st_i64(w, "last_real", t->last_real);
	st_i64(w, "elapsed_real", t->elapsed_real);
	st_i64(w, "elapsed_mono", t->elapsed_mono);
	st_i64(w, "armed_real", t->armed_real);
	st_i64(w, "armed_mono", t->armed_mono);
	st_i64(w, "active_mono", t->active_mono);
	st_i64(w, "inactive_mono", t->inactive_mono);
	st_i64(w, "deferred_mono", t->deferred_mono);
	st_u64(w, "random_ms", t->random_ms);
	st_u64(w, "triggers", t->triggers);
	st_u64(w, "skipped_running", t->skipped[SKIP_RUNNING]);
	st_u64(w, "skipped_stopped", t->skipped[SKIP_STOPPED]);
	st_end(w);
}

/*
 * The inverse of timer_save(), and the timer armed again with the same
 * next elapse: the same bases, the same randomized delay.  A state
 * without a timer (the release before) arms it afresh.
 */
void
timer_load(struct timer *t, struct st_r *r)
{
	bool	armed = false;

	if (!st_enter(r, "timer")) {
		timer_start(t);
		return;
	}
	st_get_bool(r, "armed", &armed);
	st_get_u8(r, "done", &t->done);
	st_get_i64(r, "last_real", &t->last_real);
	st_get_i64(r, "elapsed_real", &t->elapsed_real);
	st_get_i64(r, "elapsed_mono", &t->elapsed_mono);
	st_get_i64(r, "armed_real", &t->armed_real);
	st_get_i64(r, "armed_mono", &t->armed_mono);
	st_get_i64(r, "active_mono", &t->active_mono);
	st_get_i64(r, "inactive_mono", &t->inactive_mono);
	st_get_i64(r, "deferred_mono", &t->deferred_mono);
	st_get_u64(r, "random_ms", &t->random_ms);
	st_get_u64(r, "triggers", &t->triggers);
	st_get_u64(r, "skipped_running", &t->skipped[SKIP_RUNNING]);
	st_get_u64(r, "skipped_stopped", &t->skipped[SKIP_STOPPED]);
	st_leave(r);
	if (!armed || !svc_timed(t->svc) || !t->svc->def->enabled) {
		t->armed = false;
		timer_start(t);
		return;
	}
	t->armed = true;
	if (t->deferred_mono) {		/* its next look, as before */
		timer_cal_make(t);
		ev_timer_set(&t->mono_w, TIMER_DEFER_LOOK, 0.);
		ev_timer_start(t->core->loop, &t->mono_w);
		return;
	}
	timer_rearm(t, false);
}
