/*
 * conf_unit.h - between the unit front end's two halves: conf_unit.c
 * (what boots: the closure, the order, each service made) and
 * conf_unit_map.c (each directive as the key it is).
 */
#ifndef PIDVISOR_CONF_UNIT_H
#define PIDVISOR_CONF_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "conf_parse.h"
#include "unit.h"

#define CU_LIST		0x01	/* every assignment counts (an empty one
				 * resets); else the last one */
#define CU_SILENT	0x02	/* a no-op kept quiet (what it says is
				 * done elsewhere, or is for people) */
#define CU_EMPTY	0x04	/* an empty value is one (none), not a
				 * reset to the default */

struct cu {
	struct conf		*c;
	struct unit_path	 up;
	struct unit		*v;		/* every unit loaded */
	size_t			 n;
	size_t			 cap;
	char			**after;	/* per unit: the services it
						 * comes after, blank-separated */
	char			**requires;
	bool			*refused;
	bool			*used;		/* per unit: a socket a service
						 * takes */
	char			**aliases;	/* "NAME ID": an alias loaded
						 * after its unit */
	char			**soft;		/* "NAME AFTER...": orders
						 * after sockets' services */
};

/* One service being made from its unit. */
struct cu_svc {
	struct cu		*cu;
	struct unit		*u;
	struct parse_ctx	 p;
	struct svc_def		*d;
};

typedef void cu_fn(struct cu_svc *cs, const struct unit_kv *kv,
    const char *v, const char *arg);

struct cu_map {
	const char	*section;
	const char	*key;
	cu_fn		*fn;
	const char	*arg;		/* pidvisor's key, or fn's word */
	uint8_t		 flags;
};

void		 cu_note(struct cu_svc *cs, const struct unit_kv *kv,
		    const char *what);
void		 cu_refuse(struct cu_svc *cs, const struct unit_kv *kv,
		    const char *why);
int		 cu_spec(const struct unit *u, const struct unit_kv *kv,
		    struct conf *c, struct buf *b);
struct unit	*cu_find(struct cu *cu, const char *name);
void		 cu_apply(struct cu_svc *cs, const struct unit *u,
		    const char *sect);
size_t		 cu_timers(struct cu_svc *cs);
bool		 cu_socket_service(const struct unit *t, char *out, size_t n);
size_t		 cu_sockets(struct cu_svc *cs, bool on_demand);
void		 cu_sockets_unused(struct cu *cu);
bool		 cu_is(const struct unit *u, const char *type);
bool		 cu_last(const struct unit *u, const struct unit_kv *kv);
bool		 cu_reset_after(const struct unit *u,
		    const struct unit_kv *kv);

#endif
