/*
 * svcwhy.c - a service's state and its reasons in words (status, the
 * log), and in a re-exec's state (SVC_STATE, svc.h).  svc.c makes the
 * transitions; this file only says them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
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
 * How a hook ended, in words: status is its exit status, 128 + the
 * signal that killed it, or -errno (-ETIMEDOUT: its time was up).
 */
void
hook_status_format(int kind, int status, char *out, size_t n)
{
	if (status == -ETIMEDOUT)
		snprintf(out, n, "%s timed out", hook_name(kind));
	else if (status < 0)
		snprintf(out, n, "%s: %s", hook_name(kind), strerror(-status));
	else if (status > 128)
		snprintf(out, n, "%s killed by signal %d", hook_name(kind),
		    status - 128);
	else
		snprintf(out, n, "%s exited with code %d", hook_name(kind),
		    status);
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
	case WHY_UNHEALTHY: {
		char	how[128];

		hook_status_format(HOOK_HEALTH, r->code, how, sizeof(how));
		snprintf(out, n, "unhealthy: %s, %u time%s in a row", how,
		    s->def->health_retries, s->def->health_retries == 1 ?
		    "" : "s");
		break;
	}
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

/*
 * A re-exec's state of a service, field by field as SVC_STATE says
 * (svc.h): the next binary takes the service over from it.  A reason's
 * dependency goes by name.
 */
static void
svc_reason_save(struct st_w *w, const char *name, const struct svc_reason *r)
{
	st_begin(w, name);
	st_u8(w, "why", r->why);
	st_u8(w, "stage", r->stage);
	st_u8(w, "early", r->early);
	st_u32(w, "code", (uint32_t)r->code);
	st_str(w, "dep", r->dep ? r->dep->def->name : NULL);
	st_end(w);
}

static void
svc_reason_load(struct st_r *r, const char *name, struct svc_set *set,
    struct svc_reason *v)
{
	char	*dep = NULL;

	if (!st_enter(r, name))
		return;
	st_get_u8(r, "why", &v->why);
	st_get_u8(r, "stage", &v->stage);
	st_get_bool(r, "early", &v->early);
	st_get_i32(r, "code", &v->code);
	st_get_str(r, "dep", &dep);
	v->dep = dep ? svc_find(set, dep) : NULL;
	free(dep);
	st_leave(r);
}

#define SVC_SAVE_U8(n, v)	st_u8(w, n, (uint8_t)(v));
#define SVC_SAVE_BOOL(n, v)	st_u8(w, n, (v) ? 1 : 0);
#define SVC_SAVE_I32(n, v)	st_u32(w, n, (uint32_t)(v));
#define SVC_SAVE_U32(n, v)	st_u32(w, n, (v));
#define SVC_SAVE_I64(n, v)	st_i64(w, n, (v));
#define SVC_SAVE_U64(n, v)	st_u64(w, n, (v));
#define SVC_SAVE_STR(n, v)	st_str(w, n, (v));
#define SVC_SAVE_FD(n, v)	st_fd_kept(w, n, (v));
#define SVC_SAVE_REASON(n, v)	svc_reason_save(w, n, &(v));
#define SVC_SAVE(name, how, since)	SVC_SAVE_##how(#name, s->name)

/* Write what s is now (apart from its definition) to w. */
void
svc_save(const struct svc *s, struct st_w *w)
{
	st_begin(w, "svc");
	st_str(w, "name", s->def->name);
	SVC_STATE(SVC_SAVE)
	st_u8(w, "queued", s->queued);	/* was to be stepped: is again */
	st_end(w);
}

#define SVC_LOAD_U8(n, v)	st_get_u8(r, n, &(v));
#define SVC_LOAD_BOOL(n, v)	st_get_bool(r, n, &(v));
#define SVC_LOAD_I32(n, v)	st_get_i32(r, n, &(v));
#define SVC_LOAD_U32(n, v)	st_get_u32(r, n, &(v));
#define SVC_LOAD_I64(n, v)	st_get_i64(r, n, &(v));
#define SVC_LOAD_U64(n, v)	st_get_u64(r, n, &(v));
#define SVC_LOAD_STR(n, v)	st_get_str(r, n, &(v));
#define SVC_LOAD_FD(n, v)	st_get_fd_kept(r, n, &(v));
#define SVC_LOAD_REASON(n, v)	svc_reason_load(r, n, s->set, &(v));
#define SVC_LOAD(name, how, since)					\
	if (st_since(r, since)) {					\
		SVC_LOAD_##how(#name, s->name)				\
	}

/* Each field's size is its kind's (svc.h's list and struct agree). */
#define SVC_SIZE_U8	1
#define SVC_SIZE_BOOL	sizeof(bool)
#define SVC_SIZE_I32	4
#define SVC_SIZE_U32	4
#define SVC_SIZE_I64	8
#define SVC_SIZE_U64	8
#define SVC_SIZE_STR	sizeof(char *)
#define SVC_SIZE_FD	sizeof(int)
#define SVC_SIZE_REASON	sizeof(struct svc_reason)
#define SVC_ASSERT(name, how, since)					\
	_Static_assert(sizeof(((struct svc *)0)->name) == SVC_SIZE_##how, \
	    #name " is not a " #how);
SVC_STATE(SVC_ASSERT)

/*
 * Read what svc_save() wrote into s, already made of its definition (the
 * same name comes first); what is missing keeps its default.  0, or
 * -EINVAL with the error in r.
 */
int
svc_load(struct svc *s, struct st_r *r)
{
	char	*name = NULL;
	bool	 queued = false;

	if (!st_enter(r, "svc")) {
		st_fail(r, "%s: no state", s->def->name);
		return -EINVAL;
	}
	if (!st_get_str(r, "name", &name) || name == NULL ||
	    strcmp(name, s->def->name) != 0) {
		st_fail(r, "service %s where %s was expected", name ? name :
		    "(none)", s->def->name);
		free(name);
		return -EINVAL;
	}
	free(name);
	SVC_STATE(SVC_LOAD)
	st_get_bool(r, "queued", &queued);
	st_leave(r);
#ifdef PV_TEST_FIELD
	log_info("%s: test_field %u", s->def->name, s->test_field);
#endif
	if (s->state >= SVC__STATES)
		st_fail(r, "%s: state %d", s->def->name, s->state);
	if (st_bad(r))
		return -EINVAL;
	if (queued)
		svc_kick(s);
	return 0;
}
