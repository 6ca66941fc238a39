/* util.c - buffers, durations, signals, argv splitting, logging */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/fsuid.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int log_level = LOG_INFO;
void (*log_hook)(const char *, size_t);
void (*log_also)(int, const char *, size_t);

/* Make room for more bytes plus a terminating NUL. */
int
buf_reserve(struct buf *b, size_t more)
{
	size_t	 need, cap;
	char	*p;

	if (more > SIZE_MAX / 2 - b->len) {
		b->nomem = true;
		return -ENOMEM;
	}
	need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	if ((p = realloc(b->data, cap)) == NULL) {
		b->nomem = true;
		return -ENOMEM;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Append n bytes. */
int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

/* Append a string. */
int
buf_puts(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

/* Append formatted text. */
int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* Drop n bytes from the front. */
void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		if (b->data)
			b->data[0] = '\0';
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

/* Release the buffer's memory. */
void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->nomem = false;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	size_t		len, i;
	uint32_t	c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	c = p[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 ||
	    c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* The offset of the first byte of s[0..n) that is not UTF-8, or n. */
size_t
utf8_valid_len(const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, len;

	while (i < n && (len = utf8_len(p + i, n - i)) != 0)
		i += len;
	return i;
}

/*
 * Append n bytes of s as a JSON string literal.  Bytes that are not
 * valid UTF-8 become U+FFFD, so that the result is always valid JSON.
 */
int
buf_json_strn(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	const unsigned char	*end = p + n;
	size_t			 len;
	int			 rc;

	rc = buf_add(b, "\"", 1);
	while (p < end && rc == 0) {
		switch (*p) {
		case '"':  rc = buf_puts(b, "\\\""); p++; continue;
		case '\\': rc = buf_puts(b, "\\\\"); p++; continue;
		case '\n': rc = buf_puts(b, "\\n"); p++; continue;
		case '\r': rc = buf_puts(b, "\\r"); p++; continue;
		case '\t': rc = buf_puts(b, "\\t"); p++; continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			rc = buf_printf(b, "\\u%04x", *p);
			p++;
		} else if (p[0] == 0xc2 && end - p > 1 && p[1] >= 0x80 &&
		    p[1] < 0xa0) {
			/* A C1 control (CSI, OSC...): as \u00XX too. */
			rc = buf_printf(b, "\\u%04x", p[1]);
			p += 2;
		} else if ((len = utf8_len(p, (size_t)(end - p))) == 0) {
			rc = buf_puts(b, "\\ufffd");
			p++;
		} else {
			rc = buf_add(b, p, len);
			p += len;
		}
	}
	return rc ? rc : buf_add(b, "\"", 1);
}

/* Append s as a JSON string literal (or null when s is NULL). */
int
buf_json_str(struct buf *b, const char *s)
{
	if (s == NULL)
		return buf_puts(b, "null");
	return buf_json_strn(b, s, strlen(s));
}

/*
 * Read a small file (procfs, cgroupfs: one read gives it all) into
 * buf[0..len), NUL-terminated.  The length, or -errno.
 */
ssize_t
read_small(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t	n;
	int	fd, err;

	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	while ((n = read(fd, buf, len - 1)) < 0 && errno == EINTR)
		;
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return n;
}

/*
 * Open a regular file for reading without waiting on it: never a FIFO
 * or a device (whose open or read can block), and, with dirfd not
 * AT_FDCWD, only beneath dirfd (symlinks too).  The fd, or -errno:
 * -EINVAL for what is not a regular file, -EXDEV for a path (or a
 * symlink) that leads out of dirfd.
 */
int
open_regular(int dirfd, const char *path)
{
	struct open_how	how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_NO_MAGICLINKS,
	};
	struct stat	st;
	int		fd;

	if (dirfd != AT_FDCWD)
		how.resolve |= RESOLVE_BENEATH;
	fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)	/* before 5.6: no symlinks at all */
		fd = openat(dirfd, path, (int)how.flags | O_NOFOLLOW);
	if (fd < 0)
		return errno == ELOOP && dirfd != AT_FDCWD ? -EXDEV : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * Append a whole regular file (open_regular) of at most max bytes to b,
 * not NUL-terminated.  0, or -errno (-EFBIG: larger than max).
 */
int
read_file(int dirfd, const char *path, size_t max, struct buf *b)
{
	char	chunk[8192];
	ssize_t	n;
	size_t	total = 0;
	int	fd, rc = 0;

	if ((fd = open_regular(dirfd, path)) < 0)
		return fd;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if ((total += (size_t)n) > max) {
			rc = -EFBIG;
			break;
		}
		if (buf_add(b, chunk, (size_t)n) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
	close(fd);
	return rc;
}

/*
 * Append text for a terminal: control characters (C0 but tab, DEL, C1)
 * and bytes that are not UTF-8 as \xNN, so that what a service prints
 * cannot move root's cursor, set its title or answer for it.
 */
int
buf_add_escaped(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, len;
	char			 hex[5];

	while (i < n) {
		len = utf8_len(p + i, n - i);
		if ((len == 1 && (p[i] >= 0x20 || p[i] == '\t') &&
		    p[i] != 0x7f) || (len == 2 && !(p[i] == 0xc2 &&
		    p[i + 1] < 0xa0)) || len > 2) {
			if (buf_add(b, s + i, len) < 0)
				return -ENOMEM;
			i += len;
			continue;
		}
		/* A control character, or a byte that is not UTF-8. */
		len = len ? len : 1;
		for (; len > 0; len--, i++) {
			snprintf(hex, sizeof(hex), "\\x%02x", p[i]);
			if (buf_add(b, hex, 4) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Microseconds on the monotonic clock. */
int64_t
mono_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Milliseconds on the monotonic clock. */
int64_t
mono_ms(void)
{
	return mono_us() / 1000;
}

/* Milliseconds since the epoch, for what is shown to people. */
int64_t
real_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* CLOCK_REALTIME in us. */
int64_t
real_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The units of a duration, with systemd.time(7)'s names for each. */
static const struct { const char *name; uint64_t us; } duration_units[] = {
	{ "us", 1 }, { "usec", 1 }, { "ms", 1000 }, { "msec", 1000 },
	{ "s", 1000000 }, { "sec", 1000000 }, { "second", 1000000 },
	{ "seconds", 1000000 }, { "m", 60000000 }, { "min", 60000000 },
	{ "minute", 60000000 }, { "minutes", 60000000 },
	{ "h", 3600000000ULL }, { "hr", 3600000000ULL },
	{ "hour", 3600000000ULL }, { "hours", 3600000000ULL },
	{ "d", 86400000000ULL }, { "day", 86400000000ULL },
	{ "days", 86400000000ULL }, { "w", 604800000000ULL },
	{ "week", 604800000000ULL }, { "weeks", 604800000000ULL },
	/* systemd's: a month is 30.44 days, a year 365.25 */
	{ "M", 2629800000000ULL }, { "month", 2629800000000ULL },
	{ "months", 2629800000000ULL }, { "y", 31557600000000ULL },
	{ "year", 31557600000000ULL }, { "years", 31557600000000ULL },
};

/* A unit's length in us, from its name of len letters; 0: none such. */
static uint64_t
duration_unit(const char *p, size_t len)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(duration_units); i++)
		if (strlen(duration_units[i].name) == len &&
		    strncmp(p, duration_units[i].name, len) == 0)
			return duration_units[i].us;
	return 0;
}

/*
 * A duration: one or more NUMBER[.FRACTION]UNIT terms, largest unit
 * first as written ("1h30m", "2min 30s", "1.5s"), with the units of
 * systemd.time(7) (us, ms, s, m or min, h, d, w, M, y and their long
 * names), blanks between terms or before a unit; or a bare number, alone,
 * in bare_us units.  Into *us; -EINVAL for anything else, -ERANGE past
 * max_us.
 */
int
parse_duration_us(const char *s, uint64_t bare_us, uint64_t max_us,
    uint64_t *us)
{
	uint64_t	 total = 0, whole, frac, fscale, unit, last = UINT64_MAX;
	const char	*p = s;
	size_t		 len;

	do {
		if (last != UINT64_MAX)
			p += strspn(p, " ");
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (whole = 0; isdigit((unsigned char)*p); p++) {
			whole = whole * 10 + (uint64_t)(*p - '0');
			if (whole > max_us)
				return -ERANGE;
		}
		frac = 0;
		fscale = 1;
		if (*p == '.') {
			if (!isdigit((unsigned char)*++p))
				return -EINVAL;
			for (; isdigit((unsigned char)*p); p++) {
				if (fscale < 1000000) {
					frac = frac * 10 + (uint64_t)(*p - '0');
					fscale *= 10;
				}
			}
		}
		if (p[strspn(p, " ")] != '\0')
			p += strspn(p, " ");
		for (len = 0; isalpha((unsigned char)p[len]); len++)
			;
		if (len == 0) {
			/* A bare number stands alone. */
			if (last != UINT64_MAX || *p != '\0')
				return -EINVAL;
			unit = bare_us;
		} else {
			unit = duration_unit(p, len);
			if (unit == 0 || unit >= last)
				return -EINVAL;	/* unknown, or out of order */
			last = unit;
			p += len;
		}
		if (whole > (max_us - total) / unit)
			return -ERANGE;
		total += whole * unit + frac * unit / fscale;
		if (total > max_us)
			return -ERANGE;
	} while (*p != '\0');
	*us = total;
	return 0;
}

/* A duration in ms (a bare number is seconds), as parse_duration_us(). */
int
parse_duration(const char *s, uint32_t *ms)
{
	uint64_t	us;
	int		rc;

	rc = parse_duration_us(s, 1000000, (uint64_t)UINT32_MAX * 1000 + 999,
	    &us);
	if (rc == 0)
		*ms = (uint32_t)(us / 1000);
	return rc;
}

/* Human-readable duration: 450ms, 12.3s, 4m03s, 2h05m, 3d04h. */
void
format_duration(char *out, size_t n, int64_t ms)
{
	int64_t	s = ms / 1000;

	if (ms < 0)
		snprintf(out, n, "-");
	else if (ms < 1000)
		snprintf(out, n, "%dms", (int)ms);
	else if (ms < 60000)
		snprintf(out, n, "%d.%ds", (int)(ms / 1000),
		    (int)(ms % 1000 / 100));
	else if (s < 3600)
		snprintf(out, n, "%dm%02ds", (int)(s / 60), (int)(s % 60));
	else if (s < 86400)
		snprintf(out, n, "%dh%02dm", (int)(s / 3600),
		    (int)(s % 3600 / 60));
	else
		snprintf(out, n, "%dd%02dh", (int)(s / 86400),
		    (int)(s % 86400 / 3600));
}

/* Parse a decimal number no larger than max.  0, -EINVAL or -ERANGE. */
int
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0')
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * Read and drop what a peer sends once nothing more is wanted of it (its
 * request is answered, or under way), one read a call: true once it has
 * closed, the connection failed, or it sent more than SOCK_UNREAD_MAX
 * since (*unread counts): a peer that floods is dropped, and costs the
 * loop a few reads, not a core for as long as it likes.
 */
bool
sock_peer_gone(int fd, size_t *unread)
{
	char	junk[512];
	ssize_t	n = recv(fd, junk, sizeof(junk), MSG_DONTWAIT);

	if (n > 0 && (*unread += (size_t)n) > SOCK_UNREAD_MAX)
		return true;
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

/*
 * An address to listen on: HOST:PORT with HOST an IPv4 address,
 * [ADDR]:PORT with an IPv6 one, or :PORT or PORT alone, which is
 * 127.0.0.1 (loopback unless said).  No name is looked up: nothing
 * here may wait for a resolver.  PORT 0: any free port.
 */
int
parse_inet_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in	*in = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)ss;
	char			 host[INET6_ADDRSTRLEN + 1];
	const char		*colon = strrchr(s, ':'), *port = colon ?
				    colon + 1 : s;
	size_t			 hl = colon ? (size_t)(colon - s) : 0;
	uint64_t		 p;

	memset(ss, 0, sizeof(*ss));
	if (parse_u64(port, 65535, &p) < 0)
		return -EINVAL;
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		if (hl - 2 >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl - 2);
		host[hl - 2] = '\0';
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*in6);
		return 0;
	}
	if (hl >= sizeof(host) || memchr(s, ':', hl) != NULL)
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (hl == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return -EINVAL;
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)p);
	*len = sizeof(*in);
	return 0;
}

/* An inet address as HOST:PORT or [ADDR]:PORT. */
void
format_inet_addr(char *out, size_t n, const struct sockaddr_storage *ss)
{
	char	host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6	*in6 = (const void *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(out, n, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in	*in = (const void *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(out, n, "%s:%u", host, ntohs(in->sin_port));
	}
}

/*
 * When this process started, real ms (an exec keeps it): its start in
 * clock ticks after boot (/proc/self/stat) and the boot's time
 * (/proc/stat); 0 if either cannot be read.
 */
int64_t
proc_start_ms(void)
{
	char		buf[4096], *p;
	struct buf	st = { 0 };
	long		tck = sysconf(_SC_CLK_TCK);
	long long	start = 0, btime = 0;
	int		i;

	if (read_small(AT_FDCWD, "/proc/self/stat", buf, sizeof(buf)) < 0 ||
	    (p = strrchr(buf, ')')) == NULL)
		return 0;
	/* After "PID (comm)": state is field 3, starttime field 22. */
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, " %lld", &start) != 1)
		return 0;
	/* Long on a machine of many CPUs: the intr line comes first. */
	if (read_file(AT_FDCWD, "/proc/stat", 1 << 20, &st) < 0 ||
	    buf_add(&st, "", 1) < 0 ||
	    (p = strstr(st.data, "\nbtime ")) == NULL ||
	    sscanf(p, "\nbtime %lld", &btime) != 1 || tck <= 0)
		btime = -1;
	buf_free(&st);
	return btime < 0 ? 0 : btime * 1000 + start * 1000 / tck;
}

/* "64k", "1M", "2G" or a number of bytes, at most max. */
int
parse_size(const char *s, uint64_t max, uint64_t *out)
{
	char		num[32];
	size_t		n = strspn(s, "0123456789");
	uint64_t	v, mult = 1;
	int		rc;

	if (n == 0 || n >= sizeof(num))
		return n == 0 ? -EINVAL : -ERANGE;
	memcpy(num, s, n);
	num[n] = '\0';
	if (s[n] != '\0') {
		if (s[n + 1] != '\0')
			return -EINVAL;
		switch (s[n]) {
		case 'k': case 'K': mult = 1ULL << 10; break;
		case 'm': case 'M': mult = 1ULL << 20; break;
		case 'g': case 'G': mult = 1ULL << 30; break;
		default: return -EINVAL;
		}
	}
	if ((rc = parse_u64(num, max / mult, &v)) < 0)
		return rc;
	*out = v * mult;
	return 0;
}

static const struct {
	const char	*name;
	int		 sig;
} signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
	{ "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	{ "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT },
	{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN },
	{ "TTOU", SIGTTOU }, { "URG", SIGURG }, { "XCPU", SIGXCPU },
	{ "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
	{ "WINCH", SIGWINCH }, { "IO", SIGIO }, { "PWR", SIGPWR },
	{ "SYS", SIGSYS },
};

/* "TERM", "SIGTERM", "term" or "15" to a signal number; -EINVAL if none. */
int
signal_parse(const char *s)
{
	uint64_t	v;
	size_t		i;

	if (isdigit((unsigned char)*s)) {
		if (parse_u64(s, (uint64_t)SIGRTMAX, &v) < 0 || v == 0)
			return -EINVAL;
		return (int)v;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < ARRAY_SIZE(signals); i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	return -EINVAL;
}

/* The short name of a signal ("TERM"), or NULL if it has none. */
const char *
signal_name(int sig)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(signals); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return NULL;
}

/* Create the directories above path (mkdir -p of its dirname). */
int
mkdir_parent(const char *path, mode_t mode)
{
	char	buf[4096], *p;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (p = buf + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/*
 * One backslash escape of a command line at s (after the backslash), as
 * systemd reads them: \n \t \r \a \b \f \v, \s (a blank), \xHH,
 * else the character itself.  Into *c; the bytes it spans, 0 if none.
 */
static size_t
argv_escape(const char *s, char *c)
{
	static const char	from[] = "ntrabfvs", to[] = "\n\t\r\a\b\f\v ";
	const char		*e;
	unsigned		 v;

	if (*s == '\0')
		return 0;
	if ((e = strchr(from, *s)) != NULL) {
		*c = to[e - from];
		return 1;
	}
	if (*s == 'x' && isxdigit((unsigned char)s[1]) &&
	    isxdigit((unsigned char)s[2]) && sscanf(s + 1, "%2x", &v) == 1 &&
	    v != 0) {
		*c = (char)v;
		return 3;
	}
	*c = *s;
	return 1;
}

/*
 * Split a command line into a NULL-terminated argv, by systemd's rules
 * (systemd.service(5), COMMAND LINES): words are separated by blanks;
 * 'single' and "double" quotes, anywhere in a word, group; a backslash
 * escape (argv_escape) is one character, in quotes too.  Variables are
 * not expanded here but when the service starts (env_expand_argv).  On
 * error *why says what is wrong.
 */
int
argv_split(const char *s, char ***argvp, const char **why)
{
	char	**argv = NULL, **nargv, *word = NULL, quote = 0, c;
	size_t	  argc = 0, len = 0, n;
	bool	  inword = false;

	if ((word = malloc(strlen(s) + 1)) == NULL)
		goto nomem;
	for (;; s++) {
		if (*s == '\0' || (!quote && (*s == ' ' || *s == '\t'))) {
			if (*s == '\0' && quote) {
				*why = quote == '"' ? "unterminated quote (\")" :
				    "unterminated quote (')";
				goto fail;
			}
			if (inword) {
				word[len] = '\0';
				nargv = realloc(argv, (argc + 2) * sizeof(*argv));
				if (nargv == NULL)
					goto nomem;
				argv = nargv;
				if ((argv[argc] = strdup(word)) == NULL)
					goto nomem;
				argv[++argc] = NULL;
				inword = false;
				len = 0;
			}
			if (*s == '\0')
				break;
			continue;
		}
		inword = true;
		if (*s == quote) {
			quote = 0;
		} else if (!quote && (*s == '"' || *s == '\'')) {
			quote = *s;
		} else if (*s == '\\') {
			if ((n = argv_escape(s + 1, &c)) == 0) {
				*why = "trailing backslash";
				goto fail;
			}
			word[len++] = c;
			s += n;
		} else {
			word[len++] = *s;
		}
	}
	free(word);
	if (argc == 0) {
		*why = "empty command";
		free(argv);
		return -EINVAL;
	}
	*argvp = argv;
	return 0;
nomem:
	*why = strerror(ENOMEM);
	free(word);
	strv_free(argv);
	return -ENOMEM;
fail:
	free(word);
	strv_free(argv);
	return -EINVAL;
}

/* Free a NULL-terminated vector of strings. */
void
strv_free(char **v)
{
	char	**p;

	if (v == NULL)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

/* Number of strings in a NULL-terminated vector. */
size_t
strv_len(char *const *v)
{
	size_t	n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* v with a copy of s appended; NULL (and v freed) if out of memory. */
char **
strv_add(char **v, const char *s)
{
	size_t	  n = strv_len(v);
	char	**nv, *c;

	if ((c = strdup(s)) == NULL || (nv = realloc(v, (n + 2) *
	    sizeof(*nv))) == NULL) {
		free(c);
		strv_free(v);
		return NULL;
	}
	nv[n] = c;
	nv[n + 1] = NULL;
	return nv;
}

/* A copy of a NULL-terminated vector (an empty one for NULL), or NULL. */
char **
strv_dup(char *const *v)
{
	size_t	  n = strv_len(v), i;
	char	**c;

	if ((c = calloc(n + 1, sizeof(*c))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if ((c[i] = strdup(v[i])) == NULL) {
			strv_free(c);
			return NULL;
		}
	return c;
}

/* Do two NULL-terminated vectors hold the same strings? */
bool
strv_equal(char *const *a, char *const *b)
{
	size_t	i;

	if (a == NULL || b == NULL)
		return strv_len(a) == strv_len(b);
	for (i = 0; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return a[i] == b[i];
}

/* A CLOCK_REALTIME time in ms as RFC 3339 UTC: 2026-12-03T09:10:11.123Z */
void
format_rfc3339(char *out, size_t n, int64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);
	size_t		len;

	gmtime_r(&t, &tm);
	len = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + len, n - len, ".%03dZ", (int)(ms % 1000));
}

/* Log one line to stderr in a single write. */
void
log_msg(int level, const char *fmt, ...)
{
	static const char *const tag[] = {
		[LOG_ERR] = "error: ", [LOG_WARN] = "warning: ",
		[LOG_INFO] = "", [LOG_DEBUG] = "debug: ",
	};
	char	line[1024];
	int	n, m;
	va_list	ap;

	if (level > log_level)
		return;
	n = snprintf(line, sizeof(line), "pidvisor: %s", tag[level]);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (log_hook)
		log_hook(line, (size_t)n);
	else
		(void)!write(STDERR_FILENO, line, (size_t)n);
	if (log_also) {
		size_t	skip = strlen("pidvisor: ") + strlen(tag[level]);

		log_also(level, line + skip, (size_t)n - skip - 1);
	}
}

/*
 * A socket in a directory others may write in (and not sticky) can be
 * removed and replaced by theirs, which clients would then talk to: say
 * so.
 */
static void
unix_dir_check(const char *path)
{
	char		dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char	*slash = strrchr(path, '/');
	struct stat	st;

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
		    (int)(slash - path), path);
	if (stat(dir, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(st.st_mode & S_ISVTX))
		log_warn("%s: others may write in %s and replace this socket "
		    "by theirs", path, dir);
}

/*
 * Bind a new unix socket of type (SOCK_STREAM, SOCK_DGRAM) at path with
 * mode, taking the path only from what is safe to take: nothing, or a
 * socket nobody answers on (a stale one of ours).  Never a file that is
 * not a socket (-EEXIST), never a live socket (-EADDRINUSE), and the
 * mode is set by the umask at bind, not by a chmod that would follow a
 * symlink put there meanwhile; so is the group, if gid is not -1 (or
 * -EPERM if we may not give it).  The fd (CLOEXEC, NONBLOCK) with *id the
 * socket file's identity for unix_unlink, or -errno.
 */
int
unix_bind(const char *path, int type, mode_t mode, gid_t gid,
    struct file_id *id)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	struct stat		st;
	mode_t			old;
	int			fd, rc, ofsgid = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if ((fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0)) < 0)
			return -errno;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (rc == 0)
			return -EADDRINUSE;
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
	}
	if ((fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) < 0)
		return -errno;
	/* The group too is the socket's from its birth: our fsgid then. */
	old = umask(~mode & 0777);
	if (gid != (gid_t)-1)
		ofsgid = fsgid_swap(gid);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (gid != (gid_t)-1)
		fsgid_swap((gid_t)ofsgid);
	umask(old);
	if (rc < 0 || lstat(path, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (gid != (gid_t)-1 && st.st_gid != gid) {
		/* Not root, and not a member of gid. */
		unlink(path);
		close(fd);
		return -EPERM;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	unix_dir_check(path);
	return fd;
}

/*
 * setfsgid(), our parent-death signal kept: the kernel clears it with any
 * change of credentials, and an unshare --kill-child above us (the host
 * tests') relies on it.  The old fsgid.
 */
int
fsgid_swap(gid_t gid)
{
	int	sig = 0, old;

	prctl(PR_GET_PDEATHSIG, &sig);
	old = setfsgid(gid);
	if (sig != 0)
		prctl(PR_SET_PDEATHSIG, sig);
	return old;
}

/* Remove path if it is still the socket unix_bind made there. */
void
unix_unlink(const char *path, const struct file_id *id)
{
	struct stat	st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == id->dev && st.st_ino == id->ino)
		unlink(path);
}

/*
 * Edit distance of two short words, or SIZE_MAX where it must be more
 * than max (the lengths alone tell) or the words are too long to care.
 */
size_t
str_distance(const char *a, const char *b, size_t max)
{
	size_t	la = strlen(a), lb = strlen(b), i, j;
	size_t	row[64], prev, tmp;

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row) ||
	    la > lb + max || lb > la + max)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 1]) ? prev :
			    1 + (prev < row[j] ? (prev < row[j - 1] ? prev :
			    row[j - 1]) : (row[j] < row[j - 1] ? row[j] :
			    row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

/*
 * Close an fd of a kind whose close cannot wait (an fd store's: a
 * socket, a pipe, a memfd, an anonymous file; notifysock.c checked).  A
 * socket's last close waits out its linger: it loses its linger first,
 * so that a close of ours is abortive, never a wait.
 */
void
fd_close_safe(int fd)
{
	struct linger	none = { .l_onoff = 1, .l_linger = 0 };
	int		type;
	socklen_t	len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &none, sizeof(none));
	close(fd);
}

/* systemd's booleans, any case: 1 yes y true t on; 0 no n false f off. */
int
sd_bool(const char *v)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}
