/* pid1.h - what pidvisor does only as PID 1 */
#ifndef PIDVISOR_PID1_H
#define PIDVISOR_PID1_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <ev.h>

#include "conf.h"

/* The end of the system, once every service has stopped. */
enum pid1_stage {
	PID1_UP,		/* services run, or are stopping */
	PID1_TERM,		/* leftover processes got SIGTERM */
	PID1_KILL,		/* and then SIGKILL */
	PID1_DONE,		/* reboot(2) called */
};

struct pid1 {
	struct ev_loop	*loop;
	ev_timer	 timer;		/* TERM -> KILL -> reboot */
	unsigned int	 reboot_cmd;	/* what to do at the end */
	bool		 container;	/* exit at the end, no reboot(2) */
	enum pid1_stage	 stage;
};

bool	pid1_in_container(void);
void	pid1_console(void);
int	pid1_setup(bool container);
void	pid1_init(struct pid1 *p, struct ev_loop *loop);
void	pid1_finish(struct pid1 *p);
void	pid1_reaped(struct pid1 *p);
void	pid1_kill_all(int sig);
void	pid1_crash_setup(const struct sup_conf *conf, int kmsg);
int	pid1_catch_faults(void (*fn)(int, siginfo_t *, void *), void *stack,
	    size_t size, int flags);
int	pid1_count(void);
void	pid1_freeze(void) __attribute__((noreturn));
unsigned pid1_mounts_mask(void);
void	pid1_mounts_adopt(unsigned mask);

#endif
