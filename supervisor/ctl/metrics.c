/*
 * metrics.c - pidvisor's state in the Prometheus text exposition format
 * (version 0.0.4): one HELP and one TYPE line per family, then its rows.
 * Every service gets a row of pidvisor_service_state for every state,
 * 1 for the one it is in, as node_exporter's systemd collector does, so
 * that a query for "failed" finds a 0 rather than nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "metrics.h"

/* A label's value: backslash, quote and newline escaped. */
static void
metrics_label(struct buf *b, const char *s)
{
	if (strpbrk(s, "\\\"\n") == NULL) {	/* names never need it */
		buf_add(b, s, strlen(s));
		return;
	}
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_add(b, s, 1);
	}
}

static void
metrics_family(struct buf *b, const char *name, const char *type,
    const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family of one unlabelled number. */
static void
metrics_one(struct buf *b, const char *name, const char *type,
    const char *help, uint64_t v)
{
	metrics_family(b, name, type, help);
	buf_printf(b, "%s %" PRIu64 "\n", name, v);
}

/*
 * The rows are most of a scrape (7 MB for 10,000 services): made with
 * buf_add and a number's digits, not printf.
 */
static void
metrics_u64(struct buf *b, uint64_t v)
{
	char	d[24], *p = d + sizeof(d);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_add(b, p, (size_t)(d + sizeof(d) - p));
}

/* NAME{service="S" */
static void
metrics_row(struct buf *b, const char *name, const char *svc)
{
	buf_add(b, name, strlen(name));
	buf_add(b, "{service=\"", 10);
	metrics_label(b, svc);
}

/* One row of a service: NAME{service="S"} VALUE. */
static void
metrics_svc_u64(struct buf *b, const char *name, const char *svc, uint64_t v)
{
	metrics_row(b, name, svc);
	buf_add(b, "\"} ", 3);
	metrics_u64(b, v);
	buf_add(b, "\n", 1);
}

/* The same with ms as seconds: S.mmm */
static void
metrics_svc_sec(struct buf *b, const char *name, const char *svc, int64_t ms)
{
	char	frac[5] = { '.', 0, 0, 0, '\n' };
	int	f = (int)(ms % 1000);

	metrics_row(b, name, svc);
	buf_add(b, "\"} ", 3);
	metrics_u64(b, (uint64_t)(ms / 1000));
	frac[1] = (char)('0' + f / 100);
	frac[2] = (char)('0' + f / 10 % 10);
	frac[3] = (char)('0' + f % 10);
	buf_add(b, frac, sizeof(frac));
}

/* The timers' rows: services with a timer only. */
static void
metrics_timers(struct buf *b, const struct svc_status *v, size_t n)
{
	size_t	i, j;

	metrics_family(b, "pidvisor_timer_next_seconds", "gauge",
	    "When the service's timer elapses next, since the epoch (armed "
	    "timers with a next elapse).");
	for (i = 0; i < n; i++)
		if (v[i].timer.armed && v[i].timer.next_real)
			metrics_svc_sec(b, "pidvisor_timer_next_seconds",
			    v[i].name, v[i].timer.next_real / 1000);
	metrics_family(b, "pidvisor_timer_last_trigger_seconds", "gauge",
	    "When the service's timer last started it, since the epoch.");
	for (i = 0; i < n; i++)
		if (v[i].timer.last_real)
			metrics_svc_sec(b, "pidvisor_timer_last_trigger_seconds",
			    v[i].name, v[i].timer.last_real / 1000);
	metrics_family(b, "pidvisor_timer_triggers_total", "counter",
	    "Runs the service's timer started.");
	for (i = 0; i < n; i++)
		if (v[i].timer.timed)
			metrics_svc_u64(b, "pidvisor_timer_triggers_total",
			    v[i].name, v[i].timer.triggers);
	metrics_family(b, "pidvisor_timer_skipped_total", "counter",
	    "Elapses of the service's timer that started nothing: the run "
	    "before still ran, or a command had stopped it.");
	for (i = 0; i < n; i++) {
		if (!v[i].timer.timed)
			continue;
		for (j = 0; j < SKIP__COUNT; j++) {
			metrics_row(b, "pidvisor_timer_skipped_total",
			    v[i].name);
			buf_printf(b, "\",reason=\"%s\"} ",
			    timer_skip_names[j]);
			metrics_u64(b, v[i].timer.skipped[j]);
			buf_add(b, "\n", 1);
		}
	}
}

int
metrics_text(struct buf *b, const struct metrics_own *own,
    const struct svc_status *v, size_t n)
{
	size_t	i;
	int	st;

	buf_reserve(b, 1024 + n * 768);		/* 700 bytes a service */
	metrics_family(b, "pidvisor_build_info", "gauge",
	    "pidvisor's version (always 1).");
	buf_puts(b, "pidvisor_build_info{version=\"");
	metrics_label(b, own->version);
	buf_puts(b, "\"} 1\n");
	metrics_family(b, "pidvisor_start_time_seconds", "gauge",
	    "When this pidvisor started (a re-exec keeps it), since the "
	    "epoch.");
	buf_printf(b, "pidvisor_start_time_seconds %" PRId64 ".%03d\n",
	    own->start_time_ms / 1000, (int)(own->start_time_ms % 1000));
	metrics_one(b, "pidvisor_services", "gauge",
	    "Services configured, instances included.", n);
	metrics_one(b, "pidvisor_control_clients", "gauge",
	    "Clients of the control socket now.", own->clients);
	metrics_one(b, "pidvisor_loop_iterations_total", "counter",
	    "Turns of pidvisor's event loop since this binary started.",
	    own->loop_turns);
	metrics_one(b, "pidvisor_scrapes_total", "counter",
	    "GET /metrics answered (a re-exec keeps the count).",
	    own->scrapes);
	metrics_one(b, "pidvisor_metrics_connections", "gauge",
	    "Connections to metrics_listen now (at most 16).",
	    own->http_conns);
	metrics_one(b, "pidvisor_events_dropped_total", "counter",
	    "Clients of `pidvisorctl events` dropped for not reading.",
	    own->events_dropped);
	metrics_family(b, "pidvisor_pressure_kills_total", "counter",
	    "Services killed for memory: by the killer on a pressure event, "
	    "or by `pressure kill NAME`.");
	buf_printf(b, "pidvisor_pressure_kills_total{reason=\"pressure\"} %"
	    PRIu64 "\n", own->kills_pressure);
	buf_printf(b, "pidvisor_pressure_kills_total{reason=\"request\"} %"
	    PRIu64 "\n", own->kills_request);

	metrics_family(b, "pidvisor_service_state", "gauge",
	    "1 for the state the service is in, 0 for the others.");
	for (i = 0; i < n; i++) {
		for (st = 0; st < SVC__STATES; st++) {
			const char	*name = svc_state_name(
					    (enum svc_state)st);

			metrics_row(b, "pidvisor_service_state", v[i].name);
			buf_add(b, "\",state=\"", 9);
			buf_add(b, name, strlen(name));
			buf_add(b, (int)v[i].state == st ? "\"} 1\n" :
			    "\"} 0\n", 5);
		}
	}
	metrics_family(b, "pidvisor_service_starts_total", "counter",
	    "Processes started for the service.");
	for (i = 0; i < n; i++)
		metrics_svc_u64(b, "pidvisor_service_starts_total", v[i].name,
		    v[i].starts);
	metrics_family(b, "pidvisor_service_restarts_total", "counter",
	    "Restarts by the service's restart policy.");
	for (i = 0; i < n; i++)
		metrics_svc_u64(b, "pidvisor_service_restarts_total",
		    v[i].name, v[i].restarts);
	metrics_family(b, "pidvisor_service_uptime_seconds", "gauge",
	    "Since the service's process started; 0 without one.");
	for (i = 0; i < n; i++)
		metrics_svc_sec(b, "pidvisor_service_uptime_seconds",
		    v[i].name, v[i].uptime_ms);
	metrics_family(b, "pidvisor_service_ready_seconds", "gauge",
	    "From the last start to ready (services that became ready).");
	for (i = 0; i < n; i++)
		if (v[i].ready_ms >= 0)
			metrics_svc_sec(b, "pidvisor_service_ready_seconds",
			    v[i].name, v[i].ready_ms);
	metrics_family(b, "pidvisor_service_memory_bytes", "gauge",
	    "memory.current of the service's cgroup (services with one).");
	for (i = 0; i < n; i++)
		if (v[i].have_memory)
			metrics_svc_u64(b, "pidvisor_service_memory_bytes",
			    v[i].name, v[i].memory);
	metrics_family(b, "pidvisor_service_oom_kills_total", "counter",
	    "The kernel's OOM kills in the service's cgroup (services with "
	    "one).");
	for (i = 0; i < n; i++)
		if (v[i].have_memory)
			metrics_svc_u64(b, "pidvisor_service_oom_kills_total",
			    v[i].name, v[i].oom_kill);
	metrics_family(b, "pidvisor_service_log_dropped_total", "counter",
	    "Lines of the service's output that no sink took.");
	for (i = 0; i < n; i++)
		metrics_svc_u64(b, "pidvisor_service_log_dropped_total",
		    v[i].name, v[i].log_dropped);
	metrics_timers(b, v, n);
	return b->nomem ? -ENOMEM : 0;
}
