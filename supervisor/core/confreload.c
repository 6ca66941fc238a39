/*
 * confreload.c - apply a changed configuration to the running supervisor
 * (`pidvisorctl reload`, SIGHUP).  A service's own reload is hook.c's
 * (hook_reload_start()).
 *
 * The whole tree is parsed again.  If anything in it is wrong, nothing
 * changes.  Otherwise the difference is applied: new services start (if
 * enabled), removed ones stop and are forgotten once down, changed ones
 * restart with their new definition, and unchanged ones keep their
 * process, pidfd and uptime.
 *
 * A removed service keeps its old definition until it is down.  The new
 * tree was checked, so nothing in it requires a removed service, and the
 * graph made of both stays consistent: removed services stop dependents
 * first, like any stop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pressure.h"
#include "sup.h"
#include "security.h"
#include "tz.h"

/*
 * Supervisor-wide settings: each key of [supervisor] that changed is
 * applied at once (KEY_LIVE: ctl.c and pressure.c read them live) or
 * said to need a restart of pidvisor.  The table decides, so that no
 * key can be forgotten.
 */
static void
confreload_settings(struct sup *sup, const struct sup_conf *n,
    struct buf *report)
{
	struct sup_conf	*o = &sup->conf.sup;
	char		 err[160];
	size_t		 i;
	bool		 watch = false;

	for (i = 0; i < K__COUNT; i++) {
		const struct conf_key	*k = &conf_keys[i];

		if (k->section != SEC_SUPERVISOR || conf_key_equal(k, o, n))
			continue;
		if (!(k->flags & KEY_LIVE)) {
			buf_printf(report, "pidvisor.ini: %s takes effect when "
			    "pidvisor restarts\n", k->name);
			continue;
		}
		if (i == K_METRICS_LISTEN && sup_metrics_apply(sup,
		    n->metrics_listen, err, sizeof(err)) < 0) {
			buf_printf(report, "pidvisor.ini: metrics_listen: %s; "
			    "not applied\n", err);
			continue;
		}
		if (conf_key_copy(k, o, n) < 0) {
			buf_printf(report, "pidvisor.ini: %s: %s; not "
			    "applied\n", k->name, strerror(ENOMEM));
			continue;
		}
		buf_printf(report, "pidvisor.ini: %s = ", k->name);
		conf_key_show(report, k, o);
		buf_puts(report, "\n");
		watch |= i == K_WATCH_UNITS || i == K_UNIT_PATH ||
		    i == K_SYSTEMD_UNITS;
	}
	if (watch)
		unitwatch_apply(&sup->uw);	/* watch as it says now */
	o->given = n->given;
	log_level = o->set_log_level ? o->log_level : sup->log_level;
	console_set_format(o->log_format);
	sup_log_apply(sup);
	pressure_look_now(&sup->pr);	/* a floor may be new */
}

/* Give an existing service its new definition (and environment). */
static int
confreload_swap(struct sup *sup, struct service *ss, struct svc_def *d)
{
	struct service_spawn	*sp = ss->spawn;
	struct svc_def		*old = ss->svc.def;

	ss->svc.def = d;
	timer_reloaded(&ss->sched, old);
	if (sp != NULL && sp->old_def == NULL) {
		/* Its child may still read them, until it execs. */
		sp->old_def = old;
		sp->old_envp = ss->envp;
		sp->old_keys = ss->env_keys;	/* what it points into */
		ss->envp = NULL;
		ss->env_keys = NULL;
	} else {
		svc_def_free(old);
	}
	service_sandbox_drop(ss);	/* made again at its next spawn */
	if (ss->cgfd >= 0) {		/* new limits at its next start */
		close(ss->cgfd);
		ss->cgfd = -1;
	}
	service_env_free(ss);
	return service_env(&sup->core, ss);
}

enum { R_ADDED, R_CHANGED, R_UNCHANGED, R_REMOVED, R_RESTARTED };

/* An unchanged service that a changed one's restart takes along. */
static void
confreload_along(struct svc *x, struct svc *via, void *arg)
{
	struct service	*ss = service_of(x);

	(void)arg;
	if (ss->fate == R_UNCHANGED) {
		ss->fate = R_RESTARTED;
		ss->fate_via = via;
	}
}

static int	confreload_apply(struct sup *sup, struct buf *report);

/* The listen sockets of a new definition, bound before anything changes. */
struct confreload_held {
	struct held_fd	*v;
	uint32_t	 n;
	bool		 made;
};

/*
 * Bind the sockets of each new definition that has its sockets now: one
 * whose service holds sockets, or runs, or is new and enabled (the rest
 * bind at their start).  The sockets it holds already are taken over.
 * 0, or -EINVAL with every error in report and nothing bound.
 */
static int
confreload_socks(struct sup *sup, struct conf *nc,
    struct confreload_held *held, struct buf *report)
{
	char	err[512];
	size_t	i;
	bool	bad = false;

	for (i = 0; i < nc->ndefs; i++) {
		const struct svc_def	*d = nc->defs[i];
		struct svc		*s = svc_find(&sup->set, d->name);
		struct service		*ss = s ? service_of(s) : NULL;
		bool			 now = ss ? (ss->socks &&
					    ss->socks->nlisten > 0) ||
					    s->want_up || svc_has_process(s) :
					    d->enabled;

		if (conf_def_is_conn(d) || !now ||
		    (d->listen == NULL && (ss == NULL || ss->socks == NULL)))
			continue;
		if (socks_prepare(ss ? &ss->svc : NULL, d, &held[i].v,
		    &held[i].n, err,
		    sizeof(err)) < 0) {
			buf_printf(report, "%s:%d: %s\n", d->file,
			    d->listen_lines[held[i].n], err);
			held[i].n = 0;
			bad = true;
			continue;
		}
		held[i].made = true;
	}
	if (!bad)
		return 0;
	for (i = 0; i < nc->ndefs; i++)
		if (held[i].made)
			socks_abort(svc_find(&sup->set, nc->defs[i]->name),
			    held[i].v, held[i].n);
	buf_puts(report, "reload refused, nothing changed\n");
	log_err("reload refused, nothing changed: a listen socket could not "
	    "be bound");
	return -EINVAL;
}

/*
 * The new tree, with the instances commands made (they stay while their
 * template does): 0, or -errno with the report saying why (nothing
 * changed).
 */
static int
confreload_load(struct sup *sup, struct conf *nc, struct buf *report)
{
	struct svc	*s;
	size_t		 i;

	for (i = 0; i < sup->set.n; i++) {
		s = sup->set.v[i];
		if (s->def->dynamic && !service_of(s)->removing &&
		    (nc->extra = strv_add(nc->extra, s->def->name)) == NULL) {
			buf_puts(report, "out of memory; nothing changed\n");
			return -ENOMEM;
		}
	}
	nc->check_def = security_conf_check;
	if (conf_load(nc, sup->confdir) < 0) {
		conf_errors(nc, report);
		log_err("reload refused, nothing changed: %zu error%s",
		    nc->nerrs, nc->nerrs == 1 ? "" : "s");
		for (i = 0; i < nc->nerrs; i++)
			log_err("%s:%d: %s", nc->errs[i].file, nc->errs[i].line,
			    nc->errs[i].msg);
		return -EINVAL;
	}
	for (i = 0; nc->warns && nc->warns[i]; i++) {
		log_warn("%s", nc->warns[i]);
		buf_printf(report, "warning: %s\n", nc->warns[i]);
	}
	return 0;
}

/* The templates, for the instances commands make from now on. */
static void
confreload_tmpls(struct sup *sup, struct conf *nc)
{
	struct conf_tmpl	*tv = sup->conf.tmpls;
	size_t			 tn = sup->conf.ntmpls;

	char			**rv = sup->conf.refused;

	sup->conf.tmpls = nc->tmpls;
	sup->conf.ntmpls = nc->ntmpls;
	nc->tmpls = tv;
	nc->ntmpls = tn;
	/* ... and the units not run, as status shows them. */
	sup->conf.refused = nc->refused;
	nc->refused = rv;
}

/*
 * Match the new tree with the services we have, into v (its length
 * returned): each one's fate, the new definitions taken from nc, the
 * sockets held for them committed; the services gone come last.
 */
static size_t
confreload_match(struct sup *sup, struct conf *nc,
    struct confreload_held *held, struct svc **v)
{
	struct svc	*s;
	size_t		 i, n = 0;

	for (i = 0; i < sup->set.n; i++)
		service_of(sup->set.v[i])->fate = R_REMOVED;
	for (i = 0; i < nc->ndefs; i++) {
		struct svc_def	*d = nc->defs[i];
		struct service	*ss;

		nc->defs[i] = NULL;
		if ((s = svc_find(&sup->set, d->name)) == NULL) {
			if ((ss = service_new(&sup->core, d)) == NULL) {
				socks_abort(NULL, held[i].v, held[i].n);
				svc_def_free(d);
				continue;
			}
			ss->fate = R_ADDED;
		} else {
			ss = service_of(s);
			ss->fate = ss->removing ? R_ADDED :
			    svc_def_equal(s->def, d) ? R_UNCHANGED : R_CHANGED;
			ss->removing = false;
			confreload_swap(sup, ss, d);
		}
		if (held[i].made)
			socks_commit(&ss->svc, held[i].v, held[i].n);
		v[n++] = &ss->svc;
	}
	for (i = 0; i < sup->set.n; i++) {
		s = sup->set.v[i];
		if (service_of(s)->fate != R_REMOVED)
			continue;
		service_of(s)->removing = true;
		v[n++] = s;
	}
	return n;
}

/* Each service's fate in the report, and counted. */
static void
confreload_report(struct sup *sup, struct buf *report, size_t count[5])
{
	static const char *const what[] = {
		[R_ADDED] = "added", [R_CHANGED] = "changed (restarted)",
		[R_UNCHANGED] = "unchanged", [R_REMOVED] = "removed",
		[R_RESTARTED] = "restarted",
	};
	size_t	i;

	for (i = 0; i < sup->set.n; i++) {
		struct service	*ss = service_of(sup->set.v[i]);

		count[ss->fate]++;
		buf_printf(report, "%s %s", what[ss->fate], ss->svc.def->name);
		if (ss->fate == R_RESTARTED)
			buf_printf(report, " (requires %s)",
			    ss->fate_via->def->name);
		buf_puts(report, "\n");
	}
}

/* What each service does of its fate: start, restart, stop. */
static void
confreload_act(struct sup *sup)
{
	struct svc	*s;
	size_t		 i;

	svc_set_batch(&sup->set, true);
	for (i = 0; i < sup->set.n; i++) {
		s = sup->set.v[i];
		switch (service_of(s)->fate) {
		case R_ADDED:
			s->paused = false;	/* a removal's stop is over */
			timer_start(&service_of(s)->sched);
			if (svc_starts_at_once(s))
				svc_start(s);
			break;
		case R_CHANGED:
			if (s->want_up || svc_has_process(s))
				svc_restart(s);
			break;
		case R_REMOVED:
			timer_stop(&service_of(s)->sched);
			svc_stop(s);
			if (!svc_has_process(s))
				ev_prepare_start(sup->core.loop, &sup->core.gc_w);
			break;
		}
	}
	svc_set_batch(&sup->set, false);
}

/*
 * Reload.  0 with what was done in report; -EINVAL (nothing changed)
 * with every error in report; -EBUSY while shutting down.  Said to
 * `events` with the report on one line.
 */
int
confreload(struct sup *sup, struct buf *report)
{
	char	sum[256];
	size_t	i, n = 0;
	bool	zone;
	int	rc;

	zone = tz_system_reload();	/* /etc/localtime may have moved */
	rc = confreload_apply(sup, report);
	if (zone) {
		log_info("the system's time zone changed: calendar timers "
		    "computed again");
		for (i = 0; i < sup->set.n; i++)
			timer_zone_changed(&service_of(sup->set.v[i])->sched);
	}

	if (sup->ctl.nevents == 0)
		return rc;
	for (i = 0; i < report->len && n + 3 < sizeof(sum); i++) {
		char	ch = report->data[i];

		if (ch != '\n')
			sum[n++] = ch;
		else if (i + 1 < report->len) {
			sum[n++] = ';';
			sum[n++] = ' ';
		}
	}
	sum[n] = '\0';
	ctl_event(&sup->ctl, &(struct ctl_event){ .kind = EV_RELOAD,
	    .ok = rc == 0, .reason = n ? sum : "nothing changed" });
	return rc;
}

static int
confreload_apply(struct sup *sup, struct buf *report)
{
	struct conf	  nc;
	struct confreload_held *held = NULL;
	struct svc	**v = NULL;
	size_t		  i, n, count[5] = { 0 };
	int		  rc;

	if (sup->phase != SUP_RUNNING) {
		buf_puts(report, "shutting down\n");
		return -EBUSY;
	}
	conf_init(&nc);
	if ((rc = confreload_load(sup, &nc, report)) < 0)
		goto out;
	if ((v = calloc(nc.ndefs + sup->set.n + 1, sizeof(*v))) == NULL ||
	    (held = calloc(nc.ndefs + 1, sizeof(*held))) == NULL) {
		buf_puts(report, "out of memory; nothing changed\n");
		rc = -ENOMEM;
		goto out;
	}
	/* Sockets first: one that cannot be bound changes nothing. */
	if (confreload_socks(sup, &nc, held, report) < 0) {
		rc = -EINVAL;
		goto out;
	}
	confreload_settings(sup, &nc.sup, report);
	confreload_tmpls(sup, &nc);
	n = confreload_match(sup, &nc, held, v);
	/* The new set, then what each service has to do. */
	free(sup->set.v);
	sup->set.v = v;
	sup->set.n = n;
	v = NULL;
	sup_relink(sup);
	for (i = 0; i < sup->set.n; i++)
		if (service_of(sup->set.v[i])->fate == R_CHANGED)
			svc_dependents(sup->set.v[i], true, confreload_along,
			    NULL);
	confreload_report(sup, report, count);
	confreload_act(sup);
	service_kill_modes_check(&sup->core);
	log_info("reloaded: %zu added, %zu changed, %zu removed, %zu "
	    "restarted with them, %zu unchanged", count[R_ADDED],
	    count[R_CHANGED], count[R_REMOVED], count[R_RESTARTED],
	    count[R_UNCHANGED]);
out:
	free(v);
	free(held);
	conf_free(&nc);
	return rc;
}

/* watch_units: the unit files changed, and have been quiet since. */
void
confreload_units(void *ctx)
{
	struct buf	report = { 0 };

	if (confreload(ctx, &report) == 0)
		log_info("watch_units: the unit files changed: reloaded: %s",
		    report.data ? report.data : "nothing changed");
	else
		log_err("watch_units: the unit files changed, and the "
		    "configuration is refused; nothing changed: %s",
		    report.data ? report.data : "");
	buf_free(&report);
}
