/*
 * conf_protect.c - the values of the keys that take a kind of call from a
 * service (sandbox_filter.c makes them seccomp filters): which
 * namespaces it may make (restrict_namespaces), which socket families it
 * may open (restrict_address_families), which architectures' calls it
 * may make (system_call_architectures); and how each shows.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "conf_parse.h"

const struct conf_ns_name conf_ns_names[CONF_NS_COUNT] = {
	{ "cgroup", CLONE_NEWCGROUP }, { "ipc", CLONE_NEWIPC },
	{ "net", CLONE_NEWNET }, { "mnt", CLONE_NEWNS },
	{ "pid", CLONE_NEWPID }, { "user", CLONE_NEWUSER },
	{ "uts", CLONE_NEWUTS },
};

/* Linux's address families (linux/socket.h), by number. */
static const char *const af_names[CONF_AF_MAX] = {
	"AF_UNSPEC", "AF_UNIX", "AF_INET", "AF_AX25", "AF_IPX",
	"AF_APPLETALK", "AF_NETROM", "AF_BRIDGE", "AF_ATMPVC", "AF_X25",
	"AF_INET6", "AF_ROSE", "AF_DECnet", "AF_NETBEUI", "AF_SECURITY",
	"AF_KEY", "AF_NETLINK", "AF_PACKET", "AF_ASH", "AF_ECONET",
	"AF_ATMSVC", "AF_RDS", "AF_SNA", "AF_IRDA", "AF_PPPOX",
	"AF_WANPIPE", "AF_LLC", "AF_IB", "AF_MPLS", "AF_CAN", "AF_TIPC",
	"AF_BLUETOOTH", "AF_IUCV", "AF_RXRPC", "AF_ISDN", "AF_PHONET",
	"AF_IEEE802154", "AF_CAIF", "AF_ALG", "AF_NFC", "AF_VSOCK",
	"AF_KCM", "AF_QIPCRTR", "AF_SMC", "AF_XDP", "AF_MCTP",
};

/* An address family's number, by name (AF_LOCAL: AF_UNIX); -1 if none. */
static int
af_find(const char *w, size_t n)
{
	int	i;

	if (n == 8 && strncmp(w, "AF_LOCAL", 8) == 0)
		return 1;
	for (i = 0; i < CONF_AF_MAX; i++)
		if (strlen(af_names[i]) == n && strncmp(w, af_names[i], n) ==
		    0)
			return i;
	return -1;
}

/*
 * restrict_namespaces = yes | no | [~]TYPE...: the namespaces a service
 * may not make: all, none, all but those named, or those named after
 * '~' (cgroup ipc net mnt pid user uts), as systemd's RestrictNamespaces=.
 */
const char *
conf_protect_namespaces(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	bool		 b, deny = v[0] == '~';
	uint32_t	 m = 0;
	const char	*s;
	size_t		 n, i;

	if (parse_bool(v, &b) == 0 || *v == '\0') {
		d->ns_deny = *v != '\0' && b ? CONF_NS_ALL : 0;
		return NULL;
	}
	for (s = v + deny; *(s += strspn(s, " \t")) != '\0'; s += n) {
		n = strcspn(s, " \t");
		for (i = 0; i < CONF_NS_COUNT; i++)
			if (strlen(conf_ns_names[i].name) == n &&
			    strncmp(s, conf_ns_names[i].name, n) == 0)
				break;
		if (i == CONF_NS_COUNT)
			return bad(p, "restrict_namespaces: '%.*s' is not a "
			    "namespace (cgroup, ipc, net, mnt, pid, user, "
			    "uts), nor yes or no", (int)n, s);
		m |= conf_ns_names[i].flag;
	}
	d->ns_deny = deny ? m : CONF_NS_ALL & ~m;
	return NULL;
}

/*
 * restrict_address_families = AF_...  | ~AF_... | none: the families of
 * the sockets it may open (or those it may not, after '~'; none: no
 * socket at all), as RestrictAddressFamilies=; more lines add to the
 * first's list, or take from it (a '~' line from a list, or the other
 * way); an empty value forgets them.
 */
const char *
conf_protect_families(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	bool		 deny = v[0] == '~';
	uint64_t	 m = 0;
	const char	*s;
	size_t		 n;
	int		 f;

	if (*v == '\0') {
		d->af_set = d->af_deny = false;
		d->af_mask = 0;
		return NULL;
	}
	if (strcmp(v, "none") == 0) {
		d->af_set = true;
		d->af_deny = false;
		d->af_mask = 0;
		return NULL;
	}
	for (s = v + deny; *(s += strspn(s, " \t")) != '\0'; s += n) {
		n = strcspn(s, " \t");
		if ((f = af_find(s, n)) < 0)
			return bad(p, "restrict_address_families: '%.*s' is "
			    "not an address family (AF_UNIX, AF_INET, "
			    "AF_INET6, AF_NETLINK, AF_PACKET, ...)", (int)n, s);
		m |= 1ULL << f;
	}
	if (!d->af_set) {
		d->af_set = true;
		d->af_deny = deny;
		d->af_mask = m;
	} else if (d->af_deny == deny) {
		d->af_mask |= m;
	} else {
		d->af_mask &= ~m;
	}
	return NULL;
}

/* system_call_architectures = native: only this machine's own calls. */
const char *
conf_protect_arch(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;

	if (*v == '\0' || strcmp(v, "native") == 0) {
		d->native_arch = *v != '\0';
		return NULL;
	}
	return bad(p, "system_call_architectures: only native is supported, "
	    "not '%s'", v);
}

/* How those three show, as a file would say them. */
void
conf_protect_show(struct buf *b, const struct conf_key *k, const void *obj)
{
	const struct svc_def	*d = obj;
	const char		*sep = "";
	size_t			 i;

	switch (k - conf_keys) {
	case K_RESTRICT_NAMESPACES:
		if (d->ns_deny == CONF_NS_ALL || d->ns_deny == 0) {
			buf_puts(b, d->ns_deny ? "yes" : "no");
			break;
		}
		buf_puts(b, "~");
		for (i = 0; i < CONF_NS_COUNT; i++)
			if (d->ns_deny & conf_ns_names[i].flag) {
				buf_printf(b, "%s%s", sep,
				    conf_ns_names[i].name);
				sep = " ";
			}
		break;
	case K_RESTRICT_ADDRESS_FAMILIES:
		if (!d->af_set)
			break;
		if (!d->af_deny && d->af_mask == 0) {
			buf_puts(b, "none");
			break;
		}
		if (d->af_deny)
			buf_puts(b, "~");
		for (i = 0; i < CONF_AF_MAX; i++)
			if (d->af_mask >> i & 1) {
				buf_printf(b, "%s%s", sep, af_names[i]);
				sep = " ";
			}
		break;
	case K_SYSTEM_CALL_ARCHITECTURES:
		buf_puts(b, d->native_arch ? "native" : "");
		break;
	default:
		break;
	}
}
