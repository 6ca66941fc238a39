/*
 * unit.h - systemd's unit files as systemd reads them: their syntax, the
 * search path (earlier directories win), aliases, masks, templates and
 * instances, drop-ins; nothing of what a directive means (conf_unit.c).
 */
#ifndef PIDVISOR_UNIT_H
#define PIDVISOR_UNIT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

#define UNIT_NAME_MAX	255	/* systemd's UNIT_NAME_MAX, its suffix in */
#define UNIT_LINE_MAX	(1 << 20)	/* systemd's LONG_LINE_MAX */
#define UNIT_FILE_MAX	(1 << 20)

/* systemd's search path for system units, highest priority first. */
#define UNIT_PATH_DEFAULT	"/etc/systemd/system:/run/systemd/system:" \
				"/lib/systemd/system:/usr/lib/systemd/system"

/* One assignment, where it was written. */
struct unit_kv {
	const char	*section;	/* "Unit", "Service", ... */
	char		*key;
	char		*value;		/* "": an empty assignment (a reset) */
	const char	*file;		/* one of the unit's files */
	int		 line;
};

struct unit {
	char		 *name;		/* as asked: getty@tty1.service */
	char		 *id;		/* its own name (an alias's target's),
					 * the instance kept */
	char		 *fragment;	/* its file, or NULL: none found */
	bool		  masked;	/* linked to /dev/null */
	bool		  pulled;	/* conf_unit.c: pulled in by a unit,
					 * not only started by a socket's
					 * client or a timer */
	char		**files;	/* fragment, then drop-ins; NULL-ended */
	char		**sections;	/* the section names seen */
	struct unit_kv	 *kv;		/* in the order they apply */
	size_t		  nkv;
	bool		  nomem;
};

/* Errors and warnings: FILE:LINE (line 0: the file) and what. */
typedef void unit_err_fn(void *arg, const char *file, int line,
    const char *msg);

struct unit_path {
	char		**dirs;		/* NULL-ended, highest first */
	unit_err_fn	 *err;
	void		 *arg;
};

int	unit_path_init(struct unit_path *up, const char *colon_list);
void	unit_path_free(struct unit_path *up);
bool	unit_name_valid(const char *name);
const char *unit_suffix(const char *name);
int	unit_template_of(const char *name, char *out, size_t n);
int	unit_parse(struct unit *u, const char *file, const char *text,
	    unit_err_fn *err, void *arg);
int	unit_load(const struct unit_path *up, const char *name,
	    struct unit *u);
void	unit_free(struct unit *u);
const struct unit_kv *unit_get(const struct unit *u, const char *section,
	    const char *key);
int	unit_dir_list(const struct unit_path *up, const char *name,
	    const char *suffix, char ***out);

int	unit_spec(const struct unit *u, const char *value, struct buf *b,
	    char *bad);
int	unit_read(struct unit *u, const struct unit_path *up,
	    const char *path);
bool	unit_null(const char *path);

/* pidvisorctl enable, disable, mask, unmask (unit_install.c). */
enum unit_op { UNIT_ENABLE, UNIT_DISABLE, UNIT_MASK, UNIT_UNMASK };

int	unit_install(const struct unit_path *up, const char *name,
	    enum unit_op op, struct buf *said, char *err, size_t errlen);

#endif
