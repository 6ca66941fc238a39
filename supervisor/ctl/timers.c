/*
 * timers.c - `pidvisorctl timers`: the services run by timers, as
 * `systemctl list-timers` lists them (NEXT, LEFT, LAST, PASSED, then the
 * service), sorted by the next elapse; from status snapshots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "status.h"
#include "timers.h"
#include "tz.h"
#include "util.h"

/* The next first, those with none last; then by name. */
static int
timers_cmp(const void *a, const void *b)
{
	const struct svc_status	*x = a, *y = b;
	int64_t			 p = x->timer.next_real, q = y->timer.next_real;

	if (p != q)
		return p == 0 ? 1 : q == 0 ? -1 : p < q ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort v as timers lists it. */
void
timers_sort(struct svc_status *v, size_t n)
{
	qsort(v, n, sizeof(*v), timers_cmp);
}

/* The four cells of a timer, each "-" where there is nothing. */
struct timers_row {
	char	cell[4][64];
};

static void
timers_cell(char *out, size_t n, int64_t us, int64_t now, bool rel)
{
	struct buf	b = { 0 };

	if (us == 0) {
		snprintf(out, n, "-");
		return;
	}
	if (rel)
		calendar_relative(&b, us - now);
	else
		calendar_timestamp(&b, tz_system(), us);
	snprintf(out, n, "%s", b.data && !b.nomem ? b.data : "?");
	buf_free(&b);
}

static void
timers_row(const struct svc_status *st, int64_t now, struct timers_row *r)
{
	timers_cell(r->cell[0], sizeof(r->cell[0]), st->timer.next_real, now,
	    false);
	if (st->timer.deferred)
		snprintf(r->cell[1], sizeof(r->cell[1]), "deferred");
	else
		timers_cell(r->cell[1], sizeof(r->cell[1]),
		    st->timer.next_real, now, true);
	timers_cell(r->cell[2], sizeof(r->cell[2]), st->timer.last_real, now,
	    false);
	timers_cell(r->cell[3], sizeof(r->cell[3]), st->timer.last_real, now,
	    true);
}

/*
 * The table: a column as wide as its widest cell, a blank between; then
 * how many, and (without all) where the others are.  now: real us.
 */
void
timers_text(struct buf *b, const struct svc_status *v, size_t n,
    int64_t now, bool all)
{
	static const char *const head[] = { "NEXT", "LEFT", "LAST", "PASSED" };
	struct timers_row	*rows = calloc(n + 1, sizeof(*rows));
	int			 w[4];
	size_t			 i, j;

	if (rows == NULL) {
		b->nomem = true;
		return;
	}
	for (j = 0; j < 4; j++)
		w[j] = (int)strlen(head[j]);
	for (i = 0; i < n; i++) {
		timers_row(&v[i], now, &rows[i]);
		for (j = 0; j < 4; j++)
			if ((int)strlen(rows[i].cell[j]) > w[j])
				w[j] = (int)strlen(rows[i].cell[j]);
	}
	if (n > 0) {
		for (j = 0; j < 4; j++)
			buf_printf(b, "%-*s ", w[j], head[j]);
		buf_puts(b, "SERVICE\n");
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < 4; j++)
			buf_printf(b, "%-*s ", w[j], rows[i].cell[j]);
		buf_printf(b, "%s\n", v[i].name);
	}
	buf_printf(b, "%s%zu timer%s listed.\n", n > 0 ? "\n" : "", n,
	    n == 1 ? "" : "s");
	if (!all)
		buf_puts(b, "Pass --all to see loaded but inactive timers, "
		    "too.\n");
	free(rows);
}

/* A time in us, or null. */
static void
timers_json_us(struct buf *b, const char *key, int64_t us)
{
	if (us == 0)
		buf_printf(b, ",\"%s\":null", key);
	else
		buf_printf(b, ",\"%s\":%lld", key, (long long)us);
}

/* The list as JSON: times in us since the epoch, spans in us. */
void
timers_json(struct buf *b, const struct svc_status *v, size_t n,
    int64_t now)
{
	const struct timer_status	*t;
	size_t				 i, j;

	buf_puts(b, "[");
	for (i = 0; i < n; i++) {
		t = &v[i].timer;
		buf_puts(b, i ? ",{\"service\":" : "{\"service\":");
		buf_json_str(b, v[i].name);
		timers_json_us(b, "next", t->next_real);
		timers_json_us(b, "left", t->next_real ? t->next_real - now : 0);
		timers_json_us(b, "last", t->last_real);
		timers_json_us(b, "passed", t->last_real ? now - t->last_real :
		    0);
		buf_printf(b, ",\"armed\":%s,\"deferred\":%s,\"triggers\":%llu"
		    ",\"skipped\":{", t->armed ? "true" : "false",
		    t->deferred ? "true" : "false",
		    (unsigned long long)t->triggers);
		for (j = 0; j < SKIP__COUNT; j++)
			buf_printf(b, "%s\"%s\":%llu", j ? "," : "",
			    timer_skip_names[j],
			    (unsigned long long)t->skipped[j]);
		buf_puts(b, "}}");
	}
	buf_puts(b, "]\n");
}
