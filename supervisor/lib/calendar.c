/*
 * calendar.c - systemd's calendar expressions (OnCalendar=, as
 * systemd.time(7) defines them and systemd 252 reads them): parsed,
 * written back in systemd's normalized form, and the next time each
 * names after a given one, in UTC, the local zone or a named one (tz.c).
 *
 * The next elapse is searched in wall-clock time: the smallest matching
 * time of day at or after the local time just after the base, field by
 * field from the year down (a field that cannot match moves the one
 * above it on).  A wall time that does not exist (the hour the clocks
 * spring forward) is not one: the search goes on from past the gap, as
 * systemd's normalization by mktime() does.  A wall time that exists
 * twice (the hour that repeats) is the first of its instants after the
 * base: it fires once, and the search never goes back in wall time.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calendar.h"
#include "tz.h"
#include "util.h"

#define USEC		1000000LL

static const char *const wday_long[] = { "Monday", "Tuesday", "Wednesday",
    "Thursday", "Friday", "Saturday", "Sunday" };
static const char *const wday_short[] = { "Mon", "Tue", "Wed", "Thu", "Fri",
    "Sat", "Sun" };

static const int64_t	fmin[CAL_FIELDS] = { 1970, 1, 1, 0, 0, 0 };
static const int64_t	fmax[CAL_FIELDS] = { CAL_YEAR_MAX, 12, 31, 23, 59,
			    60 * USEC - 1 };

struct parser {
	const char		*s;
	struct calendar		*c;
	struct cal_error	*e;
};

static int
bad(struct parser *p, const char *at, int err, const char *what)
{
	p->e->pos = (int)(at - p->s);
	p->e->err = err;
	p->e->what = what;
	return -err;
}

static int
chain_add(struct parser *p, struct cal_chain *ch, const char *at,
    int64_t start, int64_t stop, int64_t repeat)
{
	struct cal_item	*v;

	if (ch->n >= CAL_ITEMS_MAX)
		return bad(p, at, ENOBUFS, "too many values");
	if ((v = realloc(ch->v, (size_t)(ch->n + 1) * sizeof(*v))) == NULL)
		return bad(p, at, ENOMEM, "out of memory");
	ch->v = v;
	v[ch->n++] = (struct cal_item){ start, stop, repeat,
	    (int)(at - p->s) };
	return 0;
}

static void
chain_free(struct cal_chain *ch)
{
	free(ch->v);
	ch->v = NULL;
	ch->n = 0;
}

/* A field of one value (the special words, @epoch, the defaults). */
static int
chain_one(struct parser *p, struct cal_chain *ch, int64_t v)
{
	chain_free(ch);
	return chain_add(p, ch, p->s, v, -1, 0);
}

/* A number at *q; seconds (usec) may have a fraction: microseconds. */
static int
number(struct parser *p, const char **q, bool usec, int64_t *out)
{
	const char	*s = *q;
	int64_t		 v = 0, frac = 0;
	int		 i;

	if (!isdigit((unsigned char)*s))
		return bad(p, s, EINVAL, "expected a number");
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s++ - '0');
		if (v > INT_MAX)
			return bad(p, *q, ERANGE, "a number out of range");
	}
	if (usec) {
		v *= USEC;
		if (s[0] == '.' && s[1] != '.') {
			s++;
			if (!isdigit((unsigned char)*s))
				return bad(p, s, EINVAL, "expected digits "
				    "after the dot");
			for (i = 0; i < 6; i++) {
				frac *= 10;
				if (isdigit((unsigned char)*s))
					frac += *s++ - '0';
			}
			if (isdigit((unsigned char)*s) && *s >= '5')
				frac++;
			while (isdigit((unsigned char)*s))
				s++;
			v += frac;
		}
	}
	*out = v;
	*q = s;
	return 0;
}

/* What may follow a value: the end, a space, a list, a part's end. */
static bool
item_end(char ch)
{
	return ch == '\0' || ch == ' ' || ch == ',' || ch == '-' ||
	    ch == '~' || ch == ':';
}

/* A field: * alone, or items A, A..B, A/R, A..B/R joined by commas. */
static int
chain(struct parser *p, const char **q, struct cal_chain *ch, bool usec)
{
	const char	*s = *q, *at;
	int64_t		 start, stop, repeat;
	int		 rc;

	chain_free(ch);
	if (*s == '*') {
		s++;
		if (*s == ',' || *s == '/' || !item_end(*s))
			return bad(p, s, EINVAL, "* stands alone");
		*q = s;
		/* Seconds: every whole one, as systemd has it. */
		return usec ? chain_add(p, ch, s - 1, 0, -1, USEC) : 0;
	}
	for (;;) {
		at = s;
		stop = -1;
		repeat = 0;
		if ((rc = number(p, &s, usec, &start)) < 0)
			return rc;
		if (s[0] == '.' && s[1] == '.') {
			s += 2;
			if ((rc = number(p, &s, usec, &stop)) < 0)
				return rc;
		}
		if (*s == '/') {
			s++;
			if ((rc = number(p, &s, usec, &repeat)) < 0)
				return rc;
			if (repeat == 0)
				return bad(p, s - 1, ERANGE, "a repetition "
				    "of 0");
		}
		if (stop >= 0 && stop < start)
			return bad(p, at, EINVAL, "a range goes up");
		if (stop >= 0 && repeat == 0) {
			repeat = usec ? USEC : 1;
			if (usec && stop - start < USEC)
				return bad(p, at, EINVAL, "a range of less "
				    "than a second");
		}
		if (!item_end(*s))
			return bad(p, s, EINVAL, "unexpected character");
		if ((rc = chain_add(p, ch, at, start, stop, repeat)) < 0)
			return rc;
		if (*s != ',')
			break;
		s++;
	}
	*q = s;
	return 0;
}

/* A weekday's name at *q (Monday or Mon, any case): 0..6, or -1. */
static int
weekday(const char **q)
{
	size_t	len;
	int	i, j;

	for (i = 0; i < 7; i++)
		for (j = 0; j < 2; j++) {
			const char	*name = j ? wday_short[i] : wday_long[i];

			len = strlen(name);
			if (strncasecmp(*q, name, len) != 0 ||
			    !strchr("-., ", (*q)[len]))
				continue;
			*q += len;
			return i;
		}
	return -1;
}

/* Weekdays, if the text begins with one: lists and ranges of them. */
static int
weekdays(struct parser *p, const char **q)
{
	const char	*s = *q, *at;
	int		 a, b, i;

	if ((a = weekday(&s)) < 0)
		return 0;
	for (;;) {
		b = a;
		at = s;
		if (s[0] == '.' && s[1] == '.') {
			s += 2;
			if ((b = weekday(&s)) < 0)
				return bad(p, s, EINVAL, "expected a weekday");
		} else if (s[0] == '-') {
			s++;
			if ((b = weekday(&s)) < 0)
				return bad(p, s, EINVAL, "expected a weekday");
		}
		if (b < a)
			return bad(p, at, EINVAL, "a range of weekdays runs "
			    "from Monday to Sunday");
		for (i = a; i <= b; i++)
			p->c->weekdays |= (uint8_t)(1 << i);
		if (*s != ',')
			break;
		s++;
		if (*s == '\0' || *s == ' ')
			break;			/* one comma may end it */
		if ((a = weekday(&s)) < 0)
			return bad(p, s, EINVAL, "expected a weekday");
	}
	if (*s != '\0' && *s != ' ')
		return bad(p, s, EINVAL, "unexpected character after a "
		    "weekday");
	while (*s == ' ')
		s++;
	*q = s;
	return 0;
}

/* H:M or H:M:S, seconds with a fraction; the end of the text after. */
static int
time_part(struct parser *p, const char *s)
{
	struct calendar	*c = p->c;
	int		 rc;

	if ((rc = chain(p, &s, &c->f[CAL_HOUR], false)) < 0)
		return rc;
	if (*s != ':')
		return bad(p, s, EINVAL, "a time is HH:MM or HH:MM:SS");
	s++;
	if ((rc = chain(p, &s, &c->f[CAL_MINUTE], false)) < 0)
		return rc;
	if (*s == ':') {
		s++;
		if ((rc = chain(p, &s, &c->f[CAL_USEC], true)) < 0)
			return rc;
	} else if ((rc = chain_one(p, &c->f[CAL_USEC], 0)) < 0) {
		return rc;
	}
	if (*s != '\0')
		return bad(p, s, EINVAL, "nothing may follow the time");
	return 0;
}

/* @SECONDS: one moment, in UTC. */
static int
epoch(struct parser *p, const char *s)
{
	struct calendar	*c = p->c;
	char		*end;
	unsigned long long t;
	int64_t		 v[CAL_FIELDS];
	int		 y, m, d, i, rc;

	errno = 0;
	t = strtoull(s + 1, &end, 10);
	if (end == s + 1 || *end != '\0' || errno || t > INT64_MAX / USEC)
		return bad(p, s, errno ? ERANGE : EINVAL, "expected @ and "
		    "seconds since the epoch");
	tz_civil((int64_t)(t / 86400), &y, &m, &d);
	v[CAL_YEAR] = y;
	v[CAL_MONTH] = m;
	v[CAL_DAY] = d;
	v[CAL_HOUR] = (int64_t)(t % 86400 / 3600);
	v[CAL_MINUTE] = (int64_t)(t % 3600 / 60);
	v[CAL_USEC] = (int64_t)(t % 60) * USEC;
	for (i = 0; i < CAL_FIELDS; i++)
		if ((rc = chain_one(p, &c->f[i], v[i])) < 0)
			return rc;
	c->utc = true;
	free(c->tz);
	c->tz = NULL;
	return 0;
}

/* [weekdays] [date] [time], or @epoch after weekdays. */
static int
expression(struct parser *p, const char *s)
{
	struct calendar	*c = p->c;
	struct cal_chain a = { 0 }, b = { 0 }, d = { 0 };
	const char	*start;
	char		 sep1, sep2 = 0;
	int		 rc, i;

	for (i = CAL_HOUR; i < CAL_FIELDS; i++)	/* 00:00:00 if none */
		if ((rc = chain_one(p, &c->f[i], 0)) < 0)
			return rc;
	if ((rc = weekdays(p, &s)) < 0)
		return rc;
	if (*s == '\0')
		return 0;
	if (*s == '@')
		return epoch(p, s);
	start = s;
	if ((rc = chain(p, &s, &a, false)) < 0)
		goto out;
	if (*s == '\0' || *s == ':') {		/* a time, not a date */
		chain_free(&a);
		return time_part(p, start);
	}
	if (*s != '-' && *s != '~') {
		rc = bad(p, s, EINVAL, "expected - or ~ in a date");
		goto out;
	}
	sep1 = *s++;
	if ((rc = chain(p, &s, &b, false)) < 0)
		goto out;
	if (*s == '-' || *s == '~') {
		if (sep1 == '~') {
			rc = bad(p, s, EINVAL, "~ comes before the day only");
			goto out;
		}
		sep2 = *s++;
		if ((rc = chain(p, &s, &d, false)) < 0)
			goto out;
		c->f[CAL_YEAR] = a;
		c->f[CAL_MONTH] = b;
		c->f[CAL_DAY] = d;
		c->end_of_month = sep2 == '~';
	} else {
		c->f[CAL_MONTH] = a;
		c->f[CAL_DAY] = b;
		c->end_of_month = sep1 == '~';
	}
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&d, 0, sizeof(d));
	if (*s == '\0')
		return 0;
	if (*s != ' ')
		return bad(p, s, EINVAL, "unexpected character after a date");
	while (*s == ' ')
		s++;
	if (*s == '\0')
		return 0;
	return time_part(p, s);
out:
	chain_free(&a);
	chain_free(&b);
	chain_free(&d);
	return rc;
}

/* The special words, as systemd expands them. */
static int
special(struct parser *p, const char *s)
{
	static const struct {
		const char	*word;
		const char	*months;	/* NULL: * */
		int64_t		 day;		/* 0: * */
		int		 fields;	/* how many of sec, min, ... */
		bool		 monday;
	} w[] = {
		{ "minutely", NULL, 0, 1, false },
		{ "hourly", NULL, 0, 2, false },
		{ "daily", NULL, 0, 3, false },
		{ "monthly", NULL, 1, 3, false },
		{ "weekly", NULL, 0, 3, true },
		{ "yearly", "1", 1, 3, false },
		{ "annually", "1", 1, 3, false },
		{ "anually", "1", 1, 3, false },
		{ "quarterly", "1,4,7,10", 1, 3, false },
		{ "semiannually", "1,7", 1, 3, false },
		{ "semi-annually", "1,7", 1, 3, false },
		{ "biannually", "1,7", 1, 3, false },
		{ "bi-annually", "1,7", 1, 3, false },
	};
	struct calendar	*c = p->c;
	const char	*m;
	size_t		 i;
	int		 k, rc;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		if (strcasecmp(s, w[i].word) != 0)
			continue;
		for (k = 0; k < w[i].fields; k++)
			if ((rc = chain_one(p, &c->f[CAL_USEC - k], 0)) < 0)
				return rc;
		if (w[i].day && (rc = chain_one(p, &c->f[CAL_DAY],
		    w[i].day)) < 0)
			return rc;
		for (m = w[i].months; m && *m; m += strcspn(m, ",") +
		    (m[strcspn(m, ",")] == ','))
			if ((rc = chain_add(p, &c->f[CAL_MONTH], p->s,
			    atoi(m), -1, 0)) < 0)
				return rc;
		if (w[i].monday)
			c->weekdays = 1;
		return 1;
	}
	return 0;
}


/* A trailing zone: " UTC", the local abbreviations, a zone's name. */
static int
zone_suffix(struct parser *p, const struct tz *local, char *text)
{
	struct calendar	*c = p->c;
	size_t		 len = strlen(text), n;
	const char	*ab, *sp;
	int		 i;

	if (len > 4 && strcasecmp(text + len - 4, " UTC") == 0) {
		c->utc = true;
		text[len - 4] = '\0';
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if ((ab = tz_abbr(local, i)) == NULL || *ab == '\0')
			continue;
		n = strlen(ab);
		if (len > n + 1 && text[len - n - 1] == ' ' &&
		    strcasecmp(text + len - n, ab) == 0) {
			c->dst = i;
			if ((c->abbr = strdup(ab)) == NULL)
				return bad(p, p->s, ENOMEM, "out of memory");
			text[len - n - 1] = '\0';
			return 0;
		}
	}
	if ((sp = strrchr(text, ' ')) != NULL && tz_name_ok(sp + 1)) {
		if (strcmp(sp + 1, "UTC") == 0)
			c->utc = true;
		else if ((c->tz = strdup(sp + 1)) == NULL)
			return bad(p, p->s, ENOMEM, "out of memory");
		text[sp - text] = '\0';
	}
	return 0;
}

static int
item_cmp(const void *a, const void *b)
{
	const struct cal_item	*x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->stop != y->stop)
		return x->stop < y->stop ? -1 : 1;
	if (x->repeat != y->repeat)
		return x->repeat < y->repeat ? -1 : 1;
	return 0;
}

/* systemd's normalization: two-digit years, ranges cut, sorted. */
static void
normalize_spec(struct calendar *c)
{
	struct cal_chain	*ch;
	struct cal_item		*it;
	int			 f, i, k;

	if (c->weekdays == 0x7f)
		c->weekdays = 0;
	if (c->f[CAL_DAY].n == 0)
		c->end_of_month = false;
	for (f = 0; f < CAL_FIELDS; f++) {
		ch = &c->f[f];
		for (i = 0; i < ch->n; i++) {
			it = &ch->v[i];
			if (f == CAL_YEAR) {
				if (it->start >= 0 && it->start <= 69)
					it->start += 2000;
				else if (it->start >= 70 && it->start <= 99)
					it->start += 1900;
				if (it->stop >= 0 && it->stop <= 69)
					it->stop += 2000;
				else if (it->stop >= 70 && it->stop <= 99)
					it->stop += 1900;
			}
			if (it->stop >= 0 && it->repeat > 0 &&
			    it->stop >= it->start)
				it->stop -= (it->stop - it->start) %
				    it->repeat;
			if (it->stop >= 0 && (it->start == it->stop ||
			    it->start + it->repeat > it->stop)) {
				it->stop = -1;
				it->repeat = 0;
			}
		}
		if (ch->n > 1)
			qsort(ch->v, (size_t)ch->n, sizeof(*ch->v), item_cmp);
		for (i = k = 0; i < ch->n; i++)
			if (k == 0 || item_cmp(&ch->v[k - 1], &ch->v[i]) != 0)
				ch->v[k++] = ch->v[i];
		ch->n = k;
	}
}

/* systemd's validity: every value in its field's range. */
static int
validate(struct parser *p)
{
	struct calendar	*c = p->c;
	const struct cal_item *it;
	int64_t		 hi;
	int		 f, i;

	for (f = 0; f < CAL_FIELDS; f++) {
		hi = f == CAL_DAY && c->end_of_month ? 28 : fmax[f];
		for (i = 0; i < c->f[f].n; i++) {
			it = &c->f[f].v[i];
			if (it->start < fmin[f] || it->start > hi ||
			    (it->stop >= 0 && (it->stop < fmin[f] ||
			    it->stop > hi)) || it->repeat > hi - fmin[f] ||
			    (it->repeat && it->stop < 0 && (f == CAL_DAY &&
			    c->end_of_month ? it->start - it->repeat < 1 :
			    it->start + it->repeat > hi)))
				return bad(p, p->s + it->pos, EINVAL, "a "
				    "value out of its field's range");
		}
	}
	return 0;
}

/*
 * Parse text into c (freed with calendar_free() either way); local: the
 * zone whose abbreviations a text may end with (NULL: none).  0, or
 * -errno with e saying where and why (and c empty).
 */
int
calendar_parse(const char *text, const struct tz *local, struct calendar *c,
    struct cal_error *e)
{
	struct parser	p = { text, c, e };
	char		*s;
	int		 rc;

	memset(c, 0, sizeof(*c));
	c->dst = -1;
	memset(e, 0, sizeof(*e));
	if ((s = strdup(text)) == NULL)
		return bad(&p, text, ENOMEM, "out of memory");
	if ((rc = zone_suffix(&p, local, s)) < 0)
		goto out;
	if (*s == '\0') {
		rc = bad(&p, text, EINVAL, "no time before the zone");
		goto out;
	}
	/* Positions are in text: s is its prefix. */
	p.s = s;
	if ((rc = special(&p, s)) == 0)
		rc = expression(&p, s);
	p.s = text;
	if (rc >= 0) {
		normalize_spec(c);
		rc = validate(&p);
	}
	if (rc > 0)
		rc = 0;
out:
	if (rc < 0) {
		e->pos = e->pos < 0 ? 0 : e->pos;
		calendar_free(c);	/* nothing half made is left */
	}
	free(s);
	return rc;
}

void
calendar_free(struct calendar *c)
{
	int	i;

	for (i = 0; i < CAL_FIELDS; i++)
		chain_free(&c->f[i]);
	free(c->tz);
	free(c->abbr);
	memset(c, 0, sizeof(*c));
}

/* A value of a field as systemd writes it. */
static void
value(struct buf *b, int f, int64_t v, bool repeat)
{
	if (f != CAL_USEC) {
		buf_printf(b, repeat ? "%lld" : f == CAL_YEAR ? "%04lld" :
		    "%02lld", (long long)v);
		return;
	}
	buf_printf(b, repeat ? "%lld" : "%02lld", (long long)(v / USEC));
	if (v % USEC)
		buf_printf(b, ".%06lld", (long long)(v % USEC));
}

static void
format_chain(struct buf *b, const struct calendar *c, int f)
{
	const struct cal_chain	*ch = &c->f[f];
	int64_t			 one = f == CAL_USEC ? USEC : 1;
	int			 i;

	(void)c;
	for (i = 0; i < ch->n && f == CAL_USEC; i++)
		if (ch->v[i].start == 0 && ch->v[i].stop < 0 &&
		    ch->v[i].repeat == USEC)
			break;
	if (ch->n == 0 || (f == CAL_USEC && i < ch->n)) {
		buf_puts(b, "*");
		return;
	}
	for (i = 0; i < ch->n; i++) {
		const struct cal_item	*it = &ch->v[i];

		if (i > 0)
			buf_puts(b, ",");
		value(b, f, it->start, false);
		if (it->stop >= 0) {
			buf_puts(b, "..");
			value(b, f, it->stop, false);
		}
		if (it->repeat && !(it->stop >= 0 && it->repeat == one)) {
			buf_puts(b, "/");
			value(b, f, it->repeat, true);
		}
	}
}

/* The normalized form, as systemd-analyze calendar shows it. */
void
calendar_format(const struct calendar *c, struct buf *b)
{
	int	i, j, n = 0;

	for (i = 0; i < 7; i = j) {
		if (!(c->weekdays & (1 << i))) {
			j = i + 1;
			continue;
		}
		for (j = i; j < 7 && (c->weekdays & (1 << j)); j++)
			;
		if (n++ > 0)
			buf_puts(b, ",");
		if (j - i >= 3)
			buf_printf(b, "%s..%s", wday_short[i], wday_short[j - 1]);
		else if (j - i == 2)
			buf_printf(b, "%s,%s", wday_short[i], wday_short[i + 1]);
		else
			buf_puts(b, wday_short[i]);
	}
	if (n > 0)
		buf_puts(b, " ");
	format_chain(b, c, CAL_YEAR);
	buf_puts(b, "-");
	format_chain(b, c, CAL_MONTH);
	buf_puts(b, c->end_of_month ? "~" : "-");
	format_chain(b, c, CAL_DAY);
	buf_puts(b, " ");
	format_chain(b, c, CAL_HOUR);
	buf_puts(b, ":");
	format_chain(b, c, CAL_MINUTE);
	buf_puts(b, ":");
	format_chain(b, c, CAL_USEC);
	if (c->utc)
		buf_puts(b, " UTC");
	else if (c->abbr)
		buf_printf(b, " %s", c->abbr);
	else if (c->tz)
		buf_printf(b, " %s", c->tz);
}

/* A wall-clock time being searched. */
struct wall {
	int	y, mo, d, h, mi;
	int64_t	us;		/* of the minute */
};

static void
wall_from(int64_t secs, int64_t frac, struct wall *w)
{
	int64_t	days = secs / 86400 - (secs % 86400 < 0);
	int64_t	sod = secs - days * 86400;

	tz_civil(days, &w->y, &w->mo, &w->d);
	w->h = (int)(sod / 3600);
	w->mi = (int)(sod % 3600 / 60);
	w->us = sod % 60 * USEC + frac;
}

/*
 * A broken-down time as mktime() takes one: its fields may be out of
 * their ranges (the 32nd of a month, hour 24), and normalizing moves
 * them on.  isdst as struct tm's: -1 (find out), 0 or 1 (take it so).
 */
struct btm {
	int64_t	year;
	int	mon;		/* 0..11 */
	int	mday, hour, min, sec, isdst;
};

/* The search's world: its zone (NULL: UTC), the offset mktime() keeps. */
struct search {
	const struct tz	*z;
	int32_t		 last_off;
};

/* The wall time of b, as seconds since the epoch as if it were UTC. */
static int64_t
btm_wall(const struct btm *b)
{
	int64_t	y = b->year + b->mon / 12 - (b->mon % 12 < 0);
	int	m = ((b->mon % 12) + 12) % 12;

	return (tz_days((int)y, m + 1, 1) + b->mday - 1) * 86400 +
	    (int64_t)b->hour * 3600 + b->min * 60 + b->sec;
}

static void
btm_from(const struct search *sr, int64_t t, struct btm *b)
{
	struct tz_type	ty = { 0, false, "" };
	struct wall	w;

	if (sr->z != NULL)
		tz_at(sr->z, t, &ty);
	wall_from(t + ty.off, 0, &w);
	b->year = w.y;
	b->mon = w.mo - 1;
	b->mday = w.d;
	b->hour = w.h;
	b->min = w.mi;
	b->sec = (int)(w.us / USEC);
	b->isdst = sr->z != NULL ? ty.dst : 0;
}

/* The offset of a time type of this dst near wall; last if none. */
static int32_t
offset_dst(const struct search *sr, int64_t wall, bool dst)
{
	struct tz_type	ty;
	int		k;

	for (k = 0; k <= 366; k++) {
		tz_at(sr->z, wall - (int64_t)k * 86400, &ty);
		if (ty.dst == dst)
			return ty.off;
		tz_at(sr->z, wall + (int64_t)k * 86400, &ty);
		if (ty.dst == dst)
			return ty.off;
	}
	return sr->last_off;
}

/*
 * mktime() (timegm() in UTC), as glibc's: the instant of b, and b made
 * that instant's local time.  A time that exists twice is the one of the
 * offset mktime() last used; one that does not exist is taken with that
 * offset (and moves on); a DST flag given is taken at its word.
 */
static int64_t
normalize(struct search *sr, struct btm *b)
{
	struct tz_type	ty;
	int64_t		wall = btm_wall(b), inst[2], t;
	int		n;

	if (sr->z == NULL) {
		t = wall;
	} else if (b->isdst >= 0) {
		t = wall - offset_dst(sr, wall, b->isdst > 0);
	} else if ((n = tz_instants(sr->z, wall, inst)) == 1) {
		t = inst[0];
	} else if (n == 2) {
		t = wall - sr->last_off == inst[1] ? inst[1] : inst[0];
	} else {
		t = wall - sr->last_off;
	}
	if (sr->z != NULL) {
		tz_at(sr->z, t, &ty);
		sr->last_off = ty.off;
	}
	btm_from(sr, t, b);
	return t;
}

/* The days of the month of b, counted from its end: day, or -1. */
static int
end_of_month(const struct btm *b, int64_t day)
{
	int64_t	y = b->year + b->mon / 12 - (b->mon % 12 < 0);
	int	m = ((b->mon % 12) + 12) % 12 + 1;
	int64_t	last = tz_month_days((int)y, m);

	return day >= 1 && day <= last ? (int)(last + 1 - day) : -1;
}

/*
 * The smallest value of a field's items at or above *val (no limit: a
 * value past its field's end is normalized after); 1 if it moved, 0 if
 * not, -ENOENT if none.  Days counted from the end are of b's month.
 */
static int
matching(const struct calendar *c, int f, const struct btm *b, int64_t *val)
{
	const struct cal_chain	*ch = &c->f[f];
	int64_t			 d = -1, start, stop, k;
	int			 i, r;

	if (ch->n == 0)
		return 0;
	for (i = 0; i < ch->n; i++) {
		const struct cal_item	*it = &ch->v[i];

		start = it->start;
		stop = it->stop;
		if (f == CAL_DAY && c->end_of_month) {
			start = end_of_month(b, it->start);
			stop = it->stop >= 0 ? end_of_month(b, it->stop) : -1;
			if (stop > 0) {
				k = start;
				start = stop;
				stop = k;
			}
		}
		if (start >= *val) {
			if (d < 0 || start < d)
				d = start;
		} else if (it->repeat > 0) {
			k = start + it->repeat * ((*val - start + it->repeat -
			    1) / it->repeat);
			if ((d < 0 || k < d) && (stop < 0 || k <= stop))
				d = k;
		}
	}
	if (d < 0)
		return -ENOENT;
	r = *val != d;
	*val = d;
	return r;
}

/*
 * Was b in bounds (1), or did normalizing move it on (0: b is the
 * normalized time, with the field below the highest one that moved at
 * its start)?  -ERANGE past the last year, -EDEADLK if it went back.
 */
static int
in_bounds(struct search *sr, struct btm *b)
{
	struct btm	t = *b;
	int		cmp;

	if (b->year > CAL_YEAR_MAX)
		return -ERANGE;
	normalize(sr, &t);
#define CMP(a, b)	((a) < (b) ? -1 : (a) > (b))
	if ((cmp = CMP(t.year, b->year)) != 0)
		t.mon = 0;
	else if ((cmp = CMP(t.mon, b->mon)) != 0)
		t.mday = 1;
	else if ((cmp = CMP(t.mday, b->mday)) != 0)
		t.hour = 0;
	else if ((cmp = CMP(t.hour, b->hour)) != 0)
		t.min = 0;
	else if ((cmp = CMP(t.min, b->min)) != 0)
		t.sec = 0;
	else
		cmp = CMP(t.sec, b->sec);
#undef CMP
	if (cmp < 0)
		return -EDEADLK;
	if (cmp > 0)
		*b = t;
	return cmp == 0;
}

static bool
weekday_ok(const struct calendar *c, struct search *sr, const struct btm *b)
{
	struct btm	t = *b;
	struct search	s2 = *sr;

	if (c->weekdays == 0)
		return true;
	normalize(&s2, &t);
	return c->weekdays & (1 << tz_weekday(tz_days((int)t.year, t.mon + 1,
	    t.mday)));
}

#define CAL_ITERATIONS	1000	/* as systemd's: then it gives up */

/* The zones of the expressions, loaded once each. */
static struct tz	*zones;
static size_t		 nzones;

static const struct tz *
zone_of(const char *name)
{
	struct tz	*v;
	size_t		 i;

	for (i = 0; i < nzones; i++)
		if (strcmp(zones[i].name, name) == 0)
			return &zones[i];
	if ((v = realloc(zones, (nzones + 1) * sizeof(*v))) == NULL)
		return NULL;
	zones = v;
	if (tz_load(name, &zones[nzones]) < 0)
		return NULL;
	return &zones[nzones++];
}

/* Field f of b as a number, and back. */
static int64_t
get(const struct btm *b, int f, int64_t usec)
{
	switch (f) {
	case CAL_YEAR:	return b->year;
	case CAL_MONTH:	return b->mon + 1;
	case CAL_DAY:	return b->mday;
	case CAL_HOUR:	return b->hour;
	case CAL_MINUTE: return b->min;
	default:	return (int64_t)b->sec * USEC + usec;
	}
}

/*
 * The search, field by field from the year down, each matched, then
 * checked in bounds (a day past its month's end, an hour the clocks
 * skip: normalized, and again from there); a field with no match moves
 * the one above it on.
 */
static int
find_next(const struct calendar *c, struct search *sr, struct btm *b,
    int64_t *usec)
{
	int64_t	v;
	int	it, r;

	for (it = 0; it < CAL_ITERATIONS; it++) {
		normalize(sr, b);
		b->isdst = c->dst;
		v = get(b, CAL_YEAR, 0);
		if ((r = matching(c, CAL_YEAR, b, &v)) < 0)
			return r;
		if (r > 0)
			*b = (struct btm){ v, 0, 1, 0, 0, 0, b->isdst },
			*usec = 0;
		if (in_bounds(sr, b) <= 0)
			return -ENOENT;
		v = get(b, CAL_MONTH, 0);
		r = matching(c, CAL_MONTH, b, &v);
		b->mon = (int)v - 1;
		if (r > 0)
			b->mday = 1, b->hour = b->min = b->sec = 0, *usec = 0;
		if (r < 0 || (r = in_bounds(sr, b)) < 0) {
			b->year++;
			b->mon = 0;
			b->mday = 1, b->hour = b->min = b->sec = 0, *usec = 0;
			continue;
		}
		if (r == 0)
			continue;
		v = get(b, CAL_DAY, 0);
		r = matching(c, CAL_DAY, b, &v);
		b->mday = (int)v;
		if (r > 0)
			b->hour = b->min = b->sec = 0, *usec = 0;
		if (r < 0 || (r = in_bounds(sr, b)) < 0) {
			b->mon++;
			b->mday = 1, b->hour = b->min = b->sec = 0, *usec = 0;
			continue;
		}
		if (r == 0)
			continue;
		if (!weekday_ok(c, sr, b)) {
			b->mday++;
			b->hour = b->min = b->sec = 0, *usec = 0;
			continue;
		}
		v = get(b, CAL_HOUR, 0);
		r = matching(c, CAL_HOUR, b, &v);
		b->hour = (int)v;
		if (r > 0)
			b->min = b->sec = 0, *usec = 0;
		if (r < 0 || (r = in_bounds(sr, b)) < 0) {
			b->mday++;
			b->hour = b->min = b->sec = 0, *usec = 0;
			continue;
		}
		if (r == 0)
			continue;
		v = get(b, CAL_MINUTE, 0);
		r = matching(c, CAL_MINUTE, b, &v);
		b->min = (int)v;
		if (r > 0)
			b->sec = 0, *usec = 0;
		if (r < 0 || (r = in_bounds(sr, b)) < 0) {
			b->hour++;
			b->min = b->sec = 0, *usec = 0;
			continue;
		}
		if (r == 0)
			continue;
		v = get(b, CAL_USEC, *usec);
		r = matching(c, CAL_USEC, b, &v);
		*usec = v % USEC;
		b->sec = (int)(v / USEC);
		if (r < 0 || (r = in_bounds(sr, b)) < 0) {
			b->min++;
			b->sec = 0, *usec = 0;
			continue;
		}
		if (r == 0)
			continue;
		return 0;
	}
	return -EDEADLK;
}

/*
 * The first time after after_us (microseconds since the epoch) that c
 * names: 0 with *next_us; -ENOENT if none (before 2200, or its zone
 * cannot be read), -EDEADLK if the search gave up.  local: the zone of
 * an expression that names none.
 */
int
calendar_next(const struct calendar *c, const struct tz *local,
    int64_t after_us, int64_t *next_us)
{
	struct search	sr = { c->utc ? NULL : c->tz ? zone_of(c->tz) : local,
			    0 };
	struct tz_type	ty;
	struct btm	b;
	int64_t		t = after_us + 1, secs, usec;
	int		rc;

	if (c->tz && !c->utc && sr.z == NULL)
		return -ENOENT;
	secs = t / USEC - (t % USEC < 0);
	usec = t - secs * USEC;
	btm_from(&sr, secs, &b);
	if (sr.z != NULL) {
		tz_at(sr.z, secs, &ty);
		sr.last_off = ty.off;
	}
	if ((rc = find_next(c, &sr, &b, &usec)) < 0)
		return rc;
	*next_us = normalize(&sr, &b) * USEC + usec;
	return 0;
}
