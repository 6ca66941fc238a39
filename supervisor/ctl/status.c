/*
 * status.c - the formats of `status`: a text table and JSON, made from
 * snapshots (struct svc_status) and nothing else, so that they are
 * unit-tested without a daemon (tests/unit/test_parts.c).
 */
#include <stdio.h>
#include <string.h>

#include "status.h"

/* The width of the NAME column for these services. */
int
status_width(const struct svc_status *v, size_t n)
{
	size_t	i;
	int	w = 4;

	for (i = 0; i < n; i++)
		if ((int)strlen(v[i].name) > w)
			w = (int)strlen(v[i].name);
	return w;
}

void
status_text_header(struct buf *b, int width)
{
	buf_printf(b, "%-*s %-8s %7s %8s %8s %s\n", width, "NAME", "STATE",
	    "PID", "UPTIME", "RESTARTS", "REASON");
}

/*
 * One line of the table.  What a service supplies (STATUS=, and the
 * reason, which may name a file or a service) is escaped as `logs`
 * escapes output: no byte of it moves root's terminal.
 */
void
status_text(struct buf *b, const struct svc_status *st, int width)
{
	char		 pid[16] = "-", up[32] = "-";

	if (st->pid > 0) {
		snprintf(pid, sizeof(pid), "%d", (int)st->pid);
		format_duration(up, sizeof(up), st->uptime_ms);
	}
	buf_printf(b, "%-*s %-8s %7s %8s %8u ", width, st->name,
	    st->refused ? "refused" : svc_state_name(st->state), pid, up,
	    st->restarts);
	buf_add_escaped(b, st->reason, strlen(st->reason));
	/* A finished task: when it ran, and for how long. */
	if (st->state == SVC_DONE && st->ran_at_ms && st->exited_at_ms) {
		char	when[40], took[32];

		format_rfc3339(when, sizeof(when), st->ran_at_ms);
		format_duration(took, sizeof(took), st->exited_at_ms -
		    st->ran_at_ms);
		buf_printf(b, "; ran at %s for %s", when, took);
	}
	if (st->timer.deferred)
		buf_puts(b, "; timer: deferred for memory pressure");
	else if (st->timer.armed && st->timer.next_real) {
		char	when[40];

		format_rfc3339(when, sizeof(when), st->timer.next_real / 1000);
		buf_printf(b, "; next run %s", when);
	} else if (st->timer.timed && !st->timer.armed) {
		buf_puts(b, "; timer off");
	}
	if (st->err)
		buf_printf(b, "; errno %d (%s)", st->err, strerror(st->err));
	if (st->health != NULL && st->health[0] != '\0')
		buf_printf(b, "; %s%s", st->health[0] == 's' ? "health: " : "",
		    st->health);
	if (st->have_memory)
		buf_printf(b, " (memory %.1fM, oom %llu, oom_kill %llu)",
		    st->memory / 1048576.0, (unsigned long long)st->oom,
		    (unsigned long long)st->oom_kill);
	/* The last exit, where the reason does not say it already. */
	if (st->exited_at_ms && st->pid == 0 && !st->reason_has_exit) {
		if (st->exit_sig)
			buf_printf(b, "; last exit: signal %s",
			    signal_name(st->exit_sig) ? signal_name(st->exit_sig)
			    : "?");
		else
			buf_printf(b, "; last exit: code %d", st->exit_code);
	}
	if (st->log_dropped)
		buf_printf(b, " (%llu log line%s dropped)",
		    (unsigned long long)st->log_dropped,
		    st->log_dropped == 1 ? "" : "s");
	if (st->status_text) {
		buf_puts(b, " [");
		buf_add_escaped(b, st->status_text, strlen(st->status_text));
		buf_puts(b, "]");
	}
	buf_puts(b, "\n");
}

/* One JSON object. */
void
status_json(struct buf *b, const struct svc_status *st)
{
	char	when[40];

	buf_puts(b, "{\"name\":");
	buf_json_str(b, st->name);
	buf_printf(b, ",\"state\":\"%s\",", st->refused ? "refused" :
	    svc_state_name(st->state));
	if (st->pid > 0)
		buf_printf(b, "\"pid\":%d,\"uptime_ms\":%lld,", (int)st->pid,
		    (long long)st->uptime_ms);
	else
		buf_puts(b, "\"pid\":null,\"uptime_ms\":null,");
	buf_printf(b, "\"restarts\":%u,\"reason\":", st->restarts);
	buf_json_str(b, st->reason);
	buf_puts(b, ",\"status_text\":");
	buf_json_str(b, st->status_text);
	if (st->have_memory)
		buf_printf(b, ",\"memory\":%llu,\"oom\":%llu,\"oom_kill\":%llu",
		    (unsigned long long)st->memory,
		    (unsigned long long)st->oom,
		    (unsigned long long)st->oom_kill);
	else
		buf_puts(b, ",\"memory\":null,\"oom\":null,\"oom_kill\":null");
	buf_printf(b, ",\"kill_mode\":\"%s\",\"kill_mode_effective\":\"%s\"",
	    kill_mode_name(st->kill_mode), kill_mode_name(st->kill_mode_real));
	buf_printf(b, ",\"essential\":%s,\"log_dropped\":%llu",
	    st->essential ? "true" : "false",
	    (unsigned long long)st->log_dropped);
	buf_printf(b, ",\"reloading\":%s", st->reloading ? "true" : "false");
	if (st->health != NULL && st->health[0] != '\0')
		buf_printf(b, ",\"health\":\"%s\"", st->health);
	else
		buf_puts(b, ",\"health\":null");
	if (st->timer.armed && st->timer.next_real) {
		format_rfc3339(when, sizeof(when), st->timer.next_real / 1000);
		buf_printf(b, ",\"next_run\":\"%s\"", when);
	} else {
		buf_puts(b, ",\"next_run\":null");
	}
	if (st->err)
		buf_printf(b, ",\"errno\":%d", st->err);
	else
		buf_puts(b, ",\"errno\":null");
	if (st->ran_at_ms) {
		format_rfc3339(when, sizeof(when), st->ran_at_ms);
		buf_printf(b, ",\"started_at\":\"%s\"", when);
	} else {
		buf_puts(b, ",\"started_at\":null");
	}
	if (st->ready_at_ms) {
		format_rfc3339(when, sizeof(when), st->ready_at_ms);
		buf_printf(b, ",\"ready_at\":\"%s\"", when);
	} else {
		buf_puts(b, ",\"ready_at\":null");
	}
	if (st->exited_at_ms) {
		format_rfc3339(when, sizeof(when), st->exited_at_ms);
		buf_printf(b, ",\"exit_code\":%d,\"exit_signal\":",
		    st->exit_sig ? 128 + st->exit_sig : st->exit_code);
		if (st->exit_sig && signal_name(st->exit_sig))
			buf_printf(b, "\"%s\"", signal_name(st->exit_sig));
		else if (st->exit_sig)
			buf_printf(b, "%d", st->exit_sig);
		else
			buf_puts(b, "null");
		buf_printf(b, ",\"exited_at\":\"%s\"}", when);
	} else {
		buf_puts(b, ",\"exit_code\":null,\"exit_signal\":null,"
		    "\"exited_at\":null}");
	}
}
