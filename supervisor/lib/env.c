/*
 * env.c - the environment of a service, and its env files.
 *
 * The environment is ours, its env keys on top, the variables of its
 * env files on top of those (as systemd's EnvironmentFile= overrides
 * Environment=), then what we tell it: NOTIFY_SOCKET for a notify
 * service, WATCHDOG_USEC and WATCHDOG_PID for one with a watchdog,
 * LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES for one given fds.  The
 * same variables inherited from our own parent never reach a service:
 * they belong to our parent, not to it; an env file cannot set them
 * either.
 *
 * env_build() is a pure function of its arguments (unit-tested in
 * tests/unit/test_parts.c).  Its result is one allocation: the array,
 * then copies of the strings it owns; the strings of base and keys are
 * shared, and must outlive it.
 *
 * Env files are read by the spawn child (spawn.c), after it took the
 * service's credentials and before it execs: a file the service's user
 * may not read stays unread, and a read that never ends (a FIFO, a hung
 * mount) holds that child, which the spawn deadline kills, never PID 1.
 * So env_load() and what it calls allocate nothing, write no errno
 * (RAWSYS) and use only the room the parent gave.  A symlink on the way
 * is followed only if root or the service's user owns it (as
 * fs.protected_symlinks would in a sticky directory): a link another
 * user planted does not lead the service, or root, anywhere.
 *
 * An env file is read the way systemd reads an EnvironmentFile=: KEY=VALUE
 * lines; blanks around KEY and before VALUE are dropped, and after an
 * unquoted VALUE; '#' or ';' begins a comment line; a backslash takes
 * the next character as it is, and a backslash before the newline goes
 * on with the next line; 'single quotes' keep everything, newlines too;
 * in "double quotes" a backslash escapes only " \ ` $ and the newline.
 * Where systemd skips a line it cannot use, we refuse the file with
 * FILE:LINE:COLUMN and what is wrong, never with what the line says: it
 * may be another user's secret.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "rawpath.h"
#include "rawsys.h"
#include "util.h"

/* Variables we set, and never pass on from our own environment. */
static const char *const env_ours[] = {
	"NOTIFY_SOCKET=", "WATCHDOG_USEC=", "WATCHDOG_PID=",
	"LISTEN_FDS=", "LISTEN_PID=", "LISTEN_FDNAMES=",
	"MEMORY_PRESSURE_WATCH=", "MEMORY_PRESSURE_WRITE=",
};

/* Base64 of n bytes of in into out (4 * ((n + 2) / 3) + 1 bytes). */
static void
env_base64(const unsigned char *in, size_t n, char *out)
{
	static const char	a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				    "opqrstuvwxyz0123456789+/";
	uint32_t		v;
	size_t			i;

	for (i = 0; i < n; i += 3) {
		v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		*out++ = a[v >> 18 & 63];
		*out++ = a[v >> 12 & 63];
		*out++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*out++ = i + 2 < n ? a[v & 63] : '=';
	}
	*out = '\0';
}

/* Do a and b (KEY=VALUE) name the same variable? */
static bool
env_same(const char *a, const char *b)
{
	size_t	klen = strcspn(a, "=") + 1;

	return strncmp(a, b, klen) == 0;
}

/* Is var named in list (from index from on)? */
static bool
env_in(const char *var, char *const *list, size_t from)
{
	size_t	i;

	for (i = from; list && list[i]; i++)
		if (env_same(var, list[i]))
			return true;
	return false;
}

static bool
env_is_ours(const char *var)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(env_ours); i++)
		if (strncmp(var, env_ours[i], strlen(env_ours[i])) == 0)
			return true;
	return false;
}

/*
 * Build the environment of a service into *out (free it with env_free).
 * *path is the PATH its exec searches (NULL if none is set); with a
 * watchdog, *pid_slot is where the digits of WATCHDOG_PID go, which the
 * child writes (it alone knows its PID before it execs).  0, or -ENOMEM.
 */
int
env_build(const struct env_req *r, char ***out, const char **path,
    char **pid_slot)
{
	char	 own[5][64], trig[48], **env, *p;
	size_t	 nown = 0, n, i, k = 0, bytes = 0, nb = strv_len(r->base),
		 nk = strv_len(r->keys);

	*path = NULL;
	if (pid_slot)
		*pid_slot = NULL;
	if (r->watchdog_ms) {
		snprintf(own[nown++], sizeof(own[0]), "WATCHDOG_USEC=%llu",
		    (unsigned long long)r->watchdog_ms * 1000);
		/* Room for any PID; the child writes it, NUL-ended. */
		snprintf(own[nown++], sizeof(own[0]), "WATCHDOG_PID=%s",
		    "0000000000");
	}
	if (r->listen_slot)
		*r->listen_slot = NULL;
	if (r->listen_fds) {
		snprintf(own[nown++], sizeof(own[0]), "LISTEN_FDS=%u",
		    r->listen_fds);
		snprintf(own[nown++], sizeof(own[0]), "LISTEN_PID=%s",
		    "0000000000");
	}
	if (r->mp_watch) {
		/* As systemd writes it: the trigger, NUL included. */
		n = (size_t)snprintf(trig, sizeof(trig), "some %llu %u",
		    (unsigned long long)r->mp_threshold_ms * 1000,
		    MP_WINDOW_US) + 1;
		p = own[nown++];
		p += sprintf(p, "MEMORY_PRESSURE_WRITE=");
		env_base64((const unsigned char *)trig, n, p);
		bytes += strlen("MEMORY_PRESSURE_WATCH=") +
		    strlen(r->mp_watch) + 1;
	}
	for (i = 0; i < nown; i++)
		bytes += strlen(own[i]) + 1;
	if (r->notify)
		bytes += strlen("NOTIFY_SOCKET=") + strlen(r->notify) + 1;
	if (r->listen_fds && r->listen_names)
		bytes += strlen("LISTEN_FDNAMES=") + strlen(r->listen_names) +
		    1;
	n = nb + nk + nown + 4;
	if ((env = malloc(n * sizeof(*env) + bytes)) == NULL)
		return -ENOMEM;
	p = (char *)(env + n);
	for (i = 0; i < nb; i++)
		if (!env_is_ours(r->base[i]) && !env_in(r->base[i], r->keys,
		    0))
			env[k++] = r->base[i];
	for (i = 0; i < nk; i++)
		env[k++] = r->keys[i];
	for (i = 0; i < nown; i++) {
		env[k++] = strcpy(p, own[i]);
		if (pid_slot && strncmp(p, "WATCHDOG_PID=", 13) == 0)
			*pid_slot = p + 13;
		if (r->listen_slot && strncmp(p, "LISTEN_PID=", 11) == 0)
			*r->listen_slot = p + 11;
		p += strlen(p) + 1;
	}
	if (r->notify) {
		env[k++] = p;
		p += sprintf(p, "NOTIFY_SOCKET=%s", r->notify) + 1;
	}
	if (r->listen_fds && r->listen_names) {
		env[k++] = p;
		p += sprintf(p, "LISTEN_FDNAMES=%s", r->listen_names) + 1;
	}
	if (r->mp_watch) {
		env[k++] = p;
		sprintf(p, "MEMORY_PRESSURE_WATCH=%s", r->mp_watch);
	}
	env[k] = NULL;
	*path = env_path(env);
	*out = env;
	return 0;
}

/* Free what env_build made (the shared strings stay). */
void
env_free(char **env)
{
	free(env);
}

/* A blank, as isspace() in the C locale says (no locale: the child). */
static bool
env_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	    c == '\f' || c == '\r';
}

/* A variable name: ASCII letters, digits and _, not a digit first. */
static bool
env_name_valid(const char *s, size_t n)
{
	size_t	i;
	char	c;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++) {
		c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* Record a parse error at line:col; -1. */
static long
env_bad(struct env_fail *f, int what, int32_t line, int32_t col)
{
	f->what = what;
	f->err = 0;
	f->line = line;
	f->col = col;
	return -1;
}

enum env_state {
	E_PRE_KEY, E_KEY, E_PRE_VALUE, E_VALUE, E_VALUE_ESC, E_SQ, E_DQ,
	E_DQ_ESC, E_COMMENT, E_COMMENT_ESC,
};

/*
 * Parse the len bytes of an env file at text into out: its variables as
 * KEY=VALUE strings, each NUL-ended, one after the other (*nvars of
 * them).  out may be text itself: what is written never gets ahead of
 * what was read, and it needs len + 1 bytes.  The number of bytes
 * written; -1 with line, column and what in *f.
 */
long
env_file_parse(char *out, const char *text, size_t len, size_t *nvars,
    struct env_fail *f)
{
	enum env_state	 st = E_PRE_KEY;
	size_t		 i, o = 0, k = 0, keep = 0, n = 0;
	int32_t		 line = 1, col = 0, kline = 1, kcol = 1;
	char		 c;

	*nvars = 0;
	for (i = 0; i <= len; i++) {
		/* The last line may not end.  (text was read by a raw read(2),
		 * which the analyzer does not see fill it.) */
		c = i < len ? text[i] : '\n';	/* NOLINT(clang-analyzer-core.uninitialized.Assign) */
		col++;
		if (i < len && c == '\0')
			return env_bad(f, ENV_NUL, line, col);
		switch (st) {
		case E_PRE_KEY:
			if (c == '#' || c == ';') {
				st = E_COMMENT;
			} else if (!env_blank(c)) {
				st = E_KEY;
				kline = line;
				kcol = col;
				k = o;
				out[o++] = c;
			}
			break;
		case E_KEY:
			if (c == '=') {
				while (o > k && env_blank(out[o - 1]))
					o--;
				if (!env_name_valid(out + k, o - k))
					return env_bad(f, o - k > 7 &&
					    memcmp(out + k, "export ", 7) == 0 ?
					    ENV_EXPORT : ENV_NOT_NAME, kline,
					    kcol);
				out[o++] = '=';
				keep = o;
				st = E_PRE_VALUE;
			} else if (c == '\n') {
				return env_bad(f, ENV_NO_EQUALS, kline, kcol);
			} else {
				out[o++] = c;
			}
			break;
		case E_PRE_VALUE:
			if (c == '\n') {
				out[o++] = '\0';
				n++;
				st = E_PRE_KEY;
			} else if (c == '\'') {
				st = E_SQ;
			} else if (c == '"') {
				st = E_DQ;
			} else if (c == '\\') {
				st = E_VALUE_ESC;
			} else if (!env_blank(c)) {
				out[o++] = c;
				keep = o;
				st = E_VALUE;
			}
			break;
		case E_VALUE:
			if (c == '\n') {
				o = keep;		/* no end blanks */
				out[o++] = '\0';
				n++;
				st = E_PRE_KEY;
			} else if (c == '\\') {
				st = E_VALUE_ESC;
			} else {
				out[o++] = c;
				if (!env_blank(c))
					keep = o;
			}
			break;
		case E_VALUE_ESC:
			if (i == len) {		/* a backslash, then the end */
				out[o++] = '\0';
				n++;
				st = E_PRE_KEY;
				break;
			}
			if (c != '\n')		/* a newline: it goes on */
				out[o++] = c;
			keep = o;
			st = E_VALUE;
			break;
		case E_SQ:
			if (i == len)
				return env_bad(f, ENV_SQ_OPEN, kline, kcol);
			if (c == '\'')
				st = E_PRE_VALUE;
			else
				out[o++] = c;
			break;
		case E_DQ:
			if (i == len)
				return env_bad(f, ENV_DQ_OPEN, kline, kcol);
			if (c == '"')
				st = E_PRE_VALUE;
			else if (c == '\\')
				st = E_DQ_ESC;
			else
				out[o++] = c;
			break;
		case E_DQ_ESC:
			if (i == len)
				return env_bad(f, ENV_DQ_OPEN, kline, kcol);
			if (c == '"' || c == '\\' || c == '`' || c == '$') {
				out[o++] = c;
			} else if (c != '\n') {
				out[o++] = '\\';
				out[o++] = c;
			}
			st = E_DQ;
			break;
		case E_COMMENT:
			if (c == '\\')
				st = E_COMMENT_ESC;
			else if (c == '\n')
				st = E_PRE_KEY;
			break;
		case E_COMMENT_ESC:
			st = E_COMMENT;
			break;
		}
		if (c == '\n' && i < len) {
			line++;
			col = 0;
		}
	}
	*nvars = n;
	return (long)o;
}

/* Record a failure that is not a line's; -1. */
static int
env_fail_set(struct env_fail *f, int what, long err, uid_t uid)
{
	f->what = what;
	f->err = (int32_t)-err;
	f->line = f->col = 0;
	f->uid = (int32_t)uid;
	return -1;
}

/*
 * Open the env file at path (absolute) for reading, walking it a
 * component at a time (rawpath.c): a symlink is followed only if root
 * or owner owns it (at most 40 of them), and the file must be regular.
 * For the spawn child: raw system calls, the stack's room only.  The
 * fd, or -1 with *f saying why (f->err is the errno for ENV_ERRNO).
 */
int
env_file_open(const char *path, uid_t owner, struct env_fail *f)
{
	struct rawpath	 rp;
	struct stat	 st = { 0 };
	long		 root, fd, n;

	if (strlen(path) >= 4096 || path[0] != '/')
		return env_fail_set(f, ENV_ERRNO, strlen(path) >= 4096 ?
		    -ENAMETOOLONG : -EINVAL, 0);
	if ((root = RAWSYS(SYS_open, "/", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return env_fail_set(f, ENV_ERRNO, root, 0);
	n = rawpath_walk((int)root, path, owner, &rp);
	RAWSYS(SYS_close, root);
	if (n < 0)
		return env_fail_set(f, n == -ELOOP && rp.uid >= 0 ?
		    ENV_SYMLINK : ENV_ERRNO, n, rp.uid >= 0 ? (uid_t)rp.uid :
		    0);
	/* The file: not a FIFO that would block the open, not a symlink
	 * put there since. */
	fd = RAWSYS(SYS_openat, rp.dir, rp.name, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	RAWSYS(SYS_close, rp.dir);
	if (fd < 0)
		return env_fail_set(f, fd == -ELOOP ? ENV_SYMLINK :
		    ENV_ERRNO, fd, (uid_t)-1);
	if ((n = RAWSYS(SYS_fstat, fd, &st)) < 0 || !S_ISREG(st.st_mode)) {
		RAWSYS(SYS_close, fd);
		return env_fail_set(f, n < 0 ? ENV_ERRNO : ENV_NOT_REGULAR,
		    n, 0);
	}
	return (int)fd;
}

/* Put var into the environment, in place of one of the same name. */
static void
env_put(struct env_load *l, char *var)
{
	size_t	i;

	if (env_is_ours(var))
		return;
	for (i = 0; i < l->nenv; i++)
		if (env_same(var, l->envp[i])) {
			l->envp[i] = var;
			return;
		}
	l->envp[l->nenv++] = var;
}

/*
 * Read l's env files, in order, and put their variables into l->envp
 * (a later line or file wins).  For the spawn child, with the service's
 * credentials: only raw system calls, no allocation, the room in l.
 * 0; -1 with *f saying which file, where and what.
 */
int
env_load(struct env_load *l, struct env_fail *f)
{
	const char	*spec;
	char		*p, probe;
	size_t		 used = 0, start, nv = 0, n, i;
	long		 r, o;
	int		 k, fd;
	bool		 optional;

	for (k = 0; l->files[k] != NULL; k++) {
		spec = l->files[k];
		optional = spec[0] == '-';
		f->file = k;
		if ((fd = env_file_open(spec + optional, l->owner, f)) < 0) {
			if (optional && f->what == ENV_ERRNO &&
			    f->err == ENOENT)
				continue;
			return -1;
		}
		start = used;
		for (;;) {
			/* One byte stays for the parse's last NUL. */
			if (used + 1 >= l->buflen)
				r = RAWSYS(SYS_read, fd, &probe, 1);
			else
				r = RAWSYS(SYS_read, fd, l->buf + used,
				    l->buflen - 1 - used);
			if (r == -EINTR)
				continue;
			if (r <= 0)
				break;
			if (used + 1 >= l->buflen) {
				RAWSYS(SYS_close, fd);
				return env_fail_set(f, ENV_TOO_BIG, 0, 0);
			}
			used += (size_t)r;
		}
		RAWSYS(SYS_close, fd);
		if (r < 0)
			return env_fail_set(f, ENV_ERRNO, r, 0);
		if ((o = env_file_parse(l->buf + start, l->buf + start,
		    used - start, &n, f)) < 0)
			return -1;
		if ((nv += n) > ENV_FILE_VARS || l->nenv + n > l->cap)
			return env_fail_set(f, ENV_TOO_MANY, 0, 0);
		for (i = 0, p = l->buf + start; i < n; i++, p += strlen(p) + 1)
			env_put(l, p);
		used = start + (size_t)o;
	}
	l->envp[l->nenv] = NULL;
	return 0;
}

/* The value of PATH in envp, or NULL. */
const char *
env_path(char *const *envp)
{
	size_t	i;

	for (i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	return NULL;
}

/* Does a command line name a variable ($NAME, ${NAME}, $$)? */
bool
env_argv_has_vars(char *const *argv)
{
	size_t	i;

	for (i = 0; argv && argv[i]; i++)
		if (strchr(argv[i], '$') != NULL)
			return true;
	return false;
}

/* The value of the variable name[0..n) in envp, or NULL. */
static const char *
env_get(char *const *envp, const char *name, size_t n)
{
	size_t	i;

	for (i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* Is c a letter, '_', or (not first) a digit?  (No locale: the child.) */
static bool
env_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && c >= '0' && c <= '9');
}

/* The length of the variable name at s, 0 if there is none. */
static size_t
env_name_len(const char *s)
{
	size_t	n = 0;

	while (env_name_char(s[n], n == 0))
		n++;
	return n;
}

/*
 * Expand the variables of a command line as systemd does when the
 * service starts: a word that is $NAME alone becomes the value's words,
 * split at blanks (none if it is unset or blank); ${NAME} anywhere in a
 * word is the value, whole (empty if unset); $$ is a $; any other $
 * stays.  Into x's room: no allocation (the spawn child calls it, once
 * its env files are read).  0; -E2BIG if the room is short (it is made
 * big enough: env_expand_room); -ENOEXEC if no word is left.
 */
int
env_expand_argv(char *const *argv, char *const *envp, struct env_expand *x)
{
	char		*b = x->buf, *end = x->buf + x->buflen;
	const char	*w, *v;
	size_t		 i, k = 0, n;

	for (i = 0; argv[i]; i++) {
		w = argv[i];
		if (w[0] == '$' && (n = env_name_len(w + 1)) > 0 &&
		    w[1 + n] == '\0') {
			v = env_get(envp, w + 1, n);
			while (v && *v) {
				v += strspn(v, " \t\n");
				if ((n = strcspn(v, " \t\n")) == 0)
					break;
				if (k + 1 >= x->cap || (size_t)(end - b) <= n)
					return -E2BIG;
				x->argv[k++] = memcpy(b, v, n);
				b += n;
				*b++ = '\0';
				v += n;
			}
			continue;
		}
		if (k + 1 >= x->cap)
			return -E2BIG;
		x->argv[k++] = b;
		for (; *w; w++) {
			v = NULL;
			if (w[0] == '$' && w[1] == '$') {
				v = "$";
				w++;
			} else if (w[0] == '$' && w[1] == '{' &&
			    (n = env_name_len(w + 2)) > 0 && w[2 + n] == '}') {
				v = env_get(envp, w + 2, n);
				w += 2 + n;
				if (v == NULL)
					v = "";
			}
			n = v ? strlen(v) : 1;
			if ((size_t)(end - b) <= n)
				return -E2BIG;
			memcpy(b, v ? v : w, n);
			b += n;
		}
		if (b == end)
			return -E2BIG;
		*b++ = '\0';
	}
	x->argv[k] = NULL;
	return k == 0 ? -ENOEXEC : 0;
}

/*
 * The room env_expand_argv needs for argv, with values of at most
 * maxval bytes: each $ may become a whole value, of up to maxval / 2 + 1
 * words.
 */
void
env_expand_room(char *const *argv, size_t maxval, size_t *cap, size_t *len)
{
	const char	*s;
	size_t		 i, refs = 0;

	*cap = 1;
	*len = 0;
	for (i = 0; argv[i]; i++) {
		for (s = argv[i]; (s = strchr(s, '$')) != NULL; s++)
			refs++;
		*len += strlen(argv[i]) + 1;
		(*cap)++;
	}
	*len += refs * (maxval + 1);
	*cap += refs * (maxval / 2 + 1);
}

/* Say what *f says of the env files (as written) in out. */
void
env_fail_format(const struct env_fail *f, char *const *files, char *out,
    size_t n)
{
	const char	*file = "?", *what;
	size_t		 nf = strv_len(files);

	if (f->file >= 0 && (size_t)f->file < nf)
		file = files[f->file] + (files[f->file][0] == '-');
	switch (f->what) {
	case ENV_ERRNO:
		snprintf(out, n, "%s: %s", file, strerror(f->err));
		return;
	case ENV_TOO_BIG:
		snprintf(out, n, "%s: too large (the env files of a service "
		    "hold at most %d KiB together)", file, ENV_FILES_MAX / 1024);
		return;
	case ENV_NOT_REGULAR:
		snprintf(out, n, "%s: not a regular file", file);
		return;
	case ENV_SYMLINK:
		if (f->uid == -1)
			snprintf(out, n, "%s: a symlink put in its place; not "
			    "followed", file);
		else
			snprintf(out, n, "%s: a symlink on its path is owned by "
			    "uid %d, neither root nor the service's user: not "
			    "followed", file, (int)f->uid);
		return;
	case ENV_TOO_MANY:
		snprintf(out, n, "%s: more than %d variables in the env files",
		    file, ENV_FILE_VARS);
		return;
	case ENV_NUL:
		what = "a NUL byte";
		break;
	case ENV_NOT_NAME:
		what = "not a variable name (letters, digits, _; not a digit "
		    "first)";
		break;
	case ENV_EXPORT:
		what = "not a variable name: write it without 'export'";
		break;
	case ENV_NO_EQUALS:
		what = "expected KEY=VALUE";
		break;
	case ENV_SQ_OPEN:
		what = "the single quote is not closed";
		break;
	case ENV_DQ_OPEN:
		what = "the double quote is not closed";
		break;
	default:
		what = "?";
	}
	snprintf(out, n, "%s:%d:%d: %s", file, (int)f->line, (int)f->col,
	    what);
}

/*
 * pidvisor --check: read the env file spec names as we are (root,
 * typically: the service may be able to read less) and say what is
 * wrong.  0 (a missing optional file too); -ENOENT: a required file is
 * missing now; -EINVAL: it is wrong; -ENOMEM.  The message in err.
 */
int
env_file_check(const char *spec, uid_t owner, char *err, size_t n)
{
	struct env_fail	 f = { 0 };
	char *const	 files[] = { (char *)spec, NULL };
	struct env_load	 l = { .files = files, .cap = ENV_FILE_VARS,
			       .owner = owner };
	int		 rc = 0;

	l.buflen = ENV_LOAD_BUF(1);
	if ((l.buf = malloc(l.buflen)) == NULL ||
	    (l.envp = calloc(l.cap + 1, sizeof(*l.envp))) == NULL) {
		free(l.buf);
		snprintf(err, n, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (env_load(&l, &f) < 0) {
		env_fail_format(&f, files, err, n);
		rc = f.what == ENV_ERRNO && f.err == ENOENT ? -ENOENT : -EINVAL;
	}
	free(l.buf);
	free(l.envp);
	return rc;
}
