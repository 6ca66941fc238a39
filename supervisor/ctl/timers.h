/* timers.h - `pidvisorctl timers`: the list and its two formats */
#ifndef PIDVISOR_TIMERS_H
#define PIDVISOR_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct svc_status;

void	timers_sort(struct svc_status *v, size_t n);
void	timers_text(struct buf *b, const struct svc_status *v, size_t n,
	    int64_t now, bool all);
void	timers_json(struct buf *b, const struct svc_status *v, size_t n,
	    int64_t now);

#endif
