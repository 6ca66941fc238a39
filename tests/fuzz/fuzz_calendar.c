/*
 * fuzz_calendar.c - a calendar expression (calendar.c): parsed; if it
 * is one, its normalized form parses to itself, and its next elapses
 * from a fixed time (UTC, and a zone with DST) go forward.
 */
#include "fuzz.h"
#include "calendar.h"
#include "tz.h"
#include "util.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tz	berlin;
	static int		loaded;
	struct calendar		c, c2;
	struct cal_error	e;
	struct buf		a = { 0 }, b = { 0 };
	char			*s;
	int64_t			t = 1765100000LL * 1000000, next;
	int			i;

	if (size > 512 || (s = fuzz_str(data, size)) == NULL)
		return 0;
	if (!loaded)
		loaded = tz_load("Europe/Berlin", &berlin) == 0 ? 1 : -1;
	if (calendar_parse(s, loaded > 0 ? &berlin : NULL, &c, &e) == 0) {
		calendar_format(&c, &a);
		if (calendar_parse(a.data, loaded > 0 ? &berlin : NULL, &c2,
		    &e) != 0)
			abort();		/* its own form is an expression */
		calendar_format(&c2, &b);
		if (strcmp(a.data, b.data) != 0)
			abort();		/* ... the same one */
		calendar_free(&c2);
		for (i = 0; i < 3; i++) {
			if (calendar_next(&c, loaded > 0 ? &berlin : NULL, t,
			    &next) < 0)
				break;
			if (next <= t)
				abort();	/* never back, never the base */
			t = next;
		}
	}
	calendar_free(&c);
	buf_free(&a);
	buf_free(&b);
	free(s);
	return 0;
}
