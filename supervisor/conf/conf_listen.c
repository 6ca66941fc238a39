/*
 * conf_listen.c - the values of the keys of held fds (socks.c holds
 * them): listen and its options, on_demand, accept, max_connections,
 * fdstore_max; and the checks that need a whole file, or every file
 * (two services cannot listen on one address).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"
#include "listen.h"

/* listen: one socket per line (the key may be given again). */
const char *
conf_listen(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def		*d = obj;
	struct listen_addr	 a;
	size_t			 n = strv_len(d->listen);
	int			*lines;
	const char		*why;
	char			 err[sizeof(p->why) - 16];

	if (listen_parse(v, &a, err, sizeof(err)) < 0)
		return bad(p, "listen: %s", err);
	if (n == LISTEN_MAX)
		return bad(p, "listen: at most %d sockets", LISTEN_MAX);
	if ((lines = realloc(d->listen_lines, (n + 1) * sizeof(*lines))) ==
	    NULL)
		return bad(p, "%s", strerror(ENOMEM));
	d->listen_lines = lines;
	lines[n] = p->line;
	if ((why = key_strv_add(&d->listen, v)) != NULL)
		return why;
	return NULL;
}

/* listen_owner: USER or USER:GROUP, for unix sockets. */
const char *
conf_listen_owner(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	char		 path[4096], user[256];
	const char	*colon = strchr(v, ':');
	struct passwd	*pw = NULL;
	FILE		*f;
	uint64_t	 n;
	size_t		 len = colon ? (size_t)(colon - v) : strlen(v);
	bool		 numeric;

	if (len == 0 || len >= sizeof(user) || (colon && colon[1] == '\0'))
		return bad(p, "listen_owner: expected USER or USER:GROUP, not "
		    "'%s'", v);
	memcpy(user, v, len);
	user[len] = '\0';
	numeric = parse_u64(user, UINT32_MAX - 1, &n) == 0;
	snprintf(path, sizeof(path), "%s/passwd", p->c->etc);
	if ((f = fopen(path, "re")) != NULL) {
		while ((pw = fgetpwent(f)) != NULL && (numeric ?
		    pw->pw_uid != n : strcmp(pw->pw_name, user) != 0))
			;
		if (pw != NULL) {
			d->listen_uid = pw->pw_uid;
			d->listen_gid = pw->pw_gid;
		}
		fclose(f);
	}
	if (pw == NULL && !numeric)
		return bad(p, "listen_owner: no user '%s' in %s", user, path);
	if (pw == NULL)
		d->listen_uid = d->listen_gid = (uid_t)n;
	if (colon && conf_group_find(p, K_LISTEN_OWNER, colon + 1,
	    &d->listen_gid) < 0)
		return NULL;	/* said */
	return key_str(&d->listen_owner, v);
}

/* listen_mode: octal. */
const char *
conf_listen_mode(struct parse_ctx *p, void *obj, const char *v)
{
	if (parse_mode(v, &((struct svc_def *)obj)->listen_mode) < 0)
		return bad(p, "listen_mode: expected an octal mode such as "
		    "0660, not '%s'", v);
	return NULL;
}

/* Is it an accept = yes template's instance, made for one client? */
bool
conf_def_is_conn(const struct svc_def *d)
{
	return d->accept && strchr(d->name, '@') != NULL;
}

/* The checks of one file, once it is read. */
void
conf_listen_finish(struct parse_ctx *p, struct svc_def *d)
{
	static const int	needs[] = {
		K_LISTEN_BACKLOG, K_LISTEN_OWNER, K_LISTEN_MODE, K_ON_DEMAND,
		K_ACCEPT, K_TRIGGER_LIMIT_INTERVAL, K_TRIGGER_LIMIT_BURST,
	};
	struct listen_addr	a, b;
	size_t			i, j, n = strv_len(d->listen);
	bool			unix_ = false, dgram = false;
	char			err[8];

	for (i = 0; i < ARRAY_SIZE(needs) && n == 0; i++)
		if (p->key_line[needs[i]])
			conf_error(p->c, p->file, p->key_line[needs[i]], "%s: "
			    "no listen socket to apply it to",
			    conf_keys[needs[i]].name);
	for (i = 0; i < n; i++) {
		unix_ |= listen_is_unix(d->listen[i]);
		dgram |= !listen_is_stream(d->listen[i]);
		listen_parse(d->listen[i], &a, err, sizeof(err));
		for (j = 0; j < i; j++) {
			listen_parse(d->listen[j], &b, err, sizeof(err));
			if (listen_same(&a, &b))
				conf_error(p->c, p->file, d->listen_lines[i],
				    "listen: %s is given twice (line %d)",
				    d->listen[i], d->listen_lines[j]);
		}
	}
	if (n > 0 && !unix_ && (p->key_line[K_LISTEN_OWNER] ||
	    p->key_line[K_LISTEN_MODE]))
		conf_error(p->c, p->file, p->key_line[K_LISTEN_OWNER] ?
		    p->key_line[K_LISTEN_OWNER] : p->key_line[K_LISTEN_MODE],
		    "%s: only a unix socket has an owner and a mode",
		    p->key_line[K_LISTEN_OWNER] ? "listen_owner" :
		    "listen_mode");
	/* systemd's TriggerLimitBurst=: 200 clients for accept, 20 starts
	 * on demand, in trigger_limit_interval; 0 is none. */
	if (!p->key_line[K_TRIGGER_LIMIT_BURST])
		d->trigger_burst = d->accept ? 200 : 20;
	/* An instance serves its client once: a reload finds it so too. */
	if (d->accept && p->tmpl)
		d->restart = RESTART_NEVER;
	if (d->accept && !p->tmpl)
		conf_error(p->c, p->file, p->key_line[K_ACCEPT], "accept: only "
		    "a template (services/NAME@.ini) makes an instance per "
		    "client");
	if (d->accept && dgram)
		conf_error(p->c, p->file, p->key_line[K_ACCEPT], "accept: a "
		    "datagram socket has no connections to accept");
	if (d->accept && d->on_demand)
		conf_error(p->c, p->file, p->key_line[K_ON_DEMAND], "on_demand: "
		    "with accept, each client starts an instance already");
	if (d->accept && p->key_line[K_INSTANCES])
		conf_error(p->c, p->file, p->key_line[K_INSTANCES], "instances: "
		    "with accept, an instance is made per client");
	if (!d->accept && p->key_line[K_MAX_CONNECTIONS])
		conf_error(p->c, p->file, p->key_line[K_MAX_CONNECTIONS],
		    "max_connections: needs accept = yes");
	if (!d->accept && p->key_line[K_MAX_CONNECTIONS_PER_SOURCE])
		conf_error(p->c, p->file,
		    p->key_line[K_MAX_CONNECTIONS_PER_SOURCE],
		    "max_connections_per_source: needs accept = yes");
	if (n > 0 && !d->accept && !d->on_demand &&
	    (p->key_line[K_TRIGGER_LIMIT_INTERVAL] ||
	    p->key_line[K_TRIGGER_LIMIT_BURST]))
		conf_error(p->c, p->file, p->key_line[K_TRIGGER_LIMIT_BURST] ?
		    p->key_line[K_TRIGGER_LIMIT_BURST] :
		    p->key_line[K_TRIGGER_LIMIT_INTERVAL], "%s: needs accept "
		    "or on_demand (a client triggers nothing else)",
		    p->key_line[K_TRIGGER_LIMIT_BURST] ? "trigger_limit_burst" :
		    "trigger_limit_interval");
	if (d->on_demand && ready_kinds[d->ready].task)
		conf_error(p->c, p->file, p->key_line[K_ON_DEMAND], "on_demand: "
		    "a task (ready = exit) runs once, not per client");
	if (d->fdstore_max && !ready_kinds[d->ready].notify)
		conf_error(p->c, p->file, p->key_line[K_FDSTORE_MAX],
		    "fdstore_max: needs ready = notify (fds come with "
		    "FDSTORE=1 on its notify socket)");
	j = d->accept ? 1 : n + d->fdstore_max;
	if (ready_kinds[d->ready].pipe && (size_t)d->ready_fd < 3 + j)
		conf_error(p->c, p->file, p->key_line[K_READY], "ready: fd:%d "
		    "is among the fds it is given (3 to %zu: listen%s); take "
		    "fd:%zu or above", d->ready_fd, 2 + j, d->fdstore_max ?
		    ", fdstore_max" : "", 3 + j);
}

/* Across files: one address, one service (an accept's instances aside). */
void
conf_listen_check(struct conf *c)
{
	struct listen_addr	a, b;
	char			err[8];
	size_t			i, j, k, l;

	for (i = 0; i < c->ndefs; i++) {
		const struct svc_def	*d = c->defs[i];

		if (conf_def_is_conn(d))
			continue;
		for (k = 0; d->listen && d->listen[k]; k++) {
			listen_parse(d->listen[k], &a, err, sizeof(err));
			for (j = 0; j < i; j++) {
				const struct svc_def	*e = c->defs[j];

				if (conf_def_is_conn(e))
					continue;
				for (l = 0; e->listen && e->listen[l]; l++) {
					listen_parse(e->listen[l], &b, err,
					    sizeof(err));
					if (listen_same(&a, &b))
						conf_error(c, d->file,
						    d->listen_lines[k],
						    "listen: %s is %s's "
						    "too (%s:%d)",
						    d->listen[k], e->name,
						    e->file,
						    e->listen_lines[l]);
				}
			}
		}
	}
}
