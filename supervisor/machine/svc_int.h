/*
 * svc_int.h - the state machine's own, shared by its files (svc.c,
 * svc_event.c, svc_hook.c) and nobody else: events come in through
 * svc.h.
 */
#ifndef PIDVISOR_SVCINT_H
#define PIDVISOR_SVCINT_H

#include <stdbool.h>
#include <stdint.h>

#include "svc.h"

static inline struct svc_reason
svc_why(enum svc_why w, int code)
{
	struct svc_reason	r = { .why = (uint8_t)w, .code = code };

	return r;
}

/* svc.c */
int64_t	svc_now(struct svc *s);
void	svc_arm(struct svc *s, uint32_t ms);
void	svc_disarm(struct svc *s);
void	svc_set_state(struct svc *s, enum svc_state st, struct svc_reason r);
void	svc_fresh(struct svc *s);
void	svc_send_stop(struct svc *s, int sig);
void	svc_backoff(struct svc *s, struct svc_reason r, bool spawn_failed);
void	svc_spawn_main(struct svc *s, bool counted);

/* svc_event.c */
void	svc_after_death(struct svc *s, struct svc_reason death);
void	svc_up(struct svc *s);

/* svc_hook.c */
void	svc_done_stop(struct svc *s);
void	svc_hook_cancel(struct svc *s);
void	svc_hook_failed(struct svc *s, int kind, int status);
void	svc_hook_timeout(struct svc *s);

#endif
