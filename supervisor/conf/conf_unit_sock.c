/*
 * conf_unit_sock.c - a .socket unit onto the service it activates (its
 * Service=, by default its own name's; or one that names it in
 * Sockets=): each Listen*= a `listen` value of that service with the
 * socket's options (name=, symlink=, pass_credentials, ...), its mode,
 * owner and backlog the service's listen_* keys.  A service that only a
 * socket pulls in starts on its first client (on_demand), as systemd
 * starts it.  What a socket asks that pidvisor does not do is said at
 * its FILE:LINE: a socket with Accept=yes or a Condition*= is not
 * bound, a Listen*= of a kind pidvisor has not is left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf_unit.h"

/* The service socket unit t activates, in out; false: none it runs. */
bool
cu_socket_service(const struct unit *t, char *out, size_t n)
{
	const struct unit_kv	*kv = unit_get(t, "Socket", "Service");
	const struct unit_kv	*acc = unit_get(t, "Socket", "Accept");

	if (acc != NULL && sd_bool(acc->value) == 1)
		return false;	/* a template per client: not yet */
	if (kv != NULL && kv->value[0] != '\0')
		snprintf(out, n, "%s", kv->value);
	else
		snprintf(out, n, "%.*s.service",
		    (int)(unit_suffix(t->id) - t->id), t->id);
	return true;
}

/* Is socket unit t one of the service's (Service=, Sockets=)? */
static bool
cu_socket_of(const struct cu_svc *cs, const struct unit *t)
{
	char			 want[UNIT_NAME_MAX + 1];
	const struct unit_kv	*kv;
	const char		*s;
	size_t			 n, len = strlen(t->id);

	/* By the unit (an alias of it: syslog.service is rsyslog's). */
	if (cu_socket_service(t, want, sizeof(want)) &&
	    cu_find(cs->cu, want) == cs->u)
		return true;
	for (kv = cs->u->kv; kv < cs->u->kv + cs->u->nkv; kv++) {
		if (strcmp(kv->section, "Service") != 0 ||
		    strcmp(kv->key, "Sockets") != 0 || cu_reset_after(cs->u, kv))
			continue;
		for (s = kv->value; *(s += strspn(s, " \t")) != '\0'; s += n) {
			n = strcspn(s, " \t");
			if (n == len && strncmp(s, t->id, n) == 0)
				return true;
		}
	}
	return false;
}

/* What systemd's socket_ipv6_is_supported() looks at. */
static bool
cu_ipv6(void)
{
	return access("/proc/net/if_inet6", F_OK) == 0;
}

/*
 * A Listen*= value as a listen address in b: 0, or -1 with why (the
 * listen is left out).
 */
static int
cu_listen_addr(const char *key, const char *v, bool dual, struct buf *b,
    const char **why)
{
	bool		 dgram = strcmp(key, "ListenDatagram") == 0;
	const char	*colon = strrchr(v, ':');
	size_t		 len = strlen(v);
	char		 fam[32];

	if (strcmp(key, "ListenNetlink") == 0) {
		size_t	n = strcspn(v, " \t");
		const char *g = v + n + strspn(v + n, " \t");

		if (n == 0 || n >= sizeof(fam)) {
			*why = "expected FAMILY [GROUP]";
			return -1;
		}
		snprintf(fam, sizeof(fam), "%.*s", (int)n, v);
		buf_printf(b, "netlink:%s:%s", fam, *g ? g : "0");
		return 0;
	}
	if (strcmp(key, "ListenSequentialPacket") == 0) {
		if (v[0] != '/') {
			*why = "pidvisor takes a unix path here";
			return -1;
		}
		buf_printf(b, "unix-seqpacket:%s", v);
		return 0;
	}
	if (v[0] == '/') {
		buf_printf(b, "%s:%s", dgram ? "unix-dgram" : "unix", v);
		return 0;
	}
	if (v[0] == '@') {
		*why = "an abstract socket: not supported yet";
		return -1;
	}
	if (strncmp(v, "vsock:", 6) == 0) {
		*why = "a vsock socket: not supported";
		return -1;
	}
	if (strspn(v, "0123456789") == len && len > 0) {
		if (cu_ipv6())
			buf_printf(b, "%s:[::]:%s%s", dgram ? "udp6" : "tcp6",
			    v, dual ? " dual_stack" : "");
		else
			buf_printf(b, "%s:*:%s", dgram ? "udp" : "tcp", v);
		return 0;
	}
	if (v[0] == '[' && colon != NULL && colon[-1] == ']' &&
	    memchr(v, '%', len) == NULL) {
		buf_printf(b, "%s:%s%s", dgram ? "udp6" : "tcp6", v,
		    dual && strncmp(v, "[::]:", 5) == 0 ? " dual_stack" : "");
		return 0;
	}
	if (colon != NULL && strspn(v, "0123456789.") == (size_t)(colon - v)) {
		buf_printf(b, "%s:%s", dgram ? "udp" : "tcp", v);
		return 0;
	}
	*why = "not an address pidvisor knows (PATH, PORT, IPv4:PORT, "
	    "[IPv6]:PORT)";
	return -1;
}

/* A key of the service from a socket's directive, once for them all. */
static void
cu_sock_key(struct cu_svc *cs, const struct unit_kv *kv, const char *v,
    const char *key, char **was)
{
	if (*was != NULL) {
		if (strcmp(*was, v) != 0)
			cu_note(cs, kv, "another socket of the service gave "
			    "another value, which is kept");
		return;
	}
	*was = strdup(v);
	conf_apply(&cs->p, kv->file, kv->line, key, v);
}

/* Directives of [Socket] pidvisor has no use for, and why. */
static const char *const cu_sock_quiet[] = {
	"Service", "Accept", "Listen", "FileDescriptorName", "Symlinks",
	"PassCredentials", "PassSecurity", "ReceiveBuffer", "SendBuffer",
	"DirectoryMode", "Backlog", "SocketMode", "SocketUser", "SocketGroup",
	"BindIPv6Only", "TriggerLimitIntervalSec", "TriggerLimitBurst",
	"RemoveOnStop",
};

/*
 * The socket's own options for each of its listen values (o), those of
 * its unix ones only (ou), and of unix and netlink ones (oc).
 */
static void
cu_sock_opts(struct cu_svc *cs, const struct unit *t, struct buf *o,
    struct buf *ou, struct buf *oc, bool *dual)
{
	const struct unit_kv	*kv;
	struct buf		 v = { 0 };
	const char		*s;
	size_t			 n, paths = 0;
	int			 b;

	*dual = true;
	/* Symlinks= needs one socket in the file system, as systemd's. */
	for (kv = t->kv; kv < t->kv + t->nkv; kv++)
		paths += strcmp(kv->section, "Socket") == 0 &&
		    strncmp(kv->key, "Listen", 6) == 0 &&
		    (kv->value[0] == '/' || kv->value[0] == '%') &&
		    !cu_reset_after(t, kv);	/* a path (%t/...) */
	kv = unit_get(t, "Socket", "FileDescriptorName");
	buf_printf(o, " name=%s", kv && kv->value[0] ? kv->value : t->id);
	kv = unit_get(t, "Socket", "DirectoryMode");
	buf_printf(ou, " directory_mode=%s", kv && kv->value[0] ? kv->value :
	    "0755");
	for (kv = t->kv; kv < t->kv + t->nkv; kv++) {
		if (strcmp(kv->section, "Socket") != 0 || kv->value[0] == '\0' ||
		    cu_spec(t, kv, cs->cu->c, &v) < 0)
			continue;
		if (strcmp(kv->key, "Symlinks") == 0 &&
		    !cu_reset_after(t, kv) && paths != 1) {
			cu_note(cs, kv, "needs one socket in the file system, "
			    "not more or none: ignored (systemd refuses the "
			    "socket)");
			continue;
		}
		if (strcmp(kv->key, "Symlinks") == 0 &&
		    !cu_reset_after(t, kv)) {
			for (s = v.data; *(s += strspn(s, " \t")) != '\0';
			    s += n) {
				n = strcspn(s, " \t");
				buf_printf(ou, " symlink=%.*s", (int)n, s);
			}
			continue;
		}
		if (!cu_last(t, kv))
			continue;
		b = sd_bool(v.data);
		if (strcmp(kv->key, "PassCredentials") == 0 && b == 1)
			buf_puts(oc, " pass_credentials");
		else if (strcmp(kv->key, "PassSecurity") == 0 && b == 1)
			buf_puts(oc, " pass_security");
		else if (strcmp(kv->key, "ReceiveBuffer") == 0)
			buf_printf(o, " receive_buffer=%s", v.data);
		else if (strcmp(kv->key, "SendBuffer") == 0)
			buf_printf(o, " send_buffer=%s", v.data);
		else if (strcmp(kv->key, "BindIPv6Only") == 0)
			*dual = strcmp(v.data, "ipv6-only") != 0;
	}
	buf_free(&v);
}

/* The other [Socket] directives: each to its key, or said. */
static void
cu_sock_rest(struct cu_svc *cs, const struct unit *t, bool on_demand,
    char **was)
{
	const struct unit_kv	*kv, *g;
	struct buf		 v = { 0 };
	size_t			 i;

	for (kv = t->kv; kv < t->kv + t->nkv; kv++) {
		if (strcmp(kv->section, "Unit") == 0 ||
		    strcmp(kv->section, "Install") == 0 ||
		    strncmp(kv->section, "X-", 2) == 0)
			continue;
		if (strcmp(kv->section, "Socket") != 0) {
			conf_warn(cs->cu->c, "%s:%d: [%s] is not a section of "
			    "a socket: ignored", kv->file, kv->line,
			    kv->section);
			continue;
		}
		if (!cu_last(t, kv) || kv->value[0] == '\0' ||
		    cu_spec(t, kv, cs->cu->c, &v) < 0)
			continue;
		if (strcmp(kv->key, "Backlog") == 0)
			cu_sock_key(cs, kv, v.data, "listen_backlog", &was[0]);
		else if (strcmp(kv->key, "SocketMode") == 0)
			cu_sock_key(cs, kv, v.data, "listen_mode", &was[1]);
		else if (strcmp(kv->key, "SocketUser") == 0) {
			struct buf	 u = { 0 };

			g = unit_get(t, "Socket", "SocketGroup");
			buf_printf(&u, "%s%s%s", v.data, g ? ":" : "",
			    g ? g->value : "");
			if (!u.nomem)
				cu_sock_key(cs, kv, u.data, "listen_owner",
				    &was[2]);
			buf_free(&u);
		} else if (strcmp(kv->key, "SocketGroup") == 0 &&
		    unit_get(t, "Socket", "SocketUser") == NULL) {
			struct buf	 u = { 0 };

			buf_printf(&u, "root:%s", v.data);
			if (!u.nomem)
				cu_sock_key(cs, kv, u.data, "listen_owner",
				    &was[2]);
			buf_free(&u);
		} else if (strncmp(kv->key, "TriggerLimit", 12) == 0) {
			if (on_demand)
				cu_sock_key(cs, kv, v.data, kv->key[12] == 'I' ?
				    "trigger_limit_interval" :
				    "trigger_limit_burst", &was[kv->key[12] ==
				    'I' ? 3 : 4]);
		} else if (strcmp(kv->key, "RemoveOnStop") == 0) {
			if (sd_bool(v.data) == 0)
				cu_note(cs, kv, "no: pidvisor removes a unix "
				    "socket's file (and its symlinks) when it "
				    "closes it for good");
		} else {
			for (i = 0; i < ARRAY_SIZE(cu_sock_quiet); i++)
				if (strncmp(kv->key, cu_sock_quiet[i],
				    strlen(cu_sock_quiet[i])) == 0)
					break;
			if (i == ARRAY_SIZE(cu_sock_quiet))
				cu_note(cs, kv, "not supported yet: ignored");
		}
	}
	buf_free(&v);
}

/*
 * Has socket unit t a condition or an assertion?  Its conditions are
 * not checked: such a socket is not bound (said).
 */
static const struct unit_kv *
cu_sock_cond(const struct unit *t)
{
	const struct unit_kv	*kv;

	for (kv = t->kv; kv < t->kv + t->nkv; kv++)
		if (strcmp(kv->section, "Unit") == 0 && kv->value[0] != '\0' &&
		    (strncmp(kv->key, "Condition", 9) == 0 ||
		    strncmp(kv->key, "Assert", 6) == 0))
			return kv;
	return NULL;
}

/*
 * The sockets of the service being made: each socket unit of the tree
 * that is its.  With on_demand, it starts on its first client.  How
 * many sockets it has.
 */
size_t
cu_sockets(struct cu_svc *cs, bool on_demand)
{
	static const char *const listens[] = { "ListenStream",
	    "ListenDatagram", "ListenSequentialPacket", "ListenNetlink" };
	struct cu		*cu = cs->cu;
	const struct unit_kv	*kv;
	struct buf		 opts = { 0 }, ou = { 0 }, oc = { 0 };
	struct buf		 spec = { 0 }, v = { 0 };
	char			*was[5] = { NULL };
	const char		*why;
	size_t			 i, j, n = 0, before;
	bool			 dual;

	for (i = 0; i < cu->n; i++) {
		struct unit	*t = &cu->v[i];

		if (!cu_is(t, ".socket") || t->masked || t->fragment == NULL ||
		    !cu_socket_of(cs, t))
			continue;
		if ((kv = cu_sock_cond(t)) != NULL) {
			cu_note(cs, kv, "the conditions of a socket unit are not "
			    "checked yet: the socket is not bound (the service "
			    "runs without it)");
			continue;
		}
		before = n;
		opts.len = ou.len = oc.len = 0;
		cu_sock_opts(cs, t, &opts, &ou, &oc, &dual);
		cu->used[i] = true;
		for (kv = t->kv; kv < t->kv + t->nkv; kv++) {
			if (strcmp(kv->section, "Socket") != 0 ||
			    strncmp(kv->key, "Listen", 6) != 0 ||
			    kv->value[0] == '\0' || cu_reset_after(t, kv) ||
			    cu_spec(t, kv, cu->c, &v) < 0)
				continue;
			for (j = 0; j < ARRAY_SIZE(listens); j++)
				if (strcmp(kv->key, listens[j]) == 0)
					break;
			if (j == ARRAY_SIZE(listens)) {
				cu_note(cs, kv, "not supported yet: left out");
				continue;
			}
			spec.len = 0;
			if (cu_listen_addr(kv->key, v.data, dual, &spec,
			    &why) < 0) {
				cu_note(cs, kv, why);
				continue;
			}
			buf_printf(&spec, "%s", opts.data ? opts.data : "");
			if (strncmp(spec.data, "unix", 4) == 0)
				buf_printf(&spec, "%s", ou.data ? ou.data : "");
			if (strncmp(spec.data, "unix", 4) == 0 ||
			    strncmp(spec.data, "netlink", 7) == 0)
				buf_printf(&spec, "%s", oc.data ? oc.data : "");
			if (spec.nomem || opts.nomem || ou.nomem || oc.nomem) {
				cu->c->nomem = true;
				continue;
			}
			conf_apply(&cs->p, kv->file, kv->line, "listen",
			    spec.data);
			n++;
		}
		if (n > before)
			cu_sock_rest(cs, t, on_demand, was);
		else
			conf_warn(cu->c, "%s: no socket in it that pidvisor "
			    "binds: the socket is not bound", t->fragment);
	}
	if (n > 0 && on_demand)
		conf_apply(&cs->p, cs->u->fragment, 0, "on_demand", "yes");
	for (i = 0; i < ARRAY_SIZE(was); i++)
		free(was[i]);
	buf_free(&opts);
	buf_free(&ou);
	buf_free(&oc);
	buf_free(&spec);
	buf_free(&v);
	return n;
}

/* Say each socket unit of the tree that no service made takes. */
void
cu_sockets_unused(struct cu *cu)
{
	char		 want[UNIT_NAME_MAX + 1], name[UNIT_NAME_MAX + 1];
	const struct unit *o;
	size_t		 i, k;

	for (i = 0; i < cu->n; i++) {
		const struct unit	*t = &cu->v[i];

		if (!cu_is(t, ".socket") || t->masked || t->fragment == NULL ||
		    cu->used[i] || cu_sock_cond(t) != NULL)
			continue;
		if (!cu_socket_service(t, want, sizeof(want))) {
			conf_warn(cu->c, "%s: Accept=yes (a service per "
			    "client) is not supported for units yet: the "
			    "socket is not bound", t->fragment);
			continue;
		}
		if ((o = cu_find(cu, want)) != NULL)	/* an alias's unit */
			snprintf(want, sizeof(want), "%s", o->id);
		snprintf(name, sizeof(name), "%.*s",
		    (int)(unit_suffix(want) ? unit_suffix(want) - want : 0),
		    want);
		for (k = 0; k < cu->c->ndefs; k++)
			if (strcmp(cu->c->defs[k]->name, name) == 0)
				break;
		if (k == cu->c->ndefs)
			conf_warn(cu->c, "%s: its service %s is not run: the "
			    "socket is not bound", t->fragment, want);
	}
}
