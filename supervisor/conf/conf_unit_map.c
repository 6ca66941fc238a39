/*
 * conf_unit_map.c - each directive of a unit as the pidvisor key it is
 * (the table cu_maps), its value made so (systemd's booleans, spans,
 * prefixes of commands, quoting of Environment=, specifiers); what
 * pidvisor cannot honour said at its FILE:LINE, or the unit refused.
 * What boots, and in which order: conf_unit.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cond.h"
#include "conf_unit.h"
#include "sandbox.h"

/* The handlers: a directive as pidvisor's key arg, its value made so. */

static void
cu_key(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	conf_apply(&cs->p, kv->file, kv->line, arg, v);
}

/* systemd's booleans: 1 yes y true t on; 0 no n false f off. */
static void
cu_bool(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	int	b = sd_bool(v);

	cu_key(cs, kv, b < 0 ? v : b ? "yes" : "no", arg);
}

/* RuntimeDirectoryPreserve=: a boolean, or restart. */
static void
cu_preserve(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (strcasecmp(v, "restart") == 0)
		cu_key(cs, kv, "restart", arg);
	else
		cu_bool(cs, kv, v, arg);
}

/* Is the unit's StandardInput= a terminal (tty, tty-force, tty-fail)? */
static bool
cu_tty_input(const struct cu_svc *cs)
{
	const struct unit_kv	*i = unit_get(cs->u, "Service",
				    "StandardInput");

	return i != NULL && strncmp(i->value, "tty", 3) == 0;
}

/*
 * StandardInput=: null (the default), or a terminal: tty (its
 * TTYPath=, /dev/console by default) as the service's 0, 1 and 2,
 * waited for (tty), taken (tty-force) or a failure (tty-fail) when
 * another session has it.
 */
static void
cu_stdin(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	static const char *const busy[][2] = { { "tty", "wait" },
	    { "tty-force", "steal" }, { "tty-fail", "fail" } };
	const struct unit_kv	*p = unit_get(cs->u, "Service", "TTYPath");
	struct buf		 b = { 0 };
	size_t			 i;

	(void)arg;
	if (!cu_last(cs->u, kv) || *v == '\0' || strcmp(v, "null") == 0)
		return;
	for (i = 0; i < ARRAY_SIZE(busy); i++)
		if (strcmp(v, busy[i][0]) == 0)
			break;
	if (i == ARRAY_SIZE(busy)) {
		cu_note(cs, kv, "not supported yet: its input is /dev/null");
		return;
	}
	/* TTYPath=/dev/%I of a getty@: its specifiers too. */
	if (p != NULL && p->value[0] != '\0') {
		if (cu_spec(cs->u, p, cs->cu->c, &b) == 0)
			cu_key(cs, p, b.data ? b.data : "", "tty");
		buf_free(&b);
	} else {
		cu_key(cs, kv, "/dev/console", "tty");
	}
	cu_key(cs, kv, busy[i][1], "tty_busy");
}

/* TTYPath=, TTYReset=, TTYVHangup=, TTYVTDisallocate=: with a tty only. */
static void
cu_tty(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (!cu_tty_input(cs))
		cu_note(cs, kv, "ignored: StandardInput= is not a tty");
	else if (arg != NULL)
		cu_bool(cs, kv, v, arg);	/* TTYPath=: at StandardInput= */
}

/*
 * StandardOutput=, StandardError=: pidvisor's log takes both streams of
 * a service to one sink (`log`): journal (systemd's default), inherit
 * and the +console forms are its default sink; syslog, kmsg, null are
 * its syslog, kmsg, none (null only with both null).  Where the two
 * differ, or a file, a socket or a tty is asked for, it is said and the
 * default kept.  With a tty for input (where inherit is the default) the
 * terminal is all three; another sink is said.
 */
static void
cu_output(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	const struct unit_kv	*o = unit_get(cs->u, "Service",
				    "StandardOutput");
	const struct unit_kv	*e = unit_get(cs->u, "Service",
				    "StandardError");
	bool			 tty = cu_tty_input(cs);
	const char		*ov = o && o->value[0] ? o->value :
				    tty ? "inherit" : "journal";
	const char		*ev = e && e->value[0] &&
				    strcmp(e->value, "inherit") != 0 ?
				    e->value : ov;
	static const char *const dflt[] = { "journal", "inherit",
	    "journal+console", "syslog+console", "kmsg+console" };
	const char		*sink = NULL;
	size_t			 i;

	(void)v;
	(void)arg;
	if (strcmp(kv->key, "StandardError") == 0 && o != NULL &&
	    o->value[0] != '\0')
		return;			/* said once, at StandardOutput= */
	if (tty) {
		if ((strcmp(ov, "inherit") != 0 && strcmp(ov, "tty") != 0) ||
		    (strcmp(ev, "inherit") != 0 && strcmp(ev, "tty") != 0))
			cu_note(cs, kv, "not supported: with a tty for input, "
			    "the terminal is its output too");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(dflt); i++)
		if (strcmp(ov, dflt[i]) == 0)
			sink = "";
	if (strcmp(ov, "syslog") == 0)
		sink = "syslog";
	else if (strcmp(ov, "kmsg") == 0)
		sink = "kmsg";
	else if (strcmp(ov, "null") == 0)
		sink = "none";
	if (sink == NULL || (strcmp(ov, ev) != 0 && !(sink[0] == '\0' &&
	    (strcmp(ev, "journal") == 0 || strcmp(ev, "inherit") == 0)))) {
		cu_note(cs, kv, "not supported: pidvisor's log takes both "
		    "streams to one sink (journal, syslog, kmsg or null, the "
		    "same for both): the default kept");
		return;
	}
	if (sink[0] != '\0')
		cu_key(cs, kv, sink, "log");
}

/* A limit: "infinity" is pidvisor's "max". */
static void
cu_max(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	cu_key(cs, kv, strcmp(v, "infinity") == 0 ? "max" : v, arg);
}

/* A span: "infinity" is pidvisor's 0 (none). */
static void
cu_span(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	cu_key(cs, kv, strcmp(v, "infinity") == 0 ? "0" : v, arg);
}

/*
 * Is it a service with no notify socket for what WatchdogSec= and
 * FileDescriptorStoreMax= take (said if so)?  systemd gives every
 * service one; pidvisor, a Type=notify one.
 */
static bool
cu_dbus(struct cu_svc *cs, const struct unit_kv *kv)
{
	const struct unit_kv	*t = unit_get(cs->u, "Service", "Type");

	if (t != NULL && strncmp(t->value, "notify", 6) == 0)
		return false;
	cu_note(cs, kv, "ignored: pidvisor gives a notify socket, where "
	    "this comes, only to a Type=notify service");
	return true;
}

/* WatchdogSec=: a notify service's pings. */
static void
cu_watchdog(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (!cu_dbus(cs, kv))
		cu_span(cs, kv, v, arg);
}

/* FileDescriptorStoreMax=: pidvisor keeps at most FDSTORE_MAX. */
static void
cu_fdstore(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	char	max[16];

	if (cu_dbus(cs, kv))
		return;
	if (strtoull(v, NULL, 10) > FDSTORE_MAX && v[0] >= '0' &&
	    v[0] <= '9' && v[strspn(v, "0123456789")] == '\0') {
		snprintf(max, sizeof(max), "%d", FDSTORE_MAX);
		cu_note(cs, kv, "more than pidvisor keeps: its most kept");
		v = max;
	}
	cu_key(cs, kv, v, arg);
}

/* TimeoutSec=: both, unless the one of each is given. */
static void
cu_timeout(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	(void)arg;
	if (unit_get(cs->u, "Service", "TimeoutStartSec") == NULL)
		cu_span(cs, kv, v, "ready_timeout");
	if (unit_get(cs->u, "Service", "TimeoutStopSec") == NULL)
		cu_span(cs, kv, v, "stop_timeout");
}

static void
cu_type(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	static const char *const map[][2] = {
		{ "simple", "exec" }, { "exec", "exec" }, { "idle", "exec" },
		{ "notify", "notify" }, { "notify-reload", "notify" },
		{ "forking", "forking" }, { "oneshot", "exit" },
		{ "dbus", "exec" },
	};
	size_t	i;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (strcmp(v, map[i][0]) == 0)
			break;
	if (i == ARRAY_SIZE(map)) {
		cu_refuse(cs, kv, "unknown type (simple, exec, forking, "
		    "oneshot, dbus, notify, notify-reload, idle)");
		return;
	}
	if (strcmp(v, "dbus") == 0)
		cu_note(cs, kv, "dbus: run as simple (pidvisor has no D-Bus; "
		    "the service counts as ready at its exec)");
	if (strcmp(v, "notify-reload") == 0 &&
	    unit_get(cs->u, "Service", "ExecReload") == NULL &&
	    unit_get(cs->u, "Service", "ReloadSignal") == NULL)
		conf_apply(&cs->p, kv->file, kv->line, "reload_signal",
		    "SIGHUP");
	conf_apply(&cs->p, kv->file, kv->line, "ready", map[i][1]);
}

/* Is the service's Type= this one? */
static bool
cu_type_is(const struct cu_svc *cs, const char *type)
{
	const struct unit_kv	*kv = unit_get(cs->u, "Service", "Type");

	return kv != NULL && strcmp(kv->value, type) == 0;
}

/* PIDFile=: what a Type=forking service's daemon is; else unused. */
static void
cu_pidfile(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (cu_type_is(cs, "forking"))
		cu_key(cs, kv, v, arg);
	else
		cu_note(cs, kv, "only a Type=forking service's is read "
		    "(its main process is known otherwise): ignored");
}

static void
cu_restart(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	cu_key(cs, kv, strcmp(v, "no") == 0 ? "never" : v, arg);
}

static void
cu_kill_mode(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (strcmp(v, "process") == 0)
		cu_key(cs, kv, "process", arg);
	else if (strcmp(v, "mixed") == 0)
		cu_note(cs, kv, "mixed: the stop signal goes to every process "
		    "of the service, as control-group");
	else if (strcmp(v, "none") == 0)
		cu_note(cs, kv, "none: the stop signal goes to the main "
		    "process alone, as process; pidvisor leaves no process "
		    "of a stopped service behind");
	else if (strcmp(v, "control-group") != 0)
		cu_refuse(cs, kv, "unknown mode (control-group, mixed, "
		    "process, none)");
	if (strcmp(v, "none") == 0)
		cu_key(cs, kv, "process", arg);
}

/*
 * A command's prefixes (systemd.service(5)): '-' its failure ignored
 * (pidvisor's '-' of exec and of a hook), ':' no $VARIABLES put in,
 * '!!' nothing (it matters only to a kernel without ambient
 * capabilities, older than 4.3); '@', '+' and '!' alone are not
 * supported yet: the unit is refused.
 * The command as pidvisor's key writes it in b; -EINVAL if refused
 * (said).
 */
static int
cu_command(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    struct buf *b)
{
	bool		minus = false, colon = false;
	const char	*s;

	for (; *v != '\0' && strchr("-@:+!", *v); v++) {
		if (*v == '-') {
			minus = true;
		} else if (*v == ':') {
			colon = true;
		} else if (v[0] == '!' && v[1] == '!') {
			v++;
		} else {
			cu_refuse(cs, kv, "the prefixes '@', '+' and '!' "
			    "are not supported yet");
			return -EINVAL;
		}
	}
	b->len = 0;
	if (minus)
		buf_add(b, "-", 1);
	for (s = v; *s != '\0'; s++) {
		if (*s == '$' && colon)
			buf_add(b, "$", 1);	/* "$$" is a '$' */
		buf_add(b, s, 1);
	}
	buf_add(b, "", 1);
	b->len--;
	return b->nomem ? -ENOMEM : 0;
}

/*
 * dbus-daemon's --systemd-activation: it hands each name it would
 * activate to systemd, and waits for its answer (25 s) when systemd is
 * not there, so that a PAM login waits for logind's call to systemd.
 * Dropped (said): dbus activates by its own helper, which fails at once
 * for what only systemd can start.
 */
static void
cu_dbus_activation(struct cu_svc *cs, const struct unit_kv *kv,
    struct buf *b)
{
	static const char	 opt[] = " --systemd-activation";
	const char		*prog = b->data + (b->data[0] == '-');
	char			*at;
	size_t			 n = strcspn(prog, " \t");

	if (n < 11 || strncmp(prog + n - 11, "dbus-daemon", 11) != 0 ||
	    (n > 11 && prog[n - 12] != '/') ||
	    (at = strstr(b->data, opt)) == NULL ||
	    (at[sizeof(opt) - 1] != '\0' && at[sizeof(opt) - 1] != ' '))
		return;
	memmove(at, at + sizeof(opt) - 1, strlen(at + sizeof(opt) - 1) + 1);
	b->len -= sizeof(opt) - 1;
	cu_note(cs, kv, "--systemd-activation: dropped: pidvisor does not "
	    "answer systemd's activation requests (dbus's own helper "
	    "activates, at once)");
}

static void
cu_exec(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	struct buf		 b = { 0 };

	/* postgresql.service's: nothing of its own runs to reload. */
	if (strcmp(arg, "reload_exec") == 0 && cu_type_is(cs, "oneshot")) {
		if (cu_last(cs->u, kv))
			cu_note(cs, kv, "a Type=oneshot service has nothing "
			    "running to reload: ignored");
		return;
	}
	if (*v != '\0' && cu_command(cs, kv, v, &b) == 0) {
		if (strcmp(arg, "exec") == 0)
			cu_dbus_activation(cs, kv, &b);
		cu_key(cs, kv, b.data, arg);
	} else if (strcmp(arg, "exec") == 0)
		cs->p.exec_bad = true;	/* said: not "missing exec" too */
	buf_free(&b);
}

/* Environment=: words, each VAR=VALUE, quoted as systemd quotes. */
static void
cu_env(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	char		**w = NULL;
	const char	 *why;
	size_t		  i;

	if (argv_split(v, &w, &why) < 0) {
		cu_refuse(cs, kv, why);
		return;
	}
	for (i = 0; w[i] != NULL; i++)
		cu_key(cs, kv, w[i], arg);
	strv_free(w);
}

static void
cu_workdir(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (*v == '-') {
		cu_note(cs, kv, "'-': the directory must be there (pidvisor "
		    "fails the start without it)");
		v++;
	}
	if (*v == '~') {
		cu_refuse(cs, kv, "'~' (the user's home) is not supported "
		    "yet");
		return;
	}
	cu_key(cs, kv, v, arg);
}

static void
cu_protect_home(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (strcmp(v, "tmpfs") == 0) {
		cu_note(cs, kv, "tmpfs: the homes hidden, as yes");
		v = "yes";
	}
	cu_bool(cs, kv, v, arg);
}

static void
cu_refused(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	(void)v;
	cu_refuse(cs, kv, arg);
}

/*
 * SystemCallArchitectures=: native (the machine's own; as systemd, the
 * words "native" among others, a list of names of other architectures,
 * are taken only if native is among them: the rest is said).
 */
static void
cu_arch(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (*v == '\0' || strcmp(v, "native") == 0)
		cu_key(cs, kv, v, arg);
	else
		cu_note(cs, kv, "not supported: only native (the machine's "
		    "own calls); ignored");
}

/* Does the unit run as a user of its own, with AmbientCapabilities=? */
static bool
cu_ambient_user(const struct cu_svc *cs)
{
	const struct unit_kv	*u = unit_get(cs->u, "Service", "User");

	return u != NULL && strcmp(u->value, "root") != 0 &&
	    strcmp(u->value, "0") != 0 &&
	    unit_get(cs->u, "Service", "AmbientCapabilities") != NULL;
}

/* CapabilityBoundingSet=: capabilities, unless AmbientCapabilities= says. */
static void
cu_bset(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	if (!cu_ambient_user(cs))
		cu_key(cs, kv, v, arg);
}

/*
 * AmbientCapabilities=: pidvisor's capabilities, which a service of a
 * user of its own holds as ambient ones (root holds every capability
 * anyway): those in CapabilityBoundingSet= too, and the bounding set
 * narrowed to them (said), where systemd keeps the rest of it.
 */
static void
cu_ambient(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	const struct unit_kv	*b = unit_get(cs->u, "Service",
				    "CapabilityBoundingSet");
	uint64_t		 amb, bset = ~0ULL;
	struct buf		 names = { 0 };
	char			 why[128];

	if (!cu_ambient_user(cs))
		return;
	if (sandbox_cap_parse(v, &amb, why, sizeof(why)) < 0 || (b != NULL &&
	    sandbox_cap_parse(b->value, &bset, why, sizeof(why)) < 0)) {
		cu_refuse(cs, kv, why);
		return;
	}
	if (b == NULL || amb != bset)
		cu_note(cs, kv, "the bounding set is narrowed to them too "
		    "(pidvisor's capabilities)");
	sandbox_cap_show(&names, amb & bset);
	cu_key(cs, kv, names.data ? names.data : "", arg);
	buf_free(&names);
}

/* A directive ignored for the reason arg says. */
static void
cu_ignored(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	(void)v;
	cu_note(cs, kv, arg);
}

/*
 * NotifyAccess=: pidvisor takes what the main process sends, and only
 * that: main is what it does; anything else is said.
 */
static void
cu_notify_access(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	(void)arg;
	if (strcmp(v, "main") != 0)
		cu_note(cs, kv, "only the main process's datagrams count here "
		    "(as NotifyAccess=main)");
}

/*
 * Conflicts=: only with a unit that boots too does it change anything
 * (shutdown.target is pidvisor's end; rescue.service and the like are
 * not started); that is said, both run.
 */
static void
cu_conflicts(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	char	**w = NULL;
	const char *why;
	size_t	  i;

	(void)arg;
	if (argv_split(v, &w, &why) < 0) {
		cu_note(cs, kv, why);
		return;
	}
	for (i = 0; w[i] != NULL; i++) {
		const struct unit	*o = cu_find(cs->cu, w[i]);

		if (o != NULL && o != cs->u && strcmp(unit_suffix(o->id),
		    ".service") == 0) {
			cu_note(cs, kv, "not supported yet: ignored (both run)");
			break;
		}
	}
	strv_free(w);
}

/*
 * RemainAfterExit=: a task (Type=oneshot) done stays done either way;
 * what differs is when its ExecStop= runs: pidvisor's at the stop, as
 * with yes; with no, systemd runs it at once (said).
 */
static void
cu_remain(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *arg)
{
	(void)arg;
	if (sd_bool(v) == 0 && unit_get(cs->u, "Service", "ExecStop") != NULL)
		cu_note(cs, kv, "no: its ExecStop= runs when it is stopped, "
		    "as with yes, not at once after its run");
}

static const struct cu_map cu_maps[] = {
	{ "Unit", "Description", NULL, NULL, CU_SILENT },
	{ "Unit", "Documentation", NULL, NULL, CU_SILENT },
	{ "Unit", "DefaultDependencies", NULL, NULL, CU_SILENT },
	{ "Unit", "Wants", NULL, NULL, CU_SILENT },
	{ "Unit", "Requires", NULL, NULL, CU_SILENT },
	{ "Unit", "BindsTo", NULL, NULL, CU_SILENT },
	{ "Unit", "Requisite", NULL, NULL, CU_SILENT },
	{ "Unit", "After", NULL, NULL, CU_SILENT },
	{ "Unit", "Before", NULL, NULL, CU_SILENT },
	{ "Unit", "IgnoreOnIsolate", NULL, NULL, CU_SILENT },
	{ "Unit", "Conflicts", cu_conflicts, NULL, CU_LIST },
	{ "Unit", "StartLimitIntervalSec", cu_span, "start_limit_interval", 0 },
	{ "Unit", "StartLimitBurst", cu_key, "start_limit_burst", 0 },
	{ "Install", "WantedBy", NULL, NULL, CU_SILENT },
	{ "Install", "RequiredBy", NULL, NULL, CU_SILENT },
	{ "Install", "Alias", NULL, NULL, CU_SILENT },
	{ "Install", "Also", NULL, NULL, CU_SILENT },
	{ "Install", "DefaultInstance", NULL, NULL, CU_SILENT },
	{ "Service", "Type", cu_type, NULL, 0 },
	{ "Service", "Sockets", NULL, NULL, CU_SILENT },
	{ "Service", "ExecStart", cu_exec, "exec", 0 },
	{ "Service", "RemainAfterExit", cu_remain, NULL, 0 },
	{ "Service", "ExecCondition", cu_exec, "condition_exec", CU_LIST },
	{ "Service", "ExecStartPre", cu_exec, "start_pre_exec", CU_LIST },
	{ "Service", "ExecStartPost", cu_exec, "start_post_exec", CU_LIST },
	{ "Service", "ExecStop", cu_exec, "stop_exec", CU_LIST },
	{ "Service", "ExecStopPost", cu_exec, "stop_post_exec", CU_LIST },
	{ "Service", "ExecReload", cu_exec, "reload_exec", CU_LIST },
	{ "Service", "Restart", cu_restart, "restart", 0 },
	{ "Service", "RestartSec", cu_span, "restart_delay", 0 },
	{ "Service", "RestartMaxDelaySec", cu_span, "restart_delay_max", 0 },
	{ "Service", "TimeoutStartSec", cu_span, "ready_timeout", 0 },
	{ "Service", "TimeoutStopSec", cu_span, "stop_timeout", 0 },
	{ "Service", "TimeoutSec", cu_timeout, NULL, 0 },
	{ "Service", "WatchdogSec", cu_watchdog, "watchdog", 0 },
	{ "Service", "PIDFile", cu_pidfile, "pid_file", 0 },
	{ "Service", "KillMode", cu_kill_mode, "kill_mode", 0 },
	{ "Service", "KillSignal", cu_key, "stop_signal", 0 },
	{ "Service", "RestartPreventExitStatus", cu_key,
	    "restart_prevent_exit_status", CU_LIST },
	{ "Service", "RestartForceExitStatus", cu_key,
	    "restart_force_exit_status", CU_LIST },
	{ "Service", "SuccessExitStatus", cu_key, "success_exit_status",
	    CU_LIST },
	{ "Service", "User", cu_key, "user", 0 },
	{ "Service", "Group", cu_key, "group", 0 },
	{ "Service", "WorkingDirectory", cu_workdir, "workdir", 0 },
	{ "Service", "Environment", cu_env, "env", CU_LIST },
	{ "Service", "EnvironmentFile", cu_key, "env_file", CU_LIST },
	{ "Service", "UMask", cu_key, "umask", 0 },
	{ "Service", "Nice", cu_key, "nice", 0 },
	{ "Service", "OOMScoreAdjust", cu_key, "oom_score_adj", 0 },
	{ "Service", "LimitNOFILE", cu_key, "limit_nofile", 0 },
	{ "Service", "LimitAS", cu_key, "limit_as", 0 },
	{ "Service", "LimitCORE", cu_key, "limit_core", 0 },
	{ "Service", "LimitCPU", cu_key, "limit_cpu", 0 },
	{ "Service", "LimitDATA", cu_key, "limit_data", 0 },
	{ "Service", "LimitFSIZE", cu_key, "limit_fsize", 0 },
	{ "Service", "LimitLOCKS", cu_key, "limit_locks", 0 },
	{ "Service", "LimitMEMLOCK", cu_key, "limit_memlock", 0 },
	{ "Service", "LimitMSGQUEUE", cu_key, "limit_msgqueue", 0 },
	{ "Service", "LimitNICE", cu_key, "limit_nice", 0 },
	{ "Service", "LimitNPROC", cu_key, "limit_nproc", 0 },
	{ "Service", "LimitRSS", cu_key, "limit_rss", 0 },
	{ "Service", "LimitRTPRIO", cu_key, "limit_rtprio", 0 },
	{ "Service", "LimitRTTIME", cu_key, "limit_rttime", 0 },
	{ "Service", "LimitSIGPENDING", cu_key, "limit_sigpending", 0 },
	{ "Service", "LimitSTACK", cu_key, "limit_stack", 0 },
	{ "Service", "NoNewPrivileges", cu_bool, "no_new_privs", 0 },
	{ "Service", "CapabilityBoundingSet", cu_bset, "capabilities",
	    CU_EMPTY },
	{ "Service", "AmbientCapabilities", cu_ambient, "capabilities", 0 },
	{ "Service", "PrivateTmp", cu_bool, "private_tmp", 0 },
	{ "Service", "PrivateNetwork", cu_bool, "private_network", 0 },
	{ "Service", "PrivateDevices", cu_bool, "private_devices", 0 },
	{ "Service", "ProtectKernelTunables", cu_bool,
	    "protect_kernel_tunables", 0 },
	{ "Service", "ProtectSystem", cu_bool, "protect_system", 0 },
	{ "Service", "ProtectHome", cu_protect_home, "protect_home", 0 },
	{ "Service", "ReadOnlyPaths", cu_key, "read_only_paths", CU_LIST },
	{ "Service", "ReadWritePaths", cu_key, "read_write_paths", CU_LIST },
	{ "Service", "InaccessiblePaths", cu_key, "inaccessible_paths",
	    CU_LIST },
	{ "Service", "NoExecPaths", cu_key, "no_exec_paths", CU_LIST },
	{ "Service", "ExecPaths", cu_key, "exec_paths", CU_LIST },
	{ "Service", "ProtectProc", cu_key, "protect_proc", 0 },
	{ "Service", "ProcSubset", cu_key, "proc_subset", 0 },
	{ "Service", "RemoveIPC", cu_bool, "remove_ipc", 0 },
	{ "Service", "SyslogIdentifier", cu_key, "syslog_identifier", 0 },
	{ "Service", "SendSIGHUP", cu_bool, "send_sighup", 0 },
	/* Their names before systemd 231. */
	{ "Service", "ReadOnlyDirectories", cu_key, "read_only_paths",
	    CU_LIST },
	{ "Service", "ReadWriteDirectories", cu_key, "read_write_paths",
	    CU_LIST },
	{ "Service", "InaccessibleDirectories", cu_key, "inaccessible_paths",
	    CU_LIST },
	{ "Service", "LockPersonality", cu_bool, "lock_personality", 0 },
	{ "Service", "MemoryDenyWriteExecute", cu_bool,
	    "memory_deny_write_execute", 0 },
	{ "Service", "RestrictRealtime", cu_bool, "restrict_realtime", 0 },
	{ "Service", "RestrictSUIDSGID", cu_bool, "restrict_suid_sgid", 0 },
	{ "Service", "RestrictNamespaces", cu_bool, "restrict_namespaces", 0 },
	{ "Service", "RestrictAddressFamilies", cu_key,
	    "restrict_address_families", CU_LIST },
	{ "Service", "SystemCallArchitectures", cu_arch,
	    "system_call_architectures", 0 },
	{ "Service", "ProtectKernelModules", cu_bool, "protect_kernel_modules",
	    0 },
	{ "Service", "ProtectKernelLogs", cu_bool, "protect_kernel_logs", 0 },
	{ "Service", "ProtectClock", cu_bool, "protect_clock", 0 },
	{ "Service", "ProtectControlGroups", cu_bool, "protect_control_groups",
	    0 },
	{ "Service", "ProtectHostname", cu_bool, "protect_hostname", 0 },
	{ "Service", "RootDirectory", cu_key, "root_directory", 0 },
	{ "Service", "SystemCallFilter", cu_key, "syscall_filter", CU_LIST },
	{ "Service", "SystemCallErrorNumber", cu_key, "syscall_errno", 0 },
	{ "Service", "CPUAffinity", cu_key, "cpu_affinity", 0 },
	{ "Service", "IOSchedulingClass", cu_key, "io_class", 0 },
	{ "Service", "IOSchedulingPriority", cu_key, "io_priority", 0 },
	{ "Service", "CPUWeight", cu_key, "cpu_weight", 0 },
	{ "Service", "CPUQuota", cu_key, "cpu_max", 0 },
	{ "Service", "IOWeight", cu_key, "io_weight", 0 },
	{ "Service", "MemoryMax", cu_max, "memory_max", 0 },
	{ "Service", "MemoryHigh", cu_max, "memory_high", 0 },
	{ "Service", "TasksMax", cu_max, "pids_max", 0 },
	{ "Service", "FileDescriptorStoreMax", cu_fdstore, "fdstore_max", 0 },
	{ "Service", "StandardInput", cu_stdin, NULL, 0 },
	{ "Service", "StandardOutput", cu_output, NULL, 0 },
	{ "Service", "StandardError", cu_output, NULL, 0 },
	{ "Service", "TTYPath", cu_tty, NULL, 0 },
	{ "Service", "TTYReset", cu_tty, "tty_reset", 0 },
	{ "Service", "TTYVHangup", cu_tty, "tty_vhangup", 0 },
	{ "Service", "TTYVTDisallocate", cu_tty, "tty_vt_disallocate", 0 },
	{ "Service", "IgnoreSIGPIPE", cu_bool, "ignore_sigpipe", 0 },
	{ "Service", "NotifyAccess", cu_notify_access, NULL, 0 },
	{ "Service", "UtmpIdentifier", cu_ignored, "ignored: pidvisor writes "
	    "no utmp record (agetty and login write their own)", 0 },
	{ "Service", "RuntimeDirectory", cu_key, "runtime_directory", CU_LIST },
	{ "Service", "StateDirectory", cu_key, "state_directory", CU_LIST },
	{ "Service", "CacheDirectory", cu_key, "cache_directory", CU_LIST },
	{ "Service", "LogsDirectory", cu_key, "logs_directory", CU_LIST },
	{ "Service", "ConfigurationDirectory", cu_key,
	    "configuration_directory", CU_LIST },
	{ "Service", "RuntimeDirectoryMode", cu_key, "runtime_directory_mode",
	    0 },
	{ "Service", "StateDirectoryMode", cu_key, "state_directory_mode", 0 },
	{ "Service", "CacheDirectoryMode", cu_key, "cache_directory_mode", 0 },
	{ "Service", "LogsDirectoryMode", cu_key, "logs_directory_mode", 0 },
	{ "Service", "ConfigurationDirectoryMode", cu_key,
	    "configuration_directory_mode", 0 },
	{ "Service", "RuntimeDirectoryPreserve", cu_preserve,
	    "runtime_directory_preserve", 0 },
	{ "Service", "DynamicUser", cu_refused, "not supported: pidvisor "
	    "makes no users (write User= of a user that exists)", 0 },
	{ "Service", "PAMName", cu_refused, "not supported: pidvisor opens "
	    "no PAM session", 0 },
};

static const struct cu_map *
cu_map_find(const char *section, const char *key)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cu_maps); i++)
		if (strcmp(cu_maps[i].section, section) == 0 &&
		    strcmp(cu_maps[i].key, key) == 0)
			return &cu_maps[i];
	return NULL;
}

/* Is kv the one that counts of a single value's (the last)? */
bool
cu_last(const struct unit *u, const struct unit_kv *kv)
{
	return unit_get(u, kv->section, kv->key) == kv;
}

/* Is there an empty assignment of the same list after kv (a reset)? */
bool
cu_reset_after(const struct unit *u, const struct unit_kv *kv)
{
	const struct unit_kv	*k;

	for (k = kv + 1; k < u->kv + u->nkv; k++)
		if (k->value[0] == '\0' && strcmp(k->section, kv->section) ==
		    0 && strcmp(k->key, kv->key) == 0)
			return true;
	return false;
}

/*
 * Condition*= and Assert*= as the keys condition and assert: "TEST
 * [|][!]ARG".  An empty one resets every one of its kind before it; one
 * pidvisor does not know, or whose argument systemd would not take, is
 * said and ignored (as systemd ignores the latter).
 */
static void
cu_condition(struct cu_svc *cs, const struct unit *u,
    const struct unit_kv *kv, struct buf *b)
{
	const char		*kind = kv->key[0] == 'A' ? "Assert" :
				    "Condition";
	size_t			 klen = strlen(kind);
	const struct unit_kv	*k;
	char			 test[64], why[512];
	struct buf		 l = { 0 };

	if (kv->value[0] == '\0')
		return;
	for (k = kv + 1; k < u->kv + u->nkv; k++)
		if (k->value[0] == '\0' && strcmp(k->section, kv->section) ==
		    0 && strncmp(k->key, kind, klen) == 0)
			return;		/* reset after it */
	if (cond_from_systemd(kv->key + klen, test, sizeof(test)) < 0) {
		cu_note(cs, kv, "not supported: ignored (the unit runs as "
		    "if it held)");
		return;
	}
	if (cu_spec(u, kv, cs->cu->c, b) < 0)
		return;
	buf_printf(&l, "%s %s", test, b->data ? b->data : "");
	if (l.nomem) {
		cs->cu->c->nomem = true;
	} else if (cond_parse(l.data, why, sizeof(why)) != NULL) {
		conf_warn(cs->cu->c, "%s:%d: %s=: %s: ignored", kv->file,
		    kv->line, kv->key, why);
	} else {
		conf_apply(&cs->p, kv->file, kv->line, kind[0] == 'A' ?
		    "assert" : "condition", l.data);
	}
	buf_free(&l);
}

/* Apply every directive of the unit's files (and its timer's) to cs. */
void
cu_apply(struct cu_svc *cs, const struct unit *u, const char *sect)
{
	const struct cu_map	*m;
	const struct unit_kv	*kv;
	struct buf		 b = { 0 };

	for (kv = u->kv; kv < u->kv + u->nkv; kv++) {
		if (sect ? strcmp(kv->section, sect) != 0 :
		    strcmp(kv->section, "Timer") == 0)
			continue;
		if (strncmp(kv->section, "X-", 2) == 0)
			continue;	/* systemd's: for other programs */
		if ((m = cu_map_find(kv->section, kv->key)) == NULL) {
			if (strcmp(kv->section, "Unit") && strcmp(kv->section,
			    "Service") && strcmp(kv->section, "Install") &&
			    strcmp(kv->section, "Timer"))
				conf_warn(cs->cu->c, "%s:%d: [%s] is not a "
				    "section of a %s: ignored", kv->file,
				    kv->line, kv->section, unit_suffix(u->id) +
				    1);
			else if (strcmp(kv->section, "Unit") == 0 &&
			    (strncmp(kv->key, "Condition", 9) == 0 ||
			    strncmp(kv->key, "Assert", 6) == 0))
				cu_condition(cs, u, kv, &b);
			else
				cu_note(cs, kv, "not supported yet: ignored");
			continue;
		}
		if (m->fn == NULL)
			continue;
		if (!(m->flags & CU_LIST) ? !cu_last(u, kv) :
		    kv->value[0] == '\0' || cu_reset_after(u, kv))
			continue;
		if (!(m->flags & (CU_LIST | CU_EMPTY)) && kv->value[0] == '\0')
			continue;	/* reset to the default */
		if (cu_spec(u, kv, cs->cu->c, &b) < 0)
			continue;
		m->fn(cs, kv, b.data ? b.data : "", m->arg);
	}
	buf_free(&b);
}

/* The timers that start a service: their [Timer] directives; how many. */
size_t
cu_timers(struct cu_svc *cs)
{
	static const char *const spans[][2] = {
		{ "OnBootSec", "on_boot" }, { "OnStartupSec", "on_startup" },
		{ "OnActiveSec", "on_active" },
		{ "OnUnitActiveSec", "on_unit_active" },
		{ "OnUnitInactiveSec", "on_unit_inactive" },
		{ "RandomizedDelaySec", "randomized_delay" },
		{ "AccuracySec", "accuracy" },
	};
	struct cu		*cu = cs->cu;
	const struct unit_kv	*kv, *unit;
	struct buf		 b = { 0 };
	char			 want[UNIT_NAME_MAX + 1];
	size_t			 i, j, n = 0;

	for (i = 0; i < cu->n; i++) {
		struct unit	*t = &cu->v[i];

		if (!cu_is(t, ".timer") || t->masked || t->fragment == NULL)
			continue;
		if ((unit = unit_get(t, "Timer", "Unit")) != NULL)
			snprintf(want, sizeof(want), "%s", unit->value);
		else
			snprintf(want, sizeof(want), "%.*s.service",
			    (int)(unit_suffix(t->id) - t->id), t->id);
		if (strcmp(want, cs->u->id) != 0 &&
		    strcmp(want, cs->u->name) != 0)
			continue;
		n++;
		for (kv = t->kv; kv < t->kv + t->nkv; kv++) {
			if (strcmp(kv->section, "Timer") != 0 ||
			    kv->value[0] == '\0' || cu_spec(t, kv, cu->c, &b) < 0)
				continue;
			for (j = 0; j < ARRAY_SIZE(spans); j++)
				if (strcmp(kv->key, spans[j][0]) == 0)
					break;
			if (strcmp(kv->key, "OnCalendar") == 0 &&
			    !cu_reset_after(t, kv))
				cu_key(cs, kv, b.data, "on_calendar");
			else if (j < ARRAY_SIZE(spans) && cu_last(t, kv))
				cu_span(cs, kv, b.data, spans[j][1]);
			else if (strcmp(kv->key, "Persistent") == 0 &&
			    cu_last(t, kv))
				cu_bool(cs, kv, b.data, "persistent");
			else if (strcmp(kv->key, "FixedRandomDelay") == 0 &&
			    cu_last(t, kv))
				cu_bool(cs, kv, b.data, "fixed_random_delay");
			else if (strcmp(kv->key, "WakeSystem") == 0 &&
			    cu_last(t, kv))
				cu_bool(cs, kv, b.data, "wake_system");
			else if (strcmp(kv->key, "Unit") != 0 &&
			    strcmp(kv->key, "RemainAfterElapse") != 0 &&
			    j == ARRAY_SIZE(spans) &&
			    strcmp(kv->key, "OnCalendar") != 0)
				cu_note(cs, kv, "not supported yet: ignored");
		}
	}
	buf_free(&b);
	return n;
}
