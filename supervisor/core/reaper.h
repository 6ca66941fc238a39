/* reaper.h - the orphan reaper (reaper.c) */
#ifndef PIDVISOR_REAPER_H
#define PIDVISOR_REAPER_H

#include <ev.h>

struct sup;

void	reaper_reap(struct sup *sup);
void	reaper_on_more(struct ev_loop *loop, ev_timer *w, int revents);

#endif
