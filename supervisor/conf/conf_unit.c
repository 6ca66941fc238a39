/*
 * conf_unit.c - systemd's unit files, a second front end of the same
 * service model ([supervisor] systemd_units = yes): what boots is what
 * systemd would start, the closure of default.target through Wants=,
 * Requires= and the .wants/.requires directories; each .service in it
 * becomes a service NAME through the key table (its directives applied
 * as the keys they are, errors at the unit's FILE:LINE); a .timer puts
 * its schedule on the service it starts; targets are ordering points,
 * flattened into `after` between services.  A directive pidvisor cannot
 * honour is said with its FILE:LINE and what is done about it; a unit
 * with an error is not run, and said so.  Reading the files: unit.c;
 * each directive as its key: conf_unit_map.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf_unit.h"

static void
cu_err(void *arg, const char *file, int line, const char *msg)
{
	struct cu	*cu = arg;

	if (line > 0)
		conf_warn(cu->c, "%s:%d: %s (the line is ignored, as systemd "
		    "does)", file, line, msg);
	else
		conf_warn(cu->c, "%s: %s", file, msg);
}

/* Say an unsupported directive, and what is done about it. */
void
cu_note(struct cu_svc *cs, const struct unit_kv *kv, const char *what)
{
	conf_warn(cs->cu->c, "%s:%d: %s=: %s", kv->file, kv->line, kv->key,
	    what);
}

void
cu_refuse(struct cu_svc *cs, const struct unit_kv *kv, const char *why)
{
	conf_error(cs->cu->c, kv->file, kv->line, "%s=: %s", kv->key, why);
}

/* A service of the tree by name (not sorted yet: conf_check sorts). */
static struct svc_def *
cu_def(const struct conf *c, const char *name)
{
	size_t	i;

	for (i = 0; i < c->ndefs; i++)
		if (strcmp(c->defs[i]->name, name) == 0)
			return c->defs[i];
	return NULL;
}

/* "ssh" of "ssh.service" in out; false if it is not a service. */
static bool
cu_svc_name(const char *unit, char *out, size_t n)
{
	const char	*suf = unit_suffix(unit);

	if (suf == NULL || strcmp(suf, ".service") != 0 ||
	    (size_t)(suf - unit) >= n)
		return false;
	snprintf(out, n, "%.*s", (int)(suf - unit), unit);
	return true;
}

/* A value with its specifiers put in (unit_spec); an unknown one said. */
int
cu_spec(const struct unit *u, const struct unit_kv *kv, struct conf *c,
    struct buf *b)
{
	char	bad = ' ';
	int	rc = unit_spec(u, kv->value, b, &bad);

	if (rc == -EINVAL)
		conf_error(c, kv->file, kv->line, "%s=: unknown specifier "
		    "'%%%c' (pidvisor knows %%n %%N %%p %%P %%i %%I %%f %%u %%U "
		    "%%h %%s %%t %%S %%C %%L %%E %%T %%V %%H %%l %%v %%m %%b "
		    "%%%%)", kv->key,
		    bad);
	return rc;
}

/* Find a loaded unit by its name or its id (an alias's). */
struct unit *
cu_find(struct cu *cu, const char *name)
{
	size_t	i;

	for (i = 0; i < cu->n; i++)
		if (strcmp(cu->v[i].id, name) == 0 ||
		    strcmp(cu->v[i].name, name) == 0)
			return &cu->v[i];
	/* An alias loaded after its unit: "NAME ID". */
	for (i = 0; cu->aliases && cu->aliases[i]; i++) {
		size_t	n = strcspn(cu->aliases[i], " ");

		if (strlen(name) == n && strncmp(cu->aliases[i], name, n) == 0)
			return cu_find(cu, cu->aliases[i] + n + 1);
	}
	return NULL;
}

/* Load a unit (once): 0, or -ENOMEM. */
static int
cu_load(struct cu *cu, const char *name)
{
	struct unit	nu;

	if (cu_find(cu, name) != NULL)
		return 0;
	if (unit_load(&cu->up, name, &nu) < 0) {
		unit_free(&nu);
		return -ENOMEM;
	}
	if (cu_find(cu, nu.id) != NULL) {	/* another alias of it */
		struct buf	b = { 0 };

		buf_printf(&b, "%s %s", name, nu.id);
		if (b.nomem || (cu->aliases = strv_add(cu->aliases,
		    b.data)) == NULL) {
			buf_free(&b);
			unit_free(&nu);
			return -ENOMEM;
		}
		buf_free(&b);
		unit_free(&nu);
		return 0;
	}
	if (cu->n == cu->cap) {
		size_t	 cap = cu->cap ? 2 * cu->cap : 64;
		struct unit *v = realloc(cu->v, cap * sizeof(*v));

		if (v == NULL) {
			unit_free(&nu);
			return -ENOMEM;
		}
		cu->v = v;
		cu->cap = cap;
	}
	cu->v[cu->n++] = nu;
	return 0;
}

/*
 * The words of a list directive (every assignment, an empty one
 * resetting it), specifiers put in, appended to *out.
 */
static int
cu_words(const struct cu *cu, const struct unit *u, const char *section,
    const char *key, char ***out)
{
	const struct unit_kv	*kv;
	struct buf		 b = { 0 };
	char			 word[UNIT_NAME_MAX + 1];
	const char		*s;
	size_t			 n;
	int			 rc = 0;

	for (kv = u->kv; kv < u->kv + u->nkv && rc == 0; kv++) {
		if (strcmp(kv->section, section) != 0 ||
		    strcmp(kv->key, key) != 0 || kv->value[0] == '\0' ||
		    cu_reset_after(u, kv) || cu_spec(u, kv, cu->c, &b) < 0)
			continue;
		for (s = b.data; *(s += strspn(s, " \t")) != '\0'; s += n) {
			n = strcspn(s, " \t");
			if (n > UNIT_NAME_MAX) {
				conf_warn(cu->c, "%s:%d: %s=: a name too long",
				    kv->file, kv->line, key);
				continue;
			}
			snprintf(word, sizeof(word), "%.*s", (int)n, s);
			if (!unit_name_valid(word)) {
				conf_warn(cu->c, "%s:%d: %s=: '%s' is not a "
				    "unit name: ignored", kv->file, kv->line,
				    key, word);
				continue;
			}
			if ((*out = strv_add(*out, word)) == NULL)
				rc = -ENOMEM;
		}
	}
	buf_free(&b);
	return rc;
}

/*
 * What a unit pulls in: Wants=, Requires=, ..., its .wants/.requires, a
 * service's Sockets=; then what it starts (a timer's or a socket's
 * service), from *trig on (the index in *out, or where it ends).
 */
static int
cu_pulls(const struct cu *cu, const struct unit *u, char ***out,
    size_t *trig)
{
	static const char *const keys[] = { "Wants", "Requires", "Requisite",
	    "BindsTo" };
	char	**v = NULL, *t, buf[UNIT_NAME_MAX + 16];
	const struct unit_kv *kv;
	size_t	i;
	int	rc = 0;

	for (i = 0; i < ARRAY_SIZE(keys) && rc == 0; i++)
		rc = cu_words(cu, u, "Unit", keys[i], out);
	if (rc == 0 && cu_is(u, ".service"))
		rc = cu_words(cu, u, "Service", "Sockets", out);
	if (rc == 0)
		rc = unit_dir_list(&cu->up, u->id, ".wants", &v);
	for (i = 0; rc == 0 && v && v[i]; i++)
		if ((*out = strv_add(*out, v[i])) == NULL)
			rc = -ENOMEM;
	strv_free(v);
	v = NULL;
	if (rc == 0)
		rc = unit_dir_list(&cu->up, u->id, ".requires", &v);
	for (i = 0; rc == 0 && v && v[i]; i++)
		if ((*out = strv_add(*out, v[i])) == NULL)
			rc = -ENOMEM;
	strv_free(v);
	*trig = strv_len(*out);
	/* A socket starts its service (on its first client). */
	if (rc == 0 && cu_is(u, ".socket") && cu_socket_service(u, buf,
	    sizeof(buf)) && (*out = strv_add(*out, buf)) == NULL)
		rc = -ENOMEM;
	/* A timer starts its Unit=, by default its own name's service. */
	if (rc == 0 && strcmp(unit_suffix(u->id), ".timer") == 0) {
		if ((kv = unit_get(u, "Timer", "Unit")) != NULL)
			snprintf(buf, sizeof(buf), "%s", kv->value);
		else
			snprintf(buf, sizeof(buf), "%.*s.service",
			    (int)(unit_suffix(u->id) - u->id), u->id);
		t = buf;
		if ((*out = strv_add(*out, t)) == NULL)
			rc = -ENOMEM;
	}
	return rc;
}

/* Load the closure of default.target. */
static int
cu_closure(struct cu *cu)
{
	char	**pulls;
	size_t	  i, j, trig;
	struct unit *o;

	if (cu_load(cu, "default.target") < 0)
		return -ENOMEM;
	cu->v[0].pulled = true;
	/* cu->v grows as units load: by index, never a pointer kept. */
	for (i = 0; i < cu->n; i++) {
		if (cu->v[i].masked)
			continue;
		if (cu->v[i].fragment == NULL) {
			conf_warn(cu->c, "%s: no such unit in the unit path",
			    cu->v[i].name);
			continue;
		}
		pulls = NULL;
		if (cu_pulls(cu, &cu->v[i], &pulls, &trig) < 0) {
			strv_free(pulls);
			return -ENOMEM;
		}
		for (j = 0; pulls && pulls[j]; j++) {
			if (cu_load(cu, pulls[j]) < 0) {
				strv_free(pulls);
				return -ENOMEM;
			}
			if (j < trig && (o = cu_find(cu, pulls[j])) != NULL)
				o->pulled = true;
		}
		strv_free(pulls);
	}
	return 0;
}

/* Does the unit take the default dependencies (DefaultDependencies=)? */
static bool
cu_defaults(const struct unit *u)
{
	const struct unit_kv	*kv = unit_get(u, "Unit", "DefaultDependencies");
	bool			 b = true;

	return kv == NULL || parse_bool(kv->value, &b) < 0 || b;
}

bool
cu_is(const struct unit *u, const char *type)
{
	return strcmp(unit_suffix(u->id), type) == 0;
}

/* Does unit u name w in a list directive of [Unit]? */
static bool
cu_names(const struct cu *cu, const struct unit *u, const char *key,
    const struct unit *w)
{
	char	**v = NULL;
	size_t	  i;
	bool	  yes = false;

	if (cu_words(cu, u, "Unit", key, &v) < 0)
		return false;
	for (i = 0; v && v[i] && !yes; i++)
		yes = cu_find((struct cu *)cu, v[i]) == w;
	strv_free(v);
	return yes;
}

/*
 * A target comes after what it pulls in, as systemd's default
 * dependencies make it: not after a unit without them
 * (DefaultDependencies=no), nor after one ordered after it (no loop).
 */
static int
cu_target_after(struct cu *cu, const struct unit *t, char ***out)
{
	char	**pulls = NULL;
	size_t	  j, trig;
	struct unit *o;
	int	  rc;

	rc = cu_pulls(cu, t, &pulls, &trig);
	for (j = 0; rc == 0 && pulls && pulls[j]; j++) {
		if ((o = cu_find(cu, pulls[j])) != NULL && (o->masked ||
		    o->fragment == NULL || !cu_defaults(o) ||
		    cu_names(cu, o, "After", t) ||
		    cu_names(cu, t, "Before", o) || (cu_is(o, ".service") &&
		    (strcmp(t->id, "sysinit.target") == 0 ||
		    strcmp(t->id, "basic.target") == 0))))
			continue;	/* a service is after these two */
		if ((*out = strv_add(*out, pulls[j])) == NULL)
			rc = -ENOMEM;
	}
	strv_free(pulls);
	return rc;
}

/*
 * The order among the units: edge[i] lists what unit i comes after
 * (After=, the other's Before=, a target's after what it pulls in, a
 * service's after sysinit.target and basic.target by default).
 */
static int
cu_edges(struct cu *cu, char ***edge)
{
	char	**w;
	size_t	  i, j;
	int	  rc = 0;

	for (i = 0; i < cu->n && rc == 0; i++) {
		struct unit *u = &cu->v[i], *o;

		if (u->masked || u->fragment == NULL)
			continue;
		w = NULL;
		rc = cu_words(cu, u, "Unit", "After", &edge[i]);
		if (rc == 0 && cu_is(u, ".target") && cu_defaults(u))
			rc = cu_target_after(cu, u, &edge[i]);
		if (rc == 0 && cu_is(u, ".service") && cu_defaults(u) &&
		    ((edge[i] = strv_add(edge[i], "sysinit.target")) == NULL ||
		    (edge[i] = strv_add(edge[i], "basic.target")) == NULL))
			rc = -ENOMEM;
		if (rc == 0)
			rc = cu_words(cu, u, "Unit", "Before", &w);
		for (j = 0; rc == 0 && w && w[j]; j++)
			if ((o = cu_find(cu, w[j])) != NULL &&
			    (edge[o - cu->v] = strv_add(edge[o - cu->v],
			    u->id)) == NULL)
				rc = -ENOMEM;
		strv_free(w);
	}
	return rc;
}

/* Is name a word of b's blank-separated list? */
static bool
cu_buf_has(const struct buf *b, const char *name)
{
	size_t		 n = strlen(name);
	const char	*p;

	for (p = b->data; p != NULL && (p = strstr(p, name)) != NULL; p += n)
		if ((p == b->data || p[-1] == ' ') && (p[n] == ' ' ||
		    p[n] == '\0'))
			return true;
	return false;
}

/*
 * The services unit i comes after, through targets (and any other unit
 * that is not a service), appended to b as pidvisor names.
 */
static void
cu_after_walk(struct cu *cu, char ***edge, size_t i, bool *seen,
    struct buf *b, struct buf *soft, bool top)
{
	char	name[UNIT_NAME_MAX + 1], sock[UNIT_NAME_MAX + 1];
	size_t	j;
	struct unit *o, *s;

	for (j = 0; edge[i] && edge[i][j]; j++) {
		o = cu_find(cu, edge[i][j]);
		/* No such unit, but a service of an ini file of the name
		 * (systemd-remount-fs.ini for the unit a generator adds). */
		if ((o == NULL || o->fragment == NULL) &&
		    cu_svc_name(edge[i][j], name, sizeof(name)) &&
		    cu_def(cu->c, name) != NULL && !cu_buf_has(b, name))
			buf_printf(b, "%s%s", b->len ? " " : "", name);
		if (o == NULL || seen[o - cu->v] || o->masked ||
		    o->fragment == NULL)
			continue;
		seen[o - cu->v] = true;
		/* After a socket (its own After=, not a target's): after
		 * its service, which binds it, unless that closes a cycle
		 * (cu_soft()); not after its own (systemd-udevd's
		 * sockets); nothing to wait for if it is started on
		 * demand (bound from the start). */
		if (cu_is(o, ".socket")) {
			if (top && cu_socket_service(o, sock, sizeof(sock)) &&
			    (s = cu_find(cu, sock)) != NULL && s->pulled &&
			    !seen[s - cu->v] && !s->masked &&
			    s->fragment != NULL &&
			    cu_svc_name(s->id, name, sizeof(name)) &&
			    conf_name_valid(name) &&
			    !cu_buf_has(soft, name))
				buf_printf(soft, "%s%s", soft->len ? " " : "",
				    name);	/* not seen: a hard order wins */
			continue;
		}
		if (cu_is(o, ".service")) {
			if (cu_svc_name(o->id, name, sizeof(name)) &&
			    conf_name_valid(name))
				buf_printf(b, "%s%s", b->len ? " " : "", name);
		} else {
			cu_after_walk(cu, edge, (size_t)(o - cu->v), seen, b,
			    soft, false);
		}
	}
}

/* The services a unit requires (Requires=, BindsTo=, Requisite=). */
static int
cu_requires(struct cu *cu, const struct unit *u, struct buf *b)
{
	static const char *const keys[] = { "Requires", "BindsTo",
	    "Requisite" };
	char	**w = NULL, name[UNIT_NAME_MAX + 1];
	size_t	  i;
	struct unit *o;
	int	  rc = 0;

	for (i = 0; i < ARRAY_SIZE(keys) && rc == 0; i++)
		rc = cu_words(cu, u, "Unit", keys[i], &w);
	for (i = 0; rc == 0 && w && w[i]; i++) {
		size_t	j;

		for (j = 0; j < i && cu_find(cu, w[j]) != cu_find(cu, w[i]);
		    j++)
			;
		if (j == i && (o = cu_find(cu, w[i])) != NULL &&
		    cu_is(o, ".service") && !o->masked &&
		    cu_svc_name(o->id, name, sizeof(name)) &&
		    conf_name_valid(name))
			buf_printf(b, "%s%s", b->len ? " " : "", name);
	}
	strv_free(w);
	return rc;
}

/* Take back the errors from nerrs on: warnings, the unit not run. */
/* A unit not run, and why, for status (conf.refused). */
static void
cu_refused_add(struct cu *cu, const char *name, const char *why)
{
	struct buf	b = { 0 };

	/* For status only: without memory, the line is not kept. */
	buf_printf(&b, "%s\t%s", name, why);
	if (!b.nomem && buf_add(&b, "", 1) == 0)
		cu->c->refused = strv_add(cu->c->refused, b.data);
	buf_free(&b);
}

static void
cu_errors_to_warnings(struct cu *cu, size_t nerrs, const char *name)
{
	struct conf	*c = cu->c;
	char		 why[600];

	if (c->nerrs > nerrs) {		/* the first one says why */
		const struct conf_err	*e = &c->errs[nerrs];

		if (e->line > 0)
			snprintf(why, sizeof(why), "%s:%d: %s", e->file,
			    e->line, e->msg);
		else
			snprintf(why, sizeof(why), "%s: %s", e->file, e->msg);
		cu_refused_add(cu, name, why);
	}

	while (c->nerrs > nerrs) {
		struct conf_err	*e = &c->errs[--c->nerrs];

		if (e->line > 0)
			conf_warn(c, "%s:%d: %s (the unit is not run)",
			    e->file, e->line, e->msg);
		else
			conf_warn(c, "%s: %s (the unit is not run)", e->file,
			    e->msg);
		free(e->file);
		free(e->msg);
	}
}

/* systemd's own units that talk to it as process 1, on its bus. */
static const char *const cu_systemd_only[] = {
	"systemd-update-utmp.service",		/* the runlevel, the boot */
	"systemd-update-utmp-runlevel.service",
};

/* Make the service of unit i, if it is one to make. */
static void
cu_service(struct cu *cu, char ***edge, size_t i)
{
	struct unit	*u = &cu->v[i];
	struct cu_svc	 cs = { .cu = cu, .u = u };
	char		 name[UNIT_NAME_MAX + 1];
	struct buf	 b = { 0 }, soft = { 0 };
	size_t		 nerrs = cu->c->nerrs, j, started;
	bool		*seen;

	if (!cu_is(u, ".service") || u->masked || u->fragment == NULL ||
	    !cu_svc_name(u->id, name, sizeof(name)))
		return;
	if (cu_def(cu->c, name) != NULL) {
		conf_warn(cu->c, "%s: services/%s.ini is run instead",
		    u->fragment, name);
		return;
	}
	for (j = 0; j < ARRAY_SIZE(cu_systemd_only); j++)
		if (strcmp(u->id, cu_systemd_only[j]) == 0) {
			conf_warn(cu->c, "%s: it asks systemd, as process 1, "
			    "over D-Bus, which pidvisor is not: the unit is not "
			    "run", u->fragment);
			cu->refused[i] = true;
			cu_refused_add(cu, name, "it asks systemd (process 1) "
			    "over D-Bus");
			return;
		}
	if (!conf_name_valid(name)) {
		conf_warn(cu->c, "%s: '%s' cannot be a service's name in "
		    "pidvisor (letters, digits, _.@- ; at most %d): the unit "
		    "is not run", u->fragment, name, SVC_NAME_MAX);
		cu->refused[i] = true;
		cu_refused_add(cu, name, "not a name a service may have");
		return;
	}
	if ((cs.d = conf_def_begin(cu->c, &cs.p, u->fragment, name,
	    strchr(name, '@') != NULL)) == NULL)
		return;
	/* Its drop-ins, for cat. */
	for (j = 1; u->files != NULL && u->files[0] != NULL && u->files[j];
	    j++)
		if ((cs.d->dropins = strv_add(cs.d->dropins, u->files[j])) ==
		    NULL)
			cu->c->nomem = true;
	/* systemd's defaults where pidvisor's differ. */
	cs.d->restart = RESTART_NEVER;
	cs.d->ready_timeout = 90000;
	cs.d->stop_timeout = 90000;
	cs.d->ignore_sigpipe = true;
	cs.d->start_limit_burst = 5;		/* DefaultStartLimitBurst= */
	cs.d->start_limit_interval = 10000;
	cu_apply(&cs, u, NULL);
	if (cs.d->start_limit_interval == 0)
		cs.d->start_limit_burst = 0;	/* systemd's "no limit" */
	/* RestartSec= each time: no doubling, unless RestartMaxDelaySec=
	 * (systemd 254) asks for it. */
	if (cs.p.key_line[K_RESTART_DELAY_MAX] == 0)
		cs.d->restart_delay_max = cs.d->restart_delay;
	started = cu_timers(&cs) + cu_sockets(&cs, !u->pulled);
	if ((seen = calloc(cu->n, sizeof(*seen))) != NULL) {
		seen[i] = true;
		cu_after_walk(cu, edge, i, seen, &b, &soft, true);
		free(seen);
	}
	if (b.len > 0)
		conf_apply(&cs.p, u->fragment, 0, "after", b.data);
	b.len = 0;
	if (cu_requires(cu, u, &b) == 0 && b.len > 0)
		conf_apply(&cs.p, u->fragment, 0, "requires", b.data);
	b.len = 0;
	cs.p.file = u->fragment;
	conf_def_end(&cs.p, cs.d);
	if (cu->c->nerrs > nerrs) {
		cu_errors_to_warnings(cu, nerrs, name);
		cu->refused[i] = true;
		cu->c->ndefs--;
		svc_def_free(cs.d);
	} else if (!u->pulled && started == 0) {
		/* Only a socket not bound starts it (systemd-initctl's). */
		conf_warn(cu->c, "%s: only its sockets would start it, and "
		    "none is bound: the unit is not run", u->fragment);
		cu->c->ndefs--;
		svc_def_free(cs.d);
	} else if (soft.len > 0) {
		buf_printf(&b, "%s %s", name, soft.data);
		if (b.nomem || (cu->soft = strv_add(cu->soft, b.data)) == NULL)
			cu->c->nomem = true;
	}
	buf_free(&b);
	buf_free(&soft);
}

/* Does service from come after service to, through every after? */
static bool
cu_reaches(const struct conf *c, const struct svc_def *from,
    const struct svc_def *to, bool *seen)
{
	const struct svc_def	*d;
	size_t			 j;

	if (from == to)
		return true;
	for (j = 0; j < from->nafter; j++) {
		size_t	k;

		for (k = 0; k < c->ndefs && strcmp(c->defs[k]->name,
		    from->after[j].name) != 0; k++)
			;
		if (k == c->ndefs || seen[k])
			continue;
		seen[k] = true;
		d = c->defs[k];
		if (cu_reaches(c, d, to, seen))
			return true;
	}
	return false;
}

/*
 * The orders after a socket's service (cu_after_walk()): each kept
 * unless that service comes after this one already, as systemd drops
 * an order that closes a cycle (journald is after syslog.socket, whose
 * rsyslog comes after journald).
 */
static void
cu_soft(struct cu *cu)
{
	struct conf	*c = cu->c;
	struct svc_def	*d, *e;
	struct svc_dep	*v;
	char		 name[SVC_NAME_MAX + 1];
	const char	*s;
	size_t		 i, n, k;
	bool		*seen;

	for (i = 0; cu->soft && cu->soft[i]; i++) {
		s = cu->soft[i];
		n = strcspn(s, " ");
		snprintf(name, sizeof(name), "%.*s", (int)n, s);
		if ((d = cu_def(c, name)) == NULL)
			continue;
		for (s += n; *(s += strspn(s, " ")) != '\0'; s += n) {
			n = strcspn(s, " ");
			snprintf(name, sizeof(name), "%.*s", (int)n, s);
			if ((e = cu_def(c, name)) == NULL || e == d)
				continue;
			for (k = 0; k < d->nafter &&
			    strcmp(d->after[k].name, name) != 0; k++)
				;
			if (k < d->nafter ||
			    (seen = calloc(c->ndefs + 1, sizeof(*seen))) == NULL)
				continue;
			k = cu_reaches(c, e, d, seen);
			free(seen);
			if (k)
				continue;	/* a cycle: dropped */
			if ((v = realloc(d->after, (d->nafter + 1) *
			    sizeof(*v))) == NULL) {
				c->nomem = true;
				return;
			}
			d->after = v;
			if ((v[d->nafter].name = strdup(name)) == NULL) {
				c->nomem = true;
				return;
			}
			v[d->nafter++].line = 0;
			/* show: the unit's file gave it */
			keyset_add(&d->given, K_AFTER);
			if (conf_src_set(d, K_AFTER, d->file, 0, false) < 0)
				c->nomem = true;
		}
	}
}

/*
 * A service that requires one not run is not run either; one that
 * comes after it no longer waits for it.
 */
static void
cu_prune(struct cu *cu, size_t first)
{
	bool	changed = true;
	size_t	i, j;

	while (changed) {
		changed = false;
		for (i = first; i < cu->c->ndefs; i++) {
			struct svc_def	*d = cu->c->defs[i];

			for (j = 0; j < d->nafter; j++)
				if (cu_def(cu->c, d->after[j].name) ==
				    NULL) {
					free(d->after[j].name);
					d->after[j--] = d->after[--d->nafter];
				}
			for (j = 0; j < d->nrequires; j++)
				if (cu_def(cu->c, d->requires[j].name) ==
				    NULL)
					break;
			if (j == d->nrequires)
				continue;
			conf_warn(cu->c, "%s: requires %s, which is not run: "
			    "not run either", d->file, d->requires[j].name);
			{
				char	why[300];

				snprintf(why, sizeof(why), "requires %s, which "
				    "is not run", d->requires[j].name);
				cu_refused_add(cu, d->name, why);
			}
			cu->c->defs[i] = cu->c->defs[--cu->c->ndefs];
			svc_def_free(d);
			changed = true;
			i--;
		}
	}
}

/*
 * Load the units ([supervisor] systemd_units): the services of the
 * closure of default.target join the tree, after its ini files (one of
 * the same name wins).  0, or -ENOMEM.
 */
int
conf_units(struct conf *c)
{
	struct cu	  cu = { .c = c };
	char		***edge = NULL;
	size_t		  i, first = c->ndefs;
	int		  rc;

	if ((rc = unit_path_init(&cu.up, c->sup.unit_path ?
	    c->sup.unit_path : UNIT_PATH_DEFAULT)) < 0)
		goto out;
	cu.up.err = cu_err;
	cu.up.arg = &cu;
	if ((rc = cu_closure(&cu)) < 0)
		goto out;
	if ((edge = calloc(cu.n + 1, sizeof(*edge))) == NULL ||
	    (cu.refused = calloc(cu.n + 1, sizeof(*cu.refused))) == NULL ||
	    (cu.used = calloc(cu.n + 1, sizeof(*cu.used))) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = cu_edges(&cu, edge)) < 0)
		goto out;
	/* Sorted by name later (conf_check); made in name order here. */
	for (i = 0; i < cu.n; i++)
		cu_service(&cu, edge, i);
	cu_prune(&cu, first);
	cu_soft(&cu);
	cu_sockets_unused(&cu);
out:
	if (rc == -ENOMEM) {
		conf_error(c, "units", 0, "%s", strerror(ENOMEM));
		c->nomem = true;
	}
	for (i = 0; edge != NULL && i < cu.n; i++)
		strv_free(edge[i]);
	free(edge);
	free(cu.refused);
	free(cu.used);
	strv_free(cu.aliases);
	strv_free(cu.soft);
	for (i = 0; i < cu.n; i++)
		unit_free(&cu.v[i]);
	free(cu.v);
	unit_path_free(&cu.up);
	return rc;
}

/* unit_path: absolute directories, ':' between them. */
const char *
conf_unit_path(struct parse_ctx *p, void *obj, const char *v)
{
	const char	*s;
	size_t		 n;

	for (s = v; *s != '\0'; s += n + (s[n] == ':')) {
		n = strcspn(s, ":");
		if (n == 0 || s[0] != '/' || n >= PATH_MAX)
			return bad(p, "unit_path: '%.*s' is not an absolute "
			    "directory (DIR:DIR:...)", (int)n, s);
	}
	if (*v == '\0')
		return bad(p, "unit_path: no directory");
	return key_str((char **)(void *)((char *)obj + p->key->f[0].off), v);
}
