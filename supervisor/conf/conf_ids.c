/*
 * conf_ids.c - the users and groups of the configuration (user, group,
 * control_group, metrics_users), read from its etc's passwd and group
 * (/etc's) once a file is read, never through NSS: a name that is not
 * there is an error at its key's line, never a lookup on the loop.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_parse.h"
#include "util.h"

#define GROUPS_MAX	64

/*
 * The uids of metrics_users, from passwd (a number stands for itself):
 * 0, or -ENOENT, said at the key's line.
 */
int
conf_users(struct parse_ctx *p, struct sup_conf *sc)
{
	char		 path[4096];
	struct passwd	*pw;
	FILE		*f;
	uint64_t	 n;
	size_t		 i, k = strv_len(sc->metrics_users);
	int		 rc = 0;

	free(sc->metrics_uids);
	sc->nmetrics_uids = 0;
	if ((sc->metrics_uids = calloc(k + 1, sizeof(uid_t))) == NULL)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/passwd", p->c->etc);
	for (i = 0; i < k; i++) {
		const char	*name = sc->metrics_users[i];
		bool		 found = false;

		if (parse_u64(name, UINT32_MAX - 1, &n) == 0) {
			sc->metrics_uids[sc->nmetrics_uids++] = (uid_t)n;
			continue;
		}
		if ((f = fopen(path, "re")) != NULL) {
			while (!found && (pw = fgetpwent(f)) != NULL)
				if (strcmp(pw->pw_name, name) == 0) {
					sc->metrics_uids[sc->nmetrics_uids++] =
					    pw->pw_uid;
					found = true;
				}
			fclose(f);
		}
		if (!found) {
			conf_error(p->c, p->file, p->key_line[K_METRICS_USERS],
			    "metrics_users: no user '%s' in %s", name, path);
			rc = -ENOENT;
		}
	}
	return rc;
}

/* Find a user in passwd: by name, or by number. */
int
conf_user(struct parse_ctx *p, struct svc_def *d)
{
	char		 path[4096], login[256] = "";
	struct passwd	*pw;
	struct group	*gr;
	FILE		*f;
	uint64_t	 n;
	bool		 numeric = parse_u64(d->user, UINT32_MAX - 1, &n) == 0;
	bool		 found = false;
	gid_t		*g;

	snprintf(path, sizeof(path), "%s/passwd", p->c->etc);
	if ((f = fopen(path, "re")) != NULL) {
		while ((pw = fgetpwent(f)) != NULL) {
			if (numeric ? pw->pw_uid == n :
			    strcmp(pw->pw_name, d->user) == 0) {
				found = true;
				d->uid = pw->pw_uid;
				if (d->group == NULL)
					d->gid = pw->pw_gid;
				snprintf(login, sizeof(login), "%s",
				    pw->pw_name);
				break;
			}
		}
		fclose(f);
	}
	if (!found && !numeric) {
		conf_error(p->c, p->file, p->key_line[K_USER], "user: no user "
		    "'%s' in %s", d->user, path);
		return -ENOENT;
	}
	if (!found) {
		if (d->group == NULL) {
			conf_error(p->c, p->file, p->key_line[K_USER], "user: "
			    "uid %s has no entry in %s; set group too",
			    d->user, path);
			return -ENOENT;
		}
		d->uid = (uid_t)n;
		d->set_uid = true;
		return 0;
	}
	d->set_uid = d->set_gid = true;	/* an explicit group was set above */

	/* Supplementary groups: every group that lists the user. */
	snprintf(path, sizeof(path), "%s/group", p->c->etc);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while ((gr = fgetgrent(f)) != NULL && d->ngroups < GROUPS_MAX) {
		char	**m;

		for (m = gr->gr_mem; m && *m; m++) {
			if (strcmp(*m, login) != 0)
				continue;
			g = realloc(d->groups, (d->ngroups + 1) * sizeof(*g));
			if (g == NULL)
				break;
			d->groups = g;
			d->groups[d->ngroups++] = gr->gr_gid;
			break;
		}
	}
	fclose(f);
	return 0;
}

/*
 * Find a group in the group file, by name or by number, for key (group,
 * control_group): 0 with *gid, or -ENOENT, said at the key's line.
 */
int
conf_group_find(struct parse_ctx *p, enum conf_key_id key, const char *name,
    gid_t *gid)
{
	char		 path[4096];
	struct group	*gr = NULL;
	FILE		*f;
	uint64_t	 n;

	if (parse_u64(name, UINT32_MAX - 1, &n) == 0) {
		*gid = (gid_t)n;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/group", p->c->etc);
	if ((f = fopen(path, "re")) != NULL) {
		while ((gr = fgetgrent(f)) != NULL &&
		    strcmp(gr->gr_name, name) != 0)
			;
		if (gr != NULL)
			*gid = gr->gr_gid;
		fclose(f);
	}
	if (gr == NULL) {
		conf_error(p->c, p->file, p->key_line[key], "%s: no group "
		    "'%s' in %s", conf_keys[key].name, name, path);
		return -ENOENT;
	}
	return 0;
}
