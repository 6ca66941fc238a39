/*
 * cmd.h - between the control socket (ctl.c) and its verbs (cmd.c): a
 * client, and what a verb may do with it.
 */
#ifndef PIDVISOR_CMD_H
#define PIDVISOR_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "ctl.h"
#include "proto.h"
#include "status.h"

enum ctl_wait {
	WAIT_NONE,
	WAIT_UP,		/* start --wait */
	WAIT_RESTART,		/* restart --wait: ready after a new start */
	WAIT_DOWN,		/* stop --wait */
	WAIT_STATE,		/* wait NAME STATE */
	WAIT_RELOAD,		/* reload NAME */
	WAIT_REEXEC,		/* reexec: answered by sup_reexec_end() */
};

struct ctl_client {
	struct ctl		*ctl;
	int			 fd;
	uid_t			 uid;
	bool			 priv;		/* may use every verb */
	ev_io			 io;
	ev_timer		 timer;
	struct buf		 out;
	size_t			 outoff;
	struct svc		*wait_svc[CTL_NAMES_MAX];	/* waited on */
	uint32_t		 wait_starts[CTL_NAMES_MAX];
	uint32_t		 wait_fails[CTL_NAMES_MAX];	/* reload */
	uint8_t			 nwait;
	bool			 follow;	/* logs -f: of wait_svc */
	bool			 follow_json;	/* ... and events --json */
	bool			 events;	/* events: of wait_svc, or all */
	uint8_t			 wait;		/* enum ctl_wait */
	uint8_t			 wait_state;
	bool			 replied;	/* END queued: flush, close */
	size_t			 inlen;
	size_t			 unread;	/* sent after the request */
	LIST_ENTRY(ctl_client)	 entry;
	uint8_t			 in[CTL_HDR_SIZE + CTL_REQ_MAX];
};

typedef void ctl_cmd(struct ctl_client *, const struct ctl_args *);

extern ctl_cmd *const ctl_cmds[VERB__COUNT];

/* ctl.c, for the verbs */
void	ctl_flush(struct ctl_client *c);
void	ctl_note(struct ctl_client *c, const char *msg);
void	ctl_ok(struct ctl_client *c);
void	ctl_output_buf(struct ctl_client *c, const struct buf *b);
void	ctl_output(struct ctl_client *c, const char *p, size_t len);
void	ctl_reply(struct ctl_client *c, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
bool	ctl_svcs(struct ctl_client *c, const struct ctl_args *a, int first);
struct svc *ctl_svc(struct ctl_client *c, const char *name);
void	ctl_wait_begin(struct ctl_client *c, enum ctl_wait w,
	    uint32_t timeout);

#endif
