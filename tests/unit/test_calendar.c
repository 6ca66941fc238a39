/*
 * test_calendar.c - calendar expressions (calendar.c) and time zones
 * (tz.c) against systemd: every case of tests/unit/calendar/cases.txt
 * (what systemd-analyze calendar 252 printed, tools/calendar-cases) is
 * asked again, in its zone, from its base, and must come out the same;
 * and the civil-date arithmetic under it, against libc's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "calendar.h"
#include "tz.h"
#include "util.h"

#define CASES	"tests/unit/calendar/cases.txt"

/* One case: describe it as systemd-analyze would, less From now. */
static void
one(const char *zone, const char *base, const char *expr, const char *want,
    int *failed, int *n)
{
	struct tz	local;
	struct buf	out = { 0 }, err = { 0 };
	int64_t		t;
	const char	*got;

	setenv("TZ", zone, 1);
	assert_int_equal(tz_local(&local), 0);
	assert_int_equal(calendar_parse_time(base, &local, &t, 0), 0);
	if (calendar_describe(&out, &err, expr, &local, t, INT64_MIN, 5) != 0)
		got = "invalid\n";
	else
		got = out.data ? out.data : "";
	(*n)++;
	if (strcmp(got, want) != 0) {
		if ((*failed)++ < 5)
			print_error("TZ=%s --base-time '%s' '%s':\nwant:\n%s"
			    "got:\n%s%s", zone, base, expr, want, got,
			    err.data ? err.data : "");
	}
	buf_free(&out);
	buf_free(&err);
	tz_free(&local);
}

/* Every case systemd answered: the same answer. */
static void
test_systemd_cases(void **state)
{
	FILE		*f = fopen(CASES, "r");
	struct buf	 want = { 0 };
	char		 line[512], head[512] = "", *zone, *base, *expr;
	int		 failed = 0, n = 0;

	(void)state;
	assert_non_null(f);
	for (;;) {
		bool	eof = fgets(line, sizeof(line), f) == NULL;

		if ((eof || strncmp(line, "== ", 3) == 0) && head[0]) {
			zone = head;
			base = strchr(zone, '\t');
			assert_non_null(base);
			*base++ = '\0';
			expr = strchr(base, '\t');
			assert_non_null(expr);
			*expr++ = '\0';
			expr[strcspn(expr, "\n")] = '\0';
			one(zone, base, expr, want.data ? want.data : "",
			    &failed, &n);
			want.len = 0;
			if (want.data)
				want.data[0] = '\0';
			head[0] = '\0';
		}
		if (eof)
			break;
		if (strncmp(line, "== ", 3) == 0)
			snprintf(head, sizeof(head), "%s", line + 3);
		else if (line[0] != '#' && head[0])
			buf_puts(&want, line);
	}
	fclose(f);
	buf_free(&want);
	unsetenv("TZ");
	if (failed)
		print_error("%d of %d cases differ from systemd's\n", failed, n);
	assert_true(n >= 300);
	assert_int_equal(failed, 0);
}

/* Days since the epoch and back, and weekdays, against timegm(). */
static void
test_civil(void **state)
{
	int64_t	d;
	int	y, m, day;

	(void)state;
	for (d = -800000; d < 800000; d += 37) {
		struct tm	tm;
		time_t		t = (time_t)d * 86400;

		gmtime_r(&t, &tm);
		tz_civil(d, &y, &m, &day);
		assert_int_equal(y, tm.tm_year + 1900);
		assert_int_equal(m, tm.tm_mon + 1);
		assert_int_equal(day, tm.tm_mday);
		assert_int_equal(tz_days(y, m, day), d);
		assert_int_equal(tz_weekday(d), (tm.tm_wday + 6) % 7);
	}
	assert_int_equal(tz_month_days(2028, 2), 29);
	assert_int_equal(tz_month_days(2100, 2), 28);
	assert_int_equal(tz_month_days(2000, 2), 29);
}

/*
 * A zone's offsets against libc's localtime for every hour of two
 * years, around the changes too: the file's transitions and, past them,
 * its POSIX rule (Europe/Berlin's file ends in 2037).
 */
static void
test_zone_offsets(void **state)
{
	static const char *const zones[] = { "Europe/Berlin",
	    "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
	    "America/Sao_Paulo", "UTC" };
	struct tz	z;
	struct tz_type	ty;
	size_t		i;
	int64_t		t;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(zones); i++) {
		setenv("TZ", zones[i], 1);
		tzset();
		assert_int_equal(tz_load(zones[i], &z), 0);
		for (t = 1767225600; t < 1767225600 + 2 * 366 * 86400;
		    t += 3600) {
			struct tm	tm;
			time_t		tt = (time_t)t;
			int64_t		far = t + 20LL * 365 * 86400;

			localtime_r(&tt, &tm);
			tz_at(&z, t, &ty);
			assert_int_equal(ty.off, tm.tm_gmtoff);
			assert_int_equal(ty.dst, tm.tm_isdst > 0);
			assert_string_equal(ty.abbr, tm.tm_zone);
			tt = (time_t)far;
			localtime_r(&tt, &tm);
			tz_at(&z, far, &ty);
			assert_int_equal(ty.off, tm.tm_gmtoff);
		}
		tz_free(&z);
	}
	unsetenv("TZ");
	tzset();
}

/* A wrong expression says where: the error's position and errno. */
static void
test_errors(void **state)
{
	static const struct {
		const char	*text;
		int		 pos, err;
	} t[] = {
		{ "Fri..Mon", 3, EINVAL },
		{ "*-*-* 12:00 ", 11, EINVAL },
		{ "*:0/0", 4, ERANGE },
		{ "*-13-01", 2, EINVAL },
		{ "12", 2, EINVAL },
		{ "Mon,,Tue", 4, EINVAL },
		{ "*-*-5..1", 4, EINVAL },
	};
	struct calendar	 c;
	struct cal_error e;
	size_t		 i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(calendar_parse(t[i].text, NULL, &c, &e),
		    -t[i].err);
		if (e.pos != t[i].pos)
			print_error("'%s': at %d, not %d\n", t[i].text, e.pos,
			    t[i].pos);
		assert_int_equal(e.pos, t[i].pos);
		assert_non_null(e.what);
		calendar_free(&c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_cases),
		cmocka_unit_test(test_civil),
		cmocka_unit_test(test_zone_offsets),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
