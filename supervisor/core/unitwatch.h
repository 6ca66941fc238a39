/*
 * unitwatch.h - [supervisor] watch_units: the unit path watched, so that
 * a unit installed, enabled, disabled or masked by hand or by a package
 * (deb-systemd-helper) is run or stopped by the reload that follows.
 */
#ifndef PIDVISOR_UNITWATCH_H
#define PIDVISOR_UNITWATCH_H

#include <ev.h>

#include "conf.h"

/* How long the path is quiet before the reload: one for a package's
 * unpacking and its postinst's links. */
#define UNITWATCH_QUIET	0.5	/* seconds */

struct unitwatch {
	int		 fd;		/* inotify; -1: not watching */
	ev_io		 io;
	ev_timer	 quiet;
	unsigned	 nwatch;	/* directories watched */
	struct ev_loop	*loop;
	const struct sup_conf *sc;	/* what it watches, as said now */
	void		(*reload)(void *ctx);	/* once quiet */
	void		*ctx;
};

void	unitwatch_init(struct unitwatch *w, struct ev_loop *loop,
	    const struct sup_conf *sc, void (*reload)(void *), void *ctx);
void	unitwatch_apply(struct unitwatch *w);
void	unitwatch_close(struct unitwatch *w);

#endif
