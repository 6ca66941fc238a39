/*
 * unit_install.c - what `pidvisorctl enable`, `disable`, `mask` and
 * `unmask` do to a unit: the links Debian's deb-systemd-helper writes,
 * as systemctl does, in the first directory of the unit path: for each
 * WantedBy=/RequiredBy= of its [Install], its name in TARGET.wants/ or
 * TARGET.requires/ (an instance's: DefaultInstance='s for a template);
 * for each Alias=, that name; the same for each unit of its Also=; and
 * a link to /dev/null that masks it.  Each change is said as systemctl
 * says it; what runs is pidvisor's next reload's (conf_unit.c).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util.h"

#define UI_ALSO_MAX	32	/* units an Also= chain may reach */

/* Is name a template itself ("getty@.service"), not an instance? */
static bool
ui_template(const char *name)
{
	const char	*at = strchr(name, '@');

	return at != NULL && at + 1 == unit_suffix(name);
}

struct ui {
	const struct unit_path	*up;
	struct buf		*said;
	char			*err;
	size_t			 errlen;
	char			*seen[UI_ALSO_MAX];	/* Also='s, done */
	size_t			 nseen;
};

static int
ui_fail(struct ui *ui, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
ui_fail(struct ui *ui, int rc, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(ui->err, ui->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* Is path a link to /dev/null, a mask of mask's? */
static bool
ui_null(const char *path)
{
	char	to[16];

	return readlink(path, to, sizeof(to) - 1) == 9 &&
	    memcmp(to, "/dev/null", 9) == 0;
}

/*
 * The file a unit's links lead to: the first of the path that has it
 * (its template's, for an instance), as deb-systemd-helper finds it.
 * 0; -ENOENT; -EPERM if it is masked.
 */
static int
ui_find(struct ui *ui, const char *name, char *path, size_t n)
{
	char		 tmpl[UNIT_NAME_MAX + 1];
	const char	*look[2] = { name, NULL };
	struct stat	 st;
	size_t		 i, j;

	if (unit_template_of(name, tmpl, sizeof(tmpl)) == 0)
		look[1] = tmpl;
	for (j = 0; j < 2 && look[j] != NULL; j++)
		for (i = 0; ui->up->dirs[i] != NULL; i++) {
			if ((size_t)snprintf(path, n, "%s/%s", ui->up->dirs[i],
			    look[j]) >= n || lstat(path, &st) < 0)
				continue;
			if (unit_null(path))
				return ui_fail(ui, -EPERM, "%s: masked (%s); "
				    "unmask it first", name, path);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				return 0;
		}
	return ui_fail(ui, -ENOENT, "%s: no such unit in %s", name,
	    ui->up->dirs[0]);
}

/* A link made: said, as systemctl says it. */
static int
ui_link(struct ui *ui, const char *link, const char *target)
{
	char		 cur[PATH_MAX], dir[PATH_MAX];
	char		*slash;
	struct stat	 a, b;
	ssize_t		 n;

	if ((n = readlink(link, cur, sizeof(cur) - 1)) >= 0) {
		cur[n] = '\0';
		if (strcmp(cur, target) == 0 || (stat(link, &a) == 0 &&
		    stat(target, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino))	/* /usr/lib's, /lib's */
			return 0;
		return ui_fail(ui, -EEXIST, "%s: a link to %s is there "
		    "already", link, cur);
	}
	if (errno != ENOENT)
		return ui_fail(ui, -errno, "%s: %s", link, errno == EINVAL ?
		    "a file of its own is there" : strerror(errno));
	snprintf(dir, sizeof(dir), "%s", link);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return ui_fail(ui, -errno, "%s: %s", dir,
			    strerror(errno));
	}
	if (symlink(target, link) < 0)
		return ui_fail(ui, -errno, "%s: %s", link, strerror(errno));
	buf_printf(ui->said, "Created symlink %s \u2192 %s.\n", link, target);
	return 0;
}

/*
 * A link gone, if it leads to target (a link to another file is not
 * this unit's); its .wants or .requires directory too, once empty.
 */
static int
ui_unlink(struct ui *ui, const char *link, const char *target)
{
	char		 cur[PATH_MAX], dir[PATH_MAX];
	const char	*a, *b;
	char		*slash;
	ssize_t		 n;

	if ((n = readlink(link, cur, sizeof(cur) - 1)) < 0)
		return 0;
	cur[n] = '\0';
	a = strrchr(cur, '/');
	b = strrchr(target, '/');
	if (strcmp(cur, target) != 0 && (a == NULL || b == NULL ||
	    strcmp(a, b) != 0))
		return 0;
	if (unlink(link) < 0)
		return ui_fail(ui, -errno, "%s: %s", link, strerror(errno));
	buf_printf(ui->said, "Removed %s.\n", link);
	snprintf(dir, sizeof(dir), "%s", link);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		n = (ssize_t)strlen(dir);
		if ((n > 6 && strcmp(dir + n - 6, ".wants") == 0) ||
		    (n > 9 && strcmp(dir + n - 9, ".requires") == 0))
			(void)rmdir(dir);	/* if empty */
	}
	return 0;
}

/* Each word of v (quotes around one taken off) to fn; 0 or its -errno. */
static int
ui_words(struct ui *ui, const char *v, int (*fn)(struct ui *, const char *,
    void *), void *arg)
{
	char	 w[UNIT_NAME_MAX + 1];
	size_t	 n;
	int	 rc;

	while (*(v += strspn(v, " \t")) != '\0') {
		n = strcspn(v, " \t");
		if (n >= sizeof(w))
			return ui_fail(ui, -EINVAL, "'%.*s': not a unit name",
			    (int)n, v);
		memcpy(w, v, n);
		w[n] = '\0';
		if (n >= 2 && (w[0] == '"' || w[0] == '\'') && w[n - 1] == w[0]) {
			memmove(w, w + 1, n - 2);
			w[n - 2] = '\0';
		}
		if ((rc = fn(ui, w, arg)) < 0)
			return rc;
		v += n;
	}
	return 0;
}

/* What one link of the closure is: where, and to what. */
struct ui_link {
	const char	*file;		/* the unit's file */
	const char	*wanted;	/* its name in .wants/, .requires/ */
	const char	*dir;		/* ".wants", ".requires", or NULL: an
					 * alias's */
	bool		 on;		/* enable, or disable */
};

static int
ui_one(struct ui *ui, const char *word, void *arg)
{
	const struct ui_link	*l = arg;
	char			 link[PATH_MAX];

	int			 n;

	if (!unit_name_valid(word))
		return ui_fail(ui, -EINVAL, "'%s': not a unit name", word);
	if (l->dir != NULL && ui_template(l->wanted))
		return ui_fail(ui, -EINVAL, "%s: a template, and no "
		    "DefaultInstance=: name an instance (%.*s@INSTANCE%s)",
		    l->wanted, (int)(strchr(l->wanted, '@') - l->wanted),
		    l->wanted, unit_suffix(l->wanted));
	/* In TARGET.wants/ by the name wanted; an alias by its own. */
	n = l->dir ? snprintf(link, sizeof(link), "%s/%s%s/%s",
	    ui->up->dirs[0], word, l->dir, l->wanted) : snprintf(link,
	    sizeof(link), "%s/%s", ui->up->dirs[0], word);
	if (n < 0 || (size_t)n >= sizeof(link))
		return ui_fail(ui, -ENAMETOOLONG, "%s: name too long", word);
	return l->on ? ui_link(ui, link, l->file) : ui_unlink(ui, link,
	    l->file);
}

static int	ui_install(struct ui *ui, const char *name, bool on);

static int
ui_also(struct ui *ui, const char *word, void *arg)
{
	size_t	i;

	if (!unit_name_valid(word))
		return ui_fail(ui, -EINVAL, "Also=: '%s': not a unit name",
		    word);
	for (i = 0; i < ui->nseen; i++)
		if (strcmp(ui->seen[i], word) == 0)
			return 0;
	if (ui->nseen == UI_ALSO_MAX)
		return ui_fail(ui, -ELOOP, "%s: Also= reaches more than %d "
		    "units", word, UI_ALSO_MAX);
	if ((ui->seen[ui->nseen] = strdup(word)) == NULL)
		return -ENOMEM;
	ui->nseen++;
	return ui_install(ui, word, *(bool *)arg);
}

/* Nothing said by reading [Install]: its errors are --check's. */
static void
ui_quiet(void *arg, const char *file, int line, const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
}

/*
 * disable: its links in every TARGET.wants/ and TARGET.requires/ of the
 * first directory, its [Install] naming them or not (an older one did).
 */
static int
ui_scan(struct ui *ui, const struct ui_link *l)
{
	char		 link[PATH_MAX];
	const char	*d = ui->up->dirs[0];
	struct dirent	*e;
	size_t		 n;
	DIR		*dp;
	int		 rc = 0;

	if ((dp = opendir(d)) == NULL)
		return 0;
	while (rc == 0 && (e = readdir(dp)) != NULL) {
		n = strlen(e->d_name);
		if (e->d_name[0] == '.' || !((n > 6 && strcmp(e->d_name +
		    n - 6, ".wants") == 0) || (n > 9 && strcmp(e->d_name +
		    n - 9, ".requires") == 0)))
			continue;
		if ((size_t)snprintf(link, sizeof(link), "%s/%s/%s", d,
		    e->d_name, l->wanted) < sizeof(link))
			rc = ui_unlink(ui, link, l->file);
	}
	closedir(dp);
	return rc;
}

/* enable (on) or disable one unit and what its Also= names. */
static int
ui_install(struct ui *ui, const char *name, bool on)
{
	struct unit_path	 up = *ui->up;
	struct unit		 u;
	struct ui_link		 l = { .on = on };
	char			 file[PATH_MAX], wanted[UNIT_NAME_MAX + 1];
	const struct unit_kv	*kv, *inst;
	size_t			 i, links = 0;
	int			 rc;

	if ((rc = ui_find(ui, name, file, sizeof(file))) < 0)
		return rc;
	memset(&u, 0, sizeof(u));
	up.err = ui_quiet;
	if ((rc = unit_read(&u, &up, file)) < 0) {
		unit_free(&u);
		return rc;
	}
	/* A template's name: its DefaultInstance='s. */
	snprintf(wanted, sizeof(wanted), "%s", name);
	inst = unit_get(&u, "Install", "DefaultInstance");
	if (ui_template(name) && inst != NULL && inst->value[0] &&
	    (size_t)snprintf(wanted, sizeof(wanted), "%.*s%s%s",
	    (int)(strchr(name, '@') - name + 1), name, inst->value,
	    unit_suffix(name)) >= sizeof(wanted))
		rc = ui_fail(ui, -ENAMETOOLONG, "%s: name too long", name);
	if (rc == 0 && !unit_name_valid(wanted))
		rc = ui_fail(ui, -EINVAL, "%s: DefaultInstance=: '%s' is not "
		    "an instance's name", name, wanted);
	l.file = file;
	l.wanted = wanted;
	for (i = 0; i < u.nkv && rc == 0; i++) {
		kv = &u.kv[i];
		if (strcmp(kv->section, "Install") != 0)
			continue;
		l.dir = strcmp(kv->key, "WantedBy") == 0 ? ".wants" :
		    strcmp(kv->key, "RequiredBy") == 0 ? ".requires" : NULL;
		if (l.dir != NULL || strcmp(kv->key, "Alias") == 0) {
			rc = ui_words(ui, kv->value, ui_one, &l);
			links++;
		} else if (strcmp(kv->key, "Also") == 0) {
			rc = ui_words(ui, kv->value, ui_also, &on);
			links++;
		}
	}
	if (rc == 0 && !on)
		rc = ui_scan(ui, &l);
	if (rc == 0 && links == 0)
		buf_printf(ui->said, "%s has no [Install] WantedBy=, "
		    "RequiredBy=, Alias= or Also=: nothing to %s.\n", name,
		    on ? "enable" : "disable");
	unit_free(&u);
	return rc;
}

/* mask (on): NAME in the first directory a link to /dev/null; unmask. */
static int
ui_mask(struct ui *ui, const char *name, bool on)
{
	char		link[PATH_MAX];
	struct stat	st;

	if ((size_t)snprintf(link, sizeof(link), "%s/%s", ui->up->dirs[0],
	    name) >= sizeof(link))
		return ui_fail(ui, -ENAMETOOLONG, "%s: name too long", name);
	if (lstat(link, &st) < 0) {
		if (errno != ENOENT)
			return ui_fail(ui, -errno, "%s: %s", link,
			    strerror(errno));
		return on ? ui_link(ui, link, "/dev/null") : 0;
	}
	if (ui_null(link)) {
		if (on)
			return 0;
		if (unlink(link) < 0)
			return ui_fail(ui, -errno, "%s: %s", link,
			    strerror(errno));
		buf_printf(ui->said, "Removed %s.\n", link);
		return 0;
	}
	if (!on)
		return 0;
	if (!S_ISLNK(st.st_mode))
		return ui_fail(ui, -EEXIST, "%s: the unit's own file is "
		    "there; it is not masked (move it away first)", link);
	/* A link of its own name (an alias to itself): the mask's place. */
	if (unlink(link) < 0)
		return ui_fail(ui, -errno, "%s: %s", link, strerror(errno));
	buf_printf(ui->said, "Removed %s.\n", link);
	return ui_link(ui, link, "/dev/null");
}

/*
 * Do op to the unit name (".service" if it has no suffix) in up's first
 * directory; what changed appended to said, one line each.  0, or
 * -errno with why in err.
 */
int
unit_install(const struct unit_path *up, const char *name, enum unit_op op,
    struct buf *said, char *err, size_t errlen)
{
	struct ui	 ui = { .up = up, .said = said, .err = err,
			    .errlen = errlen };
	char		 full[UNIT_NAME_MAX + 1];
	size_t		 i;
	int		 rc;

	if ((size_t)snprintf(full, sizeof(full), strchr(name, '.') ? "%s" :
	    "%s.service", name) >= sizeof(full) || !unit_name_valid(full))
		return ui_fail(&ui, -EINVAL, "'%s': not a unit name", name);
	if (up->dirs == NULL || up->dirs[0] == NULL)
		return ui_fail(&ui, -EINVAL, "no unit path");
	switch (op) {
	case UNIT_ENABLE:
	case UNIT_DISABLE:
		if ((ui.seen[0] = strdup(full)) == NULL)
			return -ENOMEM;
		ui.nseen = 1;
		rc = ui_install(&ui, full, op == UNIT_ENABLE);
		break;
	default:
		rc = ui_mask(&ui, full, op == UNIT_MASK);
		break;
	}
	for (i = 0; i < ui.nseen; i++)
		free(ui.seen[i]);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	return rc;
}
