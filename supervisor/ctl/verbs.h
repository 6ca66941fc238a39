/*
 * verbs.h - every verb of pidvisorctl, once: the protocol's table
 * (proto.c), the daemon's (cmd.c: cmd_FUNCTION does it), the help, the
 * completion (completion/gen.c) and the manual's check (t_manuals) are
 * made of this list.  A verb: its id, the cmd_ function, its name, the
 * least and most names or words it takes, its VF_ flags, its usage and
 * a line of help.
 */
#ifndef PIDVISOR_VERBS_H
#define PIDVISOR_VERBS_H

#define CTL_VERBS(X)							\
	X(STATUS, status, "status", 0, CTL_NAMES_MAX, VF_JSON,		\
	    "status [NAME...] [--json]",				\
	    "the state of every service, or of the ones named")		\
	X(START, start, "start", 1, CTL_NAMES_MAX,			\
	    VF_ROOT | VF_WAIT | VF_TIMEOUT,				\
	    "start NAME... [--wait] [--timeout=DURATION]",		\
	    "start services (and what they require)")			\
	X(STOP, stop, "stop", 1, CTL_NAMES_MAX,				\
	    VF_ROOT | VF_WAIT | VF_TIMEOUT | VF_JSON,			\
	    "stop NAME... [--wait] [--timeout=DURATION] [--json]",	\
	    "stop services (and what requires them, said on stderr)")	\
	X(RESTART, restart, "restart", 1, CTL_NAMES_MAX,		\
	    VF_ROOT | VF_WAIT | VF_TIMEOUT | VF_JSON,			\
	    "restart NAME... [--wait] [--timeout=DURATION] [--json]",	\
	    "stop and start services (and what requires them and runs)") \
	X(SIGNAL, kill, "signal", 2, 2, VF_ROOT,			\
	    "signal NAME SIGNAL",					\
	    "send a signal to a service's main process")		\
	X(WAIT, wait, "wait", 2, 2, VF_TIMEOUT,				\
	    "wait NAME STATE [--timeout=DURATION]",			\
	    "wait until a service is in a state")			\
	X(VERSION, version, "version", 0, 0, 0,				\
	    "version",							\
	    "the versions of pidvisorctl and of the running pidvisor")	\
	X(SHUTDOWN, halt, "shutdown", 0, 0, VF_ROOT,			\
	    "shutdown",							\
	    "stop every service, then pidvisor (as PID 1: power off)")	\
	X(REBOOT, halt, "reboot", 0, 0, VF_ROOT,			\
	    "reboot",							\
	    "PID 1: stop every service, then reboot")			\
	X(POWEROFF, halt, "poweroff", 0, 0, VF_ROOT,			\
	    "poweroff",							\
	    "PID 1: stop every service, then power off")		\
	X(LOGS, logs, "logs", 1, CTL_NAMES_MAX,				\
	    VF_ROOT | VF_LINES | VF_FOLLOW | VF_JSON,			\
	    "logs NAME... [-n LINES] [-f] [--json]",			\
	    "the last lines services printed, by time; -f follows")	\
	X(RELOAD, reload, "reload", 0, CTL_NAMES_MAX,			\
	    VF_ROOT | VF_TIMEOUT,					\
	    "reload [NAME...] [--timeout=DURATION]",			\
	    "apply the configuration on disk, or refuse it whole; with " \
	    "names, reload those services (reload_signal, reload_exec)") \
	X(PRESSURE, pressure, "pressure", 0, 2, VF_JSON,		\
	    "pressure [--json] | pressure kill NAME",			\
	    "the low-memory killer: its state, or a kill now")		\
	X(SHOW, show, "show", 1, 1, VF_ROOT,				\
	    "show NAME",						\
	    "every key of a service in effect, defaults too, and whence") \
	X(CAT, cat, "cat", 1, 1, VF_ROOT,				\
	    "cat NAME",							\
	    "the file that defines a service")				\
	X(REEXEC, reexec, "reexec", 0, 0, VF_ROOT | VF_BINARY,		\
	    "reexec [--binary PATH]",					\
	    "run a new pidvisor binary in place, every service kept "	\
	    "running")							\
	X(KILL, kill, "kill", 1, 2, VF_ROOT | VF_ALL,			\
	    "kill NAME [SIGNAL] [--all]",				\
	    "send a signal (TERM) to a service's main process, or with " \
	    "--all to every process of the service")			\
	X(EVENTS, events, "events", 0, CTL_NAMES_MAX, VF_JSON,		\
	    "events [NAME...] [--json]",				\
	    "every change of state, pressure kill, reload and re-exec as " \
	    "it happens, of all or of the services named")		\
	X(METRICS, metrics, "metrics", 0, 0, 0,				\
	    "metrics",							\
	    "every service's state and counters, in Prometheus' text "	\
	    "format")							\
	X(IS_READY, is_ready, "is-ready", 0, CTL_NAMES_MAX, 0,		\
	    "is-ready [NAME...]",					\
	    "exit 0 if every service named (or enabled) is ready or done," \
	    " else 3: a probe's question")				\
	X(SECURITY, security, "security", 1, 1, VF_JSON,		\
	    "security NAME [--json]",					\
	    "what a service may not do, each protection on or off, and " \
	    "its exposure from 0 to 10")					\
	X(RESET_FAILED, reset_failed, "reset-failed", 0, CTL_NAMES_MAX,	\
	    VF_ROOT,							\
	    "reset-failed [NAME...]",					\
	    "forget the failure of the services named, or of all: "	\
	    "failed ones are stopped, their start limits start over")	\
	X(TIMERS, timers, "timers", 0, 0, VF_ALL | VF_JSON,		\
	    "timers [--all] [--json]",					\
	    "the services timers run: when next and last, sorted by "	\
	    "the next (--all: those not armed too)")			\
	X(ENABLE, install, "enable", 1, CTL_NAMES_MAX, VF_ROOT | VF_NOW, \
	    "enable NAME... [--now]",					\
	    "link units as their [Install] says, as deb-systemd-helper " \
	    "does; --now: reload, so that they start")			\
	X(DISABLE, install, "disable", 1, CTL_NAMES_MAX,		\
	    VF_ROOT | VF_NOW,						\
	    "disable NAME... [--now]",					\
	    "remove the links of units; --now: reload, so that they " \
	    "stop")							\
	X(MASK, install, "mask", 1, CTL_NAMES_MAX, VF_ROOT | VF_NOW,	\
	    "mask NAME... [--now]",					\
	    "link units to /dev/null: nothing runs them; --now: reload" \
	    ", so that they stop")					\
	X(UNMASK, install, "unmask", 1, CTL_NAMES_MAX, VF_ROOT | VF_NOW, \
	    "unmask NAME... [--now]",					\
	    "remove the masks of units; --now: reload")			\
	X(CALENDAR, calendar, "calendar", 1, CTL_NAMES_MAX,		\
	    VF_LOCAL | VF_ITER | VF_BASE,				\
	    "calendar EXPR... [--iterations N] [--base-time TIME]",	\
	    "when calendar expressions elapse next, as systemd-analyze " \
	    "calendar says (needs no pidvisor)")

#endif
