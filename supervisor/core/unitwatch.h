/*
 * unitwatch.h - [supervisor] watch_units: the unit path watched, so that
 * a unit installed, enabled, disabled or masked by hand or by a package
 * (deb-systemd-helper) is run or stopped by the reload that follows.
 */
#ifndef PIDVISOR_UNITWATCH_H
#define PIDVISOR_UNITWATCH_H

#include <ev.h>

/* How long the path is quiet before the reload: one for a package's
 * unpacking and its postinst's links. */
#define UNITWATCH_QUIET	0.5	/* seconds */

struct sup;

struct unitwatch {
	int		 fd;		/* inotify; -1: not watching */
	ev_io		 io;
	ev_timer	 quiet;
	unsigned	 nwatch;	/* directories watched */
};

void	unitwatch_init(struct unitwatch *w);
void	unitwatch_apply(struct sup *sup);
void	unitwatch_close(struct sup *sup);

#endif
