/*
 * proto.h - the control protocol between pidvisorctl and pidvisor.
 *
 * A connection carries one request and its reply.  Every message is a
 * frame: an 8-byte header (version, type, reserved, payload length in
 * host order; this is a local socket) and the payload.  The client
 * sends one CTL_REQUEST whose payload is its argv, each word ending in
 * NUL.  The server answers with any number of CTL_OUTPUT frames (text
 * for the client's stdout) and CTL_NOTE frames (text for its stderr:
 * what a script reading stdout must not get), and one CTL_END frame (a
 * 32-bit code, then a NUL-terminated message for stderr), then closes.
 * A frame that is too large, of another version or malformed ends the
 * connection with an error.
 *
 * Versions:
 *   1	first version (status, start, stop, restart, signal, wait,
 *	version, shutdown, reboot, poweroff, logs, reload, pressure).
 *   2	CTL_NOTE; status, start, stop and restart take several names;
 *	show, cat.  Later verbs (reexec) and codes (CTL_EAGAIN) kept the
 *	version: an older peer answers "unknown verb", or exits with the
 *	code it does not know.
 */
#ifndef PIDVISOR_PROTO_H
#define PIDVISOR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"
#include "verbs.h"

#define CTL_VERSION	2
#define CTL_HDR_SIZE	8
#define CTL_REQ_MAX	4096		/* request payload */
#define CTL_FRAME_MAX	(256 * 1024)	/* reply payload, per frame */
#define CTL_ARGS_MAX	40
#define CTL_NAMES_MAX	32		/* names in one request */

#define CTL_SOCKET_DEFAULT	"/run/pidvisor/control.sock"
#define CTL_SOCKET_PATH_MAX	108	/* sun_path */

/*
 * Where the control socket is when no one says (-s, $PIDVISOR_SOCKET,
 * pidvisor.ini): the i-th place to try, or NULL after the last (proto.c).
 */
const char *ctl_socket_default(int i, bool server, char *buf, size_t n,
	    uid_t *owner);
int	ctl_socket_dir(const char *path, char *why, size_t n);
int	ctl_socket_dir_safe(const char *path, uid_t owner, char *why,
	    size_t n);

enum ctl_type {
	CTL_REQUEST = 1,
	CTL_OUTPUT = 2,
	CTL_END = 3,
	CTL_NOTE = 4,		/* v2: text for the client's stderr */
};

/* Result codes; pidvisorctl exits with them. */
enum ctl_code {
	CTL_OK = 0,
	CTL_EFAIL = 1,		/* the request failed */
	CTL_EUSAGE = 2,		/* bad verb or arguments */
	CTL_ENOTREADY = 3,	/* status NAME: the service is not ready */
	CTL_ENOSVC = 4,		/* no such service */
	CTL_EPERM = 5,		/* permission denied */
	CTL_EUNREACH = 6,	/* supervisor unreachable (client only) */
	CTL_EAGAIN = 7,		/* pidvisor re-executed meanwhile: retry */
};

struct ctl_frame {
	uint8_t		 type;
	uint32_t	 len;
	const char	*payload;
};

int	ctl_frame_put(struct buf *b, uint8_t type, const void *p, uint32_t len);
int	ctl_frame_get(const void *in, size_t n, uint32_t max, struct ctl_frame *f);
int	ctl_end_put(struct buf *b, int code, const char *msg);
int	ctl_end_get(const struct ctl_frame *f, int *code, const char **msg);
int	ctl_req_put(struct buf *b, int argc, char *const argv[]);
int	ctl_req_get(const struct ctl_frame *f, char **argv, int max);

#define VERB_ENUM(id, fn, name, min, max, flags, usage, help) VERB_##id,
enum ctl_verb_id {
	CTL_VERBS(VERB_ENUM)
	VERB__COUNT
};
#undef VERB_ENUM

#define VF_ROOT		0x01	/* changes things: root only */
#define VF_WAIT		0x02	/* takes --wait */
#define VF_JSON		0x04	/* takes --json */
#define VF_TIMEOUT	0x08	/* takes --timeout */
#define VF_LINES	0x10	/* takes -n N */
#define VF_FOLLOW	0x20	/* takes -f */
#define VF_BINARY	0x40	/* takes --binary PATH */
#define VF_ALL		0x80	/* takes --all */
#define VF_LOCAL	0x100	/* pidvisorctl's own: no pidvisor asked */
#define VF_ITER		0x200	/* takes --iterations N */
#define VF_BASE		0x400	/* takes --base-time TIME */
#define VF_NOW		0x800	/* takes --now */

struct ctl_verb {
	const char	*name;
	uint8_t		 min;		/* positional arguments */
	uint8_t		 max;
	uint32_t	 flags;		/* VF_ */
	const char	*usage;
	const char	*help;		/* one line */
};

extern const struct ctl_verb ctl_verbs[VERB__COUNT];

const struct ctl_verb *ctl_verb_find(const char *name);

#define CTL_WAIT_DEFAULT	60000	/* ms */

/* A request, parsed the same way by the client and the server. */
struct ctl_args {
	int		 verb;		/* enum ctl_verb_id */
	const char	*pos[CTL_ARGS_MAX];
	int		 npos;
	bool		 wait;
	bool		 json;
	bool		 follow;
	bool		 all;		/* --all */
	bool		 now;		/* --now */
	uint32_t	 timeout;	/* ms */
	uint32_t	 lines;		/* -n; UINT32_MAX: all */
	const char	*binary;	/* --binary; NULL: none */
	uint32_t	 iterations;	/* --iterations; 1 if not given */
	const char	*base_time;	/* --base-time; NULL: now */
};

int	ctl_args_parse(int argc, char *const argv[], struct ctl_args *a,
	    char *err, size_t errlen);
bool	ctl_args_wait(const struct ctl_args *a);

#endif
