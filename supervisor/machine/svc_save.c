/*
 * svc_save.c - a service's part of a re-exec's state (SVC_STATE, svc.h):
 * written by name, read back by the next binary, which keeps its
 * default for what it does not find.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
#include "svc.h"

/*
 * A re-exec's state of a service, field by field as SVC_STATE says
 * (svc.h): the next binary takes the service over from it.  A reason's
 * dependency goes by name.
 */
static void
svc_reason_save(struct st_w *w, const char *name, const struct svc_reason *r)
{
	st_begin(w, name);
	st_u8(w, "why", r->why);
	st_u8(w, "stage", r->stage);
	st_u8(w, "early", r->early);
	st_u32(w, "code", (uint32_t)r->code);
	st_str(w, "dep", r->dep ? r->dep->def->name : NULL);
	st_end(w);
}

static void
svc_reason_load(struct st_r *r, const char *name, struct svc_set *set,
    struct svc_reason *v)
{
	char	*dep = NULL;

	if (!st_enter(r, name))
		return;
	st_get_u8(r, "why", &v->why);
	if (v->why >= WHY__COUNT)	/* a later release's: not ours */
		v->why = WHY_NONE;
	st_get_u8(r, "stage", &v->stage);
	st_get_bool(r, "early", &v->early);
	st_get_i32(r, "code", &v->code);
	st_get_str(r, "dep", &dep);
	v->dep = dep ? svc_find(set, dep) : NULL;
	free(dep);
	st_leave(r);
}

#define SVC_SAVE_U8(n, v)	st_u8(w, n, (uint8_t)(v));
#define SVC_SAVE_BOOL(n, v)	st_u8(w, n, (v) ? 1 : 0);
#define SVC_SAVE_I32(n, v)	st_u32(w, n, (uint32_t)(v));
#define SVC_SAVE_U32(n, v)	st_u32(w, n, (v));
#define SVC_SAVE_I64(n, v)	st_i64(w, n, (v));
#define SVC_SAVE_U64(n, v)	st_u64(w, n, (v));
#define SVC_SAVE_STR(n, v)	st_str(w, n, (v));
#define SVC_SAVE_FD(n, v)	st_fd_kept(w, n, (v));
#define SVC_SAVE_REASON(n, v)	svc_reason_save(w, n, &(v));
/* Does a field differ from the new service's (d)?  Then it is written. */
#define SVC_DIFF_U8(a, b)	((a) != (b))
#define SVC_DIFF_BOOL(a, b)	((a) != (b))
#define SVC_DIFF_I32(a, b)	((a) != (b))
#define SVC_DIFF_U32(a, b)	((a) != (b))
#define SVC_DIFF_I64(a, b)	((a) != (b))
#define SVC_DIFF_U64(a, b)	((a) != (b))
#define SVC_DIFF_STR(a, b)	((a) != (b))
#define SVC_DIFF_FD(a, b)	((a) != (b))
#define SVC_DIFF_REASON(a, b)	((a).why != (b).why || (a).stage != (b).stage || \
				 (a).early != (b).early || (a).code != (b).code || \
				 (a).dep != (b).dep)
#define SVC_SAVE(name, how, since)					\
	if (SVC_DIFF_##how(s->name, d.name)) {				\
		SVC_SAVE_##how(#name, s->name)				\
	}

/*
 * Write what s is now (apart from its definition) to w: the fields that
 * differ from a service just made of its definition (svc_init), which
 * is what the next binary reads them onto: a sleeping service's counters
 * and flags at zero take no room.
 */
void
svc_save(const struct svc *s, struct st_w *w)
{
	struct svc	d;

	svc_init(&d, s->def, s->set);
	st_begin(w, "svc");
	st_str(w, "name", s->def->name);
	SVC_STATE(SVC_SAVE)
	st_u8(w, "queued", s->queued);	/* was to be stepped: is again */
	st_end(w);
}

#define SVC_LOAD_U8(n, v)	st_get_u8(r, n, &(v));
#define SVC_LOAD_BOOL(n, v)	st_get_bool(r, n, &(v));
#define SVC_LOAD_I32(n, v)	st_get_i32(r, n, &(v));
#define SVC_LOAD_U32(n, v)	st_get_u32(r, n, &(v));
#define SVC_LOAD_I64(n, v)	st_get_i64(r, n, &(v));
#define SVC_LOAD_U64(n, v)	st_get_u64(r, n, &(v));
#define SVC_LOAD_STR(n, v)	st_get_str(r, n, &(v));
#define SVC_LOAD_FD(n, v)	st_get_fd_kept(r, n, &(v));
#define SVC_LOAD_REASON(n, v)	svc_reason_load(r, n, s->set, &(v));
#define SVC_LOAD(name, how, since)					\
	if (st_since(r, since)) {					\
		SVC_LOAD_##how(#name, s->name)				\
	}

/* Each field's size is its kind's (svc.h's list and struct agree). */
#define SVC_SIZE_U8	1
#define SVC_SIZE_BOOL	sizeof(bool)
#define SVC_SIZE_I32	4
#define SVC_SIZE_U32	4
#define SVC_SIZE_I64	8
#define SVC_SIZE_U64	8
#define SVC_SIZE_STR	sizeof(char *)
#define SVC_SIZE_FD	sizeof(int)
#define SVC_SIZE_REASON	sizeof(struct svc_reason)
#define SVC_ASSERT(name, how, since)					\
	_Static_assert(sizeof(((struct svc *)0)->name) == SVC_SIZE_##how, \
	    #name " is not a " #how);
SVC_STATE(SVC_ASSERT)

/*
 * Read what svc_save() wrote into s, already made of its definition (the
 * same name comes first); what is missing keeps its default.  0, or
 * -EINVAL with the error in r.
 */
int
svc_load(struct svc *s, struct st_r *r)
{
	char	*name = NULL;
	bool	 queued = false;

	if (!st_enter(r, "svc")) {
		st_fail(r, "%s: no state", s->def->name);
		return -EINVAL;
	}
	if (!st_get_str(r, "name", &name) || name == NULL ||
	    strcmp(name, s->def->name) != 0) {
		st_fail(r, "service %s where %s was expected", name ? name :
		    "(none)", s->def->name);
		free(name);
		return -EINVAL;
	}
	free(name);
	SVC_STATE(SVC_LOAD)
	st_get_bool(r, "queued", &queued);
	st_leave(r);
#ifdef PV_TEST_FIELD
	log_info("%s: test_field %u", s->def->name, s->test_field);
#endif
	if (s->state >= SVC__STATES)
		st_fail(r, "%s: state %d", s->def->name, s->state);
	if (st_bad(r))
		return -EINVAL;
	if (queued)
		svc_kick(s);
	return 0;
}
