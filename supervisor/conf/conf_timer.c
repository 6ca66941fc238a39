/*
 * conf_timer.c - the values of a timer's keys (on_calendar, on_boot and
 * the other spans, wake_system) and the checks of a file's timer: systemd's
 * OnCalendar=, On*Sec= and their settings, as systemd.timer(5) has them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "conf.h"
#include "conf_parse.h"
#include "tz.h"

/* A span, at most a hundred years, in ms. */
#define TIMER_SPAN_MAX_US	(100ULL * 31557600 * 1000000)

/* on_calendar: an expression systemd-analyze calendar takes. */
const char *
conf_timer_calendar(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def		*d = obj;
	struct calendar		 c = { 0 };
	struct cal_error	 e = { 0 };
	int64_t			 next;

	if (calendar_parse(v, tz_system(), &c, &e) < 0)
		return bad(p, "on_calendar: '%s' at %d: %s (pidvisorctl "
		    "calendar shows what an expression means)", v, e.pos + 1,
		    e.what);
	if (calendar_next(&c, tz_system(), real_us(), &next) < 0)
		conf_warn(p->c, "%s:%d: on_calendar: '%s' never elapses "
		    "again", p->file, p->line, v);
	calendar_free(&c);
	return key_strv_add(&d->on_calendar, v);
}

/* on_boot and the other spans: a duration; a bare number is seconds. */
const char *
conf_timer_span(struct parse_ctx *p, void *obj, const char *v)
{
	uint64_t	us;
	int		rc;

	rc = parse_duration_us(v, 1000000, TIMER_SPAN_MAX_US, &us);
	if (rc == -ERANGE)
		return bad(p, "%s: '%s' is more than a hundred years",
		    p->key->name, v);
	if (rc < 0)
		return bad(p, "%s: invalid time span '%s' (use e.g. 30s, "
		    "15min, 1h 30min, 2d, 1w)", p->key->name, v);
	*(uint64_t *)(void *)((char *)obj + p->key->f[0].off) = us / 1000;
	return NULL;
}

/* wake_system: only no; nothing here resumes a suspended machine. */
const char *
conf_timer_wake_system(struct parse_ctx *p, void *obj, const char *v)
{
	bool	on;

	(void)obj;
	if (parse_bool(v, &on) < 0)
		return bad(p, "wake_system: expected yes or no, not '%s'", v);
	if (on)
		return bad(p, "wake_system: not supported: pidvisor does not "
		    "resume a suspended machine for a timer (no "
		    "CLOCK_REALTIME_ALARM wake-ups); remove the key");
	return NULL;
}

/* Does the definition have a timer: any on_* key given? */
bool
conf_def_timed(const struct svc_def *d)
{
	unsigned	k;

	for (k = K_ON_CALENDAR; k <= K_ON_UNIT_INACTIVE; k++)
		if (keyset_has(&d->given, k))
			return true;
	return false;
}

/* Are the timers of a and b the same: every timer key equal? */
bool
conf_timer_equal(const struct svc_def *a, const struct svc_def *b)
{
	unsigned	k;

	if (conf_def_timed(a) != conf_def_timed(b))
		return false;
	for (k = K_ON_CALENDAR; k <= K_DEFER_MAX; k++)
		if (keyset_has(&a->given, k) != keyset_has(&b->given, k) ||
		    !conf_key_equal(&conf_keys[k], a, b))
			return false;
	return true;
}

/* A timer's settings need a timer; a listener is never run by one. */
void
conf_timer_finish(struct parse_ctx *p, struct svc_def *d)
{
	unsigned	k;

	if (!conf_def_timed(d)) {
		for (k = K_PERSISTENT; k <= K_DEFER_MAX; k++)
			if (p->key_line[k])
				conf_error(p->c, p->file, p->key_line[k], "%s: "
				    "no on_calendar or on_* key to schedule "
				    "it", conf_keys[k].name);
		return;
	}
	for (k = K_ON_CALENDAR; k <= K_ON_UNIT_INACTIVE; k++)
		if (p->key_line[k] && (d->accept || d->on_demand))
			conf_error(p->c, p->file, p->key_line[k], "%s: %s "
			    "starts it when a client comes, not a timer",
			    conf_keys[k].name, d->accept ? "accept" :
			    "on_demand");
	if (d->persistent && d->on_calendar == NULL)
		conf_warn(p->c, "%s:%d: persistent: only on_calendar's runs "
		    "are caught up", p->file, p->key_line[K_PERSISTENT]);
}
