/*
 * conf_key.c - what the key table (conf_parse.c) says of a value: are two
 * equal (svc_def_equal, reload's diff), how does it read (show), copy
 * it (a live key on reload), write it for the next binary and read it
 * back (reexec.c), and where a service's file gave it (show's
 * FILE:LINE).  Each key names the fields it sets, by offset and kind;
 * nothing here knows a key by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"
#include "st.h"
#include "sandbox.h"

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

/* A duration as a file would say it: 1h30m, 1m30s, 250ms, 0s. */
static void
show_duration(struct buf *b, uint64_t ms)
{
	static const struct { const char *name; uint64_t ms; } u[] = {
		{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 },
		{ "s", 1000 }, { "ms", 1 },
	};
	size_t	i;

	if (ms == 0) {
		buf_puts(b, "0s");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(u); i++)
		if (ms >= u[i].ms) {
			buf_printf(b, "%llu%s", (unsigned long long)(ms /
			    u[i].ms), u[i].name);
			ms %= u[i].ms;
		}
}

/*
 * Words as a command line that argv_split() reads back the same: a word
 * that is empty or has a blank, a quote or a backslash in it quoted.
 */
void
conf_argv_show(struct buf *b, char *const *argv)
{
	size_t	i;

	for (i = 0; argv && argv[i]; i++) {
		if (i > 0)
			buf_puts(b, " ");
		if (argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'\\") != NULL)
			buf_json_str(b, argv[i]);
		else
			buf_puts(b, argv[i]);
	}
}

/*
 * The words of *v made its one line, which argv_split() reads back as
 * they were: a word quoted if it is empty, has a blank, a quote, a
 * backslash or a control byte, or is the first and begins with '-'
 * (a hook's prefix); in quotes '"' and '\\' escaped, a control byte as
 * \xNN.  0, or -ENOMEM.
 */
int
conf_argv_to_line(char ***v)
{
	struct buf	 b = { 0 };
	char		**line;
	const char	*c;
	size_t		 i;

	for (i = 0; *v && (*v)[i]; i++) {
		const char	*w = (*v)[i];
		bool		 q = w[0] == '\0' || (i == 0 && w[0] == '-');

		for (c = w; *c != '\0' && !q; c++)
			q = strchr(" \t\"'\\", *c) != NULL ||
			    (unsigned char)*c < 0x20 || *c == 0x7f;
		if (i > 0)
			buf_puts(&b, " ");
		if (!q) {
			buf_puts(&b, w);
			continue;
		}
		buf_puts(&b, "\"");
		for (c = w; *c != '\0'; c++) {
			if (*c == '"' || *c == '\\')
				buf_printf(&b, "\\%c", *c);
			else if ((unsigned char)*c < 0x20 || *c == 0x7f)
				buf_printf(&b, "\\x%02x", (unsigned char)*c);
			else
				buf_add(&b, c, 1);
		}
		buf_puts(&b, "\"");
	}
	if (b.nomem || buf_add(&b, "", 1) < 0 ||
	    (line = strv_add(NULL, b.data)) == NULL) {
		buf_free(&b);
		return -ENOMEM;
	}
	buf_free(&b);
	strv_free(*v);
	*v = line;
	return 0;
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
	case SHOW_PROTECT:
		conf_protect_show(b, k, obj);
		break;
	case SHOW_EXEC:			/* exec: its "-" first */
		if (*(const bool *)field_at(obj, &k->f[1]))
			buf_puts(b, "-");
		/* fall through */
	case SHOW_ARGV:
		conf_argv_show(b, *(char **const *)x);
		break;
	case SHOW_ENV: {
		char *const	*sv = *(char **const *)x;

		for (i = 0; sv && sv[i]; i++) {
			if (i > 0)
				buf_puts(b, "\n");
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
		show_duration(b, (uint64_t)v);
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
		if (v < READY__COUNT && ready_kinds[v].arg)
			buf_printf(b, "%s:%lld", ready_kinds[v].name,
			    (long long)field_num(obj, &k->f[1]));
		else
			buf_puts(b, v < READY__COUNT ? ready_kinds[v].name :
			    "?");
		break;
	case SHOW_PRIORITY:
		if (v == KILL_PRIORITY_NEVER)
			buf_puts(b, "never");
		else
			buf_printf(b, "%lld", (long long)v);
		break;
	case SHOW_PRESSURE:	/* the fields: stall, window, full */
		if (v == 0)
			buf_puts(b, "off");
		else
			buf_printf(b, "%s %llu %u", *(const bool *)((const
			    char *)obj + k->f[2].off) ? "full" : "some",
			    (unsigned long long)v, *(const uint32_t *)(const
			    void *)((const char *)obj + k->f[1].off));
		break;
	case SHOW_CAPS:
		sandbox_cap_show(b, (uint64_t)v);
		break;
	case SHOW_RLIMIT: {
		uint64_t	lim[2] = { (uint64_t)v,
				    (uint64_t)field_num(obj, &k->f[1]) };

		for (i = 0; i < 2; i++) {
			if (i == 1 && lim[1] == lim[0])
				break;
			if (i == 1)
				buf_puts(b, ":");
			if (lim[i] == UINT64_MAX)
				buf_puts(b, "infinity");
			else if (sb_rlimits[k - conf_keys - K_LIMIT_AS].unit ==
			    SB_BYTES)
				show_size(b, lim[i]);
			else
				buf_printf(b, "%llu", (unsigned long long)lim[i]);
		}
		break;
	}
	case SHOW_ERRNO:
		buf_puts(b, sandbox_errno_name((int32_t)v));
		break;
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
		} else if (f->kind == F_STRV) {
			char	**copy = strv_dup(*(char **const *)(const
				    void *)s);

			if (copy == NULL && *(char **const *)(const void *)s)
				return -ENOMEM;
			strv_free(*(char ***)(void *)d);
			*(char ***)(void *)d = copy;
		} else if (f->kind == F_GIDS) {
			size_t	 n = field_count(src, f);
			gid_t	*copy = calloc(n + 1, sizeof(gid_t));

			if (copy == NULL)
				return -ENOMEM;
			if (n > 0)
				memcpy(copy, *(gid_t *const *)(const void *)s,
				    n * sizeof(gid_t));
			free(*(gid_t **)(void *)d);
			*(gid_t **)(void *)d = copy;
			*(size_t *)(void *)((char *)dst + f->cnt) = n;
		} else if (f->kind < ARRAY_SIZE(size) && size[f->kind]) {
			memcpy(d, s, size[f->kind]);
		} else {
			return -EINVAL;		/* not for live keys */
		}
	}
	return 0;
}

/*
 * Free what the keys of a section hold in obj (strings, lists, their
 * counts zeroed): a key's fields are freed by their kind, so a new key
 * needs no line of its own here.
 */
void
conf_keys_free(enum conf_section sec, void *obj)
{
	size_t	i, j;

	for (i = 0; i < K__COUNT; i++) {
		const struct conf_key	*k = &conf_keys[i];

		if (k->section != sec)
			continue;
		for (j = 0; j < ARRAY_SIZE(k->f) && k->f[j].kind; j++) {
			const struct conf_field	*f = &k->f[j];
			void			*at = (char *)obj + f->off;
			size_t			 n;

			switch (f->kind) {
			case F_STR:
				free(*(char **)at);
				*(char **)at = NULL;
				break;
			case F_STRV:
				strv_free(*(char ***)at);
				*(char ***)at = NULL;
				break;
			case F_DEPS:
				n = field_count(obj, f);
				while (n > 0)
					free((*(struct svc_dep **)at)[--n].name);
				/* FALLTHROUGH */
			case F_GIDS:
				free(*(void **)at);
				*(void **)at = NULL;
				*(size_t *)(void *)((char *)obj + f->cnt) = 0;
				break;
			}
		}
	}
}

/* One field's value, by its kind (the key table says which). */
static void
field_save(struct st_w *w, const char *name, const struct conf_field *f,
    const void *obj)
{
	const void	*p = field_at(obj, f);
	size_t		 i, n;

	switch (f->kind) {
	case F_STR:
		st_str(w, name, *(char *const *)p);
		break;
	case F_STRV:
		st_strv(w, name, *(char *const *const *)p);
		break;
	case F_DEPS: {
		const struct svc_dep	*d = *(struct svc_dep *const *)p;

		n = field_count(obj, f);
		st_begin(w, name);
		st_u32(w, "n", (uint32_t)n);
		for (i = 0; i < n; i++) {
			st_str(w, "name", d[i].name);
			st_u32(w, "line", (uint32_t)d[i].line);
		}
		st_end(w);
		break;
	}
	case F_GIDS: {
		const gid_t	*g = *(gid_t *const *)p;

		n = field_count(obj, f);
		st_begin(w, name);
		st_u32(w, "n", (uint32_t)n);
		for (i = 0; i < n; i++)
			st_u32(w, "id", g[i]);
		st_end(w);
		break;
	}
	case F_BOOL:
		st_u8(w, name, *(const bool *)p);
		break;
	case F_U8:
		st_u8(w, name, *(const uint8_t *)p);
		break;
	case F_I32:
	case F_U32:
		st_u32(w, name, *(const uint32_t *)p);
		break;
	case F_U64:
		st_u64(w, name, *(const uint64_t *)p);
		break;
	}
}

static size_t
key_nfields(const struct conf_key *k)
{
	size_t	n;

	for (n = 0; n < ARRAY_SIZE(k->f) && k->f[n].kind; n++)
		;
	return n;
}

static const char *const field_names[] = { "0", "1", "2", "3" };

/*
 * Every key of a section of obj (a struct svc_def or struct sup_conf),
 * each a group of its name: whether the file gave it, and its fields
 * by their place ("0", "1", ...).  A binary reads the keys it knows, by
 * name, and keeps its default for a key the state does not have: so a
 * key its file did not give and whose value is dflt's (the defaults;
 * NULL: none) is left out, and 10,000 definitions are not a million
 * records.
 */
/*
 * Where d's key was given the n-th time (an env value: its n-th
 * variable): file at line (0: made of the file, as a unit's After= of
 * its Wants=), in place of what was there, or after the others.  0, or
 * -ENOMEM.
 */
int
conf_src_put(struct svc_def *d, unsigned key, size_t n, const char *file,
    uint32_t line)
{
	struct key_src	*s;
	size_t		 i, f = 0;

	if (file != NULL && (d->file == NULL || strcmp(file, d->file) != 0)) {
		for (f = 0; d->src_files && d->src_files[f] &&
		    strcmp(d->src_files[f], file) != 0; f++)
			;
		if ((d->src_files == NULL || d->src_files[f] == NULL) &&
		    (d->src_files = strv_add(d->src_files, file)) == NULL)
			return -ENOMEM;
		f++;
	}
	for (i = 0; i < d->nsrc; i++)
		if (d->src[i].key == key && n-- == 0)
			break;
	if (i == d->nsrc) {
		if ((s = realloc(d->src, (d->nsrc + 1) * sizeof(*s))) == NULL)
			return -ENOMEM;
		d->src = s;
		d->nsrc++;
	}
	d->src[i] = (struct key_src){ (uint16_t)key, (uint16_t)f, line };
	return 0;
}

/*
 * Where d's key was given: after the places before (add: a key given
 * more than once; the same line twice is one place), else in their
 * place.  0, or -ENOMEM.
 */
int
conf_src_set(struct svc_def *d, unsigned key, const char *file,
    uint32_t line, bool add)
{
	const char	*last = NULL, *at;
	uint32_t	 l, last_line = 0;
	size_t		 i, j;

	for (i = j = 0; !add && i < d->nsrc; i++)	/* its earlier go */
		if (d->src[i].key != key)
			d->src[j++] = d->src[i];
	if (!add)
		d->nsrc = j;
	for (i = 0; (at = conf_src_get(d, key, i, &l)) != NULL; i++) {
		last = at;
		last_line = l;
	}
	if (last != NULL && line == last_line && file != NULL &&
	    strcmp(last, file) == 0)
		return 0;
	return conf_src_put(d, key, i, file, line);
}

/*
 * The file that gave d's key the n-th time (from 0) and its line, or
 * NULL if no more did.
 */
const char *
conf_src_get(const struct svc_def *d, unsigned key, size_t n, uint32_t *line)
{
	size_t	i;

	for (i = 0; i < d->nsrc; i++)
		if (d->src[i].key == key && n-- == 0) {
			*line = d->src[i].line;
			return d->src[i].file ? d->src_files[d->src[i].file -
			    1] : d->file;
		}
	return NULL;
}

void
conf_src_free(struct svc_def *d)
{
	free(d->src);
	strv_free(d->src_files);
	d->src = NULL;
	d->src_files = NULL;
	d->nsrc = 0;
}

void
conf_keys_save(struct st_w *w, enum conf_section sec, const void *obj,
    const struct keyset *given, const void *dflt)
{
	const char	*file;
	uint32_t	 line;
	size_t		 i, k;

	for (i = 0; i < K__COUNT; i++) {
		const struct conf_key	*key = &conf_keys[i];

		if (key->section != sec || (dflt != NULL &&
		    !keyset_has(given, (unsigned)i) &&
		    conf_key_equal(key, obj, dflt)))
			continue;
		st_begin(w, key->name);
		st_u8(w, "given", keyset_has(given, (unsigned)i));
		for (k = 0; k < key_nfields(key); k++)
			field_save(w, field_names[k], &key->f[k], obj);
		for (k = 0; sec == SEC_SERVICE && (file = conf_src_get(obj,
		    (unsigned)i, k, &line)) != NULL; k++) {
			st_begin(w, "src");	/* in order, each */
			st_str(w, "file", file);
			st_u32(w, "line", line);
			st_end(w);
		}
		st_end(w);
	}
}

/* Read one field into obj, if the state has it (a default stays). */
static void
field_load(struct st_r *r, const char *name, const struct conf_field *f,
    void *obj)
{
	void		*p = (char *)obj + f->off;
	size_t		*cnt = (size_t *)(void *)((char *)obj + f->cnt);
	uint32_t	 i, n = 0;
	char		*str, **strv;

	switch (f->kind) {
	case F_STR:
		if (st_get_str(r, name, &str)) {
			free(*(char **)p);
			*(char **)p = str;
		}
		break;
	case F_STRV:
		if (st_get_strv(r, name, &strv)) {
			strv_free(*(char ***)p);
			*(char ***)p = strv;
		}
		break;
	case F_DEPS: {
		struct svc_dep	*d;

		if (!st_enter(r, name))
			return;
		if (st_get_count(r, "n", &n) && n > 0 &&
		    (d = calloc(n, sizeof(*d))) != NULL) {
			*(struct svc_dep **)p = d;
			*cnt = n;
			for (i = 0; i < n; i++) {
				st_get_str(r, "name", &d[i].name);
				st_get_i32(r, "line", &d[i].line);
				if (d[i].name == NULL)
					st_fail(r, "a dependency without a "
					    "name");
			}
		} else if (n > 0) {
			st_fail(r, "%s", strerror(ENOMEM));
		}
		st_leave(r);
		break;
	}
	case F_GIDS: {
		gid_t	*g;

		if (!st_enter(r, name))
			return;
		if (st_get_count(r, "n", &n) && n > 0 &&
		    (g = calloc(n + 1, sizeof(*g))) != NULL) {
			free(*(gid_t **)p);
			*(gid_t **)p = g;
			*cnt = n;
			for (i = 0; i < n; i++)
				st_get_u32(r, "id", &g[i]);
		} else if (n > 0) {
			st_fail(r, "%s", strerror(ENOMEM));
		}
		st_leave(r);
		break;
	}
	case F_BOOL:
		st_get_bool(r, name, (bool *)p);
		break;
	case F_U8:
		st_get_u8(r, name, (uint8_t *)p);
		break;
	case F_I32:
	case F_U32:
		st_get_u32(r, name, (uint32_t *)p);
		break;
	case F_U64:
		st_get_u64(r, name, (uint64_t *)p);
		break;
	}
}

/*
 * The inverse of conf_keys_save(): each key of the section this binary
 * knows, from its group; what the state does not have keeps its
 * default, and a key this binary does not know (a newer one's) is left.
 */
int
conf_keys_load(struct st_r *r, enum conf_section sec, void *obj,
    struct keyset *given)
{
	const struct conf_key	*key;
	const char		*name;
	char			 buf[64], *file;
	uint32_t		 i, line;
	uint8_t			 len;
	size_t			 k;
	bool			 g, group;
	int			 rc;

	memset(given, 0, sizeof(*given));
	/* What the state has, each looked up: most keys are at their
	 * default, and not there. */
	for (i = 0; (name = st_rec_at(r, i, &len, &group)) != NULL &&
	    !st_bad(r); i++) {
		if (!group || len >= sizeof(buf))
			continue;
		memcpy(buf, name, len);
		buf[len] = '\0';
		if ((key = conf_key_find(sec, buf)) == NULL ||
		    !st_enter(r, buf))
			continue;	/* a later release's key: left */
		g = false;
		if (st_get_bool(r, "given", &g) && g)
			keyset_add(given, (unsigned)(key - conf_keys));
		for (k = 0; k < key_nfields(key); k++)
			field_load(r, field_names[k], &key->f[k], obj);
		for (k = 0; sec == SEC_SERVICE && g && st_enter(r, "src");
		    k++) {
			file = NULL;
			line = 0;
			st_get_u32(r, "line", &line);
			rc = st_get_str(r, "file", &file) ? conf_src_put(obj,
			    (unsigned)(key - conf_keys), k, file, line) : 0;
			free(file);
			st_leave(r);
			if (rc < 0)
				return rc;
		}
		st_leave(r);
	}
	return st_bad(r) ? -EINVAL : 0;
}

/*
 * Version 6 (read for one release): a table of the keys of a section
 * (names and the kinds of their fields), as our keys; -EINVAL for a key
 * we do not know or of another shape.
 */
int
conf_keys_load_table6(struct st_r *r, enum conf_section sec,
    struct conf_keymap *m)
{
	uint32_t	n = 0, i;

	m->n = 0;
	st_get_u32(r, "keys", &n);
	if (n > K__COUNT && !st_bad(r))
		st_fail(r, "%u keys, more than this binary has", n);
	for (i = 0; i < n && !st_bad(r); i++) {
		const struct conf_key	*key;
		char			*name = NULL;
		uint8_t			 nf = 0, k, kind;

		if (!st_get_str(r, "name", &name) || name == NULL) {
			st_fail(r, "a key without a name");
			break;
		}
		key = conf_key_find(sec, name);
		st_get_u8(r, "fields", &nf);
		/* A field added since (exec's '-') keeps its default. */
		if (key == NULL || nf == 0 || nf > key_nfields(key)) {
			st_fail(r, "key '%s' is %s to this binary", name,
			    key ? "of another shape" : "unknown");
			free(name);
			break;
		}
		free(name);
		for (k = 0; k < nf && !st_bad(r); k++)
			if (st_get_u8(r, "kind", &kind) &&
			    kind != key->f[k].kind)
				st_fail(r, "key '%s' is of another kind here",
				    key->name);
		m->nf[m->n] = nf;
		m->k[m->n++] = key;
	}
	return st_bad(r) ? -EINVAL : 0;
}

/* Version 6: every key's fields, in the order of its table m. */
int
conf_keys_load6(struct st_r *r, const struct conf_keymap *m, void *obj)
{
	uint32_t	i;
	size_t		k;

	for (i = 0; i < m->n && !st_bad(r); i++)
		for (k = 0; k < m->nf[i]; k++)
			field_load(r, field_names[k], &m->k[i]->f[k], obj);
	return st_bad(r) ? -EINVAL : 0;
}
