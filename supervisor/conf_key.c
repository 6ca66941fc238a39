/*
 * conf_key.c - what the key table (conf.c) says of a value: are two
 * equal (svc_def_equal, reload's diff), how does it read (show), copy
 * it (a live key on reload).  Each key names the fields it sets, by
 * offset and kind; nothing here knows a key by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/* Where a field of a key is, in the object it belongs to. */
static const void *
field_at(const void *obj, const struct conf_field *f)
{
	return (const char *)obj + f->off;
}

static size_t
field_count(const void *obj, const struct conf_field *f)
{
	return *(const size_t *)(const void *)((const char *)obj + f->cnt);
}

static bool
field_equal(const struct conf_field *f, const void *a, const void *b)
{
	const void	*x = field_at(a, f), *y = field_at(b, f);
	size_t		 i, n;

	switch (f->kind) {
	case F_STR: {
		const char	*s = *(char *const *)x, *t = *(char *const *)y;

		return (s == NULL || t == NULL) ? s == t : strcmp(s, t) == 0;
	}
	case F_STRV:
		return strv_equal(*(char **const *)x, *(char **const *)y);
	case F_DEPS: {
		const struct svc_dep	*s = *(struct svc_dep *const *)x;
		const struct svc_dep	*t = *(struct svc_dep *const *)y;

		if ((n = field_count(a, f)) != field_count(b, f))
			return false;
		for (i = 0; i < n; i++)
			if (strcmp(s[i].name, t[i].name) != 0)
				return false;
		return true;
	}
	case F_GIDS:
		if ((n = field_count(a, f)) != field_count(b, f))
			return false;
		return n == 0 || memcmp(*(gid_t *const *)x, *(gid_t *const *)y,
		    n * sizeof(gid_t)) == 0;
	case F_BOOL:
		return *(const bool *)x == *(const bool *)y;
	case F_U8:
		return *(const uint8_t *)x == *(const uint8_t *)y;
	case F_I32:
	case F_U32:
		return *(const uint32_t *)x == *(const uint32_t *)y;
	case F_U64:
		return *(const uint64_t *)x == *(const uint64_t *)y;
	}
	return false;
}

/* Do a and b hold the same value for key k? */
bool
conf_key_equal(const struct conf_key *k, const void *a, const void *b)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(k->f) && k->f[i].kind; i++)
		if (!field_equal(&k->f[i], a, b))
			return false;
	return true;
}

/*
 * Would a service defined by b run differently from one defined by a?
 * Every key of the table but enabled, which only says what starts at
 * boot.
 */
bool
svc_def_equal(const struct svc_def *a, const struct svc_def *b)
{
	size_t	i;

	for (i = 0; i < K__COUNT; i++)
		if (conf_keys[i].section == SEC_SERVICE &&
		    !(conf_keys[i].flags & KEY_LIVE) &&
		    !conf_key_equal(&conf_keys[i], a, b))
			return false;
	return true;
}

/* A scalar field as a number (the first field of a key is what shows). */
static int64_t
field_num(const void *obj, const struct conf_field *f)
{
	const void	*x = field_at(obj, f);

	switch (f->kind) {
	case F_BOOL:
		return *(const bool *)x;
	case F_U8:
		return *(const uint8_t *)x;
	case F_I32:
		return *(const int32_t *)x;
	case F_U32:
		return *(const uint32_t *)x;
	case F_U64:
		return (int64_t)*(const uint64_t *)x;
	}
	return 0;
}

/* A size the way the parser takes it: 64M, 4k, or bytes. */
static void
show_size(struct buf *b, uint64_t v)
{
	static const char	units[] = "kMGT";
	int			u = -1;

	while (v && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	buf_printf(b, "%llu", (unsigned long long)v);
	if (u >= 0)
		buf_add(b, &units[u], 1);
}

/* The value of key k in obj, the way a file would say it. */
void
conf_key_show(struct buf *b, const struct conf_key *k, const void *obj)
{
	const struct conf_field	*f = &k->f[0];
	const void		*x = field_at(obj, f);
	int64_t			 v = field_num(obj, f);
	size_t			 i, n;

	switch (k->show) {
	case SHOW_STR:
		buf_puts(b, *(char *const *)x ? *(char *const *)x : "");
		break;
	case SHOW_ARGV:
	case SHOW_ENV: {
		char *const	*sv = *(char **const *)x;

		for (i = 0; sv && sv[i]; i++) {
			if (i > 0)
				buf_puts(b, k->show == SHOW_ENV ? "\n" : " ");
			if (k->show == SHOW_ARGV && (sv[i][0] == '\0' ||
			    strpbrk(sv[i], " \t\"'\\") != NULL))
				buf_json_str(b, sv[i]);
			else
				buf_puts(b, sv[i]);
		}
		break;
	}
	case SHOW_DEPS: {
		const struct svc_dep	*d = *(struct svc_dep *const *)x;

		n = field_count(obj, f);
		for (i = 0; i < n; i++)
			buf_printf(b, "%s%s", i ? " " : "", d[i].name);
		break;
	}
	case SHOW_ENUM:
		for (i = 0; k->names[i]; i++)
			if ((int64_t)i == v)
				break;
		buf_puts(b, k->names[i] ? k->names[i] : "?");
		break;
	case SHOW_BOOL:
		buf_puts(b, v ? "yes" : "no");
		break;
	case SHOW_NUMBER:
		buf_printf(b, "%lld", (long long)v);
		break;
	case SHOW_DURATION:
		if (v % 1000 == 0)
			buf_printf(b, "%llds", (long long)(v / 1000));
		else
			buf_printf(b, "%lldms", (long long)v);
		break;
	case SHOW_SIZE:
		show_size(b, (uint64_t)v);
		break;
	case SHOW_LIMIT:
		if (v == 0)
			buf_puts(b, "max");
		else
			show_size(b, (uint64_t)v);
		break;
	case SHOW_COUNT:
		if (v == 0)
			buf_puts(b, "max");
		else
			buf_printf(b, "%lld", (long long)v);
		break;
	case SHOW_MODE:
		buf_printf(b, "%04llo", (unsigned long long)v);
		break;
	case SHOW_SIGNAL:
		buf_puts(b, signal_name((int)v));
		break;
	case SHOW_READY:
		if (v == READY_FD)
			buf_printf(b, "fd:%lld", (long long)field_num(obj,
			    &k->f[1]));
		else
			buf_puts(b, v == READY_NOTIFY ? "notify" :
			    v == READY_EXIT ? "exit" : "exec");
		break;
	case SHOW_PRIORITY:
		if (v == KILL_PRIORITY_NEVER)
			buf_puts(b, "never");
		else
			buf_printf(b, "%lld", (long long)v);
		break;
	case SHOW_PRESSURE: {
		const struct sup_conf	*s = obj;

		if (s->pressure_stall == 0)
			buf_puts(b, "off");
		else
			buf_printf(b, "%s %u %u", s->pressure_full ? "full" :
			    "some", s->pressure_stall, s->pressure_window);
		break;
	}
	}
}

/*
 * Copy key k's fields from src to dst (a live supervisor key on
 * reload); strings are duplicated.  0, or -ENOMEM (dst unchanged).
 */
int
conf_key_copy(const struct conf_key *k, void *dst, const void *src)
{
	static const size_t	size[] = {
		[F_BOOL] = sizeof(bool), [F_U8] = 1, [F_I32] = 4,
		[F_U32] = 4, [F_U64] = 8,
	};
	size_t			i;

	for (i = 0; i < ARRAY_SIZE(k->f) && k->f[i].kind; i++) {
		const struct conf_field	*f = &k->f[i];
		char			*d = (char *)dst + f->off;
		const char		*s = (const char *)src + f->off;

		if (f->kind == F_STR) {
			char	*copy = NULL;

			if (*(char *const *)(const void *)s != NULL &&
			    (copy = strdup(*(char *const *)(const void *)s))
			    == NULL)
				return -ENOMEM;
			free(*(char **)(void *)d);
			*(char **)(void *)d = copy;
		} else if (f->kind < ARRAY_SIZE(size) && size[f->kind]) {
			memcpy(d, s, size[f->kind]);
		} else {
			return -EINVAL;		/* not for live keys */
		}
	}
	return 0;
}
