/*
 * pidmap.c - the live service processes, by PID: what the orphan reaper
 * and the notify socket need, a zombie's or a sender's PID to its
 * service.  Exact for our own unreaped children, whose PIDs cannot be
 * reused.  A hash with chains through the nodes; it never grows while
 * services run (pidmap_reserve is called when the set changes), so
 * adding a spawned service cannot fail.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "pidmap.h"

static size_t
pidmap_slot(const struct pidmap *m, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (m->size - 1);
}

/*
 * Room for n entries without a long chain: at least 2n slots.  The
 * entries are put back by their PIDs.  0, or -ENOMEM (nothing changed).
 */
int
pidmap_reserve(struct pidmap *m, size_t n)
{
	struct pidmap_node	**v, *e, *next;
	size_t			  size = 16, i, old = m->size;

	while (size < 2 * n)
		size *= 2;
	if (size <= m->size)
		return 0;
	if ((v = calloc(size, sizeof(*v))) == NULL)
		return -ENOMEM;
	m->size = size;
	for (i = 0; i < old; i++) {
		for (e = m->v[i]; e; e = next) {
			next = e->next;
			e->next = v[pidmap_slot(m, e->pid)];
			v[pidmap_slot(m, e->pid)] = e;
		}
	}
	free(m->v);
	m->v = v;
	return 0;
}

void
pidmap_add(struct pidmap *m, struct pidmap_node *e, pid_t pid)
{
	size_t	i;

	e->pid = pid;
	i = pidmap_slot(m, pid);
	e->next = m->v[i];
	m->v[i] = e;
	m->n++;
}

void
pidmap_del(struct pidmap *m, struct pidmap_node *e)
{
	struct pidmap_node	**pp;

	if (m->size == 0)
		return;
	for (pp = &m->v[pidmap_slot(m, e->pid)]; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			e->next = NULL;
			m->n--;
			return;
		}
	}
}

/* The entry of pid, or NULL. */
struct pidmap_node *
pidmap_get(const struct pidmap *m, pid_t pid)
{
	struct pidmap_node	*e;

	if (pid <= 0 || m->size == 0)
		return NULL;
	for (e = m->v[pidmap_slot(m, pid)]; e; e = e->next)
		if (e->pid == pid)
			return e;
	return NULL;
}

void
pidmap_free(struct pidmap *m)
{
	free(m->v);
	m->v = NULL;
	m->size = m->n = 0;
}
