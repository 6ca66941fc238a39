/*
 * conf_tmpl.c - templates (services/NAME@.ini) and their instances:
 * the text of an instance is its template's with %i put in, parsed as
 * any service; the instances a template lists, or commands made, join
 * the tree.  Read by conf.c's conf_load().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"

/* The template that makes the instance name (NAME@INSTANCE), or NULL. */
const struct conf_tmpl *
conf_tmpl_of(const struct conf *c, const char *name)
{
	const char	*at = strchr(name, '@');
	size_t		 i, n;

	if (at == NULL || at[1] == '\0')
		return NULL;
	n = (size_t)(at - name) + 1;
	for (i = 0; i < c->ntmpls; i++)
		if (strlen(c->tmpls[i].name) == n &&
		    strncmp(c->tmpls[i].name, name, n) == 0)
			return &c->tmpls[i];
	return NULL;
}

/*
 * The text of an instance: its template's, with the specifiers replaced
 * as systemd does: %i and %I the instance, %n the service's name, %p
 * what comes before the '@', %% a '%'.  Comment lines stay as they are.
 * NULL, with the error, for any other '%'.
 */
static char *
conf_subst(struct conf *c, const struct conf_tmpl *t, const char *name)
{
	const char	*s, *inst = strchr(name, '@') + 1;
	struct buf	 b = { 0 };
	bool		 bol = true, comment = false;
	int		 line = 1;

	for (s = t->text; *s; s++) {
		if (*s == '\n') {
			line++;
			bol = true;
			comment = false;
		} else if (bol && *s != ' ' && *s != '\t') {
			comment = *s == ';' || *s == '#';
			bol = false;
		}
		if (*s != '%' || comment) {
			buf_add(&b, s, 1);
			continue;
		}
		switch (s[1]) {
		case 'i':
		case 'I':
			buf_puts(&b, inst);
			break;
		case 'n':
			buf_puts(&b, name);
			break;
		case 'p':
			buf_add(&b, name, (size_t)(inst - 1 - name));
			break;
		case '%':
			buf_add(&b, "%", 1);
			break;
		default:
			conf_error(c, t->file, line, "unknown specifier after "
			    "'%%' (a template knows %%i, %%I, %%n and %%p; "
			    "write %%%% for a '%%')");
			buf_free(&b);
			return NULL;
		}
		s++;
	}
	if (b.nomem || buf_add(&b, "", 1) < 0) {
		conf_error(c, t->file, 0, "%s", strerror(ENOMEM));
		c->nomem = true;
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

/*
 * Make the instance name (NAME@INSTANCE) of template t into the tree;
 * *out is its definition.  0, or -EINVAL with the errors in c.
 */
int
conf_instance(struct conf *c, const struct conf_tmpl *t, const char *name,
    struct svc_def **out)
{
	const char	*inst = strchr(name, '@');
	char		*text;
	int		 rc;

	*out = NULL;
	if (inst == NULL || inst[1] == '\0' || strchr(inst + 1, '@') ||
	    !conf_name_valid(name)) {
		conf_error(c, t->file, 0, "'%s' is not a valid instance name "
		    "(letters, digits, _.- after the '@', not . or - first; "
		    "at most %d in all)", name, SVC_NAME_MAX);
		return -EINVAL;
	}
	if ((text = conf_subst(c, t, name)) == NULL)
		return -EINVAL;
	rc = conf_parse_def(c, t->file, name, text, true, out);
	free(text);
	return rc;
}

/* Keep a template for its instances (the tree owns text from now on). */
int
conf_tmpl_add(struct conf *c, const char *file, const char *name, char *text)
{
	struct conf_tmpl	*v;

	if ((v = realloc(c->tmpls, (c->ntmpls + 1) * sizeof(*v))) == NULL) {
		free(text);
		goto nomem;
	}
	c->tmpls = v;
	v = &c->tmpls[c->ntmpls];
	v->name = strdup(name);
	v->file = strdup(file);
	v->text = text;
	if (v->name == NULL || v->file == NULL) {
		free(v->name);
		free(v->file);
		free(text);
		goto nomem;
	}
	c->ntmpls++;
	return 0;
nomem:
	conf_error(c, file, 0, "%s", strerror(ENOMEM));
	c->nomem = true;
	return -ENOMEM;
}

/* Drop the last definition of the tree (a template's probe). */
static void
conf_drop_last(struct conf *c, struct svc_def *d)
{
	if (d != NULL && c->ndefs > 0 && c->defs[c->ndefs - 1] == d) {
		svc_def_free(d);
		c->ndefs--;
	}
}

/*
 * The listener of an accept = yes template NAME@: a service NAME, made
 * of the template as its probe instance d was, which holds the sockets
 * and makes NAME@1, NAME@2, ... per client (socks.c).
 */
static int
conf_listener(struct svc_def *d, const struct conf_tmpl *t)
{
	char	*name = strndup(t->name, strlen(t->name) - 1);

	if (name == NULL)
		return -ENOMEM;
	free(d->name);
	d->name = name;
	return 0;
}

/*
 * The instances of every template: those it lists, and those commands
 * made (c->extra) while the template is there.  A template is checked
 * through a probe instance even if it lists none; each of its lines is
 * reported once, not once per instance.
 */
void
conf_instances(struct conf *c)
{
	char		 name[SVC_NAME_MAX + 2];
	struct svc_def	*d;
	char		**list;
	size_t		 i, j;

	for (i = 0; i < c->ntmpls; i++) {
		const struct conf_tmpl	*t = &c->tmpls[i];

		c->dedup = c->nerrs + 1;
		snprintf(name, sizeof(name), "%si", t->name);
		conf_instance(c, t, name, &d);
		list = d ? d->instances : NULL;
		if (d)
			d->instances = NULL;
		if (d && d->accept && conf_listener(d, t) == 0)
			d = NULL;	/* it is the listener, and stays */
		conf_drop_last(c, d);
		for (j = 0; list && list[j]; j++) {
			snprintf(name, sizeof(name), "%s%s", t->name, list[j]);
			conf_instance(c, t, name, &d);
		}
		strv_free(list);
		c->dedup = 0;
	}
	for (j = 0; c->extra && c->extra[j]; j++) {
		const struct conf_tmpl	*t = conf_tmpl_of(c, c->extra[j]);
		size_t			 k;

		for (k = 0; k < c->ndefs; k++)
			if (strcmp(c->defs[k]->name, c->extra[j]) == 0)
				break;
		if (t == NULL || k < c->ndefs)
			continue;
		c->dedup = c->nerrs + 1;
		if (conf_instance(c, t, c->extra[j], &d) == 0 && d)
			d->dynamic = true;
		c->dedup = 0;
	}
}

