/*
 * svc-helper.c - a scriptable service for the host tests.
 *
 *   svc-helper ACTION...
 *
 * Actions run in order:
 *   stamp=FILE:TAG     append "TAG <monotonic ms> <pid>" to FILE
 *   ready-fd=N         write a newline on fd N and close it
 *   close-fd=N         close fd N without writing
 *   notify=MSG         send MSG ("\n" allowed as \n) to $NOTIFY_SOCKET
 *   notify-child=MSG   the same, from a child process (an impostor)
 *   daemonize=MSG      fork: the child goes on with the next actions; the
 *                      parent sends "MAINPID=<child>\nMSG" and exits 0
 *   handoff=MSG        fork: the child goes on with the next actions; the
 *                      parent sends "MAINPID=<child>\nMSG" and sleeps for
 *                      ever (an old main process that stays; the kernel
 *                      reaps its child)
 *   setuid=UID         setresuid(UID, UID, UID) (after a setuid exec)
 *   double-fork=MSG    the classic daemon: a child that calls setsid() forks
 *                      the grandchild that goes on with the next actions,
 *                      and exits; the parent reaps it, sends
 *                      "MAINPID=<grandchild>\nMSG" and exits 0
 *   reload-on-hup=FILE:TAG
 *                      on SIGHUP: send RELOADING=1 (and MONOTONIC_USEC),
 *                      wait 500 ms, stamp FILE with TAG, send READY=1
 *   ignore=SIG         ignore a signal
 *   on-term=FILE:TAG   on SIGTERM: stamp FILE with TAG, exit 0
 *   on-term-notify=MSG on SIGTERM: send MSG to $NOTIFY_SOCKET, go on
 *   send-fds=FILE:N    open FILE and send it with N datagrams to
 *                      $NOTIFY_SOCKET (non-blocking; stop at the first
 *                      refused); print "sent K of N"
 *   notify-every=MS:MSG
 *                      for ever: send MSG to $NOTIFY_SOCKET every MS ms;
 *                      each "%n" in MSG is a count, from 1
 *   listen=SOCK:FILE:UID
 *                      a stream socket bound at SOCK (as we are), then
 *                      listening with UID's credentials: print
 *                      "listening", and
 *                      append what each client sends to FILE (an
 *                      impostor of pidvisor's control socket)
 *   fds=FILE           append what it was given (socket activation) to
 *                      FILE: "fds N names NAMES pid ok|wrong", then a
 *                      line per fd from 3: "fd N TYPE" (stream, dgram,
 *                      file: the path it reads)
 *   sockopts=FILE      append a line per fd it was given: "fd N passcred
 *                      0|1 passsec 0|1 rcvbuf BYTES sndbuf BYTES"
 *   serve[=N]          on each of its LISTEN_FDS, answer each client (a
 *                      connection, or a datagram) with "pid PID\n", and
 *                      close; for ever, or N clients
 *   reply              read a line from stdin, write "pid PID LINE" and
 *                      "fds N" on stdout (an inetd-style service)
 *   fdstore=WHAT:NAME  hand pidvisor an fd: FDSTORE=1 with FDNAME=NAME;
 *                      WHAT is memfd (a memfd, "pvstore"), pipe (a pipe's
 *                      read end) or a path (opened read-only); print
 *                      "stored" or the error
 *   fdstore-remove=NAME
 *                      FDSTOREREMOVE=1 with FDNAME=NAME
 *   alloc=MB           allocate MB MiB and touch every page
 *   grow=MB:STEP:MS    allocate MB MiB, STEP MiB every MS milliseconds
 *   free               give back everything allocated
 *   cycle=MB:STEP:MS:HOLD:PAUSE
 *                      for ever: grow to MB MiB, STEP MiB every MS ms,
 *                      hold HOLD ms, give it all back, wait PAUSE ms
 *   orphans=N          leave N orphans: each child forks a grandchild
 *                      named "orphan" that lives 100 ms, and exits
 *   daemon=FILE        daemonize as a forking service does: fork; the
 *                      parent exits 0 at once, the child makes a session
 *                      of its own, writes its PID to FILE ("-": none)
 *                      and goes on with the options after this one
 *   sleep=MS           sleep; sleep=forever never returns
 *   exit=N             exit with N
 *   waitfile=FILE:N:MS wait (inotify, deadline MS) until FILE has N lines;
 *                      exit 1 on timeout (used by the tests, not as a service)
 *   waitpid=PID:MS     wait (pidfd) until process PID exits; exit 1 on
 *                      timeout (used by the tests, not as a service)
 *   map=FILE:OUT       map FILE shared and read-only, without touching it;
 *                      write the address (hex) to OUT
 *   peek=PID:ADDR      read a byte of process PID's memory at ADDR through
 *                      /proc/PID/mem (its mmap_lock held meanwhile)
 *   clear-refs=PID     write 5 to /proc/PID/clear_refs, which takes
 *                      PID's mmap_lock for writing
 *   same-vm=A:B        exit 0 if processes A and B share their memory
 *                      (kcmp KCMP_VM), 1 if not, 2 on error
 *   try=CALL           make a system call and print "try CALL: ok" or
 *                      "try CALL: <strerror>": umount (of a path that
 *                      does not exist: ENOENT if allowed), chroot (to
 *                      "."), bind80 (TCP 127.0.0.1:80), ptrace (of
 *                      ourselves, PTRACE_TRACEME: never effective),
 *                      personality (to PER_BSD, and back), wx (a
 *                      mapping writable and executable), mprotect-x (one
 *                      made executable), suid (a file made set-user-ID
 *                      in /tmp, removed), unshare-net, packet (an
 *                      AF_PACKET socket), fifo (SCHED_FIFO, and back),
 *                      syslog (the size of the kernel's log), and calls
 *                      tried only where they are denied: sethostname,
 *                      modules (init_module of nothing), settime
 *                      (clock_settime of CLOCK_MONOTONIC: EINVAL if let
 *                      through), int80 (getpid as an i386 call)
 *   syslogd=SOCK:FILE  a datagram socket bound at SOCK (a syslog
 *                      daemon's /dev/log, made anew): print "listening",
 *                      then append
 *                      each datagram to FILE as a line, for ever
 *   swap=A:B           for ever: exchange the names A and B
 *                      (renameat2 RENAME_EXCHANGE), as fast as it can
 *   linger=SOCK:S      pass a TCP socket (127.0.0.1) with unsent data and
 *                      a linger of S seconds to the datagram socket SOCK
 *                      (SCM_RIGHTS), then hold its peer for 2 S: the last
 *                      close of it waits S seconds.  Prints "sent", or
 *                      "refused: ERROR" if the kernel refused the fd
 *   pty=LINK:OUT       a pseudo-terminal: its terminal end made raw and
 *                      linked at LINK (made anew), READY=1 sent if
 *                      $NOTIFY_SOCKET is set, then for ever append
 *                      what is written to it to OUT
 *   ctty=PATH          make terminal PATH our controlling terminal (we
 *                      are a session's leader), or exit 1
 *   ttyinfo=FILE       append "tty NAME ctty 0|1 out 0|1 err 0|1 canon
 *                      0|1 sigpipe ign|dfl term $TERM" to FILE (is 0 our controlling
 *                      terminal, are 1 and 2 the same terminal, does it
 *                      read lines), then write "hello tty" on stdout
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/if_ether.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static char	term_file[512], term_tag[64], term_msg[256];
static struct chunk { void *p; size_t len; } chunks[4096];
static int	nchunks;

/*
 * Fill with data that compresses about 3:1, as a real service's memory
 * does in zram: a third of each page random (xorshift), the rest zeros.
 */
static void
fill(char *p, size_t len)
{
	static uint64_t	x = 0x9e3779b97f4a7c15ULL;
	uint64_t	*q = (uint64_t *)(void *)p;
	size_t		i;

	for (i = 0; i < len / sizeof(*q); i++) {
		if (i % 512 < 170) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			q[i] = x;
		} else {
			q[i] = 0;
		}
	}
}

/* Allocate mb MiB of anonymous memory and touch every page. */
static void
alloc_mb(long mb)
{
	size_t	len = (size_t)mb << 20;
	char	*p;

	if (mb <= 0 || nchunks == (int)(sizeof(chunks) / sizeof(chunks[0])))
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("svc-helper: mmap");
		exit(3);
	}
	fill(p, len);
	chunks[nchunks].p = p;
	chunks[nchunks++].len = len;
}

static int	write_str(const char *, const char *);

/* Map file shared and read-only, untouched; its address goes to out. */
static int
map_file(const char *file, const char *out)
{
	char	 line[32];
	void	*p;
	int	 fd;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) {
		perror("svc-helper: map");
		return -1;
	}
	p = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("svc-helper: map");
		return -1;
	}
	snprintf(line, sizeof(line), "%lx\n", (unsigned long)p);
	return write_str(out, line);
}

/* Read a byte at addr of the memory file path; 0, or 1 on error. */
static int
peek(const char *path, unsigned long long addr, char *c)
{
	int	fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return 1;
	rc = pread(fd, c, 1, (off_t)addr) == 1 ? 0 : 1;
	close(fd);
	return rc;
}

/* Write str into the file at path (made if need be); 0, or 1 on error. */
static int
write_str(const char *path, const char *str)
{
	int	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int	rc;

	if (fd < 0)
		return 1;
	rc = write(fd, str, strlen(str)) == (ssize_t)strlen(str) ? 0 : 1;
	close(fd);
	return rc;
}

static long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
stamp(const char *file, const char *tag)
{
	char	line[128];
	int	fd, n;

	n = snprintf(line, sizeof(line), "%s %lld %d\n", tag, now_ms(),
	    (int)getpid());
	if ((fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
		return;
	(void)!write(fd, line, (size_t)n);
	close(fd);
}

/* Split "A:B" in place; returns B. */
static char *
split(char *s)
{
	char	*c = strrchr(s, ':');

	if (c == NULL) {
		fprintf(stderr, "svc-helper: expected X:Y in %s\n", s);
		exit(2);
	}
	*c = '\0';
	return c + 1;
}

static char	hup_file[512], hup_tag[64];

static void	notify(const char *);

/* How many fds socket activation gave us (0 if LISTEN_PID is not us). */
static int
listen_fds(void)
{
	const char	*pid = getenv("LISTEN_PID"), *n = getenv("LISTEN_FDS");

	if (pid == NULL || n == NULL || atoi(pid) != (int)getpid())
		return 0;
	return atoi(n);
}

static void
report_fds(const char *file)
{
	FILE		*f = fopen(file, "a");
	const char	*pid = getenv("LISTEN_PID");
	char		 link[256], path[64];
	int		 i, n = listen_fds(), type;
	socklen_t	 len;
	ssize_t		 k;

	if (f == NULL)
		exit(2);
	fprintf(f, "fds %s names %s pid %s\n", getenv("LISTEN_FDS") ?
	    getenv("LISTEN_FDS") : "-", getenv("LISTEN_FDNAMES") ?
	    getenv("LISTEN_FDNAMES") : "-", pid == NULL ? "-" :
	    atoi(pid) == (int)getpid() ? "ok" : "wrong");
	for (i = 3; i < 3 + n; i++) {
		len = sizeof(type);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
		if (getsockopt(i, SOL_SOCKET, SO_TYPE, &type, &len) == 0) {
			fprintf(f, "fd %d %s\n", i, type == SOCK_STREAM ?
			    "stream" : type == SOCK_SEQPACKET ? "seqpacket" :
			    type == SOCK_RAW ? "raw" : "dgram");
		} else if ((k = readlink(path, link, sizeof(link) - 1)) > 0) {
			link[k] = '\0';
			fprintf(f, "fd %d file %s\n", i, link);
		} else {
			fprintf(f, "fd %d bad\n", i);
		}
	}
	fclose(f);
}

/* The options of each socket it was given: a line per fd. */
static void
report_sockopts(const char *file)
{
	FILE		*f = fopen(file, "a");
	int		 i, n = listen_fds(), cred, sec, rcv, snd;
	socklen_t	 len;

	if (f == NULL)
		exit(2);
	for (i = 3; i < 3 + n; i++) {
		cred = sec = rcv = snd = -1;
		len = sizeof(int);
		getsockopt(i, SOL_SOCKET, SO_PASSCRED, &cred, &len);
		len = sizeof(int);
		getsockopt(i, SOL_SOCKET, SO_PASSSEC, &sec, &len);
		len = sizeof(int);
		getsockopt(i, SOL_SOCKET, SO_RCVBUF, &rcv, &len);
		len = sizeof(int);
		getsockopt(i, SOL_SOCKET, SO_SNDBUF, &snd, &len);
		fprintf(f, "fd %d passcred %d passsec %d rcvbuf %d sndbuf %d\n",
		    i, cred, sec, rcv, snd);
	}
	fclose(f);
}

/* Answer every client of our LISTEN_FDS with our pid, for ever. */
static void
serve(int count)
{
	struct pollfd	pfd[64];
	char		msg[64], buf[512];
	int		i, n = listen_fds(), c, type;
	socklen_t	len;

	if (n <= 0 || n > 64) {
		fprintf(stderr, "serve: no LISTEN_FDS\n");
		exit(2);
	}
	snprintf(msg, sizeof(msg), "pid %d\n", (int)getpid());
	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = 3 + i, .events = POLLIN };
	while (count != 0) {
		if (poll(pfd, (nfds_t)n, -1) < 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			len = sizeof(type);
			getsockopt(pfd[i].fd, SOL_SOCKET, SO_TYPE, &type, &len);
			if (type == SOCK_DGRAM) {
				struct sockaddr_storage	from;
				socklen_t		fl = sizeof(from);

				if (recvfrom(pfd[i].fd, buf, sizeof(buf),
				    MSG_DONTWAIT, (struct sockaddr *)&from,
				    &fl) >= 0)
					sendto(pfd[i].fd, msg, strlen(msg), 0,
					    (struct sockaddr *)&from, fl);
				if (count > 0)
					count--;
				continue;
			}
			if ((c = accept4(pfd[i].fd, NULL, NULL,
			    SOCK_CLOEXEC)) < 0)
				continue;
			(void)!write(c, msg, strlen(msg));
			close(c);
			if (count > 0)
				count--;
		}
	}
}

/* An inetd-style service: one line in, one answer out. */
static void
reply(void)
{
	char	line[256];

	if (fgets(line, sizeof(line), stdin) == NULL)
		line[0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	printf("pid %d %s\nfds %d\n", (int)getpid(), line, listen_fds());
	fflush(stdout);
}

/* FDSTORE=1: hand pidvisor an fd of FILE, named name. */
static void
fdstore(const char *file, const char *name)
{
	struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
	const char		*path = getenv("NOTIFY_SOCKET");
	char			 msg[256];
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int))];
	}			 cbuf;
	struct iovec		 iov;
	struct msghdr		 mh = { 0 };
	int			 s, fd, p[2];

	if (!strcmp(file, "memfd")) {
		fd = memfd_create("pvstore", MFD_CLOEXEC);
		(void)!write(fd, "hello", 5);
	} else if (!strcmp(file, "pipe")) {
		fd = pipe2(p, O_CLOEXEC) < 0 ? -1 : p[0];
	} else {
		fd = open(file, O_RDONLY | O_CLOEXEC);
	}

	if (fd < 0 || path == NULL) {
		printf("fdstore: %s\n", fd < 0 ? strerror(errno) :
		    "no NOTIFY_SOCKET");
		return;
	}
	snprintf(msg, sizeof(msg), "FDSTORE=1\nFDNAME=%s", name);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	iov.iov_base = msg;
	iov.iov_len = strlen(msg);
	mh.msg_name = &sa;
	mh.msg_namelen = sizeof(sa);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	cbuf.h.cmsg_level = SOL_SOCKET;
	cbuf.h.cmsg_type = SCM_RIGHTS;
	cbuf.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cbuf.h), &fd, sizeof(int));
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sendmsg(s, &mh, 0) < 0)
		printf("fdstore: %s\n", strerror(errno));
	else
		printf("stored\n");
	fflush(stdout);
	close(s);
	close(fd);
}

static void
on_hup(int sig)
{
	char			msg[64];
	struct timespec		ts = { 0, 500 * 1000 * 1000 };

	(void)sig;
	snprintf(msg, sizeof(msg), "RELOADING=1\\nMONOTONIC_USEC=%lld",
	    now_ms() * 1000);
	notify(msg);
	nanosleep(&ts, NULL);
	stamp(hup_file, hup_tag);
	notify("READY=1");
}

static void
on_term(int sig)
{
	(void)sig;
	stamp(term_file, term_tag);
	_exit(0);
}

static void
on_term_notify(int sig)
{
	(void)sig;
	notify(term_msg);
}

static void
notify(const char *msg)
{
	struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
	const char		*path = getenv("NOTIFY_SOCKET");
	char			 buf[1024];
	size_t			 n = 0;
	int			 fd;

	if (path == NULL) {
		fprintf(stderr, "svc-helper: no NOTIFY_SOCKET\n");
		exit(2);
	}
	for (; *msg && n < sizeof(buf) - 1; msg++) {
		if (msg[0] == '\\' && msg[1] == 'n') {
			buf[n++] = '\n';
			msg++;
		} else {
			buf[n++] = *msg;
		}
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (sendto(fd, buf, n, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		perror("svc-helper: notify");
	close(fd);
}

static void
orphans(int n)
{
	int	i;
	pid_t	pid;

	for (i = 0; i < n; i++) {
		if ((pid = fork()) == 0) {
			if (fork() == 0) {
				prctl(PR_SET_NAME, "orphan");
				usleep(100000);
				_exit(0);
			}
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
}

static int
count_lines(const char *file)
{
	char	buf[4096];
	ssize_t	n;
	int	fd, lines = 0;

	if ((fd = open(file, O_RDONLY)) < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

/* Wait for file to hold n lines, on inotify events, until the deadline. */
static int
waitfile(char *arg)
{
	char		*ms = split(arg), *nl = split(arg), *dir, *slash;
	long long	 deadline = now_ms() + atoll(ms);
	int		 n = atoi(nl), fd;
	struct pollfd	 p;
	char		 ev[4096];

	dir = strdup(arg);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	inotify_add_watch(fd, slash ? dir : ".", IN_MODIFY | IN_CREATE |
	    IN_CLOSE_WRITE | IN_MOVED_TO);
	p.fd = fd;
	p.events = POLLIN;
	while (count_lines(arg) < n) {
		long long left = deadline - now_ms();

		if (left <= 0) {
			fprintf(stderr, "svc-helper: %s: %d of %d lines\n",
			    arg, count_lines(arg), n);
			return 1;
		}
		if (poll(&p, 1, (int)left) > 0)
			while (read(fd, ev, sizeof(ev)) > 0)
				;
	}
	return 0;
}

/* Wait for a process to exit, through a pidfd, until the deadline. */
static int
waitexit(char *arg)
{
	char		*ms = split(arg);
	struct pollfd	 p = { .events = POLLIN };

	p.fd = (int)syscall(SYS_pidfd_open, atoi(arg), 0);
	if (p.fd < 0)
		return errno == ESRCH ? 0 : 2;
	if (poll(&p, 1, atoi(ms)) == 1)
		return 0;
	fprintf(stderr, "svc-helper: pid %s still there after %s ms\n", arg,
	    ms);
	return 1;
}

/* send-fds=FILE:N: datagrams to our notify socket, each with FILE's fd. */
static void
send_fds(const char *file, int n)
{
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	const char		*path = getenv("NOTIFY_SOCKET");
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int))];
	}			 cbuf;
	struct iovec		 iov = { "STATUS=fds", 10 };
	struct msghdr		 mh = {
		.msg_name = &un, .msg_namelen = sizeof(un),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
	};
	struct cmsghdr		*c = CMSG_FIRSTHDR(&mh);
	int			 fd, d, i;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path ? path : "");
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (d = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0)) < 0) {
		perror("svc-helper: send-fds");
		exit(2);
	}
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	for (i = 0; i < n && sendmsg(d, &mh, 0) >= 0; i++)
		;
	printf("sent %d of %d\n", i, n);
	fflush(stdout);
	close(d);
	/* fd stays open: its close may never end (a FUSE file). */
}

/* listen=SOCK:FILE:UID: a control socket that answers nothing. */
static int
listen_as(char *path, const char *file, const char *uid)
{
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	char			 buf[4096];
	ssize_t			 n;
	int			 lfd, fd, out;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	/* listen() after the change: the peer credentials are its. */
	if ((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&un, sizeof(un)) < 0 ||
	    chmod(path, 0666) < 0 ||
	    (geteuid() != (uid_t)atoi(uid) && (setgroups(0, NULL) < 0 ||
	    setresgid(atoi(uid), atoi(uid), atoi(uid)) < 0 ||
	    setresuid(atoi(uid), atoi(uid), atoi(uid)) < 0)) ||
	    listen(lfd, 8) < 0) {
		perror("svc-helper: listen");
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		out = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (out >= 0 && write(out, buf, (size_t)n) < 0)
				break;
		close(out);
		close(fd);
	}
	return 0;
}

/* try=CALL, the protections' calls: 0, -1 (errno), -2 if unknown. */
static int
try_more(const char *call)
{
	struct sched_param	sp = { .sched_priority = 1 };
	struct timespec		ts = { 0, 0 };
	char			path[64];
	void			*m;
	int			rc, fd;

	if (!strcmp(call, "personality")) {
		if ((rc = personality(0x0006 /* PER_BSD */)) == -1)
			return -1;
		personality(0 /* PER_LINUX */);
		return 0;
	}
	if (!strcmp(call, "wx")) {
		if ((m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
			return -1;
		return munmap(m, 4096);
	}
	if (!strcmp(call, "mprotect-x")) {
		if ((m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
			return -1;
		rc = mprotect(m, 4096, PROT_READ | PROT_EXEC);
		munmap(m, 4096);
		return rc;
	}
	if (!strcmp(call, "suid")) {
		snprintf(path, sizeof(path), "/tmp/pvtry-suid-%d", (int)getpid());
		if ((fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644)) < 0)
			return -1;
		rc = fchmod(fd, 04755);
		close(fd);
		unlink(path);
		return rc;
	}
	if (!strcmp(call, "unshare-net"))
		return unshare(CLONE_NEWNET);
	if (!strcmp(call, "packet")) {
		if ((fd = socket(AF_PACKET, SOCK_RAW, 0)) < 0)
			return -1;
		close(fd);
		return 0;
	}
	if (!strcmp(call, "fifo")) {
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			return -1;
		sp.sched_priority = 0;
		return sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (!strcmp(call, "syslog"))
		return syscall(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0) < 0 ?
		    -1 : 0;
	if (!strcmp(call, "sethostname"))
		return sethostname("pvtry", 5);
	if (!strcmp(call, "modules"))
		return (int)syscall(SYS_init_module, NULL, 0UL, "");
	if (!strcmp(call, "settime"))
		return clock_settime(CLOCK_MONOTONIC, &ts);
#if defined(__x86_64__)
	if (!strcmp(call, "int80")) {
		long	r;

		__asm__ volatile ("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		return r < 0 ? (errno = (int)-r, -1) : 0;
	}
#endif
	return -2;
}

/* try=CALL: one system call, what it answered. */
static int
try_call(const char *call)
{
	struct sockaddr_in	sin = { .sin_family = AF_INET,
				    .sin_port = htons(80),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int			rc, fd;

	if (!strcmp(call, "umount")) {
		rc = umount2("/nonexistent-pvtry", 0);
	} else if (!strcmp(call, "chroot")) {
		rc = chroot(".");
	} else if (!strcmp(call, "bind80")) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			rc = -1;
		else
			rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	} else if (!strcmp(call, "ptrace")) {
		rc = (int)syscall(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0);
	} else {
		rc = try_more(call);
	}
	if (rc == -2) {
		fprintf(stderr, "try: unknown call %s\n", call);
		return 2;
	}
	printf("try %s: %s\n", call, rc == 0 ? "ok" : strerror(errno));
	fflush(stdout);
	return 0;
}

/* syslogd=SOCK:FILE: what a syslog daemon receives, a line each. */
static int
syslogd(char *path, const char *file)
{
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	char			 buf[8192];
	ssize_t			 n;
	int			 fd, out;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	unlink(path);		/* a daemon before us left it */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0 ||
	    (out = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0) {
		perror("svc-helper: syslogd");
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[n++] = '\n';
		if (write(out, buf, (size_t)n) < 0)
			return 2;
	}
	return 0;
}

/* pty=LINK:OUT: a terminal for services to have, and what they write. */
static int
pty_hold(const char *link, const char *out)
{
	char		 tmp[600], buf[512];
	const char	*name;
	struct termios	 t;
	ssize_t		 n;
	int		 m, s, o;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(m) < 0 ||
	    unlockpt(m) < 0 || (name = ptsname(m)) == NULL ||
	    (s = open(name, O_RDWR | O_NOCTTY)) < 0 ||
	    (o = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0) {
		perror("svc-helper: pty");
		return 1;
	}
	tcgetattr(s, &t);
	cfmakeraw(&t);
	tcsetattr(s, TCSANOW, &t);
	snprintf(tmp, sizeof(tmp), "%s.tmp", link);
	unlink(tmp);
	if (symlink(name, tmp) < 0 || rename(tmp, link) < 0) {
		perror("svc-helper: pty link");
		close(s);
		close(o);
		return 1;
	}
	if (getenv("NOTIFY_SOCKET") != NULL)
		notify("READY=1");
	/* s stays open, so that the master does not read EIO between
	 * users; one hung up (vhangup) is opened again. */
	for (;;) {
		if ((n = read(m, buf, sizeof(buf))) > 0) {
			(void)!write(o, buf, (size_t)n);
		} else if (n < 0 && errno == EIO) {
			close(s);
			if ((s = open(name, O_RDWR | O_NOCTTY)) < 0)
				return 1;
		} else if (n < 0 && errno != EINTR) {
			return 1;
		}
	}
}

/* ttyinfo=FILE: what terminal we were given, and how. */
static int
ttyinfo(const char *file)
{
	struct stat		 s0, s1, s2;
	struct termios		 t;
	struct sigaction	 sa;
	char			 name[64] = "";
	FILE			*f;
	int			 tty = ttyname_r(0, name, sizeof(name)) == 0;
	int			 same1, same2;

	same1 = fstat(0, &s0) == 0 && fstat(1, &s1) == 0 && isatty(1) &&
	    s0.st_rdev == s1.st_rdev;
	same2 = fstat(2, &s2) == 0 && isatty(2) && s0.st_rdev == s2.st_rdev;
	sigaction(SIGPIPE, NULL, &sa);
	if ((f = fopen(file, "a")) == NULL)
		return 1;
	fprintf(f, "tty %s ctty %d out %d err %d canon %d sigpipe %s "
	    "term %s\n",
	    tty ? name : "none", tty && tcgetsid(0) == getsid(0), same1,
	    same2, tcgetattr(0, &t) == 0 && (t.c_lflag & ICANON) != 0,
	    sa.sa_handler == SIG_IGN ? "ign" : "dfl",
	    getenv("TERM") ? getenv("TERM") : "-");
	fclose(f);
	printf("hello tty\n");
	fflush(stdout);
	return 0;
}

/* linger=SOCK:S: the attack of a datagram with a lingering socket. */
static int
linger(char *path, const char *secs)
{
	struct sockaddr_in	 in = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un	 un = { .sun_family = AF_UNIX };
	struct linger		 l = { .l_onoff = 1, .l_linger = atoi(secs) };
	socklen_t		 len = sizeof(in);
	static char		 junk[1 << 16];
	union {
		struct cmsghdr	h;
		char		b[CMSG_SPACE(sizeof(int))];
	}			 cbuf;
	struct iovec		 iov = { "READY=1", 7 };
	struct msghdr		 mh = {
		.msg_name = &un, .msg_namelen = sizeof(un),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
	};
	struct cmsghdr		*c;
	int			 lfd, fd, d;

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&in, sizeof(in)) < 0 ||
	    listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&in, &len) < 0 ||
	    (fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&in, sizeof(in)) < 0) {
		perror("svc-helper: linger");
		return 2;
	}
	/* The peer never reads: fill what the kernel will buffer. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) > 0)
		;
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if ((d = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 ||
	    sendmsg(d, &mh, 0) < 0) {
		printf("refused: %s\n", strerror(errno));
		fflush(stdout);
	} else {
		printf("sent\n");
		fflush(stdout);
	}
	/* Ours is not the last reference: this close does not wait. */
	l.l_onoff = 0;
	close(fd);
	sleep(2 * (unsigned)atoi(secs));
	return 0;
}

int
main(int argc, char **argv)
{
	int	i;

	for (i = 1; i < argc; i++) {
		char	*a = argv[i], *v = strchr(a, '=');

		if (v)
			*v++ = '\0';
		if (!strcmp(a, "swap")) {
			char	*b = split(v);

			for (;;)
				syscall(SYS_renameat2, AT_FDCWD, v, AT_FDCWD,
				    b, 2 /* RENAME_EXCHANGE */);
		} else if (!strcmp(a, "stamp")) {
			char	*tag = split(v);

			stamp(v, tag);
		} else if (!strcmp(a, "sockopts")) {
			report_sockopts(v);
		} else if (!strcmp(a, "fds")) {
			report_fds(v);
		} else if (!strcmp(a, "serve")) {
			serve(v ? atoi(v) : -1);
		} else if (!strcmp(a, "reply")) {
			reply();
		} else if (!strcmp(a, "fdstore")) {
			char	*name = split(v);

			fdstore(v, name);
		} else if (!strcmp(a, "fdstore-remove")) {
			char	msg[256];

			snprintf(msg, sizeof(msg), "FDSTOREREMOVE=1\\nFDNAME=%s",
			    v);
			notify(msg);
		} else if (!strcmp(a, "ready-fd")) {
			(void)!write(atoi(v), "\n", 1);
			close(atoi(v));
		} else if (!strcmp(a, "close-fd")) {
			close(atoi(v));
		} else if (!strcmp(a, "notify")) {
			notify(v);
		} else if (!strcmp(a, "notify-child")) {
			pid_t	pid = fork();

			if (pid == 0) {
				notify(v);
				_exit(0);
			}
			waitpid(pid, NULL, 0);
		} else if (!strcmp(a, "daemonize")) {
			char	msg[1024];
			pid_t	pid = fork();

			if (pid > 0) {
				snprintf(msg, sizeof(msg), "MAINPID=%d\\n%s",
				    (int)pid, v);
				notify(msg);
				_exit(0);
			}
		} else if (!strcmp(a, "handoff")) {
			char	msg[1024];
			pid_t	pid = fork();

			if (pid > 0) {
				/* Its child is reaped by the kernel. */
				signal(SIGCHLD, SIG_IGN);
				snprintf(msg, sizeof(msg), "MAINPID=%d\\n%s",
				    (int)pid, v);
				notify(msg);
				for (;;)
					pause();
			}
		} else if (!strcmp(a, "setuid")) {
			if (setresuid(atoi(v), atoi(v), atoi(v)) < 0) {
				perror("svc-helper: setuid");
				exit(2);
			}
		} else if (!strcmp(a, "double-fork")) {
			char	msg[1024];
			int	p[2];
			pid_t	c1, c2 = 0;

			if (pipe(p) < 0 || (c1 = fork()) < 0)
				exit(2);
			if (c1 == 0) {
				setsid();
				if ((c2 = fork()) != 0) {
					(void)!write(p[1], &c2, sizeof(c2));
					_exit(0);
				}
				close(p[0]);
				close(p[1]);
				continue;	/* the grandchild goes on */
			}
			if (read(p[0], &c2, sizeof(c2)) != sizeof(c2))
				exit(2);
			waitpid(c1, NULL, 0);
			snprintf(msg, sizeof(msg), "MAINPID=%d\\n%s", (int)c2,
			    v);
			notify(msg);
			_exit(0);
		} else if (!strcmp(a, "reload-on-hup")) {
			char	*tag = split(v);

			snprintf(hup_file, sizeof(hup_file), "%s", v);
			snprintf(hup_tag, sizeof(hup_tag), "%s", tag);
			signal(SIGHUP, on_hup);
		} else if (!strcmp(a, "ignore")) {
			signal(atoi(v) ? atoi(v) : SIGTERM, SIG_IGN);
		} else if (!strcmp(a, "on-term")) {
			char	*tag = split(v);

			snprintf(term_file, sizeof(term_file), "%s", v);
			snprintf(term_tag, sizeof(term_tag), "%s", tag);
			signal(SIGTERM, on_term);
		} else if (!strcmp(a, "on-term-notify")) {
			snprintf(term_msg, sizeof(term_msg), "%s", v);
			signal(SIGTERM, on_term_notify);
		} else if (!strcmp(a, "alloc")) {
			alloc_mb(atol(v));
		} else if (!strcmp(a, "grow")) {
			char	*ms = split(v), *step = split(v);
			long	 left = atol(v);

			while (left > 0) {
				long	n = left < atol(step) ? left : atol(step);

				alloc_mb(n);
				left -= n;
				usleep((useconds_t)atol(ms) * 1000);
			}
		} else if (!strcmp(a, "cycle")) {
			char	*pause_ms = split(v), *hold = split(v);
			char	*ms = split(v), *step = split(v);

			for (;;) {
				long	left = atol(v);

				while (left > 0) {
					long	n = left < atol(step) ? left :
					    atol(step);

					alloc_mb(n);
					left -= n;
					usleep((useconds_t)atol(ms) * 1000);
				}
				usleep((useconds_t)atol(hold) * 1000);
				while (nchunks > 0) {
					nchunks--;
					munmap(chunks[nchunks].p,
					    chunks[nchunks].len);
				}
				usleep((useconds_t)atol(pause_ms) * 1000);
			}
		} else if (!strcmp(a, "free")) {
			while (nchunks > 0) {
				nchunks--;
				munmap(chunks[nchunks].p, chunks[nchunks].len);
			}
		} else if (!strcmp(a, "orphans")) {
			orphans(atoi(v));
		} else if (!strcmp(a, "daemon")) {
			pid_t	 pid = fork();
			FILE	*f;

			if (pid < 0)
				return 1;
			if (pid > 0)
				_exit(0);
			setsid();
			if (strcmp(v, "-") != 0) {
				if ((f = fopen(v, "w")) == NULL)
					return 1;
				fprintf(f, "%d\n", (int)getpid());
				fclose(f);
			}
		} else if (!strcmp(a, "sleep")) {
			if (!strcmp(v, "forever"))
				for (;;)
					pause();
			usleep((useconds_t)atoi(v) * 1000);
		} else if (!strcmp(a, "exit")) {
			exit(atoi(v));
		} else if (!strcmp(a, "waitfile")) {
			return waitfile(v);
		} else if (!strcmp(a, "waitpid")) {
			return waitexit(v);
		} else if (!strcmp(a, "map")) {
			char	*out = split(v);

			if (map_file(v, out) < 0)
				return 1;
		} else if (!strcmp(a, "peek")) {
			char	 path[64], c, *addr = split(v);

			snprintf(path, sizeof(path), "/proc/%s/mem", v);
			return peek(path, strtoull(addr, NULL, 16), &c);
		} else if (!strcmp(a, "same-vm")) {
			char	*b = split(v);
			long	 r = syscall(SYS_kcmp, atoi(v), atoi(b),
			    1 /* KCMP_VM */, 0, 0);

			return r == 0 ? 0 : r > 0 ? 1 : 2;
		} else if (!strcmp(a, "send-fds")) {
			char	*n = split(v);

			send_fds(v, atoi(n));
		} else if (!strcmp(a, "notify-every")) {
			char		*msg = split(v);
			struct timespec	 ts = { atoi(v) / 1000,
					    atoi(v) % 1000 * 1000000L };

			char		 out[512] = "", *o;
			const char	*m;
			long		 k;

			for (k = 1;; k++) {
				/* Every %n: the count. */
				for (m = msg, o = out; *m && o < out +
				    sizeof(out) - 24; m++) {
					if (m[0] == '%' && m[1] == 'n') {
						o += sprintf(o, "%ld", k);
						m++;
					} else {
						*o++ = *m;
					}
				}
				*o = '\0';
				notify(out);
				nanosleep(&ts, NULL);
			}
		} else if (!strcmp(a, "listen")) {
			char	*uid = split(v), *file = split(v);

			return listen_as(v, file, uid);
		} else if (!strcmp(a, "try")) {
			if (try_call(v) != 0)
				return 2;
		} else if (!strcmp(a, "syslogd")) {
			char	*file = split(v);

			return syslogd(v, file);
		} else if (!strcmp(a, "linger")) {
			char	*secs = split(v);

			return linger(v, secs);
		} else if (!strcmp(a, "pty")) {
			char	*out = split(v);

			return pty_hold(v, out);
		} else if (!strcmp(a, "ctty")) {
			int	fd = open(v, O_RDWR | O_NOCTTY);

			setsid();	/* as a service, we lead one already */
			if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0) {
				perror("svc-helper: ctty");
				return 1;
			}
		} else if (!strcmp(a, "ttyinfo")) {
			if (ttyinfo(v) != 0)
				return 1;
		} else if (!strcmp(a, "clear-refs")) {
			char	path[64];

			snprintf(path, sizeof(path), "/proc/%s/clear_refs", v);
			return write_str(path, "5");
		} else {
			fprintf(stderr, "svc-helper: unknown action %s\n", a);
			return 2;
		}
	}
	return 0;
}
