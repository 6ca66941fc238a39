/*
 * reexec.c - run a new pidvisor binary in place, every service kept.
 *
 * Everything a service is, we hold as fds (its pidfd, its output pipes,
 * its readiness pipe, its cgroup), and fds survive exec.  So a re-exec
 * is:
 *
 *   1. check: the new binary runs, as a child, with --state-versions
 *      and must name the version we write (STATE_VERSION); if not (not
 *      there, not executable, not a pidvisor, another version), we
 *      refuse and nothing else happens;
 *   2. quiesce: no new spawn starts, and we wait (each turn of the loop)
 *      until nothing is in flight: a spawn whose child has not exec'd, a
 *      reload_exec, a hook or a health check (health.c starts none
 *      meanwhile), a memory kill, a notify drainer yet to take its
 *      datagram;
 *   3. exec: the other clients are told to try again; the state (st.h)
 *      goes to a sealed memfd; the fds it names lose FD_CLOEXEC; we exec
 *      BINARY --restore MEMFD --previous EXEFD, EXEFD being ourselves;
 *   4. the new binary reads the state (sup_init with a sup_restore),
 *      takes over every fd and timer, answers whoever asked, and goes on.
 *      Nothing is signalled, spawned or re-read from disk.
 *
 * If the exec fails, we carry on as we were.  If the new binary cannot
 * read the state (a bad state, or it crashes while reading it: a fault
 * handler of this file is in place until it is done), it executes EXEFD
 * again, the binary before it, with the same state and --fallback WHY;
 * that binary reads what it wrote, and answers the client with the
 * error.  A crash later on is pid1.c's (crash_action): a state written
 * by a process that has crashed cannot be trusted, so we do not write
 * one then.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "st.h"
#include "sup.h"
#include "sys.h"

#define RX_SEALS	(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define RX_CHECK_TIMEOUT	10.	/* s: the check child */
#define RX_QUIESCE_TIMEOUT	15.	/* s: longer than a spawn may take */

extern char	**environ;

static void	reexec_exec(struct sup *);

/* The re-exec has ended here (refused, failed): say so, resume. */
/* Forget the binary of a re-exec that will not happen. */
static void
reexec_forget(struct sup_rx *rx)
{
	free(rx->binary);
	rx->binary = NULL;
	if (rx->binfd >= 0)
		close(rx->binfd);
	rx->binfd = -1;
}

static void
reexec_abort(struct sup *sup, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
reexec_abort(struct sup *sup, const char *fmt, ...)
{
	struct sup_rx	*rx = &sup->rx;
	char		 msg[768];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("reexec: %s", msg);
	ev_timer_stop(sup->core.loop, &rx->timer);
	ev_prepare_stop(sup->core.loop, &rx->turn);
	rx->phase = RX_IDLE;
	sup->core.quiesce = false;
	reexec_forget(rx);
	ctl_reexec_undo(&sup->ctl);	/* the spare, if the exec was near */
	ctl_reexec_end(&sup->ctl, CTL_EFAIL, msg);
	service_unhold(&sup->core);
}

/* The check child is over: close what it had. */
static void
reexec_check_end(struct sup *sup)
{
	struct sup_rx	*rx = &sup->rx;

	ev_io_stop(sup->core.loop, &rx->death);
	ev_timer_stop(sup->core.loop, &rx->timer);
	spawn_poll(&rx->proc);
	if (rx->proc.over)
		spawn_proc_free(&rx->proc);
	else
		spawn_release(&rx->proc);
	if (rx->death.fd >= 0)
		close(rx->death.fd);
	ev_io_set(&rx->death, -1, EV_READ);
	pidmap_del(&sup->pids, &rx->pm);
	if (rx->outfd >= 0)
		close(rx->outfd);
	if (rx->wfd >= 0)
		close(rx->wfd);
	rx->outfd = rx->wfd = -1;
}

/*
 * Does what the check child printed name our version?  It prints
 * "pidvisor-state V..." (the versions it reads) and exits 0.
 */
static bool
reexec_check_says(const char *out, char *why, size_t n)
{
	const char	*p;
	char		*end;
	long		 v;

	if (strncmp(out, "pidvisor-state ", 15) != 0) {
		snprintf(why, n, "it is not a pidvisor that can take over "
		    "(--state-versions printed \"%.60s\")", out);
		return false;
	}
	for (p = out + 15; *p && *p != '\n'; p = end) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v == STATE_VERSION || (*end == '+' && v <= STATE_VERSION))
			return true;
		end += *end == '+';
	}
	snprintf(why, n, "it reads state versions %.*s; this pidvisor writes "
	    "version %d", (int)strcspn(out + 15, "\n"), out + 15,
	    STATE_VERSION);
	return false;
}

/* Reap the check child, if it exited, and judge what it said. */
void
sup_reexec_reaped(struct sup *sup)
{
	struct sup_rx	*rx = &sup->rx;
	siginfo_t	 si;
	char		 out[256], why[400];
	ssize_t		 n;

	memset(&si, 0, sizeof(si));
	if (rx->phase != RX_CHECK || waitid(P_PIDFD, (id_t)rx->death.fd, &si,
	    WEXITED | WNOHANG | __WALL) < 0 || si.si_pid == 0)
		return;
	n = read(rx->outfd, out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	spawn_poll(&rx->proc);
	if (rx->proc.err) {
		int	err = rx->proc.err;

		reexec_check_end(sup);
		reexec_abort(sup, "%s: %s", rx->binary, strerror(err));
		return;
	}
	reexec_check_end(sup);
	if (si.si_code != CLD_EXITED || si.si_status != 0) {
		reexec_abort(sup, "%s --state-versions %s %d: not a pidvisor "
		    "that can take over", rx->binary, si.si_code == CLD_EXITED ?
		    "exited with" : "was killed by signal", si.si_status);
		return;
	}
	if (!reexec_check_says(out, why, sizeof(why))) {
		reexec_abort(sup, "%s: %s", rx->binary, why);
		return;
	}
	/* It can read us: wait for quiet, then go. */
	rx->t_check_us = mono_us();
	rx->phase = RX_QUIESCE;
	sup->core.quiesce = true;
	ev_timer_set(&rx->timer, RX_QUIESCE_TIMEOUT, 0.);
	ev_timer_start(sup->core.loop, &rx->timer);
	ev_prepare_start(sup->core.loop, &rx->turn);
}

static void
reexec_on_death(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)w;
	(void)revents;
	sup_reexec_reaped(ev_userdata(loop));
}

/* What is still in flight, or NULL: then the state can be written. */
static const char *
reexec_busy(struct sup *sup)
{
	size_t	i;

	if (sup->pr.nopen > 0)
		return "a memory kill";
	/* What it took could be read twice, or never, across the exec. */
	if (notifydir_busy(&sup->notify))
		return "a notify drainer";
	for (i = 0; i < sup->set.n; i++) {
		struct service	*ss = service_of(sup->set.v[i]);

		if (ss->spawn != NULL)
			return "a spawn";
		if (ss->reload != NULL)
			return "a reload_exec";
		if (hook_busy(ss))
			return "a hook";
	}
	return NULL;
}

/* Each turn of the loop while quiescing: go once nothing is in flight. */
static void
reexec_on_turn(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);

	(void)w;
	(void)revents;
	if (!sup_running(sup)) {
		reexec_abort(sup, "shutting down");
		return;
	}
	if (reexec_busy(sup) == NULL)
		reexec_exec(sup);
}

/* The check took too long, or quiet never came. */
static void
reexec_on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sup	*sup = ev_userdata(loop);
	struct sup_rx	*rx = &sup->rx;

	(void)w;
	(void)revents;
	if (rx->phase == RX_CHECK) {
		pidfd_signal(rx->death.fd, SIGKILL);
		reexec_check_end(sup);
		reexec_abort(sup, "%s --state-versions did not answer in %.0f s",
		    rx->binary, RX_CHECK_TIMEOUT);
		return;
	}
	reexec_abort(sup, "%s still in flight after %.0f s; try again",
	    reexec_busy(sup), RX_QUIESCE_TIMEOUT);
}

/* Ready for a re-exec: the watchers, idle. */
void
sup_reexec_init(struct sup *sup)
{
	struct sup_rx	*rx = &sup->rx;

	rx->outfd = rx->wfd = rx->binfd = -1;
	spawn_proc_init(&rx->proc);
	ev_io_init(&rx->death, reexec_on_death, -1, EV_READ);
	ev_init(&rx->timer, reexec_on_timer);
	ev_prepare_init(&rx->turn, reexec_on_turn);
}

/* At exit: a check child still running is left to run, and reaped by
 * whoever reaps our orphans. */
void
sup_reexec_fini(struct sup *sup)
{
	struct sup_rx	*rx = &sup->rx;

	if (sup->core.loop != NULL && rx->phase == RX_CHECK)
		reexec_check_end(sup);
	if (sup->core.loop != NULL) {
		ev_timer_stop(sup->core.loop, &rx->timer);
		ev_prepare_stop(sup->core.loop, &rx->turn);
	}
	reexec_forget(rx);
	rx->phase = RX_IDLE;
	sup->core.quiesce = false;
}

/* The binary we run, as a path: /proc/self/exe, less " (deleted)". */
static char *
reexec_self(void)
{
	char	buf[PATH_MAX];
	ssize_t	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	size_t	len;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	len = (size_t)n;
	if (len > 10 && strcmp(buf + len - 10, " (deleted)") == 0)
		buf[len - 10] = '\0';
	return strdup(buf);
}

/* May a directory or the file be changed by a user but root or us? */
static bool
reexec_open_to_others(const struct stat *st, bool dir)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return true;
	/* A sticky directory: others may add names, not replace ours. */
	return (st->st_mode & 022) && !(dir && (st->st_mode & S_ISVTX));
}

/*
 * Open the binary at path (absolute) once, for the check and the exec
 * alike: a path looked up twice could lead to two files.  Walked a
 * component at a time: every directory on the way and the file must be
 * root's or ours and writable by no one else (a sticky directory
 * aside), and a symlink is followed only if root or we own it (at most
 * 40); a symlink another user put in a sticky directory could point at
 * another file between two lookups.  An O_PATH fd, or -errno with why
 * in err.
 */
static int
reexec_open_binary(const char *path, char *err, size_t n)
{
	char		 cur[PATH_MAX], link[PATH_MAX], name[NAME_MAX + 1];
	char		*p, *q;
	struct stat	 st;
	size_t		 rest;
	ssize_t		 len;
	int		 dfd, fd, links = 0, rc;

	if (path[0] != '/') {
		snprintf(err, n, "%s: not an absolute path", path);
		return -EINVAL;
	}
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur)) {
		snprintf(err, n, "%s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if ((dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(dfd, &st) < 0) {
		rc = -errno;
		snprintf(err, n, "/: %s", strerror(errno));
		goto out;
	}
	for (p = cur;;) {
		if (reexec_open_to_others(&st, true)) {
			rc = -EPERM;
			snprintf(err, n, "%s: %.*s may be changed by another "
			    "user (owner %u, mode %04o): not run as pidvisor",
			    path, p > cur ? (int)(p - cur) : 1, cur,
			    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
			goto out;
		}
		while (*p == '/')
			p++;
		for (q = p; *q && *q != '/'; q++)
			;
		if (q == p || (size_t)(q - p) >= sizeof(name)) {
			rc = q == p ? -EISDIR : -ENAMETOOLONG;
			snprintf(err, n, "%s: %s", path, strerror(-rc));
			goto out;
		}
		memcpy(name, p, (size_t)(q - p));
		name[q - p] = '\0';
		if ((fd = openat(dfd, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
			rc = -errno;
			snprintf(err, n, "%s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			if (st.st_uid != 0 && st.st_uid != geteuid()) {
				close(fd);
				rc = -EPERM;
				snprintf(err, n, "%s: %.*s is a symlink owned by "
				    "uid %u: not followed", path, (int)(q - cur),
				    cur, (unsigned)st.st_uid);
				goto out;
			}
			len = ++links > 40 ? -1 : readlinkat(fd, "", link,
			    sizeof(link));
			rc = links > 40 ? -ELOOP : len < 0 ? -errno : 0;
			close(fd);
			rest = strlen(q);
			if (rc == 0 && (size_t)len + rest >= sizeof(link))
				rc = -ENAMETOOLONG;
			if (rc < 0) {
				snprintf(err, n, "%s: %s", path, strerror(-rc));
				goto out;
			}
			memcpy(link + len, q, rest + 1);
			memcpy(cur, link, (size_t)len + rest + 1);
			p = cur;
			if (cur[0] == '/') {
				close(dfd);
				if ((dfd = open("/", O_PATH | O_DIRECTORY |
				    O_CLOEXEC)) < 0 || fstat(dfd, &st) < 0) {
					rc = -errno;
					snprintf(err, n, "/: %s", strerror(errno));
					goto out;
				}
			} else if (fstat(dfd, &st) < 0) {
				rc = -errno;
				snprintf(err, n, "%s: %s", path, strerror(errno));
				goto out;
			}
			continue;
		}
		if (*q != '\0') {		/* a directory on the way */
			close(dfd);
			dfd = fd;
			if (!S_ISDIR(st.st_mode)) {
				rc = -ENOTDIR;
				snprintf(err, n, "%s: %s", path, strerror(ENOTDIR));
				goto out;
			}
			p = q;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			rc = -EINVAL;
			snprintf(err, n, "%s: not a regular file", path);
			goto out;
		}
		if (reexec_open_to_others(&st, false)) {
			close(fd);
			rc = -EPERM;
			snprintf(err, n, "%s: %s may be changed by another user "
			    "(owner %u, mode %04o): not run as pidvisor", path,
			    cur, (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777));
			goto out;
		}
		close(dfd);
		return fd;
	}
out:
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/*
 * Begin a re-exec into binary (NULL: the path we were run from, where a
 * new version is installed); the client that asked, if any, is the
 * control socket's reexec_client.  0: under way; -errno with why in err.
 */
int
sup_reexec(struct sup *sup, const char *binary, char *err, size_t n)
{
	struct sup_rx		*rx = &sup->rx;
	struct spawn_req	 req = {
		.envp = sup->core.base_env, .ready_pipe = -1, .cgroup_fd = -1,
		.nofile_cur = sup->core.nofile_cur, .nofile_max = sup->core.nofile_max,
		.stdio = { sup->core.devnull, -1, -1 },
	};
	struct spawn_result	 res;
	int			 p[2], rc;

	if (!sup_running(sup) || ev_is_active(&sup->end_w)) {
		snprintf(err, n, "shutting down");
		return -ESHUTDOWN;
	}
	if (rx->phase != RX_IDLE) {
		snprintf(err, n, "a re-exec is under way");
		return -EBUSY;
	}
	rx->binary = binary ? strdup(binary) : reexec_self();
	if (rx->binary == NULL) {
		snprintf(err, n, "which binary: %s", strerror(errno));
		return -errno;
	}
	if ((rx->binfd = reexec_open_binary(rx->binary, err, n)) < 0) {
		rc = rx->binfd;
		rx->binfd = -1;
		free(rx->binary);
		rx->binary = NULL;
		return rc;
	}
	rx->t0_us = mono_us();
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = -errno;
		goto fail;
	}
	/* The child may run on after we return (CLONE_VM): not our stack. */
	rx->argv[0] = rx->binary;
	rx->argv[1] = "--state-versions";
	rx->argv[2] = NULL;
	req.argv = rx->argv;
	req.exec_at = true;
	req.exec_fd = rx->binfd;
	req.stdio[1] = req.stdio[2] = p[1];
	spawn_proc_init(&rx->proc);
	rc = spawn_start(&rx->proc, &req, &res);
	if (rc < 0) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	/* Its end stays open until it is over: the child may share our fd
	 * table until it execs. */
	rx->outfd = spawn_fd_keep(p[0]);
	rx->wfd = p[1];
	rx->phase = RX_CHECK;
	rx->pm.kind = PM_CHECK;
	pidmap_add(&sup->pids, &rx->pm, res.pid);
	ev_io_set(&rx->death, spawn_fd_keep(res.pidfd), EV_READ);
	ev_io_start(sup->core.loop, &rx->death);
	ev_timer_set(&rx->timer, RX_CHECK_TIMEOUT, 0.);
	ev_timer_start(sup->core.loop, &rx->timer);
	log_info("reexec: checking %s", rx->binary);
	return 0;
fail:
	snprintf(err, n, "%s: %s", rx->binary, strerror(-rc));
	reexec_forget(rx);
	return rc;
}

/* The re-exec signal (pidvisor.8): as `reexec` with no binary. */
void
sup_reexec_signal(struct sup *sup)
{
	char	err[512];

	if (sup_reexec(sup, NULL, err, sizeof(err)) < 0)
		log_err("reexec: %s", err);
}

/* Set or clear FD_CLOEXEC on the fds of the state that have it (those
 * of spawn_fd_keep() never do). */
static void
reexec_cloexec(const struct st_w *w, bool on)
{
	size_t	i;

	for (i = 0; i < w->nfds; i++)
		fcntl(w->fds[i], F_SETFD, on ? FD_CLOEXEC : 0);
}

/* A sealed memfd holding the state; -errno. */
static int
reexec_memfd(const struct st_w *w)
{
	size_t	off = 0;
	ssize_t	n;
	int	fd = memfd_create("pidvisor-state", MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	while (off < w->b.len) {
		if ((n = write(fd, w->b.data + off, w->b.len - off)) < 0 &&
		    errno == EINTR)
			continue;
		if (n <= 0) {
			int	err = n < 0 ? errno : EIO;

			close(fd);
			return -err;
		}
		off += (size_t)n;
	}
	/* Read-only from now on: a fallback reads what we wrote. */
	fcntl(fd, F_ADD_SEALS, RX_SEALS);
	return fd;
}

/* Write the state and exec the new binary; back here only if it failed. */
static void
reexec_exec(struct sup *sup)
{
	struct sup_rx	*rx = &sup->rx;
	struct st_w	 w = { 0 };
	char		 a[16], b[16], *argv[] = { NULL, "--restore", a,
			    "--previous", b, NULL };
	int		 memfd, exefd, err;

	ev_prepare_stop(sup->core.loop, &rx->turn);
	ev_timer_stop(sup->core.loop, &rx->timer);
	ctl_event(&sup->ctl, &(struct ctl_event){ .kind = EV_REEXEC,
	    .reason = rx->binary ? rx->binary : sup->argv0, .ok = true });
	ctl_reexec_drop(&sup->ctl);
	/* What a service takes, about: no copy as the buffer grows. */
	buf_reserve(&w.b, 4096 + sup->set.n * 1536);
	snapshot_write(sup, &w);
	if (w.nomem) {
		st_w_free(&w);
		reexec_abort(sup, "writing the state: %s", strerror(ENOMEM));
		return;
	}
	if ((memfd = reexec_memfd(&w)) < 0) {
		st_w_free(&w);
		reexec_abort(sup, "the state's memfd: %s", strerror(-memfd));
		return;
	}
	/* Ourselves, for the new binary to go back to if it must. */
	exefd = open("/proc/self/exe", O_RDONLY);
	snprintf(a, sizeof(a), "%d", memfd);
	snprintf(b, sizeof(b), "%d", exefd);
	argv[0] = sup->argv0 ? sup->argv0 : rx->binary;
	log_info("reexec: %s, state %zu bytes, %zu fds, %zu services",
	    rx->binary, w.b.len, w.nfds, sup->set.n);
	console_drain(100000);
	reexec_cloexec(&w, false);
	execveat(rx->binfd, "", argv, environ, AT_EMPTY_PATH);
	err = errno;
	reexec_cloexec(&w, true);
	close(memfd);
	if (exefd >= 0)
		close(exefd);
	st_w_free(&w);
	reexec_abort(sup, "exec %s: %s", rx->binary, strerror(err));
}

/*
 * The restoring side.  A crash while the state is read goes back to the
 * binary before us, with the same state: only async-signal-safe calls.
 */
static int	 rx_prev = -1;
static int	 rx_state = -1;
static char	*rx_argv0 = "pidvisor";	/* ours: init as PID 1 */
static char	 rx_altstack[32 * 1024];

static char *
reexec_num(char *p, unsigned long v)
{
	char	tmp[24];
	int	n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < (int)sizeof(tmp));
	while (n > 0)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

/* Go back to the binary before us, with the state and why; no return
 * if it works. */
static void
reexec_back(const char *why)
{
	char	a[16], *argv[] = { rx_argv0, "--restore", a, "--fallback",
		    (char *)why, NULL };
	sigset_t mask;

	if (rx_prev < 0 || rx_state < 0)
		return;
	reexec_num(a, (unsigned long)rx_state);
	/* Exec keeps the mask: only what the next binary takes, blocked
	 * (a fault handler blocked everything). */
	sup_signal_set(&mask);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	syscall(SYS_execveat, rx_prev, "", argv, environ, AT_EMPTY_PATH);
}

static void
reexec_on_crash(int sig, siginfo_t *si, void *uc)
{
	static char	why[64];
	char		*p;
	static const char msg[] = "pidvisor: crashed while reading the "
			    "state; back to the binary before\n";

	(void)si;
	(void)uc;
	p = why;
	memcpy(p, "crashed: signal ", 16);
	reexec_num(p + 16, (unsigned long)sig);
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	reexec_back(why);
	if (getpid() == 1)
		pid1_freeze();		/* no way back: never die */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Until the state is taken, a crash goes back to the binary before. */
void
reexec_crash_setup(void)
{
	if (rx_prev >= 0)
		pid1_catch_faults(reexec_on_crash, rx_altstack,
		    sizeof(rx_altstack), SA_RESETHAND);
}

/*
 * The state cannot be taken: back to the binary before us; if there is
 * none (we are it), there is no state to go on with, and no way to run
 * the services without it: PID 1 stays, reaping; anything else exits.
 */
void
reexec_fail(struct sup_restore *rs, const char *why)
{
	char	msg[300];

	log_err("reexec: cannot take over the state: %s", why);
	if (rs->fallback == NULL && rx_prev >= 0) {
		snprintf(msg, sizeof(msg), "%s", why);
		log_err("reexec: back to the binary before");
		reexec_back(msg);
		log_err("reexec: exec of the binary before: %s",
		    strerror(errno));
	}
	if (getpid() != 1)
		exit(1);
	log_err("PID 1 cannot go on without its state; the services run "
	    "unsupervised, orphans are reaped");
	pid1_freeze();
}

/*
 * main.c's first step with --restore: map the state (fd), check its
 * header.  prev is the binary before us (-1 if none); fallback, if not
 * NULL, says why we are that binary again; argv0 is ours, for it.  0, or -errno with
 * rs->r.err set (then reexec_fail).
 */
int
reexec_open(struct sup_restore *rs, int fd, int prev, const char *fallback,
    char *argv0)
{
	struct stat	 st;
	uint32_t	 version;
	int		 seals;

	memset(rs, 0, sizeof(*rs));
	rx_argv0 = argv0;
	rs->fd = rx_state = fd;
	rs->prev = rx_prev = fallback ? -1 : prev;
	rs->fallback = fallback;
	if (fallback && prev >= 0)
		close(prev);
	reexec_crash_setup();
	if (fstat(fd, &st) < 0 || st.st_size < 24) {
		st_fail(&rs->r, "state fd %d: %s", fd, errno ? strerror(errno) :
		    "too short");
		return -EINVAL;
	}
	/* A sealed memfd, as reexec_memfd() made it: nobody can change
	 * it under us while we read (a file could be). */
	if ((seals = fcntl(fd, F_GET_SEALS)) < 0 || (seals & RX_SEALS) !=
	    RX_SEALS) {
		st_fail(&rs->r, "state fd %d: not a sealed memfd", fd);
		return -EINVAL;
	}
	rs->len = (size_t)st.st_size;
	if ((rs->map = mmap(NULL, rs->len, PROT_READ, MAP_PRIVATE, fd, 0)) ==
	    MAP_FAILED) {
		rs->map = NULL;
		st_fail(&rs->r, "state fd %d: mmap: %s", fd, strerror(errno));
		return -EINVAL;
	}
	return st_r_open(&rs->r, rs->map, rs->len, &version);
}

/*
 * Taken over: close the state, answer who asked (with the error, if we
 * are the binary before, back again), and look at what happened during
 * the exec: deaths are read from the pidfds, zombies reaped.
 */
void
reexec_finish(struct sup *sup, struct sup_restore *rs)
{
	char	msg[600];
	double	ms = (double)(mono_us() - rs->t0_us) / 1000.;

	st_r_close(&rs->r);
	if (rs->map)
		munmap(rs->map, rs->len);
	close(rs->fd);
	rx_state = -1;
	if (rs->prev >= 0)
		close(rs->prev);
	rx_prev = -1;
	if (rs->fallback) {
		snprintf(msg, sizeof(msg), "%s could not take over (%s); "
		    "pidvisor %s runs on, every service kept", rs->binary ?
		    rs->binary : "the new binary", rs->fallback,
		    PIDVISOR_VERSION);
		log_err("reexec: %s", msg);
		ctl_event(&sup->ctl, &(struct ctl_event){
		    .kind = EV_REEXEC_DONE, .reason = msg });
		ctl_reexec_end(&sup->ctl, CTL_EFAIL, msg);
	} else {
		snprintf(msg, sizeof(msg), "pidvisor %s (was %s) took over %zu "
		    "service%s in %.1f ms", PIDVISOR_VERSION, rs->prev_version ?
		    rs->prev_version : "?", sup->set.n, sup->set.n == 1 ? "" :
		    "s", ms);
		log_info("reexec: %s (check %.1f ms, quiet and state %.1f ms, "
		    "%zu bytes; exec and restore %.1f ms)", msg,
		    (double)(rs->t_check_us - rs->t0_us) / 1000.,
		    (double)(rs->t_write_us - rs->t_check_us) / 1000., rs->len,
		    (double)(mono_us() - rs->t_write_us) / 1000.);
		ctl_event(&sup->ctl, &(struct ctl_event){
		    .kind = EV_REEXEC_DONE, .ok = true, .reason = msg });
		ctl_reexec_end(&sup->ctl, CTL_OK, msg);
	}
	free(rs->prev_version);
	free(rs->binary);
	free(rs->cg_base);
	free(rs->cg_why);
	rs->prev_version = rs->binary = rs->cg_base = rs->cg_why = NULL;
}

/*
 * --state-versions: the versions of the state this binary reads: 6
 * (read in its order, for one release) and every named one from
 * STATE_NAMED on ("8+": a newer release's too, which writes fields by
 * name; what it knows that we do not, we leave).
 */
int
reexec_versions(void)
{
	printf("pidvisor-state %d %d+\n", STATE_OLDEST, STATE_NAMED);
	return 0;
}

