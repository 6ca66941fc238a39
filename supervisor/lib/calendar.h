/* calendar.h - systemd's calendar expressions (systemd.time(7)) */
#ifndef PIDVISOR_CALENDAR_H
#define PIDVISOR_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

struct buf;
struct tz;

/* The fields of a time, in the order they are matched. */
enum { CAL_YEAR, CAL_MONTH, CAL_DAY, CAL_HOUR, CAL_MINUTE, CAL_USEC,
    CAL_FIELDS };

#define CAL_ITEMS_MAX	241	/* items of one field, at most (systemd's) */
#define CAL_YEAR_MAX	2199

/* start, start..stop, start/repeat or start..stop/repeat. */
struct cal_item {
	int64_t	start;
	int64_t	stop;		/* -1: none */
	int64_t	repeat;		/* 0: none */
	int	pos;		/* where it began in the text */
};

/* A field's items; none: any value (*). */
struct cal_chain {
	struct cal_item	*v;
	int		 n;
};

struct calendar {
	uint8_t		 weekdays;	/* bit 0 Monday .. 6 Sunday; 0: any */
	bool		 utc;
	int		 dst;		/* a local abbreviation: 0, 1; else -1 */
	bool		 end_of_month;	/* ~: days count from the month's end */
	char		*tz;		/* a zone's name, or NULL: local */
	char		*abbr;		/* the local abbreviation it named */
	struct cal_chain f[CAL_FIELDS];
};

/* Why a text is not an expression: where, what, and systemd's errno. */
struct cal_error {
	int		 pos;
	const char	*what;
	int		 err;		/* EINVAL, ERANGE, ENOBUFS */
};

int	calendar_parse(const char *text, const struct tz *local,
	    struct calendar *c, struct cal_error *e);
void	calendar_free(struct calendar *c);
void	calendar_format(const struct calendar *c, struct buf *b);
int	calendar_next(const struct calendar *c, const struct tz *local,
	    int64_t after_us, int64_t *next_us);
void	calendar_timestamp(struct buf *b, const struct tz *z, int64_t us);
void	calendar_relative(struct buf *b, int64_t delta);
int	calendar_parse_time(const char *text, const struct tz *local,
	    int64_t *us, int64_t now_us);
int	calendar_describe(struct buf *out, struct buf *err, const char *text,
	    const struct tz *local, int64_t base, int64_t now,
	    uint32_t iterations);

#endif
