/*
 * unit.c - systemd's unit files read as systemd 252 reads them
 * (systemd.unit(5), its config parser): sections, Key=Value, comments,
 * lines continued by a backslash; a unit found on the search path (the
 * first directory that has it wins), through its aliases, masked when
 * linked to /dev/null, an instance by its template's file; then its
 * drop-ins (the .conf files in NAME.d of every directory of the path,
 * its template's, its dash prefixes', its type's), the first of a file
 * name winning, applied in the order of their names; a value's
 * specifiers (%n, %i and the rest) put in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "unit.h"
#include "util.h"

static const char *const unit_types[] = {
	".service", ".socket", ".target", ".timer", ".mount", ".automount",
	".swap", ".path", ".slice", ".scope", ".device", NULL,
};

static void
unit_say(unit_err_fn *err, void *arg, const char *file, int line,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
unit_say(unit_err_fn *err, void *arg, const char *file, int line,
    const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err(arg, file, line, msg);
}

/* Append a copy of s to *v; on failure *v is left as it was. */
static int
unit_push(char ***v, const char *s)
{
	size_t	  n = strv_len(*v);
	char	**nv, *c;

	if ((c = strdup(s)) == NULL)
		return -ENOMEM;
	if ((nv = realloc(*v, (n + 2) * sizeof(*nv))) == NULL) {
		free(c);
		return -ENOMEM;
	}
	nv[n] = c;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

int
unit_path_init(struct unit_path *up, const char *list)
{
	const char	*s = list;
	char		 dir[PATH_MAX];
	size_t		 n;

	up->dirs = NULL;
	while (*s != '\0') {
		n = strcspn(s, ":");
		if (n > 0 && n < sizeof(dir) && s[0] == '/') {
			snprintf(dir, sizeof(dir), "%.*s", (int)n, s);
			while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
				dir[strlen(dir) - 1] = '\0';
			if (unit_push(&up->dirs, dir) < 0)
				return -ENOMEM;
		} else if (n > 0) {
			return -EINVAL;	/* relative, or too long */
		}
		s += n + (s[n] == ':');
	}
	return 0;
}

void
unit_path_free(struct unit_path *up)
{
	strv_free(up->dirs);
	up->dirs = NULL;
}

/* ".service" of "ssh.service", or NULL: no type systemd knows. */
const char *
unit_suffix(const char *name)
{
	const char	*dot = strrchr(name, '.');
	size_t		 i;

	for (i = 0; dot != NULL && unit_types[i] != NULL; i++)
		if (strcmp(dot, unit_types[i]) == 0)
			return dot;
	return NULL;
}

/*
 * A unit's name as systemd takes it: letters, digits, ":-_.\", at most
 * one '@' (a template "NAME@.type" or an instance "NAME@INST.type"),
 * a known type, at most 255 bytes.
 */
bool
unit_name_valid(const char *name)
{
	const char	*suf = unit_suffix(name), *at, *s;

	if (suf == NULL || suf == name || strlen(name) > UNIT_NAME_MAX)
		return false;
	for (s = name; s < suf; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(":-_.\\@", *s)))
			return false;
	at = strchr(name, '@');
	return at == NULL || (at != name && strchr(at + 1, '@') == NULL);
}

/* "getty@.service" of "getty@tty1.service" in out; -EINVAL if none. */
int
unit_template_of(const char *name, char *out, size_t n)
{
	const char	*at = strchr(name, '@'), *suf = unit_suffix(name);

	if (at == NULL || suf == NULL || at + 1 == suf)
		return -EINVAL;
	if ((size_t)snprintf(out, n, "%.*s%s", (int)(at - name + 1), name,
	    suf) >= n)
		return -ENAMETOOLONG;
	return 0;
}

/* Keep a string for the unit's lifetime: its pointer in *v, interned. */
static const char *
unit_intern(struct unit *u, char ***v, const char *s)
{
	size_t	i;

	for (i = 0; *v != NULL && (*v)[i] != NULL; i++)
		if (strcmp((*v)[i], s) == 0)
			return (*v)[i];
	if (unit_push(v, s) < 0) {
		u->nomem = true;
		return NULL;
	}
	return (*v)[i];
}

static char *
unit_strip(char *s)
{
	char	*e;

	s += strspn(s, " \t\n\r");
	e = s + strlen(s);
	while (e > s && strchr(" \t\n\r", e[-1]))
		*--e = '\0';
	return s;
}

static int
unit_add(struct unit *u, const char *section, const char *file, int line,
    const char *key, const char *value)
{
	struct unit_kv	*kv;

	if ((kv = realloc(u->kv, (u->nkv + 1) * sizeof(*kv))) == NULL) {
		u->nomem = true;
		return -ENOMEM;
	}
	u->kv = kv;
	kv += u->nkv;
	kv->section = section;
	kv->file = file;
	kv->line = line;
	kv->key = strdup(key);
	kv->value = strdup(value);
	if (kv->key == NULL || kv->value == NULL) {
		free(kv->key);
		free(kv->value);
		u->nomem = true;
		return -ENOMEM;
	}
	u->nkv++;
	return 0;
}

/* One logical line (continuations joined) of a file. */
static void
unit_line(struct unit *u, const char **section, const char *file, int line,
    char *l, unit_err_fn *err, void *arg)
{
	char	*eq, *key, *value;
	size_t	 n;

	l = unit_strip(l);
	if (*l == '\0' || *l == '#' || *l == ';')
		return;
	if (*l == '[') {
		n = strlen(l);
		if (n < 3 || l[n - 1] != ']' || memchr(l + 1, ']', n - 2) ||
		    memchr(l + 1, '[', n - 2)) {
			unit_say(err, arg, file, line, "invalid section "
			    "header '%s'", l);
			*section = NULL;
			return;
		}
		l[n - 1] = '\0';
		*section = unit_intern(u, &u->sections, l + 1);
		return;
	}
	if ((eq = strchr(l, '=')) == NULL) {
		unit_say(err, arg, file, line, "missing '=' (Key=Value)");
		return;
	}
	*eq = '\0';
	key = unit_strip(l);
	value = unit_strip(eq + 1);
	if (*key == '\0') {
		unit_say(err, arg, file, line, "no key before '='");
		return;
	}
	if (*section == NULL) {
		unit_say(err, arg, file, line, "assignment outside of a "
		    "section: '%s'", key);
		return;
	}
	unit_add(u, *section, file, line, key, value);
}

/* Does a line end in a backslash that no backslash escapes? */
static bool
unit_goes_on(const char *s, size_t n)
{
	bool	escaped = false;
	size_t	i;

	for (i = 0; i < n; i++)
		escaped = !escaped && s[i] == '\\';
	return escaped;
}

/*
 * Append the assignments of one file, its text given, to u: the
 * reader's syntax only, as systemd's config parser: a comment line is
 * whole; a line ending in an unescaped backslash goes on, the backslash
 * a blank, comment lines within it left out.  0, or -ENOMEM.
 */
int
unit_parse(struct unit *u, const char *file, const char *text,
    unit_err_fn *err, void *arg)
{
	const char	*section = NULL, *f, *s = text, *nl, *t;
	struct buf	 cont = { 0 };
	int		 line = 0, start = 0;
	bool		 going = false, skip = false;
	size_t		 n;

	if ((f = unit_intern(u, &u->files, file)) == NULL)
		return -ENOMEM;
	for (; *s != '\0' && !cont.nomem; s += n + (nl != NULL)) {
		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		line++;
		t = s + strspn(s, " \t");
		if (*t == '#' || *t == ';')
			continue;	/* whole, or within a value */
		if (!going) {
			start = line;
			cont.len = 0;
			skip = false;
		}
		if (!skip && cont.len + n > UNIT_LINE_MAX) {
			unit_say(err, arg, f, start, "line too long (at most "
			    "%d bytes)", UNIT_LINE_MAX);
			skip = true;
		}
		if (!skip)
			buf_add(&cont, s, n);
		going = unit_goes_on(s, n);
		if (going && !skip)
			cont.data[cont.len - 1] = ' ';
		if (going)
			continue;
		if (!skip && buf_add(&cont, "", 1) == 0) {
			cont.len--;
			unit_line(u, &section, f, start, cont.data, err, arg);
		}
	}
	if (going && !skip && !cont.nomem && buf_add(&cont, "", 1) == 0)
		unit_line(u, &section, f, start, cont.data, err, arg);
	if (cont.nomem)
		u->nomem = true;
	buf_free(&cont);
	return u->nomem ? -ENOMEM : 0;
}

/* Read and parse one file of the unit; a file that is not one is said. */
int
unit_read(struct unit *u, const struct unit_path *up, const char *path)
{
	struct buf	b = { 0 };
	int		rc;

	if ((rc = read_file(AT_FDCWD, path, UNIT_FILE_MAX, &b)) < 0) {
		unit_say(up->err, up->arg, path, 0, "%s", rc == -EFBIG ?
		    "file too large (at most 1 MiB)" : rc == -EINVAL ?
		    "not a regular file" : strerror(-rc));
		buf_free(&b);
		return rc == -ENOMEM ? rc : 0;
	}
	if (buf_add(&b, "", 1) < 0) {
		buf_free(&b);
		return -ENOMEM;
	}
	if (memchr(b.data, '\0', b.len - 1) != NULL ||
	    utf8_valid_len(b.data, b.len - 1) < b.len - 1)
		unit_say(up->err, up->arg, path, 0, "not text (a NUL byte, "
		    "or not UTF-8)");
	else
		rc = unit_parse(u, path, b.data, up->err, up->arg);
	buf_free(&b);
	return rc < 0 ? rc : 0;
}

/*
 * Is path masked, as systemd sees it: /dev/null, a link that leads there
 * (or names it, as in a tree not booted), or an empty file?
 */
bool
unit_null(const char *path)
{
	struct stat	st;
	char		to[16];

	if (readlink(path, to, sizeof(to) - 1) == 9 &&
	    memcmp(to, "/dev/null", 9) == 0)
		return true;
	return stat(path, &st) == 0 && ((S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(1, 3)) || (S_ISREG(st.st_mode) &&
	    st.st_size == 0));
}

/*
 * Find name's file in the path: *path its location, *id the name of the
 * file it is (an alias's target's).  1 found, 0 not, 2 masked.
 */
static int
unit_find(const struct unit_path *up, const char *name, char *path,
    size_t n, char *id, size_t idn)
{
	char		 real[PATH_MAX];
	const char	*base;
	struct stat	 st;
	size_t		 i;

	for (i = 0; up->dirs != NULL && up->dirs[i] != NULL; i++) {
		snprintf(path, n, "%s/%s", up->dirs[i], name);
		if (lstat(path, &st) < 0)
			continue;
		snprintf(id, idn, "%s", name);
		if (unit_null(path))
			return 2;
		if (!S_ISLNK(st.st_mode) || realpath(path, real) == NULL)
			return 1;
		/* A link: the file is its target's; so is the name, if
		 * that is a unit of the same type (an alias). */
		snprintf(path, n, "%s", real);
		base = strrchr(real, '/') + 1;
		if (unit_name_valid(base) && strcmp(unit_suffix(base),
		    unit_suffix(name)) == 0 && strchr(base, '@') == NULL)
			snprintf(id, idn, "%s", base);
		return 1;
	}
	return 0;
}

static int
unit_str_cmp(const void *a, const void *b)
{
	const char	*x = *(char *const *)a, *y = *(char *const *)b;

	return strcmp(strrchr(x, '/') + 1, strrchr(y, '/') + 1);
}

/*
 * Add each entry of dir whose name ends in suffix (NULL: any unit name)
 * to *v as its path, unless one of the same name is there already.
 */
static int
unit_dir_add(const char *dir, const char *suffix, char ***v)
{
	char		 path[PATH_MAX];
	struct dirent	*e;
	size_t		 len, i;
	DIR		*dp;
	bool		 dup;

	if ((dp = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(dp)) != NULL) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (suffix != NULL && (len <=
		    strlen(suffix) || strcmp(e->d_name + len -
		    strlen(suffix), suffix) != 0)) ||
		    (suffix == NULL && !unit_name_valid(e->d_name)))
			continue;
		for (i = 0, dup = false; *v != NULL && (*v)[i] != NULL; i++)
			if (strcmp(strrchr((*v)[i], '/') + 1, e->d_name) == 0)
				dup = true;
		if (dup || (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    e->d_name) >= sizeof(path))
			continue;
		if (unit_push(v, path) < 0) {
			closedir(dp);
			return -ENOMEM;
		}
	}
	closedir(dp);
	return 0;
}

/*
 * The names whose NAME.d directories hold a unit's drop-ins, in
 * systemd's order: its id, the name it was asked by, its template, its
 * dash prefixes ("a-b-c.service": "a-b-.service", "a-.service"), its
 * type ("service").
 */
static char **
unit_dropin_names(const char *id, const char *name)
{
	char		 **v = NULL, buf[UNIT_NAME_MAX + 2];
	const char	*suf = unit_suffix(id);
	size_t		 i;
	int		 rc;

	rc = unit_push(&v, id);
	if (rc == 0 && strcmp(name, id) != 0)
		rc = unit_push(&v, name);
	if (rc == 0 && unit_template_of(id, buf, sizeof(buf)) == 0)
		rc = unit_push(&v, buf);
	for (i = (size_t)(suf - id); rc == 0 && i > 0; i--)
		if (id[i - 1] == '-' && i < (size_t)(suf - id) &&
		    (size_t)snprintf(buf, sizeof(buf), "%.*s%s", (int)i, id,
		    suf) < sizeof(buf))
			rc = unit_push(&v, buf);
	if (rc == 0)
		rc = unit_push(&v, suf + 1);
	if (rc < 0) {
		strv_free(v);
		return NULL;
	}
	return v;
}

/*
 * Load a unit by name: its file (u->fragment NULL if there is none, and
 * u->masked if it is masked), then its drop-ins.  0, or -ENOMEM.
 * Errors of syntax are said through up->err and the rest is kept.
 */
int
unit_load(const struct unit_path *up, const char *name, struct unit *u)
{
	char	 path[PATH_MAX], id[UNIT_NAME_MAX + 1], tmpl[UNIT_NAME_MAX + 1];
	char	 **names = NULL, **files = NULL;
	size_t	 i, j;
	int	 found, rc = 0;

	memset(u, 0, sizeof(*u));
	if ((u->name = strdup(name)) == NULL)
		return -ENOMEM;
	found = unit_find(up, name, path, sizeof(path), id, sizeof(id));
	if (found == 0 && unit_template_of(name, tmpl, sizeof(tmpl)) == 0) {
		found = unit_find(up, tmpl, path, sizeof(path), id,
		    sizeof(id));
		snprintf(id, sizeof(id), "%s", name);
	}
	if ((u->id = strdup(found ? id : name)) == NULL)
		return -ENOMEM;
	if (found == 2) {
		u->masked = true;
		return 0;
	}
	if (found == 0)
		return 0;
	if ((u->fragment = strdup(path)) == NULL)
		return -ENOMEM;
	if ((rc = unit_read(u, up, path)) < 0)
		return rc;
	if ((names = unit_dropin_names(u->id, name)) == NULL)
		return -ENOMEM;
	for (i = 0; names[i] != NULL && rc == 0; i++)
		for (j = 0; up->dirs[j] != NULL && rc == 0; j++) {
			snprintf(path, sizeof(path), "%s/%s.d", up->dirs[j],
			    names[i]);
			rc = unit_dir_add(path, ".conf", &files);
		}
	if (files != NULL)
		qsort(files, strv_len(files), sizeof(*files), unit_str_cmp);
	for (i = 0; rc == 0 && files != NULL && files[i] != NULL; i++)
		if (!unit_null(files[i]))	/* a masked drop-in */
			rc = unit_read(u, up, files[i]);
	strv_free(names);
	strv_free(files);
	return rc;
}

void
unit_free(struct unit *u)
{
	size_t	i;

	for (i = 0; i < u->nkv; i++) {
		free(u->kv[i].key);
		free(u->kv[i].value);
	}
	free(u->kv);
	free(u->name);
	free(u->id);
	free(u->fragment);
	strv_free(u->files);
	strv_free(u->sections);
	memset(u, 0, sizeof(*u));
}

/* The last assignment of a key (a single value's), or NULL. */
const struct unit_kv *
unit_get(const struct unit *u, const char *section, const char *key)
{
	size_t	i;

	for (i = u->nkv; i > 0; i--)
		if (strcmp(u->kv[i - 1].section, section) == 0 &&
		    strcmp(u->kv[i - 1].key, key) == 0)
			return &u->kv[i - 1];
	return NULL;
}

/*
 * The unit names in NAME.SUFFIX/ (".wants", ".requires") of every
 * directory of the path, and of its template's, the first of a name
 * winning; sorted.  *out: NULL-ended names (NULL: none).
 */
int
unit_dir_list(const struct unit_path *up, const char *name,
    const char *suffix, char ***out)
{
	char	 path[PATH_MAX], tmpl[UNIT_NAME_MAX + 1], **files = NULL;
	char	 **v = NULL;
	size_t	 i, j;
	int	 rc = 0;

	*out = NULL;
	for (j = 0; j < 2 && rc == 0; j++) {
		if (j == 1 && unit_template_of(name, tmpl, sizeof(tmpl)) < 0)
			break;
		for (i = 0; up->dirs[i] != NULL && rc == 0; i++) {
			snprintf(path, sizeof(path), "%s/%s%s", up->dirs[i],
			    j ? tmpl : name, suffix);
			rc = unit_dir_add(path, NULL, &files);
		}
	}
	if (files != NULL)
		qsort(files, strv_len(files), sizeof(*files), unit_str_cmp);
	for (i = 0; rc == 0 && files != NULL && files[i] != NULL; i++)
		rc = unit_push(&v, strrchr(files[i], '/') + 1);
	strv_free(files);
	if (rc < 0)
		strv_free(v);
	else
		*out = v;
	return rc;
}

/* systemd's unescaping of a name's part (%I, %P, %f): '-' is '/'. */
static void
unit_unescape(struct buf *b, const char *s, size_t n)
{
	unsigned int	ch;
	size_t		i;

	for (i = 0; i < n; i++) {
		if (s[i] == '-') {
			buf_add(b, "/", 1);
		} else if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &ch) == 1 && ch != 0) {
			char	c = (char)ch;

			buf_add(b, &c, 1);
			i += 3;
		} else {
			buf_add(b, s + i, 1);
		}
	}
}

/*
 * A directive's value with its specifiers put in, as systemd.unit(5)
 * lists them for the system manager, into b: 0, -EINVAL with *bad the
 * one it does not know, or -ENOMEM.
 */
int
unit_spec(const struct unit *u, const char *value, struct buf *b, char *bad)
{
	const char	*s, *id = u->id, *suf = unit_suffix(u->id);
	const char	*at = strchr(id, '@');
	size_t		 pre = (size_t)((at ? at : suf) - id);
	char		 host[256];

	b->len = 0;
	for (s = value; *s != '\0'; s++) {
		if (*s != '%') {
			buf_add(b, s, 1);
			continue;
		}
		switch (*++s) {
		case 'n': buf_puts(b, id); break;
		case 'N': buf_add(b, id, (size_t)(suf - id)); break;
		case 'p': buf_add(b, id, pre); break;
		case 'P': unit_unescape(b, id, pre); break;
		case 'i':
			if (at)
				buf_add(b, at + 1, (size_t)(suf - at - 1));
			break;
		case 'I':
			if (at)
				unit_unescape(b, at + 1, (size_t)(suf - at - 1));
			break;
		case 'f':
			buf_add(b, "/", 1);
			if (at)
				unit_unescape(b, at + 1, (size_t)(suf - at - 1));
			else
				unit_unescape(b, id, pre);
			break;
		case 'u': buf_puts(b, "root"); break;
		case 'U': buf_puts(b, "0"); break;
		case 'h': buf_puts(b, "/root"); break;
		case 's': buf_puts(b, "/bin/sh"); break;
		case 't': buf_puts(b, "/run"); break;
		case 'S': buf_puts(b, "/var/lib"); break;
		case 'C': buf_puts(b, "/var/cache"); break;
		case 'L': buf_puts(b, "/var/log"); break;
		case 'E': buf_puts(b, "/etc"); break;
		case 'T': buf_puts(b, "/tmp"); break;
		case 'V': buf_puts(b, "/var/tmp"); break;
		case 'H':
		case 'l':
			if (gethostname(host, sizeof(host)) < 0)
				host[0] = '\0';
			host[sizeof(host) - 1] = '\0';
			if (*s == 'l')		/* the short one */
				host[strcspn(host, ".")] = '\0';
			buf_puts(b, host);
			break;
		case 'v': {
			struct utsname	un;

			buf_puts(b, uname(&un) == 0 ? un.release : "");
			break;
		}
		case 'm':
		case 'b': {
			ssize_t	n = read_small(AT_FDCWD, *s == 'm' ?
				    "/etc/machine-id" :
				    "/proc/sys/kernel/random/boot_id", host,
				    sizeof(host) - 1);
			size_t	i, k = 0;

			/* 32 hex digits, as systemd writes the IDs. */
			for (i = 0; n > 0 && i < (size_t)n; i++)
				if (host[i] != '-' && host[i] != '\n')
					host[k++] = host[i];
			host[k] = '\0';
			buf_puts(b, host);
			break;
		}
		case '%': buf_add(b, "%", 1); break;
		default:
			*bad = *s ? *s : ' ';
			return -EINVAL;
		}
		if (*s == '\0')
			break;
	}
	buf_add(b, "", 1);
	b->len--;
	return b->nomem ? -ENOMEM : 0;
}
