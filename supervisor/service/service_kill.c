/*
 * service_kill.c - how a service's processes are signalled: as its
 * kill_mode says (its main process, its process group through the
 * pidfd, its cgroup), what `kill` reaches, and what each mode becomes
 * where the kernel or the machine cannot do it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cgroup.h"
#include "core.h"
#include "service.h"
#include "sys.h"

/*
 * Signal the processes of a service as its kill_mode says: the main
 * process, its process group (through the pidfd: the group stays
 * reachable, never by number, even once its leader is gone), or its
 * whole cgroup.  Without kernel support for group signals, or without
 * a cgroup, fall back to what there is.
 */
int
service_send_signal(struct core *core, struct service *ss, int sig)
{
	struct svc	*s = &ss->svc;
	int		 mode = s->def->kill_mode;

	if (mode == KILL_CGROUP && ss->cgfd >= 0) {
		int	n;

		if (sig == SIGKILL)
			return cgroup_kill(ss->cgfd);
		n = cgroup_signal(ss->cgfd, sig);
		return n < 0 ? n : 0;
	}
	if (s->pidfd < 0)
		return -ESRCH;
	/* The main before the last MAINPID=, while it lives, goes too. */
	if (ev_is_active(&ss->prev))
		pidfd_signal(ss->prev.fd, sig);
	if (mode != KILL_PROCESS && core->pgrp_signal &&
	    sys_pidfd_send_signal(s->pidfd, sig,
	    PIDFD_SIGNAL_PROCESS_GROUP) == 0)
		return 0;
	return pidfd_signal(s->pidfd, sig);
}

/*
 * `kill`: sig to the main process through its pidfd, or (all) to every
 * process of the service, its cgroup, else its process group through
 * the pidfd.  -EOPNOTSUPP where neither is.
 */
int
service_kill(struct core *core, struct service *ss, int sig, bool all)
{
	struct svc	*s = &ss->svc;
	int		 n;

	if (!all)
		return pidfd_signal(s->pidfd, sig);
	if (ss->cgfd >= 0) {
		n = sig == SIGKILL ? cgroup_kill(ss->cgfd) :
		    cgroup_signal(ss->cgfd, sig);
		return n < 0 ? n : 0;
	}
	if (!core->pgrp_signal)
		return -EOPNOTSUPP;
	if (ev_is_active(&ss->prev))
		pidfd_signal(ss->prev.fd, sig);
	return sys_pidfd_send_signal(s->pidfd, sig,
	    PIDFD_SIGNAL_PROCESS_GROUP) < 0 ? -errno : 0;
}

/* svc_ops: signal the service (for stop, timeouts, the watchdog). */
int
service_signal(struct svc *s, int sig)
{
	int	rc;

	if ((rc = service_send_signal(service_core(s), service_of(s), sig)) < 0 &&
	    rc != -ESRCH)
		log_warn("%s: signal %d: %s", s->def->name, sig,
		    strerror(-rc));
	return rc;
}

/*
 * The kill_mode a service really has: without a cgroup, cgroup acts as
 * group; without PIDFD_SIGNAL_PROCESS_GROUP, group acts as process (the
 * main process alone gets the signal; what it leaves is not killed).
 */
enum kill_mode
service_kill_mode(const struct core *core, const struct service *ss)
{
	int	mode = ss->svc.def->kill_mode;

	if (mode == KILL_CGROUP && ss->cgfd < 0 && core->cg->base_fd < 0)
		mode = KILL_GROUP;
	if (mode == KILL_GROUP && !core->pgrp_signal)
		mode = KILL_PROCESS;
	return (enum kill_mode)mode;
}

/* Say once, at start and reload, which services' kill_mode degrades. */
void
service_kill_modes_check(struct core *core)
{
	size_t	i;

	for (i = 0; i < core->set->n; i++) {
		struct service	*ss = service_of(core->set->v[i]);
		enum kill_mode	 m = service_kill_mode(core, ss);

		if (m != ss->svc.def->kill_mode &&
		    keyset_has(&ss->svc.def->given, K_KILL_MODE))
			log_warn("%s: kill_mode = %s acts as %s here (%s)",
			    ss->svc.def->name,
			    kill_mode_name(ss->svc.def->kill_mode),
			    kill_mode_name(m), m == KILL_PROCESS ? "this "
			    "kernel has no PIDFD_SIGNAL_PROCESS_GROUP: the main "
			    "process alone gets signals" : "no cgroups: the "
			    "process group gets signals");
	}
}

