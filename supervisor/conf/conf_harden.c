/*
 * conf_harden.c - the values of the hardening keys (sandbox.c applies
 * them): capabilities, paths, the system call filter, limits, nice, CPU
 * and I/O.  Each checks what it can at load time, so that a bad value
 * is an error at FILE:LINE, with a did-you-mean where there is one.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"
#include "sandbox.h"

/* no_new_privs, private_tmp, private_network, private_devices. */
const char *
conf_harden_flag(struct parse_ctx *p, void *obj, const char *v)
{
	if (parse_bool(v, (bool *)((char *)obj + p->key->f[0].off)) < 0)
		return bad(p, "%s: expected yes or no, not '%s'", p->key->name,
		    v);
	return NULL;
}

/*
 * capabilities: the names of those it keeps (empty: none), or after '~'
 * of those it loses; a line that goes on adds to the same list.
 */
const char *
conf_harden_capabilities(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	uint64_t	 caps;

	if (sandbox_cap_parse(v, &caps, p->why, sizeof(p->why)) < 0)
		return p->why;
	if (!p->cont) {
		d->caps = caps;
		p->caps_deny = v[strspn(v, " \t")] == '~';
	} else if (v[strspn(v, " \t")] == '~') {
		return bad(p, "capabilities: '~' goes at the start of the "
		    "value, not of a line that goes on");
	} else if (p->caps_deny) {
		d->caps &= ~caps;
	} else {
		d->caps |= caps;
	}
	d->set_caps = true;
	return NULL;
}

/*
 * read_only_paths, read_write_paths, inaccessible_paths: absolute
 * paths, blank-separated, each after a '-' if it may be missing.
 */
const char *
conf_harden_paths(struct parse_ctx *p, void *obj, const char *v)
{
	char		***vp = (char ***)(void *)((char *)obj +
			    p->key->f[0].off);
	char		 path[4096];
	const char	*why;
	size_t		 n;

	while (*(v += strspn(v, " \t")) != '\0') {
		n = strcspn(v, " \t");
		if (v[v[0] == '-'] != '/' || n >= sizeof(path))
			return bad(p, "%s: '%.*s' is not an absolute path (a "
			    "leading '-' makes it optional)", p->key->name,
			    (int)n, v);
		memcpy(path, v, n);
		path[n] = '\0';
		if (strstr(path, "/../") || (n >= 3 &&
		    !strcmp(path + n - 3, "/..")))
			return bad(p, "%s: '%s' has '..' in it", p->key->name,
			    path);
		if ((why = key_strv_add(vp, path)) != NULL)
			return why;
		v += n;
	}
	return NULL;
}

const char *
conf_harden_root_directory(struct parse_ctx *p, void *obj, const char *v)
{
	if (v[0] != '/' || strcmp(v, "/") == 0)
		return bad(p, "root_directory: '%s' is not an absolute path "
		    "other than /", v);
	return key_str(&((struct svc_def *)obj)->root_dir, v);
}

/*
 * syscall_filter: names and @groups it may call, or after '~' those it
 * may not; repeatable, the lists joined.  After an allow list, a '~'
 * line takes its calls out of it (kept as "~WORD" after the first word),
 * as systemd's SystemCallFilter= does; a deny list takes no allow line.
 */
const char *
conf_harden_syscall_filter(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	 *d = obj;
	char		**words = NULL;
	const char	 *why;
	size_t		  i;
	bool		  deny = v[strspn(v, " \t")] == '~', out = false;

	/* A line that goes on: the same list, with no '~' of its own; one
	 * that takes calls out of an allow list goes on taking them. */
	if (p->cont && d->syscalls != NULL && !deny && p->sys_out)
		out = true;
	else if (p->cont && d->syscalls != NULL && !deny)
		deny = d->syscalls[0][0] == '~';
	else if (p->cont && deny)
		return bad(p, "syscall_filter: '~' goes at the start of the "
		    "value, not of a line that goes on");
	if (!out && d->syscalls != NULL && d->syscalls[0][0] == '~' && !deny)
		return bad(p, "syscall_filter: a deny list ('~') takes no "
		    "allow list after it");
	/* After an allow list: these calls out of it. */
	if (d->syscalls != NULL && d->syscalls[0][0] != '~' && deny) {
		out = true;
		deny = false;
	}
	if (!p->cont)
		p->sys_out = out;
	v += strspn(v, " \t");
	if (argv_split(v + (v[0] == '~'), &words, &why) < 0)
		return bad(p, "syscall_filter: %s", why);
	if (sandbox_syscalls_check(words, deny || out, p->why, sizeof(p->why)) <
	    0) {
		strv_free(words);
		return p->why;
	}
	for (i = 0, why = NULL; words[i] && why == NULL; i++) {
		char	w[256];

		snprintf(w, sizeof(w), "%s%s", out || (deny && d->syscalls ==
		    NULL && i == 0) ? "~" : "", words[i]);
		why = key_strv_add(&d->syscalls, w);
	}
	strv_free(words);
	return why;
}

const char *
conf_harden_syscall_errno(struct parse_ctx *p, void *obj, const char *v)
{
	if (sandbox_errno_parse(v, &((struct svc_def *)obj)->syscall_errno) <
	    0)
		return bad(p, "syscall_errno: expected an errno name such as "
		    "EPERM or ENOSYS, a number from 1 to 4095, or kill; not "
		    "'%s'", v);
	return NULL;
}

const char *
conf_harden_cpu_affinity(struct parse_ctx *p, void *obj, const char *v)
{
	cpu_set_t	*set;
	size_t		 size;

	if (sandbox_cpus_parse(v, &set, &size) < 0)
		return bad(p, "cpu_affinity: expected CPU numbers and ranges "
		    "such as '0 2-3' (below 8192), not '%s'", v);
	CPU_FREE(set);
	return key_str(&((struct svc_def *)obj)->cpu_affinity, v);
}

/*
 * cpu_max: a share of one CPU ("50%", "200%" for two) per 100ms, or
 * QUOTA PERIOD as durations ("20ms 100ms"), as cgroup's cpu.max.
 */
const char *
conf_harden_cpu_max(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def	*d = obj;
	char		 a[32], b[32], *end;
	uint64_t	 quota, period = 100000;
	unsigned long	 pct;
	int		 n = 0;

	if (strchr(v, '%') != NULL) {
		errno = 0;
		pct = strtoul(v, &end, 10);
		if (errno || end == v || strcmp(end, "%") || pct == 0 ||
		    pct > 100000)
			goto bad;
		quota = pct * 1000;
	} else if (sscanf(v, "%31s %31s %n", a, b, &n) == 2 && v[n] == '\0' &&
	    parse_duration_us(a, 1, UINT32_MAX, &quota) == 0 &&
	    parse_duration_us(b, 1, UINT32_MAX, &period) == 0) {
		;
	} else {
		goto bad;
	}
	if (quota < 1000 || period < 1000 || period > 1000000)
		goto bad;
	d->cpu_quota = (uint32_t)quota;
	d->cpu_period = (uint32_t)period;
	return key_str(&d->cpu_max, v);
bad:
	return bad(p, "cpu_max: expected a share of one CPU such as 50%% or "
	    "QUOTA PERIOD such as '20ms 100ms' (each at least 1ms, the period "
	    "at most 1s); not '%s'", v);
}

/*
 * limit_NAME: a number, SOFT:HARD, or infinity; sizes for the byte
 * limits (limit_as 1G), seconds for limit_cpu (or a duration), and
 * microseconds for limit_rttime (or a duration).
 */
static int
conf_harden_rlimit_one(const char *v, enum sb_unit unit, uint64_t *out)
{
	uint64_t	n;

	if (!strcmp(v, "infinity")) {
		*out = UINT64_MAX;
		return 0;
	}
	switch (unit) {
	case SB_BYTES:
		return parse_size(v, 1ULL << 60, out);
	case SB_SECONDS:
		if (parse_u64(v, UINT32_MAX, out) == 0)
			return 0;
		if (parse_duration_us(v, 1000000, 1ULL << 50, &n) < 0)
			return -EINVAL;
		*out = n / 1000000;
		return 0;
	case SB_MICROSECONDS:
		return parse_duration_us(v, 1, 1ULL << 50, out);
	default:
		return parse_u64(v, 1ULL << 60, out);
	}
}

const char *
conf_harden_rlimit(struct parse_ctx *p, void *obj, const char *v)
{
	struct svc_def			*d = obj;
	int				 i = (int)(p->key - conf_keys) -
					     K_LIMIT_AS;
	const struct sb_rlimit_name	*r = &sb_rlimits[i];
	char				 soft[64];
	const char			*colon = strchr(v, ':');
	static const char *const	 ex[] = {
		[SB_COUNT] = "64 or 64:128", [SB_BYTES] = "8M or 8M:1G",
		[SB_SECONDS] = "30 (seconds) or 30:5m",
		[SB_MICROSECONDS] = "200000 (microseconds) or 200ms:1s",
	};

	snprintf(soft, sizeof(soft), "%.*s", colon ? (int)(colon - v) :
	    (int)strlen(v), v);
	if ((colon && strlen(soft) + 1 != (size_t)(colon - v + 1)) ||
	    conf_harden_rlimit_one(soft, r->unit, &d->limit[i].cur) < 0 ||
	    conf_harden_rlimit_one(colon ? colon + 1 : soft, r->unit,
	    &d->limit[i].max) < 0)
		return bad(p, "limit_%s: expected a value, SOFT:HARD, or "
		    "infinity, such as %s; not '%s'", r->name, ex[r->unit], v);
	if (d->limit[i].cur > d->limit[i].max)
		return bad(p, "limit_%s: the soft limit is above the hard one "
		    "in '%s'", r->name, v);
	d->limit[i].set = true;
	return NULL;
}
