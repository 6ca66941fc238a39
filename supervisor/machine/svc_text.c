/*
 * svc_text.c - a service's state and its reasons in words (status, the
 * log): states, spawn stages, hooks, reasons.  svc.c makes the
 * transitions; this file only says them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "svc.h"

/* The name of a state, as status shows it. */
const char *
svc_state_name(enum svc_state st)
{
	static const char *const names[] = {
		[SVC_STOPPED] = "stopped", [SVC_STARTING] = "starting",
		[SVC_READY] = "ready", [SVC_STOPPING] = "stopping",
		[SVC_BACKOFF] = "backoff", [SVC_FAILED] = "failed",
		[SVC_DONE] = "done", [SVC_LISTENING] = "listening",
		[SVC_SKIPPED] = "skipped",
	};

	return st < SVC__STATES ? names[st] : "?";
}

/* The name of a child set-up stage, as the reason shows it. */
const char *
spawn_stage_name(enum spawn_stage st)
{
	static const char *const names[] = {
		[STAGE_EXEC] = "exec", [STAGE_SETSID] = "setsid",
		[STAGE_FDS] = "fds", [STAGE_RLIMIT] = "limit_nofile",
		[STAGE_CHDIR] = "chdir", [STAGE_SETGROUPS] = "setgroups",
		[STAGE_SETGID] = "setgid", [STAGE_SETUID] = "setuid",
		[STAGE_CGROUP] = "cgroup",
		[STAGE_OOM_SCORE_ADJ] = "oom_score_adj",
		[STAGE_ENV_FILE] = "env_file", [STAGE_MOUNT] = "mount",
		[STAGE_NETWORK] = "private_network",
		[STAGE_LIMIT] = "limit", [STAGE_NICE] = "nice",
		[STAGE_AFFINITY] = "cpu_affinity", [STAGE_IOPRIO] = "io_class",
		[STAGE_ROOT] = "root_directory",
		[STAGE_BSET] = "capabilities",
		[STAGE_CAPS] = "capabilities", [STAGE_SECCOMP] = "syscall_filter",
		[STAGE_TTY] = "tty",
	};

	return st < STAGE__COUNT ? names[st] : "spawn";
}

/* The key of a kind of hook. */
const char *
hook_name(int kind)
{
	static const char *const names[] = {
		[HOOK_START_PRE] = "start_pre_exec",
		[HOOK_START_POST] = "start_post_exec",
		[HOOK_STOP] = "stop_exec", [HOOK_STOP_POST] = "stop_post_exec",
		[HOOK_ON_FAILURE] = "on_failure_exec",
		[HOOK_RELOAD] = "reload_exec", [HOOK_HEALTH] = "health_exec",
	};

	return kind > HOOK_NONE && kind < HOOK__KINDS ? names[kind] : "hook";
}

/*
 * How a hook ended, in words: status is its exit status, 256 + the
 * signal that killed it, or -errno (-ETIMEDOUT: its time was up).
 */
void
hook_status_format(int kind, int status, char *out, size_t n)
{
	if (status == -ETIMEDOUT)
		snprintf(out, n, "%s timed out", hook_name(kind));
	else if (status < 0)
		snprintf(out, n, "%s: %s", hook_name(kind), strerror(-status));
	else if (status > 255)
		snprintf(out, n, "%s killed by signal %d", hook_name(kind),
		    status - 256);
	else
		snprintf(out, n, "%s exited with code %d", hook_name(kind),
		    status);
}

/* Which condition or assertion did not hold, in words. */
static void
cond_reason(const struct svc *s, const struct svc_reason *r, char *out,
    size_t n)
{
	bool		 as = r->why == WHY_ASSERT;
	char *const	*v = as ? s->def->asserts : s->def->conditions;
	int		 i = r->code - (as ? COND_ASSERT_FAILED : COND_FAILED);
	const char	*what = as ? "assertion" : "condition";

	if (r->stage == 1)
		snprintf(out, n, "condition_exec exited with code %d",
		    (int)r->code);
	else if (r->code == (as ? COND_ASSERT_TRIGGERS : COND_TRIGGERS))
		snprintf(out, n, "no %s with '|' held", what);
	else if (i >= 0 && (size_t)i < strv_len(v) && i < COND_MAX - 1)
		snprintf(out, n, "%s not met: %s", what, v[i]);
	else
		snprintf(out, n, "a %s not met", what);
}

/* One reason in words. */
static void
reason_format(const struct svc *s, const struct svc_reason *r, char *out,
    size_t n)
{
	const char	*sig;

	switch (r->why) {
	case WHY_NONE:
		snprintf(out, n, "not started");
		break;
	case WHY_WAITING:
		snprintf(out, n, "waiting for %s", r->dep ?
		    r->dep->def->name : "?");
		break;
	case WHY_DEP_FAILED:
		snprintf(out, n, "requires %s, which failed", r->dep ?
		    r->dep->def->name : "?");
		break;
	case WHY_STARTED:
		snprintf(out, n, "waiting for readiness");
		break;
	case WHY_READY:
		snprintf(out, n, "ready");
		break;
	case WHY_EXITED:
		snprintf(out, n, "exited with code %d", r->code);
		break;
	case WHY_KILLED:
		if ((sig = signal_name(r->code)) != NULL)
			snprintf(out, n, "killed by signal %s", sig);
		else
			snprintf(out, n, "killed by signal %d", r->code);
		break;
	case WHY_EXEC:
		if ((r->stage == STAGE_MOUNT || r->stage == STAGE_LIMIT) &&
		    s->fail)	/* the key, the path and why */
			snprintf(out, n, "%s", s->fail);
		else
			snprintf(out, n, "%s: %s", spawn_stage_name(r->stage),
			    strerror(r->code));
		break;
	case WHY_SPAWN:
		snprintf(out, n, "spawn: %s", strerror(r->code));
		break;
	case WHY_SPAWN_TIMEOUT:
		snprintf(out, n, "spawn timed out");
		break;
	case WHY_READY_TIMEOUT:
		snprintf(out, n, "ready timeout");
		break;
	case WHY_WATCHDOG:
		snprintf(out, n, "watchdog timeout");
		break;
	case WHY_START_LIMIT:
		snprintf(out, n, "start limit hit");
		break;
	case WHY_STOPPED:
		snprintf(out, n, "stopped");
		break;
	case WHY_STOP_KILLED:
		snprintf(out, n, "stopped; killed after stop_timeout");
		break;
	case WHY_SELF_STOPPING:
		snprintf(out, n, "service reported stopping");
		break;
	case WHY_PRESSURE:
		snprintf(out, n, "killed for memory pressure");
		break;
	case WHY_OOM:
		snprintf(out, n, "killed by the kernel's OOM killer");
		break;
	case WHY_NO_MEMORY:
		snprintf(out, n, "killed for memory, and no room for it within "
		    "pressure_calm_max");
		break;
	case WHY_ENV_FILE:
		snprintf(out, n, "env_file: %s", s->fail ? s->fail : "?");
		break;
	case WHY_WATCHDOG_TRIGGER:
		snprintf(out, n, "watchdog triggered by the service");
		break;
	case WHY_GONE:
		snprintf(out, n, "main process gone (not our child: no exit "
		    "status)");
		break;
	case WHY_HOOK:
		hook_status_format(r->stage, r->code, out, n);
		break;
	case WHY_IN_HOOK:
		snprintf(out, n, "running %s", hook_name(r->code));
		break;
	case WHY_LISTEN:
		snprintf(out, n, "%s", s->fail ? s->fail : strerror(r->code));
		break;
	case WHY_ON_DEMAND:
		snprintf(out, n, "%s", svc_is_listener(s) ? "accepting" :
		    "until a client comes");
		break;
	case WHY_TRIGGER_LIMIT:
		snprintf(out, n, "trigger limit hit");
		break;
	case WHY_PID_FILE:
		snprintf(out, n, "%s", s->fail ? s->fail : "no daemon found");
		break;
	case WHY_UNHEALTHY: {
		char	how[128];

		hook_status_format(HOOK_HEALTH, r->code, how, sizeof(how));
		snprintf(out, n, "unhealthy: %s, %u time%s in a row", how,
		    s->def->health_retries, s->def->health_retries == 1 ?
		    "" : "s");
		break;
	}
	case WHY_CONDITION:
	case WHY_ASSERT:
		cond_reason(s, r, out, n);
		break;
	default:
		snprintf(out, n, "?");
	}
	if (r->early && strlen(out) < n)
		snprintf(out + strlen(out), n - strlen(out), " before it "
		    "settled");
}

/* Why the service is where it is, in words. */
void
svc_reason_format(const struct svc *s, char *out, size_t n)
{
	char	last[160], when[32];

	if (s->state == SVC_STARTING && s->ready_seen) {
		format_duration(when, sizeof(when), s->started_at +
		    s->def->settle - s->set->ops->now(s->set));
		snprintf(out, n, "settling, ready in %s", when);
		return;
	}
	reason_format(s, &s->reason, out, n);
	if (s->state == SVC_READY && s->reloading && strlen(out) < n)
		snprintf(out + strlen(out), n - strlen(out), "; reloading");
	if (s->reason.why == WHY_START_LIMIT) {
		reason_format(s, &s->last, last, sizeof(last));
		format_duration(when, sizeof(when), s->def->start_limit_interval);
		snprintf(out, n, "start limit hit (%u starts in %s); last: %s",
		    s->limit_count, when, last);
	} else if (s->state == SVC_BACKOFF) {
		format_duration(when, sizeof(when), s->due ? 0 :
		    s->due_at - s->set->ops->now(s->set));
		snprintf(out + strlen(out), n - strlen(out), s->mem_wait ?
		    "; waiting for memory, restart in at most %s" :
		    "; restart in %s", when);
	}
}
