/*
 * conf_pressure.c - the values of the low-memory killer's keys
 * (pressure.c acts on them): its two triggers, its memory floor and the
 * lowest kill_priority it kills at medium pressure; and a service's
 * MEMORY_PRESSURE_WATCH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"

/*
 * pressure, pressure_critical = off | some|full STALL WINDOW: a PSI
 * trigger.  Durations ("some 150ms 1s"); a bare number is microseconds,
 * as the kernel takes them ("some 150000 1000000").
 */
const char *
conf_pressure(struct parse_ctx *p, void *obj, const char *v)
{
	const struct conf_key	*k = p->key;
	uint32_t		*stall = (uint32_t *)(void *)((char *)obj +
				    k->f[0].off);
	uint32_t		*win = (uint32_t *)(void *)((char *)obj +
				    k->f[1].off);
	bool			*full = (bool *)((char *)obj + k->f[2].off);
	char			 kind[8], a[32], b[32];
	uint64_t		 st, w;
	int			 n = 0;

	if (!strcmp(v, "off")) {
		*stall = 0;
		return NULL;
	}
	if (sscanf(v, "%7s %31s %31s %n", kind, a, b, &n) != 3 ||
	    v[n] != '\0' || (strcmp(kind, "some") && strcmp(kind, "full")) ||
	    parse_duration_us(a, 1, UINT32_MAX, &st) < 0 ||
	    parse_duration_us(b, 1, UINT32_MAX, &w) < 0 ||
	    st == 0 || w < 500000 || w > 10000000 || st > w)
		return bad(p, "%s: expected off or some|full STALL WINDOW "
		    "(durations; a bare number is microseconds), the window "
		    "from 500ms to 10s, not '%s'", k->name, v);
	*full = kind[0] == 'f';
	*stall = (uint32_t)st;
	*win = (uint32_t)w;
	return NULL;
}

/* pressure_min_available = off | PERCENT% | SIZE: the memory floor. */
const char *
conf_pressure_min_available(struct parse_ctx *p, void *obj, const char *v)
{
	struct sup_conf	*s = obj;
	char		*end;
	double		 pct;
	uint64_t	 size;

	s->pressure_min_available = 0;
	s->pressure_min_pct = 0;
	if (!strcmp(v, "off")) {
		free(s->pressure_min_str);
		s->pressure_min_str = NULL;
		return NULL;
	}
	if (v[0] && v[strlen(v) - 1] == '%') {
		pct = strtod(v, &end);
		if (end != v + strlen(v) - 1 || end == v || !(pct > 0) ||
		    pct > 50)
			return bad(p, "pressure_min_available: expected a "
			    "percent above 0 and at most 50%%, not '%s'", v);
		s->pressure_min_pct = (uint32_t)(pct * 100 + 0.5);
		if (s->pressure_min_pct == 0)
			s->pressure_min_pct = 1;
	} else if (parse_size(v, UINT64_MAX, &size) < 0 || size == 0) {
		return bad(p, "pressure_min_available: expected off, a percent "
		    "of the memory (5%%) or a size (200M), not '%s'", v);
	} else {
		s->pressure_min_available = size;
	}
	return key_str(&s->pressure_min_str, v);
}

/* pressure_min_priority: 0 to 1000. */
const char *
conf_pressure_min_priority(struct parse_ctx *p, void *obj, const char *v)
{
	uint64_t	n;

	if (parse_u64(v, 1000, &n) < 0)
		return bad(p, "pressure_min_priority: expected a kill_priority "
		    "from 0 to 1000, not '%s'", v);
	((struct sup_conf *)obj)->pressure_min_priority = (int32_t)n;
	return NULL;
}
