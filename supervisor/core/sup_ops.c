/*
 * sup_ops.c - how the control socket (ctl_ops) and the killer
 * (pressure_ops) reach the supervisor: each call, the supervisor's
 * answer, and nothing more.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>

#include "mainpid.h"
#include "metrics.h"
#include "sup.h"

/* ctl_ops: what the control socket may ask of us (ctl.h). */
static int
sup_ctl_send(void *ctx, struct svc *s, int sig, bool all)
{
	return service_kill(ctx, service_of(s), sig, all);
}

static void
sup_ctl_inherited(void *ctx, mode_t *mask, uint64_t *nofile,
    uint64_t *nofile_max, int *oom_score_adj)
{
	struct sup	*sup = ctx;
	struct buf	 b = { 0 };

	*mask = umask(0);
	umask(*mask);
	*nofile = sup->core.nofile_cur;
	*nofile_max = sup->core.nofile_max;
	/* Our own file under /proc: read at once, never blocks. */
	*oom_score_adj = read_file(AT_FDCWD, "/proc/self/oom_score_adj", 32,
	    &b) == 0 && b.len > 0 ? atoi(b.data) : 0;
	buf_free(&b);
}

static struct svc *
sup_ctl_instance(void *ctx, const char *name, struct buf *err)
{
	return sup_instance(ctx, name, err, false);
}

static void
sup_ctl_status(void *ctx, struct svc *s, int64_t now, struct svc_status *st)
{
	(void)ctx;
	service_status(s, now, st);
}

static const char *
sup_ctl_cgroup_note(void *ctx)
{
	return sup_cgroup_note(ctx);
}

static char *const *
sup_ctl_refused(void *ctx)
{
	return ((struct sup *)ctx)->conf.refused;
}

static bool
sup_ctl_running(void *ctx)
{
	return sup_running(ctx);
}

static void
sup_ctl_shutdown(void *ctx, unsigned int cmd)
{
	sup_shutdown(ctx, cmd);
}

static int
sup_ctl_reload(void *ctx, struct buf *report)
{
	return confreload(ctx, report);
}

static int
sup_ctl_svc_reload(void *ctx, struct svc *s, char *err, size_t n)
{
	return hook_reload_start(ctx, s, err, n);
}

static int
sup_ctl_pressure_kill(void *ctx, struct svc *s)
{
	return pressure_kill(&((struct sup *)ctx)->pr, s,
	    PRESSURE_BY_REQUEST);
}

static void
sup_ctl_pressure_report(void *ctx, struct buf *b, bool json)
{
	pressure_report(&((struct sup *)ctx)->pr, b, json);
}

static int
sup_ctl_reexec(void *ctx, const char *binary, char *err, size_t n)
{
	return sup_reexec(ctx, binary, err, n);
}

/* pressure_ops: what the killer needs of a service (pressure.h). */
static int
sup_pressure_cgroup(void *ctx, const struct svc *s)
{
	(void)ctx;
	return service_of((struct svc *)s)->cgfd;
}

static void
sup_pressure_killed(void *ctx, const struct svc *s, const struct kill_rec *k)
{
	struct sup	*sup = ctx;

	ctl_event(&sup->ctl, &(struct ctl_event){ .kind = EV_PRESSURE_KILL,
	    .svc = s, .reason = k->reason, .pid = s->pid, .memory = k->memory });
}

const struct pressure_ops sup_pressure_ops = {
	.cgroup = sup_pressure_cgroup,
	.killed = sup_pressure_killed,
};

/* The supervisor's own numbers for the metrics. */
static void
sup_ctl_metrics(void *ctx, struct metrics_own *m)
{
	struct sup	*sup = ctx;

	m->kills_request = sup->pr.nkills_req;
	m->kills_pressure = sup->pr.nkills - sup->pr.nkills_req;
	m->start_time_ms = sup->start_ms;
	m->scrapes = sup->httpd.served;
	m->http_conns = sup->httpd.nconns;
}

const struct ctl_ops sup_ctl_ops = {
	.instance = sup_ctl_instance,
	.status = sup_ctl_status,
	.cgroup_note = sup_ctl_cgroup_note,
	.refused = sup_ctl_refused,
	.running = sup_ctl_running,
	.shutdown = sup_ctl_shutdown,
	.reload = sup_ctl_reload,
	.send = sup_ctl_send,
	.inherited = sup_ctl_inherited,
	.svc_reload = sup_ctl_svc_reload,
	.pressure_kill = sup_ctl_pressure_kill,
	.pressure_report = sup_ctl_pressure_report,
	.reexec = sup_ctl_reexec,
	.metrics = sup_ctl_metrics,
};

