/*
 * unitwatch.c - [supervisor] watch_units: each directory of the unit
 * path that is there, and its NAME.wants/, NAME.requires/ and NAME.d/
 * directories, watched by inotify in the loop.  A change there (a file
 * or link made, removed or renamed into place, a file written) arms a
 * timer; once the path has been quiet for UNITWATCH_QUIET, the
 * configuration is reloaded as by `pidvisorctl reload` (w->reload:
 * confreload.c's confreload_units),
 * which starts what now boots and stops what no longer does, or keeps
 * everything if the tree is wrong, and says why.  The watches are made
 * again just before that reload reads the path, so that a directory
 * made since is watched, and what changes after the reading wakes us
 * again.  A directory of the path that is not there is not watched
 * until a reload finds it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "unit.h"
#include "unitwatch.h"
#include "util.h"

#define UNITWATCH_MASK	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
			 IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | \
			 IN_ONLYDIR)

static void	unitwatch_quiet_cb(struct ev_loop *loop, ev_timer *t,
		    int revents);

void
unitwatch_init(struct unitwatch *w, struct ev_loop *loop,
    const struct sup_conf *sc, void (*reload)(void *), void *ctx)
{
	w->fd = -1;
	w->nwatch = 0;
	w->loop = loop;
	w->sc = sc;
	w->reload = reload;
	w->ctx = ctx;
	ev_init(&w->quiet, unitwatch_quiet_cb);
	w->quiet.data = w;
}

/* Is name a directory of units' links or drop-ins? */
static bool
unitwatch_subdir(const char *name)
{
	size_t	n = strlen(name);

	return name[0] != '.' && ((n > 6 && strcmp(name + n - 6, ".wants") ==
	    0) || (n > 9 && strcmp(name + n - 9, ".requires") == 0) ||
	    (n > 2 && strcmp(name + n - 2, ".d") == 0));
}

static void
unitwatch_add(struct unitwatch *w, const char *path)
{
	if (inotify_add_watch(w->fd, path, UNITWATCH_MASK) >= 0)
		w->nwatch++;
	else if (errno != ENOENT && errno != ENOTDIR)
		log_warn("watch_units: %s: %s", path, strerror(errno));
}

/* A directory of the path, and those of its subdirectories that count. */
static void
unitwatch_dir(struct unitwatch *w, const char *dir)
{
	char		 path[PATH_MAX];
	struct dirent	*e;
	DIR		*dp;

	if ((dp = opendir(dir)) == NULL)
		return;
	unitwatch_add(w, dir);
	while ((e = readdir(dp)) != NULL)
		if ((e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) &&
		    unitwatch_subdir(e->d_name) && (size_t)snprintf(path,
		    sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path))
			unitwatch_add(w, path);
	closedir(dp);
}

/* The quiet is over: reload, as `pidvisorctl reload` does. */
static void
unitwatch_quiet_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct unitwatch	*w = t->data;

	(void)revents;
	ev_timer_stop(loop, t);
	unitwatch_apply(w);	/* what it reads next: watched already */
	w->reload(w->ctx);
}

/* Events: each arms the quiet again. */
static void
unitwatch_io_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct unitwatch	*w = io->data;
	char			 buf[4096] __attribute__((aligned(8)));
	const struct inotify_event *e;
	ssize_t			 n;
	size_t			 off;
	bool			 any = false;

	(void)revents;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off + sizeof(*e) <= (size_t)n;
		    off += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)(void *)(buf + off);
			if (e->mask & IN_IGNORED)
				continue;
			any = true;
		}
	}
	if (any) {
		w->quiet.repeat = UNITWATCH_QUIET;
		ev_timer_again(loop, &w->quiet);
	}
}

void
unitwatch_close(struct unitwatch *w)
{
	if (w->fd < 0)
		return;
	ev_io_stop(w->loop, &w->io);
	close(w->fd);
	w->fd = -1;
	w->nwatch = 0;
}

/*
 * Watch the unit path as pidvisor.ini says now (watch_units with
 * systemd_units), its directories as they are now; or stop watching.
 * A reload pending stays armed.
 */
void
unitwatch_apply(struct unitwatch *w)
{
	const struct sup_conf	*sc = w->sc;
	struct unit_path	 up;
	size_t			 i;

	unitwatch_close(w);
	if (!sc->systemd_units || !sc->watch_units) {
		ev_timer_stop(w->loop, &w->quiet);
		return;
	}
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		log_err("watch_units: inotify: %s", strerror(errno));
		return;
	}
	if (unit_path_init(&up, sc->unit_path ? sc->unit_path :
	    UNIT_PATH_DEFAULT) < 0) {
		log_err("watch_units: %s", strerror(ENOMEM));
		unitwatch_close(w);
		return;
	}
	for (i = 0; up.dirs[i] != NULL; i++)
		unitwatch_dir(w, up.dirs[i]);
	unit_path_free(&up);
	ev_io_init(&w->io, unitwatch_io_cb, w->fd, EV_READ);
	w->io.data = w;
	ev_io_start(w->loop, &w->io);
}
