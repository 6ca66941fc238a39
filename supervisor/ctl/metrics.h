/* metrics.h - the Prometheus text format of pidvisor's state */
#ifndef PIDVISOR_METRICS_H
#define PIDVISOR_METRICS_H

#include <stdint.h>

#include "status.h"
#include "util.h"

/* What the supervisor itself says, beside its services. */
struct metrics_own {
	const char	*version;
	uint32_t	 clients;	/* of the control socket */
	uint64_t	 loop_turns;	/* ev_iteration() */
	uint64_t	 kills_pressure; /* by the low-memory killer */
	uint64_t	 kills_request;	/* pressure kill NAME */
	uint64_t	 scrapes;	/* GET /metrics answered */
	uint32_t	 http_conns;	/* metrics_listen's, now */
	uint64_t	 events_dropped; /* events clients that did not read */
	int64_t		 start_time_ms;	/* real */
};

/* The whole exposition (version 0.0.4) of n services: -ENOMEM or 0. */
int	metrics_text(struct buf *b, const struct metrics_own *own,
	    const struct svc_status *v, size_t n);

#endif
