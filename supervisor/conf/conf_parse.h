/*
 * conf_parse.h - between reading the tree (conf.c) and parsing its values
 * (conf_parse.c, with the key table): the reader's context of one file.
 */
#ifndef PIDVISOR_CONF_PARSE_H
#define PIDVISOR_CONF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"

struct parse_ctx {
	struct conf	*c;
	const char	*file;
	const char	*text;		/* the reader's input */
	size_t		 pos;
	int		 line;		/* line the reader handed out last */
	int		 bad_line;	/* already reported: ignore its keys */
	int		 semi_line;	/* its quoted ';' hidden from inih */
	int		 section_line;
	bool		 cont;		/* that line continues a value */
	bool		 have_key;	/* a key was seen in this section */
	bool		 section_reported;
	struct svc_def	*def;		/* NULL while parsing pidvisor.ini */
	void		*obj;		/* what the keys fill: def or &c->sup */
	const struct conf_key *key;	/* the key being parsed */
	uint8_t		 section;	/* enum conf_section of the file */
	bool		 exec_bad;	/* the exec line was reported */
	bool		 tmpl;		/* a template's instance */
	bool		 caps_deny;	/* capabilities began with '~' */
	bool		 sys_out;	/* syscall_filter: a '~' line after an
					 * allow list (its calls taken out) */
	struct buf	 exec;
	int		 exec_line;
	int		 key_line[K__COUNT];	/* of each key in the table */
	struct keyset	 given;		/* keys given */
	char		 why[256];
};

void		 conf_error(struct conf *c, const char *file, int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char	*bad(struct parse_ctx *p, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
int		 conf_user(struct parse_ctx *p, struct svc_def *d);
int		 conf_users(struct parse_ctx *p, struct sup_conf *sc);
/* conf.c's and conf_tmpl.c's, to each other. */
int		 conf_parse_def(struct conf *c, const char *file,
		    const char *name, const char *text, bool tmpl,
		    struct svc_def **out);
struct svc_def	*conf_def_begin(struct conf *c, struct parse_ctx *p,
		    const char *file, const char *name, bool tmpl);
void		 conf_def_end(struct parse_ctx *p, struct svc_def *d);
void		 conf_apply(struct parse_ctx *p, const char *file, int line,
		    const char *key, const char *value);
const char	*conf_exit_statuses(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_condition(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_dirs_names(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_dirs_mode(struct parse_ctx *p, void *obj,
		    const char *v);
void		 conf_tty_finish(struct parse_ctx *p, const struct svc_def *d);
const char	*conf_unit_path(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_protect_namespaces(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_protect_families(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_protect_arch(struct parse_ctx *p, void *obj,
		    const char *v);
void		 conf_protect_show(struct buf *b, const struct conf_key *k,
		    const void *obj);
int		 conf_tmpl_add(struct conf *c, const char *file,
		    const char *name, char *text);
void		 conf_instances(struct conf *c);
int		 conf_group(struct parse_ctx *p, struct svc_def *d);
int		 conf_group_find(struct parse_ctx *p, enum conf_key_id key,
		    const char *name, gid_t *gid);
/* conf_parse.c's value helpers, for conf_harden.c. */
int		 parse_bool(const char *v, bool *out);
int		 parse_mode(const char *v, mode_t *out);
const char	*key_str(char **dst, const char *v);
const char	*key_strv_add(char ***vp, const char *v);
/* The hardening keys' parsers (conf_harden.c). */
const char	*conf_harden_flag(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_capabilities(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_paths(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_root_directory(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_syscall_filter(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_syscall_errno(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_cpu_affinity(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_cpu_max(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_harden_rlimit(struct parse_ctx *p, void *obj, const char *v);

/* The low-memory killer's keys (conf_pressure.c). */
const char	*conf_pressure(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_pressure_min_available(struct parse_ctx *p, void *obj,
		    const char *v);
const char	*conf_pressure_min_priority(struct parse_ctx *p, void *obj,
		    const char *v);
/* The keys of held fds (conf_listen.c). */
const char	*conf_listen(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_listen_owner(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_listen_mode(struct parse_ctx *p, void *obj, const char *v);
void		 conf_listen_finish(struct parse_ctx *p, struct svc_def *d);
/* The timer keys (conf_timer.c). */
const char	*conf_timer_calendar(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_timer_span(struct parse_ctx *p, void *obj, const char *v);
const char	*conf_timer_wake_system(struct parse_ctx *p, void *obj,
		    const char *v);
void		 conf_timer_finish(struct parse_ctx *p, struct svc_def *d);

#endif
