/*
 * timefmt.c - times as systemd writes and reads them: a timestamp
 * ("Mon 2026-12-07 09:00:00 CET"), how far one is ("5h 10min left"),
 * a --base-time, and what `systemd-analyze calendar` prints of an
 * expression (calendar.c's).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calendar.h"
#include "tz.h"
#include "util.h"

#define USEC		1000000LL

/*
 * A time as systemd writes one: "Mon 2026-12-07 09:00:00 CET", in zone z
 * (NULL: UTC), to the second.
 */
void
calendar_timestamp(struct buf *b, const struct tz *z, int64_t us)
{
	static const char *const wd[] = { "Mon", "Tue", "Wed", "Thu", "Fri",
				    "Sat", "Sun" };
	struct tz_type	ty = { 0, false, "UTC" };
	int64_t		secs = us / USEC - (us % USEC < 0), wall, days, sod;
	int		y, mo, d;

	if (z != NULL)
		tz_at(z, secs, &ty);
	wall = secs + ty.off;
	days = wall / 86400 - (wall % 86400 < 0);
	sod = wall - days * 86400;
	tz_civil(days, &y, &mo, &d);
	buf_printf(b, "%s %04d-%02d-%02d %02d:%02d:%02d %s",
	    wd[tz_weekday(days)], y, mo, d, (int)(sod / 3600),
	    (int)(sod % 3600 / 60), (int)(sod % 60), ty.abbr);
}

/*
 * How far a time is, as systemd says it ("5h 10min left", "2 days ago",
 * "now"): delta is the time less now.
 */
void
calendar_relative(struct buf *b, int64_t delta)
{
	const int64_t	min = 60 * USEC, hour = 60 * min, day = 24 * hour;
	const int64_t	week = 7 * day, month = 2629800 * USEC;
	const int64_t	year = 31557600 * USEC;
	const char	*suffix = delta > 0 ? "left" : "ago";
	int64_t		d = delta < 0 ? -delta : delta, x, y;

	if (d == 0) {
		buf_puts(b, "now");
		return;
	}
	if (d >= year) {
		x = d / year;
		y = (d % year) / month;
		buf_printf(b, "%lld year%s %lld month%s", (long long)x,
		    x == 1 ? "" : "s", (long long)y, y == 1 ? "" : "s");
	} else if (d >= month) {
		x = d / month;
		y = (d % month) / day;
		buf_printf(b, "%lld month%s %lld day%s", (long long)x,
		    x == 1 ? "" : "s", (long long)y, y == 1 ? "" : "s");
	} else if (d >= week) {
		x = d / week;
		y = (d % week) / day;
		buf_printf(b, "%lld week%s %lld day%s", (long long)x,
		    x == 1 ? "" : "s", (long long)y, y == 1 ? "" : "s");
	} else if (d >= 2 * day) {
		buf_printf(b, "%lld days", (long long)(d / day));
	} else if (d >= 25 * hour) {
		buf_printf(b, "1 day %lldh", (long long)((d - day) / hour));
	} else if (d >= 6 * hour) {
		buf_printf(b, "%lldh", (long long)(d / hour));
	} else if (d >= hour) {
		buf_printf(b, "%lldh %lldmin", (long long)(d / hour),
		    (long long)(d % hour / min));
	} else if (d >= 5 * min) {
		buf_printf(b, "%lldmin", (long long)(d / min));
	} else if (d >= min) {
		buf_printf(b, "%lldmin %llds", (long long)(d / min),
		    (long long)(d % min / USEC));
	} else if (d >= USEC) {
		buf_printf(b, "%llds", (long long)(d / USEC));
	} else if (d >= 1000) {
		buf_printf(b, "%lldms", (long long)(d / 1000));
	} else {
		buf_printf(b, "%lldus", (long long)d);
	}
	buf_printf(b, " %s", suffix);
}

/*
 * A time as systemd-analyze --base-time takes one: "now", "@SECONDS",
 * or "YYYY-MM-DD [HH:MM[:SS]]" then UTC, a zone's name or the local
 * zone's abbreviation (else local).  0 with *us, or -EINVAL.
 */
int
calendar_parse_time(const char *text, const struct tz *local, int64_t *us,
    int64_t now_us)
{
	const struct tz	*z = local;
	struct tz	 named = { 0 };
	char		 buf[128], *sp, *end, tail;
	int		 y, mo, d, h = 0, mi = 0, s = 0, n = 0, rc = -EINVAL;
	int64_t		 inst[2], secs;

	if (strcmp(text, "now") == 0) {
		*us = now_us;
		return 0;
	}
	if (text[0] == '@') {
		errno = 0;
		secs = strtoll(text + 1, &end, 10);
		if (end == text + 1 || *end || errno)
			return -EINVAL;
		*us = secs * USEC;
		return 0;
	}
	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", text);
	if ((sp = strrchr(buf, ' ')) != NULL &&
	    !isdigit((unsigned char)sp[1])) {
		if (strcasecmp(sp + 1, "UTC") == 0)
			z = NULL;
		else if (tz_load(sp + 1, &named) == 0)
			z = &named;
		else if (local == NULL || (strcasecmp(sp + 1,
		    tz_abbr(local, 0)) != 0 && strcasecmp(sp + 1,
		    tz_abbr(local, 1)) != 0))
			return -EINVAL;
		*sp = '\0';
	}
	/* YYYY-MM-DD, then HH:MM, then :SS, each if there is more. */
	if (sscanf(buf, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
		goto out;
	if (buf[n] != '\0') {
		end = buf + n;
		if (sscanf(end, " %2d:%2d%n", &h, &mi, &n) != 2)
			goto out;
		end += n;
		if (*end == ':' && (sscanf(end, ":%2d%n", &s, &n) != 1 ||
		    (end += n, false)))
			goto out;
		if (sscanf(end, "%c", &tail) == 1)
			goto out;
	}
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > tz_month_days(y, mo) || h > 23 || mi > 59 || s > 59)
		goto out;
	secs = tz_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	if (z == NULL) {
		*us = secs * USEC;
		rc = 0;
	} else if (tz_instants(z, secs, inst) > 0) {
		*us = inst[0] * USEC;
		rc = 0;
	}
out:
	tz_free(&named);
	return rc;
}

/* A row: the label right-aligned as systemd's table has it. */
static void
row(struct buf *out, const char *label, const char *value)
{
	buf_printf(out, "%16s %s\n", label, value);
}

/* The elapse rows: the time, in UTC (unless local is), from now. */
static void
elapse(struct buf *out, const char *label, const struct tz *local,
    int64_t t, int64_t now)
{
	struct buf	b = { 0 };

	calendar_timestamp(&b, local, t);
	row(out, label, b.data);
	if (!tz_is_utc(local)) {
		b.len = 0;
		calendar_timestamp(&b, NULL, t);
		row(out, "(in UTC):", b.data);
	}
	if (now != INT64_MIN) {
		b.len = 0;
		calendar_relative(&b, t - now);
		row(out, "From now:", b.data);
	}
	buf_free(&b);
}

/*
 * What `systemd-analyze calendar` prints of text: its table in out, or
 * why it is wrong in err (and where); the elapses after base, with how
 * far each is from now (INT64_MIN: without).  0, or 1 if it is wrong.
 */
int
calendar_describe(struct buf *out, struct buf *err, const char *text,
    const struct tz *local, int64_t base, int64_t now, uint32_t iterations)
{
	struct calendar	 c = { 0 };
	struct cal_error e = { 0 };
	struct buf	 b = { 0 };
	char		 label[24];
	int64_t		 t = base;
	uint32_t	 i;
	int		 rc;

	if (calendar_parse(text, local, &c, &e) < 0) {
		buf_printf(err, "Failed to parse calendar specification "
		    "'%s': %s\n", text, strerror(e.err));
		buf_printf(err, "  %s\n  %*s^ %s\n", text, e.pos, "", e.what);
		calendar_free(&c);
		return 1;
	}
	calendar_format(&c, &b);
	if (strcmp(text, b.data) != 0)
		row(out, "Original form:", text);
	row(out, "Normalized form:", b.data);
	for (i = 0; i < iterations; i++) {
		if ((rc = calendar_next(&c, local, t, &t)) < 0) {
			if (i == 0 && rc == -ENOENT)
				row(out, "Next elapse:", "never");
			else if (i == 0)
				buf_printf(err, "Failed to determine next "
				    "elapse for '%s': %s\n", text,
				    strerror(-rc));
			break;
		}
		snprintf(label, sizeof(label), "Iter. #%u:", i + 1);
		elapse(out, i == 0 ? "Next elapse:" : label, local, t, now);
	}
	buf_free(&b);
	calendar_free(&c);
	return 0;
}

