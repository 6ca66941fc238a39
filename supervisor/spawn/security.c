/*
 * security.c - what a service may not do, as a report: each protection
 * on or off, what that means, and an exposure from 0 (all on) to 10
 * (none), in the spirit of systemd-analyze security; and the warnings
 * of pidvisor --check about protections that undo each other.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "security.h"
#include "sandbox.h"

/* Capabilities that give away much of the rest (CAP_SYS_ADMIN & co). */
#define SECURITY_CAPS_WIDE	(1ULL << CAP_SYS_ADMIN | 1ULL << CAP_SYS_MODULE | \
			 1ULL << CAP_SYS_RAWIO | 1ULL << CAP_SYS_PTRACE | \
			 1ULL << CAP_DAC_OVERRIDE | 1ULL << CAP_SETUID | \
			 1ULL << CAP_SETPCAP | 1ULL << CAP_BPF | \
			 1ULL << CAP_NET_ADMIN)

/* Any mount of the service's own, which CAP_SYS_ADMIN could undo. */
static bool
security_mounts(const struct svc_def *d)
{
	return d->protect_system || d->protect_home || d->ro_paths ||
	    d->hide_paths || d->private_tmp || d->private_devices ||
	    d->protect_kernel_tunables || d->noexec_paths ||
	    d->protect_proc || d->proc_subset;
}

/* Whether a filter denies (or does not allow) the group's calls. */
static bool
security_filter_stops(const struct svc_def *d, const char *group)
{
	char *const	*w;
	bool		 deny;

	if (d->syscalls == NULL)
		return false;
	deny = d->syscalls[0][0] == '~';
	for (w = d->syscalls; *w; w++)
		if (strcmp(*w + (*w == d->syscalls[0] && deny), group) == 0)
			return deny;
	return !deny;
}

/* One row of the report: its share of the exposure (0 to 1) too. */
struct security_row {
	enum conf_key_id key;		/* K__COUNT: user */
	const char	*systemd;
	double		 weight;
	double		 share;		/* 0: protected; 1: not at all */
	const char	*what;		/* what it means as it is */
};

/* The protections of calls: a row each, on or off (sandbox_filter.c). */
static int
security_calls(const struct svc_def *d, struct security_row *r)
{
#define ROW(K, name, w, on, yes, no) (struct security_row){ K, name, w, \
	(on) ? 0 : 1, (on) ? (yes) : (no) }
	int	n = 0;

	r[n++] = ROW(K_RESTRICT_NAMESPACES, "RestrictNamespaces=", 0.5,
	    d->ns_deny == CONF_NS_ALL, "may make no namespace",
	    "may make namespaces (an unprivileged user one gives it root's "
	    "powers inside)");
	r[n++] = ROW(K_RESTRICT_ADDRESS_FAMILIES, "RestrictAddressFamilies=",
	    0.5, d->af_set && !d->af_deny, "may open only the socket families "
	    "named", "may open sockets of every family (AF_PACKET, AF_NETLINK "
	    "and the rarely used, whose bugs are many)");
	r[n++] = ROW(K_MEMORY_DENY_WRITE_EXECUTE, "MemoryDenyWriteExecute=",
	    0.4, d->memory_deny_write_execute, "no memory both writable and "
	    "executable", "may make memory writable and executable (code "
	    "written at run time)");
	r[n++] = ROW(K_PROTECT_KERNEL_MODULES, "ProtectKernelModules=", 0.5,
	    d->protect_kernel_modules, "cannot load kernel modules",
	    "may load kernel modules if it has the right");
	r[n++] = ROW(K_PROTECT_KERNEL_LOGS, "ProtectKernelLogs=", 0.3,
	    d->protect_kernel_logs, "cannot read the kernel's log",
	    "may read the kernel's log (addresses in it)");
	r[n++] = ROW(K_PROTECT_CLOCK, "ProtectClock=", 0.3, d->protect_clock,
	    "cannot set the clock", "may set the system's clock if it has "
	    "the right");
	r[n++] = ROW(K_PROTECT_CONTROL_GROUPS, "ProtectControlGroups=", 0.3,
	    d->protect_control_groups, "/sys/fs/cgroup is read-only to it",
	    "may change control groups it has the right to");
	r[n++] = ROW(K_PROTECT_HOSTNAME, "ProtectHostname=", 0.2,
	    d->protect_hostname, "cannot set the host's name",
	    "may set the host's name if it has the right");
	r[n++] = ROW(K_RESTRICT_SUID_SGID, "RestrictSUIDSGID=", 0.3,
	    d->restrict_suid_sgid, "cannot make set-user-ID or set-group-ID "
	    "files", "may make set-user-ID files (a way up for another)");
	r[n++] = ROW(K_RESTRICT_REALTIME, "RestrictRealtime=", 0.2,
	    d->restrict_realtime, "cannot take real-time scheduling",
	    "may take a real-time policy and starve the machine");
	r[n++] = ROW(K_LOCK_PERSONALITY, "LockPersonality=", 0.2,
	    d->lock_personality, "keeps Linux's personality", "may change "
	    "its personality (READ_IMPLIES_EXEC and the like)");
	r[n++] = ROW(K_SYSTEM_CALL_ARCHITECTURES, "SystemCallArchitectures=",
	    0.2, d->native_arch, "may make only this machine's own calls",
	    "may make another architecture's calls (i386's), past the "
	    "filters of calls by argument");
#undef ROW
	return n;
}

static int
security_rows(const struct svc_def *d, struct security_row *r)
{
	bool	root = !d->set_uid || d->uid == 0;
	bool	nnp = d->no_new_privs || sandbox_nnp_implied(d);
	bool	nocore = d->limit[K_LIMIT_CORE - K_LIMIT_AS].set &&
		    d->limit[K_LIMIT_CORE - K_LIMIT_AS].max == 0;
	int	n = 0;

	r[n++] = (struct security_row){ K__COUNT, "User=", 2.0, root ? 1 : 0,
	    root ? "runs as root" : "runs as a user of its own" };
	r[n++] = (struct security_row){ K_NO_NEW_PRIVS, "NoNewPrivileges=", 1.0,
	    nnp ? 0 : 1, nnp ? "exec cannot gain privileges (setuid files, "
	    "file capabilities)" : "a setuid program it runs gains its "
	    "owner's privileges" };
	r[n++] = (struct security_row){ K_CAPABILITIES, "CapabilityBoundingSet=",
	    2.0, !d->set_caps ? (root ? 1 : 0.3) : (d->caps & SECURITY_CAPS_WIDE) ?
	    0.6 : 0, !d->set_caps ? (root ? "holds every capability" :
	    "no capability held, but any may be gained by exec") :
	    (d->caps & SECURITY_CAPS_WIDE) ? "keeps a capability that gives away "
	    "the rest (SYS_ADMIN, DAC_OVERRIDE, SETUID and the like)" :
	    d->caps == 0 ? "holds no capability, and can gain none" :
	    "holds only the capabilities named" };
	r[n++] = (struct security_row){ K_PROTECT_SYSTEM, "ProtectSystem=", 1.5,
	    d->protect_system == PROTECT_STRICT ? 0 : d->protect_system ==
	    PROTECT_FULL ? 0.3 : d->protect_system == PROTECT_YES ? 0.6 : 1,
	    d->protect_system == PROTECT_STRICT ? "the whole file system is "
	    "read-only to it, but /dev, /proc, /sys and what is named" :
	    d->protect_system ? "/usr and /boot (and with full, /etc) are "
	    "read-only to it" : "it may write the system's files" };
	r[n++] = (struct security_row){ K_PROTECT_HOME, "ProtectHome=", 1.0,
	    d->protect_home == HOME_YES ? 0 : d->protect_home ==
	    HOME_READ_ONLY ? 0.5 : 1, d->protect_home == HOME_YES ?
	    "/home, /root and /run/user are empty to it" : d->protect_home ?
	    "home directories are read-only to it" : "it may read and write "
	    "home directories" };
	r[n++] = (struct security_row){ K_PRIVATE_TMP, "PrivateTmp=", 0.5,
	    d->private_tmp ? 0 : 1, d->private_tmp ? "its /tmp and /var/tmp "
	    "are its own" : "shares /tmp with everyone (symlink races)" };
	r[n++] = (struct security_row){ K_PRIVATE_DEVICES, "PrivateDevices=", 1.0,
	    d->private_devices ? 0 : 1, d->private_devices ? "sees only "
	    "null, zero, full, random, urandom, tty" : "may open every "
	    "device node" };
	r[n++] = (struct security_row){ K_PROTECT_KERNEL_TUNABLES,
	    "ProtectKernelTunables=", 0.5, d->protect_kernel_tunables ? 0 : 1,
	    d->protect_kernel_tunables ? "/proc/sys, /sys and the kernel's "
	    "other knobs are read-only to it" : "may set the kernel's "
	    "tunables it has the right to" };
	r[n++] = (struct security_row){ K_PRIVATE_NETWORK, "PrivateNetwork=", 0.5,
	    d->private_network ? 0 : 1, d->private_network ? "has only a "
	    "loopback of its own" : "may reach every network" };
	r[n++] = (struct security_row){ K_SYSCALL_FILTER, "SystemCallFilter=", 1.5,
	    d->syscalls == NULL ? 1 : d->syscalls[0][0] != '~' ? 0 :
	    (security_filter_stops(d, "@mount") && security_filter_stops(d, "@module") &&
	    security_filter_stops(d, "@debug")) ? 0.2 : 0.6, d->syscalls == NULL ?
	    "may make every system call" : d->syscalls[0][0] != '~' ?
	    "may make only the system calls named" : "may make every system "
	    "call but those named" };
	r[n++] = (struct security_row){ K_ROOT_DIRECTORY, "RootDirectory=", 0.5,
	    d->root_dir ? 0 : 1, d->root_dir ? "sees only its own root" :
	    "sees the whole file system" };
	r[n++] = (struct security_row){ K_LIMIT_CORE, "LimitCORE=", 0.2,
	    nocore ? 0 : 1, nocore ? "cannot dump its "
	    "memory to a core file" : "may dump its "
	    "memory, secrets too, to a core file" };
	return n + security_calls(d, r + n);
}

/*
 * pidvisorctl security NAME: each protection on or off and what that
 * means, and an overall exposure from 0 (all on) to 10 (none), in the
 * spirit of systemd-analyze security.
 */
void
security_report(struct buf *b, const struct svc_def *d, bool json)
{
	struct security_row	 r[32];
	struct buf	 v = { 0 };
	double		 sum = 0, all = 0, x;
	const char	*rating;
	int		 n = security_rows(d, r), i;

	for (i = 0; i < n; i++) {
		sum += r[i].weight * r[i].share;
		all += r[i].weight;
	}
	x = (int)(sum / all * 100 + 0.5) / 10.0;
	rating = x < 2 ? "safe" : x < 5 ? "ok" : x < 7 ? "medium" : x < 9 ?
	    "exposed" : "unsafe";
	if (json) {
		buf_puts(b, "{\"service\":");
		buf_json_str(b, d->name);
		buf_printf(b, ",\"exposure\":%.1f,\"rating\":\"%s\","
		    "\"checks\":[", x, rating);
	} else {
		buf_printf(b, "%s: exposure %.1f of 10 (%s)\n", d->name, x,
		    rating);
	}
	for (i = 0; i < n; i++) {
		v.len = 0;
		if (r[i].key == K__COUNT)
			buf_puts(&v, d->user ? d->user : "root");
		else
			conf_key_show(&v, &conf_keys[r[i].key], d);
		buf_add(&v, "", 1);
		if (json) {
			buf_printf(b, "%s{\"key\":\"%s\",\"systemd\":\"%.*s\","
			    "\"value\":", i ? "," : "", r[i].key == K__COUNT ?
			    "user" : conf_keys[r[i].key].name,
			    (int)strlen(r[i].systemd) - 1, r[i].systemd);
			buf_json_str(b, v.data);
			buf_printf(b, ",\"weight\":%.1f,\"exposure\":%.2f,"
			    "\"what\":", r[i].weight, r[i].weight *
			    r[i].share);
			buf_json_str(b, r[i].what);
			buf_puts(b, "}");
		} else {
			buf_printf(b, "%-4s %-25s %-24.24s %-24s %4.2f  %s\n",
			    r[i].share == 0 ? "on" : r[i].share < 1 ? "part" :
			    "off", r[i].key == K__COUNT ? "user" :
			    conf_keys[r[i].key].name, v.data, r[i].systemd,
			    r[i].weight * r[i].share, r[i].what);
		}
	}
	if (json)
		buf_puts(b, "]}\n");
	buf_free(&v);
}

struct security_at {
	struct conf		*c;
	const struct svc_def	*d;
};

/* security_warn()'s: a warning about a service, at its file. */
static void
security_conf_warn(void *arg, const char *msg)
{
	struct security_at	*w = arg;

	conf_warn(w->c, "%s: %s: %s", w->d->file, w->d->name, msg);
}

/* conf_check()'s check of a definition (struct conf's check_def). */
void
security_conf_check(struct conf *c, const struct svc_def *d)
{
	struct security_at	w = { c, d };

	security_warn(d, security_conf_warn, &w);
}

/* pidvisor --check: protections that undo each other, or nothing. */
void
security_warn(const struct svc_def *d, void (*warn)(void *, const char *),
    void *arg)
{
	bool	root = !d->set_uid || d->uid == 0;

	if (security_mounts(d) && ((d->set_caps && (d->caps >> CAP_SYS_ADMIN & 1)) ||
	    (!d->set_caps && root)) && !security_filter_stops(d, "@mount"))
		warn(arg, "it keeps CAP_SYS_ADMIN and may call mount: it can "
		    "undo its protect_*, private_* and *_paths mounts (set "
		    "capabilities, or syscall_filter = ~@mount)");
	if (d->rw_paths && !d->protect_system && !d->ro_paths &&
	    d->protect_home != HOME_READ_ONLY)
		warn(arg, "read_write_paths has nothing to undo: nothing is "
		    "read-only to it (protect_system, read_only_paths)");
	if (keyset_has(&d->given, K_NO_NEW_PRIVS) && !d->no_new_privs &&
	    sandbox_nnp_implied(d))
		warn(arg, "no_new_privs = no is overruled: loading its "
		    "syscall_filter without CAP_SYS_ADMIN takes no_new_privs");
	if (d->private_devices && d->set_caps && (d->caps &
	    (1ULL << CAP_MKNOD | 1ULL << CAP_SYS_RAWIO)))
		warn(arg, "private_devices drops CAP_MKNOD and CAP_SYS_RAWIO: "
		    "capabilities cannot keep them");
	if (d->set_caps && !root && (d->caps & SECURITY_CAPS_WIDE))
		warn(arg, "capabilities gives a user a capability that gives "
		    "away the rest (SYS_ADMIN, DAC_OVERRIDE, SETUID...): it is "
		    "as good as root");
}
