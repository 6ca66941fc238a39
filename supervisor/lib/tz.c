/*
 * tz.c - time zones read from the system's TZif files (RFC 8536), and
 * POSIX TZ rules (a file's footer, or $TZ), so that a calendar time in
 * any zone can be found without setting TZ for the whole process (as
 * systemd forks a child to do).  Civil dates are computed here too.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tz.h"
#include "util.h"

#define TZ_DIR		"/usr/share/zoneinfo"
#define TZ_FILE_MAX	(1 << 20)

/* Days since 1970-01-01 of a date (any year, proleptic Gregorian). */
int64_t
tz_days(int y, int m, int d)
{
	int64_t	era, yoe, doy;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* The date of a day since 1970-01-01. */
void
tz_civil(int64_t days, int *y, int *m, int *d)
{
	int64_t	z = days + 719468, era, doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static bool
tz_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
tz_month_days(int y, int m)
{
	static const int	len[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
				    31, 30, 31 };

	return m == 2 && tz_leap(y) ? 29 : len[m - 1];
}

/* 0 for Monday .. 6 for Sunday (1970-01-01 was a Thursday). */
int
tz_weekday(int64_t days)
{
	return (int)(((days % 7) + 7 + 3) % 7);
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static int64_t
be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* A zone name as systemd takes one: a file of the zone database. */
bool
tz_name_ok(const char *name)
{
	char		path[sizeof(TZ_DIR) + 256], head[4];
	const char	*p;
	struct stat	st;
	int		fd;
	bool		ok;

	if (strcmp(name, "UTC") == 0)
		return true;
	if (name[0] == '\0' || name[0] == '/' || strlen(name) > 255 ||
	    strstr(name, "//") != NULL || name[strlen(name) - 1] == '/')
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_+/", *p))
			return false;
	snprintf(path, sizeof(path), TZ_DIR "/%s", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    read(fd, head, 4) == 4 && memcmp(head, "TZif", 4) == 0;
	close(fd);
	return ok;
}

/* [+-]hh[:mm[:ss]] at *s: seconds; -1 on error. */
static int
tz_hms(const char **s, int32_t *out, int max_h)
{
	const char	*p = *s;
	int32_t		 sign = 1, v[3] = { 0, 0, 0 };
	int		 i;

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	for (i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			v[i] = v[i] * 10 + (*p++ - '0');
		if (v[i] > (i ? 59 : max_h) || *p != ':')
			break;
		p++;
	}
	*out = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
	*s = p;
	return 0;
}

/* A zone abbreviation: letters, or <...> quoted. */
static int
tz_abbr_parse(const char **s, char *out, size_t n)
{
	const char	*p = *s, *b;
	size_t		 len;

	if (*p == '<') {
		b = ++p;
		while (*p && *p != '>')
			p++;
		if (*p != '>')
			return -1;
		len = (size_t)(p++ - b);
	} else {
		b = p;
		while (isalpha((unsigned char)*p))
			p++;
		len = (size_t)(p - b);
	}
	if (len < 3 || len >= n)
		return -1;
	memcpy(out, b, len);
	out[len] = '\0';
	*s = p;
	return 0;
}

/* A rule's date: Jn, n or Mm.w.d, and /time (02:00 if none). */
static int
tz_rule_date(const char **s, struct tz_date *dt)
{
	const char	*p = *s;

	memset(dt, 0, sizeof(*dt));
	if (*p == 'M') {
		dt->kind = 'M';
		if (sscanf(p + 1, "%d.%d.%d", &dt->m, &dt->w, &dt->d) != 3 ||
		    dt->m < 1 || dt->m > 12 || dt->w < 1 || dt->w > 5 ||
		    dt->d < 0 || dt->d > 6)
			return -1;
		p++;
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
	} else {
		dt->kind = *p == 'J' ? 'J' : 'n';
		if (*p == 'J')
			p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			dt->n = dt->n * 10 + (*p++ - '0');
		if (dt->n > 365 || (dt->kind == 'J' && dt->n < 1))
			return -1;
	}
	dt->secs = 7200;
	if (*p == '/') {
		p++;
		if (tz_hms(&p, &dt->secs, 167) < 0)
			return -1;
	}
	*s = p;
	return 0;
}

/* A POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3") as z's rule. */
static int
tz_rule(const char *s, struct tz *z)
{
	int32_t	off;

	if (tz_abbr_parse(&s, z->std.abbr, sizeof(z->std.abbr)) < 0 ||
	    tz_hms(&s, &off, 24) < 0)
		return -1;
	z->std.off = -off;
	z->rule = true;
	if (*s == '\0')
		return 0;
	if (tz_abbr_parse(&s, z->dst.abbr, sizeof(z->dst.abbr)) < 0)
		return -1;
	z->dst.off = z->std.off + 3600;
	z->dst.dst = z->rule_dst = true;
	if (*s != ',' && *s != '\0') {
		if (tz_hms(&s, &off, 24) < 0)
			return -1;
		z->dst.off = -off;
	}
	if (*s == '\0')		/* POSIX's default: the US rule */
		s = ",M3.2.0,M11.1.0";
	if (*s++ != ',' || tz_rule_date(&s, &z->start) < 0 || *s++ != ',' ||
	    tz_rule_date(&s, &z->end) < 0 || *s != '\0')
		return -1;
	return 0;
}

/* The day of the year (0-based) of a rule's date in year y. */
static int
tz_rule_yday(const struct tz_date *dt, int y)
{
	int	first, wd, day, len;

	if (dt->kind == 'J')
		return dt->n - 1 + (tz_leap(y) && dt->n >= 60);
	if (dt->kind == 'n')
		return dt->n;
	first = (int)(tz_days(y, dt->m, 1) - tz_days(y, 1, 1));
	wd = (tz_weekday(tz_days(y, dt->m, 1)) + 1) % 7;	/* 0 Sunday */
	day = 1 + (dt->d - wd + 7) % 7 + 7 * (dt->w - 1);
	len = tz_month_days(y, dt->m);
	while (day > len)
		day -= 7;
	return first + day - 1;
}

/* The rule's type at t. */
static void
tz_rule_at(const struct tz *z, int64_t t, struct tz_type *out)
{
	int64_t	days, jan1, start, end;
	int	y, m, d;

	*out = z->std;
	if (!z->rule_dst)
		return;
	days = (t + z->std.off) / 86400 - ((t + z->std.off) % 86400 < 0);
	tz_civil(days, &y, &m, &d);
	jan1 = tz_days(y, 1, 1) * 86400;
	start = jan1 + (int64_t)tz_rule_yday(&z->start, y) * 86400 +
	    z->start.secs - z->std.off;
	end = jan1 + (int64_t)tz_rule_yday(&z->end, y) * 86400 +
	    z->end.secs - z->dst.off;
	if (start < end ? t >= start && t < end : t < end || t >= start)
		*out = z->dst;
}

/* The local time type in force at t (seconds since the epoch). */
void
tz_at(const struct tz *z, int64_t t, struct tz_type *out)
{
	size_t	lo = 0, hi = z->n;

	if ((z->n == 0 || t >= z->at[z->n - 1]) && z->rule) {
		tz_rule_at(z, t, out);
		return;
	}
	if (z->n == 0 || t < z->at[0]) {
		*out = z->types[0];
		return;
	}
	while (hi - lo > 1) {			/* at[lo] <= t < at[hi] */
		size_t	mid = lo + (hi - lo) / 2;

		if (z->at[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	*out = z->types[z->idx[lo]];
}

/*
 * The instants (at most two, ascending) whose local time is wall
 * (seconds since the epoch, as if local time were UTC): none in a gap
 * (spring forward), two in an overlap (fall back).
 */
int
tz_instants(const struct tz *z, int64_t wall, int64_t out[2])
{
	struct tz_type	ty;
	int32_t		offs[3];
	int64_t		t;
	int		n = 0, i, j;

	tz_at(z, wall - 86400, &ty);
	offs[0] = ty.off;
	tz_at(z, wall, &ty);
	offs[1] = ty.off;
	tz_at(z, wall + 86400, &ty);
	offs[2] = ty.off;
	for (i = 0; i < 3; i++) {
		for (j = 0; j < i && offs[j] != offs[i]; j++)
			;
		if (j < i)
			continue;
		t = wall - offs[i];
		tz_at(z, t, &ty);
		if (ty.off != offs[i] || n == 2)
			continue;
		if (n == 1 && out[0] == t)
			continue;
		out[n++] = t;
	}
	if (n == 2 && out[0] > out[1]) {
		t = out[0];
		out[0] = out[1];
		out[1] = t;
	}
	return n;
}

static int
tz_utc(struct tz *z, const char *name)
{
	memset(z, 0, sizeof(*z));
	if ((z->name = strdup(name)) == NULL ||
	    (z->types = calloc(1, sizeof(*z->types))) == NULL) {
		free(z->name);
		return -ENOMEM;
	}
	z->ntypes = 1;
	snprintf(z->types[0].abbr, sizeof(z->types[0].abbr), "UTC");
	return 0;
}

/* A TZif file's contents (the 64-bit data of version 2 and later). */
static int
tz_parse(struct tz *z, const unsigned char *p, size_t len)
{
	uint32_t	 cnt[6];
	size_t		 tsz = 4, need, off = 44, i;
	const unsigned char *d, *chars;
	const char	*foot;
	char		 fbuf[128];

	if (len < 44 || memcmp(p, "TZif", 4) != 0)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		cnt[i] = be32(p + 20 + 4 * i);
	/* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
	if (p[4] >= '2') {
		need = cnt[3] * 5 + cnt[4] * 6 + cnt[5] + cnt[2] * 8 +
		    cnt[1] + cnt[0];
		if (off + need + 44 > len)
			return -EINVAL;
		off += need;
		if (memcmp(p + off, "TZif", 4) != 0)
			return -EINVAL;
		for (i = 0; i < 6; i++)
			cnt[i] = be32(p + off + 20 + 4 * i);
		off += 44;
		tsz = 8;
	}
	if (cnt[4] == 0 || cnt[4] > 256 || cnt[3] > 100000 || cnt[5] > 4096)
		return -EINVAL;
	need = cnt[3] * (tsz + 1) + cnt[4] * 6 + cnt[5] +
	    cnt[2] * (tsz + 4) + cnt[1] + cnt[0];
	if (off + need > len)
		return -EINVAL;
	d = p + off;
	z->n = cnt[3];
	z->ntypes = cnt[4];
	if ((z->at = calloc(z->n + 1, sizeof(*z->at))) == NULL ||
	    (z->idx = calloc(z->n + 1, 1)) == NULL ||
	    (z->types = calloc(z->ntypes, sizeof(*z->types))) == NULL)
		return -ENOMEM;
	for (i = 0; i < z->n; i++)
		z->at[i] = tsz == 8 ? be64(d + 8 * i) : (int32_t)be32(d + 4 * i);
	d += z->n * tsz;
	for (i = 0; i < z->n; i++)
		if ((z->idx[i] = d[i]) >= z->ntypes)
			return -EINVAL;
	d += z->n;
	chars = d + z->ntypes * 6;
	for (i = 0; i < z->ntypes; i++, d += 6) {
		z->types[i].off = (int32_t)be32(d);
		z->types[i].dst = d[4] != 0;
		if (d[5] < cnt[5])
			snprintf(z->types[i].abbr, sizeof(z->types[i].abbr),
			    "%.*s", (int)strnlen((const char *)chars + d[5],
			    cnt[5] - d[5]), chars + d[5]);
	}
	off += need;
	/* The footer: "\nTZ-string\n" (version 2 and later). */
	if (tsz == 8 && off + 2 <= len && p[off] == '\n') {
		foot = (const char *)p + off + 1;
		for (i = 0; off + 1 + i < len && foot[i] != '\n'; i++)
			;
		if (i > 0 && i < sizeof(fbuf) && off + 1 + i < len) {
			memcpy(fbuf, foot, i);
			fbuf[i] = '\0';
			if (tz_rule(fbuf, z) < 0)
				z->rule = false;
		}
	}
	return 0;
}

static int
tz_file(struct tz *z, const char *name, const char *path)
{
	char	*buf;
	ssize_t	 n;
	int	 rc;

	memset(z, 0, sizeof(*z));
	if ((buf = malloc(TZ_FILE_MAX)) == NULL)
		return -ENOMEM;
	if ((n = read_small(AT_FDCWD, path, buf, TZ_FILE_MAX)) < 0) {
		free(buf);
		return (int)n;
	}
	if ((z->name = strdup(name)) == NULL)
		rc = -ENOMEM;
	else
		rc = tz_parse(z, (unsigned char *)buf, (size_t)n);
	free(buf);
	if (rc < 0)
		tz_free(z);
	return rc;
}

/* A zone of the database by name ("Europe/Berlin", "UTC"). */
int
tz_load(const char *name, struct tz *z)
{
	char	path[sizeof(TZ_DIR) + 256];

	if (strcmp(name, "UTC") == 0)
		return tz_utc(z, "UTC");
	if (!tz_name_ok(name))
		return -ENOENT;
	snprintf(path, sizeof(path), TZ_DIR "/%s", name);
	return tz_file(z, name, path);
}

/*
 * Our local zone, as libc finds it: $TZ (":NAME", a zone's name, a
 * POSIX string; empty: UTC), else /etc/localtime, else UTC.
 */
int
tz_local(struct tz *z)
{
	const char	*tz = getenv("TZ");

	if (tz == NULL)
		return tz_file(z, "localtime", "/etc/localtime") == 0 ? 0 :
		    tz_utc(z, "UTC");
	if (*tz == ':')
		tz++;
	if (*tz == '\0')
		return tz_utc(z, "UTC");
	if (tz_load(tz, z) == 0)
		return 0;
	if (tz[0] == '/' && tz_file(z, tz, tz) == 0)
		return 0;
	if (tz_utc(z, tz) < 0)
		return -ENOMEM;
	if (tz_rule(tz, z) < 0) {	/* as libc: UTC, if not a rule */
		z->rule = false;
		snprintf(z->types[0].abbr, sizeof(z->types[0].abbr), "UTC");
	}
	return 0;
}

static struct tz	system_zone;
static bool		system_loaded;

/*
 * The system's zone as tz_local() finds it, read once (and again after
 * tz_system_reload()); NULL only without memory.
 */
const struct tz *
tz_system(void)
{
	if (!system_loaded && tz_local(&system_zone) == 0)
		system_loaded = true;
	return system_loaded ? &system_zone : NULL;
}

static bool
tz_type_equal(const struct tz_type *a, const struct tz_type *b)
{
	return a->off == b->off && a->dst == b->dst &&
	    strncmp(a->abbr, b->abbr, sizeof(a->abbr)) == 0;
}

static bool
tz_date_equal(const struct tz_date *a, const struct tz_date *b)
{
	return a->kind == b->kind && a->m == b->m && a->w == b->w &&
	    a->d == b->d && a->n == b->n && a->secs == b->secs;
}

/* Do two zones give every instant the same local time and name? */
static bool
tz_equal(const struct tz *a, const struct tz *b)
{
	size_t	i;

	if (a->n != b->n || a->ntypes != b->ntypes || a->rule != b->rule ||
	    (a->n > 0 && (memcmp(a->at, b->at, a->n * sizeof(*a->at)) != 0 ||
	    memcmp(a->idx, b->idx, a->n) != 0)))
		return false;
	for (i = 0; i < a->ntypes; i++)
		if (!tz_type_equal(&a->types[i], &b->types[i]))
			return false;
	return !a->rule || (a->rule_dst == b->rule_dst &&
	    tz_type_equal(&a->std, &b->std) &&
	    (!a->rule_dst || (tz_type_equal(&a->dst, &b->dst) &&
	    tz_date_equal(&a->start, &b->start) &&
	    tz_date_equal(&a->end, &b->end))));
}

/*
 * Read the system's zone again (a reload: /etc/localtime may have been
 * pointed elsewhere, or tzdata upgraded).  True if it was in use and
 * now gives another local time somewhere: what was computed in it is
 * stale.
 */
bool
tz_system_reload(void)
{
	struct tz	z = { 0 };
	bool		changed;

	if (tz_local(&z) < 0) {		/* no memory: read it at its use */
		if (system_loaded)
			tz_free(&system_zone);
		system_loaded = false;
		return true;
	}
	changed = system_loaded && !tz_equal(&system_zone, &z);
	if (system_loaded)
		tz_free(&system_zone);
	system_zone = z;
	system_loaded = true;
	return changed;
}

void
tz_free(struct tz *z)
{
	free(z->name);
	free(z->at);
	free(z->idx);
	free(z->types);
	memset(z, 0, sizeof(*z));
}

/*
 * Is it UTC as libc's timezone and daylight would say (no offset now,
 * no DST ever ahead)?
 */
bool
tz_is_utc(const struct tz *z)
{
	size_t	i;

	if (z->rule)
		return z->std.off == 0 && !z->rule_dst;
	for (i = 0; i < z->ntypes; i++)
		if (z->types[i].off != 0 || z->types[i].dst)
			return false;
	return true;
}

/* The local zone's abbreviations, as libc's tzname[] has them. */
const char *
tz_abbr(const struct tz *z, int dst)
{
	size_t	i;

	if (z == NULL)
		return NULL;
	if (z->rule)
		return dst && z->rule_dst ? z->dst.abbr : z->std.abbr;
	for (i = z->ntypes; i > 0; i--)
		if (z->types[i - 1].dst == (dst != 0))
			return z->types[i - 1].abbr;
	return z->ntypes ? z->types[0].abbr : NULL;
}
