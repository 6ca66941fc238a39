/*
 * snapshot.c - what a re-exec hands the next binary: the supervisor as it
 * is, written to the state stream (st.h) and read back, in one order.
 *
 * Version 3 (STATE_VERSION): the header; who wrote it and when; the
 * paths, log level, the RLIMIT_NOFILE we were given, container flag,
 * mounts and exit status; pidvisor.ini and every service definition in
 * force, key by key (conf_keys_save: the key table once, then each
 * definition's values in that order); templates and command instances;
 * the cgroup base; the control socket and its clients (ctl.c); the
 * killer's cool-downs and history (pressure.c); then every service as
 * SERVICE_FIELDS and SVC_FIELDS say (service.c, svc.c), its output
 * (output.c) and its notify socket (notifysock.c).  Each struct writes
 * and reads itself beside its definition; this file only orders them.
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
	uint64_t		 len;
	size_t			 i;

	st_bytes(w, STATE_MAGIC, 8);
	st_u32(w, STATE_VERSION);
	st_u64(w, 0);				/* the length, below */
	/* Who we are. */
	st_str(w, PIDVISOR_VERSION);
	st_str(w, sup->rx.binary);
	st_i64(w, sup->rx.t0_us);
	st_i64(w, sup->rx.t_check_us);
	st_i64(w, mono_us());			/* written at */
	st_str(w, sup->confdir);
	st_str(w, sup->ctl_path);
	st_str(w, sup->notify_path);
	st_u32(w, (uint32_t)sup->log_level);
	st_u64(w, sup->nofile_cur);
	st_u64(w, sup->nofile_max);
	st_u8(w, sup->container);
	st_u32(w, pid1_mounts_mask());
	st_u8(w, sup->exit_set);
	st_u32(w, (uint32_t)sup->exit_code);
	/* The configuration in force (not what is on disk now). */
	conf_keys_save_table(w, SEC_SUPERVISOR);
	conf_keys_save_table(w, SEC_SERVICE);
	conf_keys_save(w, SEC_SUPERVISOR, &c->sup);
	conf_keys_save_given(w, SEC_SUPERVISOR, &c->sup.given);
	st_u32(w, (uint32_t)c->ntmpls);
	for (i = 0; i < c->ntmpls; i++) {
		st_str(w, c->tmpls[i].name);
		st_str(w, c->tmpls[i].file);
		st_str(w, c->tmpls[i].text);
	}
	st_strv(w, c->extra);
	st_u32(w, (uint32_t)sup->set.n);
	for (i = 0; i < sup->set.n; i++) {
		const struct svc_def	*d = sup->set.v[i]->def;

		st_str(w, d->name);
		st_str(w, d->file);
		st_u8(w, d->dynamic);
		conf_keys_save_given(w, SEC_SERVICE, &d->given);
		conf_keys_save(w, SEC_SERVICE, d);
	}
	/* What the loop holds. */
	st_str(w, sup->cg.base);
	st_str(w, sup->cg.why);
	ctl_state_save(&sup->ctl, w);
	httpd_state_save(&sup->httpd, w);
	pressure_state_save(&sup->pr, w);
	for (i = 0; i < sup->set.n; i++)
		service_save(service_of(sup->set.v[i]), w);
	st_u32(w, SNAPSHOT_END);
	len = w->b.len;
	if (!w->nomem)
		memcpy(w->b.data + 4 + 8 + 4, &len, sizeof(len));
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
	struct conf_keymap sup_keys, svc_keys;
	uint32_t	 n, i;

	st_get_str(r, &rs->prev_version);
	st_get_str(r, &rs->binary);
	rs->t0_us = st_get_i64(r);
	rs->t_check_us = st_get_i64(r);
	rs->t_write_us = st_get_i64(r);
	st_get_str(r, &rs->confdir);
	sup->confdir = rs->confdir;
	st_get_str(r, &sup->ctl_path);
	st_get_str(r, &sup->notify_path);
	sup->log_level = (int)st_get_u32(r);
	rs->nofile_cur = st_get_u64(r);
	rs->nofile_max = st_get_u64(r);
	sup->container = st_get_u8(r) != 0;
	pid1_mounts_adopt(st_get_u32(r));
	sup->exit_set = st_get_u8(r) != 0;
	sup->exit_code = (int)st_get_u32(r);
	if (conf_keys_load_table(r, SEC_SUPERVISOR, &sup_keys) < 0 ||
	    conf_keys_load_table(r, SEC_SERVICE, &svc_keys) < 0 ||
	    conf_keys_load(r, &sup_keys, &c->sup) < 0)
		return -EINVAL;
	conf_keys_load_given(r, &sup_keys, &c->sup.given);
	n = st_get_count(r, "templates");
	if (n && (c->tmpls = calloc(n, sizeof(*c->tmpls))) == NULL) {
		st_fail(r, "%s", strerror(ENOMEM));
		return -EINVAL;
	}
	for (i = 0; i < n && !st_bad(r); i++, c->ntmpls++) {
		st_get_str(r, &c->tmpls[i].name);
		st_get_str(r, &c->tmpls[i].file);
		st_get_str(r, &c->tmpls[i].text);
	}
	st_get_strv(r, &c->extra);
	n = st_get_count(r, "services");
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
		st_get_str(r, &d->name);
		st_get_str(r, &d->file);
		d->dynamic = st_get_u8(r) != 0;
		conf_keys_load_given(r, &svc_keys, &d->given);
		conf_keys_load(r, &svc_keys, d);
		if (!st_bad(r) && (d->name == NULL || d->file == NULL ||
		    d->argv == NULL))
			st_fail(r, "service %zu has no name, file or exec",
			    c->ndefs);
	}
	if (!st_bad(r)) {
		st_get_str(r, &rs->cg_base);
		st_get_str(r, &rs->cg_why);
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
	ev_now_update(sup->loop);
	now_us = mono_us();
	for (i = 0; i < sup->set.n; i++)
		if (service_load(sup, service_of(sup->set.v[i]), r,
		    now_us) < 0)
			return -EINVAL;
	if (st_get_u32(r) != SNAPSHOT_END || r->off != r->n)
		st_fail(r, "the state does not end where it should (byte %zu "
		    "of %zu)", r->off, r->n);
	return st_bad(r) ? -EINVAL : 0;
}
