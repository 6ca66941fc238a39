/* closer.h - close file descriptors off the loop */
#ifndef PIDVISOR_CLOSER_H
#define PIDVISOR_CLOSER_H

#include <pthread.h>
#include <stdbool.h>

struct closer {
	int		 pipe[2];	/* the loop writes fds to [1] */
	pthread_t	 thread;
	bool		 running;
};

int	closer_start(struct closer *c);
int	closer_give(struct closer *c, int fd);
void	closer_stop(struct closer *c);
bool	closer_queued(const struct closer *c);

#endif
