/*
 * svc_set.c - the set of services as a graph: sorted by name, each
 * dependency resolved in both directions, and walks along them that
 * change nothing.  The moves along them are svc.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "svc.h"

static int
svc_cmp(const void *a, const void *b)
{
	const struct svc *const *x = a, *const *y = b;

	return strcmp((*x)->def->name, (*y)->def->name);
}

/* The service named name, or NULL. */
struct svc *
svc_find(const struct svc_set *set, const char *name)
{
	struct svc_def	 d = { .name = (char *)name };
	struct svc	 key = { .def = &d }, *kp = &key, **r;

	r = bsearch(&kp, set->v, set->n, sizeof(*set->v), svc_cmp);
	return r ? *r : NULL;
}

/* Append s to a list of services. */
static int
svc_list_add(struct svc ***v, uint32_t *n, struct svc *s)
{
	struct svc	**nv;

	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL)
		return -ENOMEM;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

/*
 * Sort the set and resolve every dependency name to its service, in both
 * directions.  The configuration was checked: every name exists.
 */
int
svc_set_link(struct svc_set *set)
{
	size_t		 i, j;
	struct svc	*s, *t;
	int		 rc = 0;

	if (set->n > 1)
		qsort(set->v, set->n, sizeof(*set->v), svc_cmp);
	free(set->stack);
	if ((set->stack = calloc(set->n + 1, sizeof(*set->stack))) == NULL)
		return -ENOMEM;
	for (i = 0; i < set->n; i++) {
		s = set->v[i];
		free(s->reqs);
		free(s->afters);
		free(s->req_by);
		free(s->after_by);
		s->reqs = s->afters = s->req_by = s->after_by = NULL;
		s->nreqs = s->nafters = s->nreq_by = s->nafter_by = 0;
	}
	for (i = 0; i < set->n; i++) {
		s = set->v[i];
		for (j = 0; j < s->def->nrequires; j++) {
			if ((t = svc_find(set, s->def->requires[j].name)) == NULL)
				continue;
			rc |= svc_list_add(&s->reqs, &s->nreqs, t);
			rc |= svc_list_add(&t->req_by, &t->nreq_by, s);
		}
		for (j = 0; j < s->def->nafter; j++) {
			if ((t = svc_find(set, s->def->after[j].name)) == NULL)
				continue;
			rc |= svc_list_add(&s->afters, &s->nafters, t);
			rc |= svc_list_add(&t->after_by, &t->nafter_by, s);
		}
	}
	return rc ? -ENOMEM : 0;
}

/*
 * What a stop (running: a restart) of s takes along: every service that
 * requires it, directly or not, and is up or wants up (running: has a
 * process), each once, with the one it requires that brought it in:
 * cb(x, via, arg).  Call it before the command, which changes the wants.
 */
void
svc_dependents(struct svc *s, bool running,
    void (*cb)(struct svc *, struct svc *, void *), void *arg)
{
	struct svc_set	 *set = s->set;
	struct svc	**stack = set->stack, *x;
	size_t		  top = 0;
	uint32_t	  i;

	set->round++;
	stack[top++] = s;
	s->mark = set->round;
	while (top > 0) {
		x = stack[--top];
		for (i = 0; i < x->nreq_by; i++) {
			struct svc	*y = x->req_by[i];

			if (y->mark == set->round || !(svc_has_process(y) ||
			    (!running && y->want_up)))
				continue;
			y->mark = set->round;
			stack[top++] = y;
			cb(y, x, arg);
		}
	}
}

