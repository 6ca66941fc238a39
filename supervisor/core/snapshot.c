/*
 * snapshot.c - what a re-exec hands the next binary: the supervisor as it
 * is, written to the state stream (st.h) and read back.
 *
 * The records, by name (STATE_VERSION): who wrote it and when; the
 * paths, log level, the RLIMIT_NOFILE we were given, container flag,
 * mounts and exit status; pidvisor.ini and every service definition in
 * force, key by key (conf_keys_save: a group per key); templates and
 * command instances; the cgroup base; the control socket and its clients
 * (ctl.c); the metrics listener (httpd.c); the killer's cool-downs and
 * history (pressure.c); then every service as SERVICE_STATE and
 * SVC_STATE say (service_save.c, svc_save.c), its output (output.c)
 * and its notify socket (notifysock.c).  Each struct writes and reads
 * itself beside its definition; this file only orders them.  Version
 * 6's state has the same values in this order, without names (st.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "st.h"
#include "sup.h"

#define SNAPSHOT_END	0x21444e45U	/* "END!": nothing was left out */


/* Everything, in the order snapshot_load_conf() and _rest() read it. */
void
snapshot_write(struct sup *sup, struct st_w *w)
{
	const struct conf	*c = &sup->conf;
	struct svc_def		 dflt;
	size_t			 i;

	st_head(w, STATE_VERSION);
	/* Who we are. */
	st_str(w, "version", PIDVISOR_VERSION);
	st_str(w, "binary", sup->rx.binary);
	st_i64(w, "t0_us", sup->rx.t0_us);
	st_i64(w, "t_check_us", sup->rx.t_check_us);
	st_i64(w, "t_write_us", mono_us());
	st_str(w, "confdir", sup->confdir);
	st_str(w, "ctl_path", sup->ctl_path);
	st_str(w, "notify_path", sup->notify_path);
	st_u32(w, "log_level", (uint32_t)sup->log_level);
	st_u64(w, "nofile_cur", sup->core.nofile_cur);
	st_i64(w, "start_real", sup->core.start_real);
	st_i64(w, "start_mono", sup->core.start_mono);
	st_u64(w, "nofile_max", sup->core.nofile_max);
	st_u8(w, "container", sup->container);
	st_u32(w, "mounts", pid1_mounts_mask());
	st_u8(w, "exit_set", sup->exit_set);
	st_u32(w, "exit_code", (uint32_t)sup->exit_code);
	/* The configuration in force (not what is on disk now). */
	st_begin(w, "sup");
	conf_keys_save(w, SEC_SUPERVISOR, &c->sup, &c->sup.given, NULL);
	st_end(w);
	st_u32(w, "ntmpls", (uint32_t)c->ntmpls);
	for (i = 0; i < c->ntmpls; i++) {
		st_begin(w, "tmpl");
		st_str(w, "name", c->tmpls[i].name);
		st_str(w, "file", c->tmpls[i].file);
		st_str(w, "text", c->tmpls[i].text);
		st_end(w);
	}
	st_strv(w, "extra", c->extra);
	st_u32(w, "ndefs", (uint32_t)sup->set.n);
	/* What the next binary starts a definition from: not saved. */
	memset(&dflt, 0, sizeof(dflt));
	svc_def_defaults(&dflt, &c->sup);
	for (i = 0; i < sup->set.n; i++) {
		const struct svc_def	*d = sup->set.v[i]->def;

		st_begin(w, "def");
		st_str(w, "name", d->name);
		st_str(w, "file", d->file);
		st_u8(w, "dynamic", d->dynamic);
		st_strv(w, "dropins", d->dropins);
		conf_keys_save(w, SEC_SERVICE, d, &d->given, &dflt);
		st_end(w);
	}
	conf_keys_free(SEC_SERVICE, &dflt);
	/* What the loop holds. */
	st_str(w, "cg_base", sup->cg.base);
	st_str(w, "cg_why", sup->cg.why);
	ctl_state_save(&sup->ctl, w);
	httpd_state_save(&sup->httpd, w);
	pressure_state_save(&sup->pr, w);
	for (i = 0; i < sup->set.n; i++)
		service_save(service_of(sup->set.v[i]), w);
	st_u32(w, "end", SNAPSHOT_END);
	st_head_done(w);
}

/* The keys of pidvisor.ini: named, or version 6's table and values. */
static int
snapshot_load_keys(struct st_r *r, struct conf *c,
    struct conf_keymap *svc_keys)
{
	struct conf_keymap	sup_keys;

	if (st_named(r)) {
		if (!st_enter(r, "sup")) {
			st_fail(r, "no pidvisor.ini");
			return -EINVAL;
		}
		conf_keys_load(r, SEC_SUPERVISOR, &c->sup, &c->sup.given);
		st_leave(r);
		return st_bad(r) ? -EINVAL : 0;
	}
	if (conf_keys_load_table6(r, SEC_SUPERVISOR, &sup_keys) < 0 ||
	    conf_keys_load_table6(r, SEC_SERVICE, svc_keys) < 0 ||
	    conf_keys_load6(r, &sup_keys, &c->sup) < 0)
		return -EINVAL;
	conf_keys_given6(r, &c->sup.given);
	return st_bad(r) ? -EINVAL : 0;
}

/* A definition: its name, file, and keys. */
static void
snapshot_load_def(struct st_r *r, struct svc_def *d,
    const struct conf_keymap *svc_keys)
{
	if (!st_enter(r, "def")) {
		st_fail(r, "a definition is missing");
		return;
	}
	st_get_str(r, "name", &d->name);
	st_get_str(r, "file", &d->file);
	st_get_bool(r, "dynamic", &d->dynamic);
	if (st_since(r, 12))
		st_get_strv(r, "dropins", &d->dropins);
	if (st_named(r)) {
		conf_keys_load(r, SEC_SERVICE, d, &d->given);
	} else {
		conf_keys_given6(r, &d->given);
		conf_keys_load6(r, svc_keys, d);
	}
	/* Before 11, reload_exec was one command's words: its line now. */
	if (r->version < 11 && d->reload_exec != NULL &&
	    conf_argv_to_line(&d->reload_exec) < 0)
		st_fail(r, "reload_exec: out of memory");
	st_leave(r);
}

/*
 * Who we are and the configuration in force, before anything is set up
 * (sup_init).  0, or -EINVAL with rs->r.err.
 */
int
snapshot_load_conf(struct sup *sup, struct sup_restore *rs)
{
	struct st_r	*r = &rs->r;
	struct conf	*c = &sup->conf;
	struct conf_keymap svc_keys;
	uint32_t	 n = 0, i, u = 0;
	bool		 b = false;

	st_get_str(r, "version", &rs->prev_version);
	st_get_str(r, "binary", &rs->binary);
	st_get_i64(r, "t0_us", &rs->t0_us);
	st_get_i64(r, "t_check_us", &rs->t_check_us);
	st_get_i64(r, "t_write_us", &rs->t_write_us);
	st_get_str(r, "confdir", &rs->confdir);
	sup->confdir = rs->confdir;
	st_get_str(r, "ctl_path", &sup->ctl_path);
	st_get_str(r, "notify_path", &sup->notify_path);
	if (st_get_u32(r, "log_level", &u))
		sup->log_level = (int)u;
	st_get_u64(r, "nofile_cur", &rs->nofile_cur);
	if (st_since(r, 10)) {		/* timers' */
		st_get_i64(r, "start_real", &rs->start_real);
		st_get_i64(r, "start_mono", &rs->start_mono);
	}
	st_get_u64(r, "nofile_max", &rs->nofile_max);
	st_get_bool(r, "container", &sup->container);
	u = 0;
	st_get_u32(r, "mounts", &u);
	pid1_mounts_adopt(u);
	st_get_bool(r, "exit_set", &b);
	sup->exit_set = b;
	u = 0;
	st_get_u32(r, "exit_code", &u);
	sup->exit_code = (int)u;
	if (snapshot_load_keys(r, c, &svc_keys) < 0)
		return -EINVAL;
	st_get_count(r, "ntmpls", &n);
	if (n && (c->tmpls = calloc(n, sizeof(*c->tmpls))) == NULL) {
		st_fail(r, "%s", strerror(ENOMEM));
		return -EINVAL;
	}
	for (i = 0; i < n && !st_bad(r) && st_enter(r, "tmpl"); i++) {
		st_get_str(r, "name", &c->tmpls[i].name);
		st_get_str(r, "file", &c->tmpls[i].file);
		st_get_str(r, "text", &c->tmpls[i].text);
		c->ntmpls++;
		st_leave(r);
	}
	st_get_strv(r, "extra", &c->extra);
	n = 0;
	st_get_count(r, "ndefs", &n);
	if (n && (c->defs = calloc(n, sizeof(*c->defs))) == NULL) {
		st_fail(r, "%s", strerror(ENOMEM));
		return -EINVAL;
	}
	for (i = 0; i < n && !st_bad(r); i++) {
		struct svc_def	*d = calloc(1, sizeof(*d));

		if (d == NULL) {
			st_fail(r, "%s", strerror(ENOMEM));
			break;
		}
		c->defs[c->ndefs++] = d;
		svc_def_defaults(d, &c->sup);
		snapshot_load_def(r, d, &svc_keys);
		if (!st_bad(r) && (d->name == NULL || d->file == NULL ||
		    d->argv == NULL))
			st_fail(r, "service %zu has no name, file or exec",
			    c->ndefs);
	}
	if (!st_bad(r)) {
		st_get_str(r, "cg_base", &rs->cg_base);
		st_get_str(r, "cg_why", &rs->cg_why);
	}
	return st_bad(r) ? -EINVAL : 0;
}

/*
 * The rest, once the loop is there and the services are made of their
 * definitions (sup_init): the sockets, the killer, every service's
 * state and fds.  0, or -EINVAL with rs->r.err.
 */
int
snapshot_load_rest(struct sup *sup, struct sup_restore *rs)
{
	struct st_r	*r = &rs->r;
	int64_t		 now_us;
	uint32_t	 end;
	size_t		 i;

#ifdef PV_TEST_RESTORE_CRASH
	/* A binary made to fail here, for the tests (make test builds it). */
	if (rs->fallback == NULL)
		raise(SIGSEGV);
#endif
#ifdef PV_TEST_RESTORE_HOLD
	{
		/* ... and one that holds here while the file is there. */
		const char	*f = getenv("PIDVISOR_TEST_HOLD");
		int64_t		 end = mono_ms() + 20000;

		while (f && access(f, F_OK) == 0 && mono_ms() < end)
			usleep(10000);
	}
#endif
	if (ctl_state_load(&sup->ctl, r) < 0 ||
	    httpd_state_load(&sup->httpd, r) < 0 ||
	    pressure_state_load(&sup->pr, r) < 0)
		return -EINVAL;
	if (sup->notify_path != NULL && notifydir_open(&sup->notify) < 0)
		log_err("notify sockets %s: no longer ours alone",
		    sup->notify_path);
	/* The loop's clock was read when it was made: now, once. */
	ev_now_update(sup->core.loop);
	now_us = mono_us();
	for (i = 0; i < sup->set.n; i++)
		if (service_load(&sup->core, service_of(sup->set.v[i]), r,
		    now_us) < 0)
			return -EINVAL;
	end = 0;
	if (!st_get_u32(r, "end", &end) || end != SNAPSHOT_END ||
	    (!st_named(r) && r->off != r->n))
		st_fail(r, "the state does not end where it should (byte %zu "
		    "of %zu)", r->off, r->n);
	return st_bad(r) ? -EINVAL : 0;
}
