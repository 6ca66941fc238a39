/* tz.h - time zones from the system's TZif files, without libc's TZ */
#ifndef PIDVISOR_TZ_H
#define PIDVISOR_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A local time type: its offset east of UTC, DST or not, its name. */
struct tz_type {
	int32_t	off;		/* seconds */
	bool	dst;
	char	abbr[12];
};

/* A POSIX TZ rule's date: Jn, n, or Mm.w.d, and its time of day. */
struct tz_date {
	char	kind;		/* 'J', 'n' or 'M' */
	int	m, w, d;	/* M: month, week (5: last), weekday (0 Sun) */
	int	n;		/* J: 1..365 without Feb 29; n: 0..365 */
	int32_t	secs;		/* local time of day; may be < 0 or > 24 h */
};

/*
 * A zone: its transitions (from the file's 64-bit data), and the rule
 * of its footer (or of a TZ string) for the times after the last.
 */
struct tz {
	char		*name;		/* as asked for; "UTC" */
	int64_t		*at;		/* transition times, ascending */
	uint8_t		*idx;		/* ... the type from each on */
	size_t		 n;
	struct tz_type	*types;
	size_t		 ntypes;
	bool		 rule;		/* the footer has one */
	struct tz_type	 std, dst;	/* the rule's */
	bool		 rule_dst;	/* ... with DST */
	struct tz_date	 start, end;	/* ... DST from start to end */
};

int	tz_load(const char *name, struct tz *z);
int	tz_local(struct tz *z);
void	tz_free(struct tz *z);
const struct tz *tz_system(void);
bool	tz_system_reload(void);
bool	tz_name_ok(const char *name);
void	tz_at(const struct tz *z, int64_t t, struct tz_type *out);
int	tz_instants(const struct tz *z, int64_t wall, int64_t out[2]);
bool	tz_is_utc(const struct tz *z);
const char *tz_abbr(const struct tz *z, int dst);

/* Civil dates (proleptic Gregorian), days since 1970-01-01. */
int64_t	tz_days(int y, int m, int d);
void	tz_civil(int64_t days, int *y, int *m, int *d);
int	tz_month_days(int y, int m);
int	tz_weekday(int64_t days);	/* 0 Monday .. 6 Sunday */

#endif
