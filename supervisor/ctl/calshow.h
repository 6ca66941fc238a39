/* calshow.h - pidvisorctl calendar (calshow.c) */
#ifndef PIDVISOR_CALSHOW_H
#define PIDVISOR_CALSHOW_H

struct ctl_args;

int	calshow(const struct ctl_args *a);

#endif
