/*
 * pressure_report.c - what the low-memory killer tells: `pidvisorctl
 * pressure` (text and JSON), and its memory across a re-exec.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pressure.h"
#include "st.h"
#include "sys.h"

/* One kill, as `pressure --json` shows it. */
static void
pressure_report_json(const struct kill_rec *k, struct buf *b)
{
	buf_printf(b, "{\"when_ms\":%lld,\"service\":", (long long)k->when_ms);
	buf_json_str(b, k->name);
	buf_printf(b, ",\"kill_priority\":%d,\"level\":\"%s\",\"reason\":",
	    (int)k->priority, k->level == LEVEL_NONE ? "request" :
	    level_name(k->level));
	buf_json_str(b, k->reason);
	buf_puts(b, ",\"pressure\":");
	buf_json_str(b, k->psi);
	buf_printf(b, ",\"memory\":%llu,\"rss\":%llu,\"mem_available\":%lld,"
	    "\"swap_free\":%llu,\"thrash_pct\":%u,\"procs\":%u,"
	    "\"path\":\"%s\",\"death_us\":%lld,\"back_us\":%lld,"
	    "\"reaped_us\":%lld,\"no_reap\":", (unsigned long long)k->memory,
	    (unsigned long long)k->rss, k->avail == UINT64_MAX ? -1LL :
	    (long long)k->avail, (unsigned long long)k->swap_free,
	    k->thrash_pct, k->procs, reclaim_path_name(k->path),
	    (long long)k->death_us, (long long)k->back_us,
	    (long long)k->reaped_us);
	buf_json_str(b, k->reap_err ? strerror(k->reap_err) : NULL);
	buf_puts(b, "}");
}

/* The triggers, in pidvisor.ini's words. */
static void
pressure_trig_text(const struct trigger *t, char *out, size_t n)
{
	if (t->stall == 0)
		snprintf(out, n, "off");
	else
		snprintf(out, n, "%s %ums %ums", t->full ? "full" : "some",
		    t->stall / 1000, t->window / 1000);
}

/* What `pidvisorctl pressure` shows. */
void
pressure_report(struct pressure *pr, struct buf *b, bool json)
{
	const struct sup_conf	*sc = pr->sc;
	char			 psi[512] = "", when[40], med[48], crit[48];
	struct snap		 s;
	unsigned		 i, first;

	if (read_small(AT_FDCWD, pr->on ? pr->file : "/proc/pressure/memory",
	    psi, sizeof(psi)) < 0)
		psi[0] = '\0';
	pressure_snap(pr, &s);
	pressure_trig_text(&pr->dc.medium, med, sizeof(med));
	pressure_trig_text(&pr->dc.critical, crit, sizeof(crit));
	first = pr->nkills > KILL_HISTORY ? pr->nkills - KILL_HISTORY : 0;
	if (json) {
		buf_puts(b, "{\"trigger\":");
		buf_json_str(b, pr->on ? med : NULL);
		buf_puts(b, ",\"critical\":");
		buf_json_str(b, pr->on && pr->dc.critical.stall ? crit : NULL);
		buf_puts(b, ",\"file\":");
		buf_json_str(b, pr->on ? pr->file : NULL);
		buf_puts(b, ",\"off_because\":");
		buf_json_str(b, pr->on ? NULL : pr->why);
		buf_printf(b, ",\"floor\":%llu,\"mem_available\":%lld,"
		    "\"min_priority\":%d,\"kill_timeout_ms\":%u,\"policy\":\"%s\","
		    "\"reclaim\":\"%s\",\"reclaim_best\":\"%s\",\"cgroups\":",
		    (unsigned long long)pr->dc.floor, s.avail == UINT64_MAX ?
		    -1LL : (long long)s.avail, (int)sc->pressure_min_priority,
		    sc->pressure_kill_timeout, pr->dc.lmkd ? "lmkd" : "pidvisor",
		    reclaim_path_name(pr->path), reclaim_path_name(pr->best));
		buf_json_str(b, pr->cg->base);
		buf_puts(b, ",\"psi\":");
		buf_json_str(b, psi);
		buf_printf(b, ",\"stale_events\":%u,\"self_limited\":%u,"
		    "\"memory_to_spare\":%u,\"kill_timeouts\":%u,"
		    "\"kills_total\":%u,\"kills\":[", pr->dec.nstale,
		    pr->dec.nself, pr->dec.nample, pr->ntimeouts, pr->nkills);
		for (i = first; i < pr->nkills; i++) {
			if (i > first)
				buf_puts(b, ",");
			pressure_report_json(pressure_rec(pr, i), b);
		}
		buf_puts(b, "]}\n");
		return;
	}
	if (pr->on)
		buf_printf(b, "trigger: %s, critical %s, on %s\n", med, crit,
		    pr->file);
	else
		buf_printf(b, "trigger: off (%s)\n", pr->why);
	buf_printf(b, "floor: %.1f MiB of MemAvailable (now %.1f MiB); "
	    "medium kills kill_priority %d and up; kill timeout %u ms\n",
	    pr->dc.floor / 1048576.0, s.avail == UINT64_MAX ? -1.0 :
	    s.avail / 1048576.0, (int)sc->pressure_min_priority,
	    sc->pressure_kill_timeout);
	buf_printf(b, "policy: %s\nreclaim: %s\ncgroups: %s\n%s",
	    pr->dc.lmkd ? "lmkd's rules" : "pidvisor's",
	    reclaim_path_name(pr->path),
	    pr->cg->base ? pr->cg->base : pr->cg->why, psi);
	if (psi[0] && psi[strlen(psi) - 1] != '\n')
		buf_puts(b, "\n");
	buf_printf(b, "kills: %u\n", pr->nkills);
	if (pr->dec.nstale)
		buf_printf(b, "events whose stall did not go on: %u\n",
		    pr->dec.nstale);
	if (pr->dec.nself)
		buf_printf(b, "stall of services at their own memory limit, "
		    "not a reason to kill: %u\n", pr->dec.nself);
	if (pr->dec.nample)
		buf_printf(b, "medium stall with a tenth of the memory to "
		    "spare, not a reason to kill: %u\n", pr->dec.nample);
	for (i = first; i < pr->nkills; i++) {
		struct kill_rec	*k = pressure_rec(pr, i);
		time_t		 t = (time_t)(k->when_ms / 1000);
		struct tm	 tm;

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		buf_printf(b, "%s %s priority %d, %.1f MiB, %u process%s, "
		    "%s: %s, %s, ", when, k->name, (int)k->priority,
		    k->memory / 1048576.0, k->procs, k->procs > 1 ? "es" : "",
		    k->level == LEVEL_NONE ? "request" :
		    level_name(k->level), k->reason,
		    reclaim_path_name(k->path));
		if (k->death_us >= 0)
			buf_printf(b, "dead %.1f ms, ", k->death_us / 1000.0);
		else
			buf_puts(b, "not dead, ");
		if (k->back_us >= 0)
			buf_printf(b, "memory back %.1f ms", k->back_us / 1000.0);
		else
			buf_puts(b, "memory not back");
		buf_printf(b, "%s%s%s\n", k->reap_err ? " (no reap: " : "",
		    k->reap_err ? strerror(k->reap_err) : "",
		    k->reap_err ? ")" : "");
	}
}

/*
 * The killer's memory, for the next binary (reexec.c): what it granted
 * last, the kills it made.  Never with a kill in flight: a re-exec
 * waits for it to end.
 */
void
pressure_state_save(const struct pressure *pr, struct st_w *w)
{
	unsigned	i;

	st_begin(w, "pressure");
	st_i64(w, "last_event", pr->last_event);
	st_i64(w, "last_grant", pr->last_grant);
	st_u32(w, "nkills", pr->nkills);
	st_u32(w, "nkills_req", pr->nkills_req);
	st_u32(w, "ntimeouts", pr->ntimeouts);
	st_u32(w, "history", KILL_HISTORY);
	for (i = 0; i < KILL_HISTORY; i++) {
		const struct kill_rec	*k = &pr->hist[i];

		st_begin(w, "kill");
		st_i64(w, "when_ms", k->when_ms);
		st_u64(w, "memory", k->memory);
		st_u64(w, "rss", k->rss);
		st_u64(w, "avail", k->avail);
		st_u64(w, "swap_free", k->swap_free);
		st_i64(w, "death_us", k->death_us);
		st_i64(w, "back_us", k->back_us);
		st_i64(w, "reaped_us", k->reaped_us);
		st_u32(w, "priority", (uint32_t)k->priority);
		st_u32(w, "reap_err", (uint32_t)k->reap_err);
		st_u32(w, "procs", k->procs);
		st_u32(w, "thrash_pct", k->thrash_pct);
		st_u8(w, "path", k->path);
		st_u8(w, "level", k->level);
		st_str(w, "name", k->name);
		st_str(w, "psi", k->psi);
		st_str(w, "reason", k->reason);
		st_end(w);
	}
	st_end(w);
}

/* A string of the state into a field of n bytes. */
static void
pressure_state_str(struct st_r *r, const char *name, char *out, size_t n)
{
	uint32_t	 len;
	const void	*p;

	if (st_get_bytes(r, name, &p, &len) && p != NULL)
		snprintf(out, n, "%.*s", (int)len, (const char *)p);
}

int
pressure_state_load(struct pressure *pr, struct st_r *r)
{
	unsigned	i;
	uint32_t	n = 0;

	if (!st_enter(r, "pressure"))
		return st_bad(r) ? -EINVAL : 0;
	st_get_i64(r, "last_event", &pr->last_event);
	st_get_i64(r, "last_grant", &pr->last_grant);
	st_get_u32(r, "nkills", &pr->nkills);
	st_get_u32(r, "nkills_req", &pr->nkills_req);
	st_get_u32(r, "ntimeouts", &pr->ntimeouts);
	st_get_count(r, "history", &n);
	if (!st_named(r) && n != KILL_HISTORY && !st_bad(r))
		st_fail(r, "a kill history of %u, not %d", n, KILL_HISTORY);
	/* The newest KILL_HISTORY (a ring, as hist is); more are left. */
	for (i = 0; i < n && i < KILL_HISTORY && !st_bad(r) &&
	    st_enter(r, "kill"); i++) {
		struct kill_rec	*k = &pr->hist[i];

		st_get_i64(r, "when_ms", &k->when_ms);
		st_get_u64(r, "memory", &k->memory);
		st_get_u64(r, "rss", &k->rss);
		st_get_u64(r, "avail", &k->avail);
		st_get_u64(r, "swap_free", &k->swap_free);
		st_get_i64(r, "death_us", &k->death_us);
		st_get_i64(r, "back_us", &k->back_us);
		st_get_i64(r, "reaped_us", &k->reaped_us);
		st_get_i32(r, "priority", &k->priority);
		st_get_i32(r, "reap_err", &k->reap_err);
		st_get_u32(r, "procs", &k->procs);
		st_get_u32(r, "thrash_pct", &k->thrash_pct);
		st_get_u8(r, "path", &k->path);
		st_get_u8(r, "level", &k->level);
		pressure_state_str(r, "name", k->name, sizeof(k->name));
		pressure_state_str(r, "psi", k->psi, sizeof(k->psi));
		pressure_state_str(r, "reason", k->reason, sizeof(k->reason));
		st_leave(r);
	}
	st_leave(r);
	return st_bad(r) ? -EINVAL : 0;
}
