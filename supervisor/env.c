/*
 * env.c - the environment of a service, and its env files.
 *
 * The environment is ours, its env keys on top, the variables of its
 * env files on top of those (as systemd's EnvironmentFile= overrides
 * Environment=), then what we tell it: NOTIFY_SOCKET for a notify
 * service, WATCHDOG_USEC and WATCHDOG_PID for one with a watchdog.  The
 * same variables inherited from our own parent never reach a service:
 * they belong to our parent, not to it.
 *
 * env_build() is a pure function of its arguments (unit-tested in
 * tests/unit/test_parts.c).  Its result is one allocation: the array,
 * then copies of the strings it owns; the strings of base and keys are
 * shared, and must outlive it.
 *
 * An env file is read the way systemd reads an EnvironmentFile=: KEY=VALUE
 * lines; blanks around KEY and before VALUE are dropped, and after an
 * unquoted VALUE; '#' or ';' begins a comment line; a backslash takes
 * the next character as it is, and a backslash before the newline goes
 * on with the next line; 'single quotes' keep everything, newlines too;
 * in "double quotes" a backslash escapes only " \ ` $ and the newline.
 * Where systemd skips a line it cannot use, we refuse the file with
 * FILE:LINE: a variable that silently goes missing is worse.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "util.h"

#define ENV_FILE_MAX	(1 << 20)

/* Variables we set, and never pass on from our own environment. */
static const char *const env_ours[] = {
	"NOTIFY_SOCKET=", "WATCHDOG_USEC=", "WATCHDOG_PID=",
};

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
	char	 own[2][64], **env, *p;
	size_t	 nown = 0, n, i, k = 0, bytes = 0, nb = strv_len(r->base),
		 nk = strv_len(r->keys), nf = strv_len(r->files);

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
	for (i = 0; i < nf; i++)
		bytes += strlen(r->files[i]) + 1;
	for (i = 0; i < nown; i++)
		bytes += strlen(own[i]) + 1;
	if (r->notify)
		bytes += strlen("NOTIFY_SOCKET=") + strlen(r->notify) + 1;
	n = nb + nk + nf + nown + 2;
	if ((env = malloc(n * sizeof(*env) + bytes)) == NULL)
		return -ENOMEM;
	p = (char *)(env + n);
	for (i = 0; i < nb; i++)
		if (!env_is_ours(r->base[i]) && !env_in(r->base[i], r->keys,
		    0) && !env_in(r->base[i], r->files, 0))
			env[k++] = r->base[i];
	for (i = 0; i < nk; i++)
		if (!env_in(r->keys[i], r->files, 0))
			env[k++] = r->keys[i];
	for (i = 0; i < nf; i++) {
		if (env_in(r->files[i], r->files, i + 1))
			continue;	/* a later line sets it */
		env[k++] = strcpy(p, r->files[i]);
		p += strlen(p) + 1;
	}
	for (i = 0; i < nown; i++) {
		env[k++] = strcpy(p, own[i]);
		if (pid_slot && strncmp(p, "WATCHDOG_PID=", 13) == 0)
			*pid_slot = p + 13;
		p += strlen(p) + 1;
	}
	if (r->notify) {
		env[k++] = p;
		sprintf(p, "NOTIFY_SOCKET=%s", r->notify);
	}
	env[k] = NULL;
	for (i = 0; i < k; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			*path = env[i] + 5;
	*out = env;
	return 0;
}

/* Free what env_build made (the shared strings stay). */
void
env_free(char **env)
{
	free(env);
}

/* Record "FILE:LINE: message" in err. */
static int
env_err(char *err, size_t n, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
env_err(char *err, size_t n, const char *file, int line, const char *fmt, ...)
{
	va_list	ap;
	int	len;

	len = snprintf(err, n, "%s:%d: ", file, line);
	if (len < 0 || (size_t)len >= n)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + len, n - (size_t)len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Append KEY=VALUE to *vars.  0, or -ENOMEM. */
static int
env_push(char ***vars, const struct buf *key, const struct buf *val)
{
	size_t	  n = strv_len(*vars);
	char	**v, *s;

	if (asprintf(&s, "%.*s=%.*s", (int)key->len, key->data ? key->data :
	    "", (int)val->len, val->data ? val->data : "") < 0)
		return -ENOMEM;
	if ((v = realloc(*vars, (n + 2) * sizeof(*v))) == NULL) {
		free(s);
		return -ENOMEM;
	}
	v[n] = s;
	v[n + 1] = NULL;
	*vars = v;
	return 0;
}

/* A variable name: letters, digits and _, not a digit first. */
static bool
env_name_valid(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

enum env_state {
	E_PRE_KEY, E_KEY, E_PRE_VALUE, E_VALUE, E_VALUE_ESC, E_SQ, E_DQ,
	E_DQ_ESC, E_COMMENT, E_COMMENT_ESC,
};

/*
 * Parse the text of an env file (file names it in messages) and append
 * its variables to *vars.  0; -EINVAL with "FILE:LINE: message" in err;
 * -ENOMEM.
 */
int
env_file_parse(const char *text, size_t len, const char *file, char ***vars,
    char *err, size_t errlen)
{
	struct buf	 key = { 0 }, val = { 0 };
	enum env_state	 st = E_PRE_KEY;
	size_t		 i, keep = 0;	/* val's length without end blanks */
	int		 line = 1, kline = 1, rc = 0;
	char		 c;

	for (i = 0; i <= len && rc == 0; i++) {
		c = i < len ? text[i] : '\n';	/* the last line may not end */
		if (i < len && c == '\0') {
			rc = env_err(err, errlen, file, line, "a NUL byte");
			break;
		}
		switch (st) {
		case E_PRE_KEY:
			if (c == '#' || c == ';') {
				st = E_COMMENT;
			} else if (!isspace((unsigned char)c)) {
				st = E_KEY;
				kline = line;
				key.len = 0;
				buf_add(&key, &c, 1);
			}
			break;
		case E_KEY:
			if (c == '=') {
				while (key.len && isspace((unsigned char)
				    key.data[key.len - 1]))
					key.len--;
				if (!env_name_valid(key.data, key.len)) {
					rc = env_err(err, errlen, file, kline,
					    "'%.*s' is not a variable name "
					    "(letters, digits, _; not a digit "
					    "first)%s", (int)key.len, key.data,
					    key.len > 7 && strncmp(key.data,
					    "export ", 7) == 0 ? ": write it "
					    "without 'export'" : "");
					break;
				}
				st = E_PRE_VALUE;
				val.len = keep = 0;
			} else if (c == '\n') {
				rc = env_err(err, errlen, file, kline, "expected "
				    "KEY=VALUE, not '%.*s'", (int)key.len,
				    key.data);
			} else {
				buf_add(&key, &c, 1);
			}
			break;
		case E_PRE_VALUE:
			if (c == '\n') {
				rc = env_push(vars, &key, &val);
				st = E_PRE_KEY;
			} else if (c == '\'') {
				st = E_SQ;
			} else if (c == '"') {
				st = E_DQ;
			} else if (c == '\\') {
				st = E_VALUE_ESC;
			} else if (!isspace((unsigned char)c)) {
				buf_add(&val, &c, 1);
				keep = val.len;
				st = E_VALUE;
			}
			break;
		case E_VALUE:
			if (c == '\n') {
				val.len = keep;		/* no end blanks */
				rc = env_push(vars, &key, &val);
				st = E_PRE_KEY;
			} else if (c == '\\') {
				st = E_VALUE_ESC;
			} else {
				buf_add(&val, &c, 1);
				if (!isspace((unsigned char)c))
					keep = val.len;
			}
			break;
		case E_VALUE_ESC:
			if (i == len) {		/* a backslash, then the end */
				rc = env_push(vars, &key, &val);
				st = E_PRE_KEY;
				break;
			}
			if (c != '\n')		/* a newline: it goes on */
				buf_add(&val, &c, 1);
			keep = val.len;
			st = E_VALUE;
			break;
		case E_SQ:
			if (i == len) {
				rc = env_err(err, errlen, file, kline, "the "
				    "single quote is not closed");
			} else if (c == '\'') {
				st = E_PRE_VALUE;
			} else {
				buf_add(&val, &c, 1);
			}
			break;
		case E_DQ:
			if (i == len)
				rc = env_err(err, errlen, file, kline, "the "
				    "double quote is not closed");
			else if (c == '"')
				st = E_PRE_VALUE;
			else if (c == '\\')
				st = E_DQ_ESC;
			else
				buf_add(&val, &c, 1);
			break;
		case E_DQ_ESC:
			if (i == len) {
				rc = env_err(err, errlen, file, kline, "the "
				    "double quote is not closed");
			} else if (strchr("\"\\`$", c) != NULL) {
				buf_add(&val, &c, 1);
			} else if (c != '\n') {
				buf_add(&val, "\\", 1);
				buf_add(&val, &c, 1);
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
		if (c == '\n' && i < len)
			line++;
		if (key.nomem || val.nomem)
			rc = -ENOMEM;
	}
	buf_free(&key);
	buf_free(&val);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: %s", file, strerror(ENOMEM));
	return rc;
}

/*
 * Read the env file spec names (a leading '-': it may be missing) and
 * append its variables to *vars.  0; -errno with the message in err.
 */
int
env_file_read(const char *spec, char ***vars, char *err, size_t errlen)
{
	bool		 optional = spec[0] == '-';
	const char	*path = spec + optional;
	struct buf	 b = { 0 };
	int		 rc;

	if ((rc = read_file(AT_FDCWD, path, ENV_FILE_MAX, &b)) < 0) {
		buf_free(&b);
		if (optional && rc == -ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, rc == -EFBIG ?
		    "file too large (at most 1 MiB)" : rc == -EINVAL ?
		    "not a regular file" : strerror(-rc));
		return rc;
	}
	rc = env_file_parse(b.data ? b.data : "", b.len, path, vars, err,
	    errlen);
	buf_free(&b);
	return rc;
}
