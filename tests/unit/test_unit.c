/*
 * test_unit.c - unit files read as systemd reads them (unit.c): the
 * syntax, the search path, aliases, masks, templates, drop-ins, the
 * .wants directories.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"
#include "util.h"

static char	errs[4096];

static void
err_keep(void *arg, const char *file, int line, const char *msg)
{
	size_t	n = strlen(errs);

	(void)arg;
	snprintf(errs + n, sizeof(errs) - n, "%s:%d: %s\n",
	    strrchr(file, '/') ? strrchr(file, '/') + 1 : file, line, msg);
}

static const char *
val(const struct unit *u, const char *section, const char *key)
{
	const struct unit_kv	*kv = unit_get(u, section, key);

	return kv ? kv->value : NULL;
}

static void
test_unit_syntax(void **state)
{
	struct unit	u = { 0 };

	(void)state;
	errs[0] = '\0';
	assert_int_equal(unit_parse(&u, "t.service",
	    "Key=outside\n"
	    "# comment \\\n"
	    "[Unit]\n"
	    "Description = a  b \n"
	    "; another\n"
	    "[Service]\n"
	    "ExecStart=/bin/sh -c \\\n"
	    "  'echo a; \\\n"
	    "# left out\n"
	    "  echo b'\n"
	    "Environment=A=1\\\\\n"
	    "NoEquals\n"
	    "=x\n"
	    "[Bad\n"
	    "Lost=yes\n"
	    "[X-Mine]\n"
	    "Z=\n"
	    "Last=end \\", err_keep, NULL), 0);
	assert_string_equal(val(&u, "Unit", "Description"), "a  b");
	assert_string_equal(val(&u, "Service", "ExecStart"),
	    "/bin/sh -c    'echo a;    echo b'");
	assert_string_equal(val(&u, "Service", "Environment"), "A=1\\\\");
	assert_string_equal(val(&u, "X-Mine", "Z"), "");
	assert_string_equal(val(&u, "X-Mine", "Last"), "end");
	assert_null(val(&u, "Service", "Lost"));
	assert_int_equal(u.kv[1].line, 7);	/* where ExecStart= began */
	assert_string_equal(errs,
	    "t.service:1: assignment outside of a section: 'Key'\n"
	    "t.service:12: missing '=' (Key=Value)\n"
	    "t.service:13: no key before '='\n"
	    "t.service:14: invalid section header '[Bad'\n"
	    "t.service:15: assignment outside of a section: 'Lost'\n");
	unit_free(&u);
}

static void
test_unit_names(void **state)
{
	char	buf[64];

	(void)state;
	assert_true(unit_name_valid("ssh.service"));
	assert_true(unit_name_valid("getty@tty1.service"));
	assert_true(unit_name_valid("getty@.service"));
	assert_true(unit_name_valid("dev-disk-by\\x2duuid-1.swap"));
	assert_false(unit_name_valid("ssh"));
	assert_false(unit_name_valid(".service"));
	assert_false(unit_name_valid("a@b@c.service"));
	assert_false(unit_name_valid("@x.service"));
	assert_false(unit_name_valid("a b.service"));
	assert_false(unit_name_valid("a.conf"));
	assert_int_equal(unit_template_of("getty@tty1.service", buf,
	    sizeof(buf)), 0);
	assert_string_equal(buf, "getty@.service");
	assert_int_equal(unit_template_of("getty@.service", buf,
	    sizeof(buf)), -EINVAL);
	assert_int_equal(unit_template_of("ssh.service", buf, sizeof(buf)),
	    -EINVAL);
	assert_string_equal(unit_suffix("a.b.timer"), ".timer");
	assert_null(unit_suffix("a.b"));
}

static char	top[64];

static void
put(const char *rel, const char *text)
{
	char	path[256];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	*strrchr(path, '/') = '\0';
	assert_int_equal(mkdir_parent(path, 0755) < 0 && errno != EEXIST, 0);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void
link_to(const char *target, const char *rel)
{
	char	path[256];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	*strrchr(path, '/') = '\0';
	(void)mkdir_parent(path, 0755);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void
test_unit_load(void **state)
{
	struct unit_path up;
	struct unit	 u;
	char		 path[256], **v;

	(void)state;
	snprintf(top, sizeof(top), "/tmp/pvunit.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/etc:%s/run:%s/lib", top, top, top);
	assert_int_equal(unit_path_init(&up, path), 0);
	assert_int_equal(strv_len(up.dirs), 3);
	up.err = err_keep;
	errs[0] = '\0';

	/* /etc over /lib; drop-ins of every directory, by name, the first
	 * of a name winning; the type's and the dash prefix's too. */
	put("lib/a-b.service", "[Service]\nExecStart=/lib/a\nUser=lib\n");
	put("etc/a-b.service", "[Service]\nExecStart=/etc/a\n");
	put("lib/a-b.service.d/10-x.conf", "[Service]\nUser=ten\n");
	put("run/a-b.service.d/10-x.conf", "[Service]\nUser=run-ten\n");
	put("lib/a-b.service.d/20-y.conf", "[Service]\nNice=5\n");
	put("lib/a-.service.d/15-p.conf", "[Service]\nNice=3\nUMask=0077\n");
	put("lib/service.d/05-all.conf", "[Service]\nUMask=0022\n");
	put("lib/a-b.service.d/README", "not a drop-in\n");
	link_to("/dev/null", "etc/a-b.service.d/20-y.conf");
	assert_int_equal(unit_load(&up, "a-b.service", &u), 0);
	snprintf(path, sizeof(path), "%s/etc/a-b.service", top);
	assert_string_equal(u.fragment, path);
	assert_string_equal(val(&u, "Service", "ExecStart"), "/etc/a");
	assert_string_equal(val(&u, "Service", "Nice"), "3");
	assert_string_equal(val(&u, "Service", "User"), "run-ten");
	assert_string_equal(val(&u, "Service", "UMask"), "0077");
	assert_int_equal(strv_len(u.files), 4);	/* a-b, 05, 10, 15 */
	unit_free(&u);

	/* A mask; an alias; a template's instance; none at all. */
	put("lib/real.service", "[Service]\nExecStart=/real\n");
	link_to("/dev/null", "etc/masked.service");
	put("lib/masked.service", "[Service]\nExecStart=/m\n");
	snprintf(path, sizeof(path), "%s/lib/real.service", top);
	link_to(path, "etc/alias.service");
	put("lib/real.service.d/x.conf", "[Service]\nNice=1\n");
	put("lib/getty@.service", "[Service]\nExecStart=/getty %I\n");
	put("lib/getty@tty1.service.d/y.conf", "[Service]\nNice=2\n");
	assert_int_equal(unit_load(&up, "masked.service", &u), 0);
	assert_true(u.masked);
	assert_null(u.fragment);
	unit_free(&u);
	assert_int_equal(unit_load(&up, "alias.service", &u), 0);
	assert_string_equal(u.id, "real.service");
	assert_string_equal(val(&u, "Service", "Nice"), "1");
	unit_free(&u);
	assert_int_equal(unit_load(&up, "getty@tty1.service", &u), 0);
	assert_string_equal(u.id, "getty@tty1.service");
	assert_string_equal(val(&u, "Service", "ExecStart"), "/getty %I");
	assert_string_equal(val(&u, "Service", "Nice"), "2");
	unit_free(&u);
	assert_int_equal(unit_load(&up, "none.service", &u), 0);
	assert_null(u.fragment);
	assert_false(u.masked);
	unit_free(&u);

	/* .wants of every directory, and of the template. */
	link_to("../../lib/real.service",
	    "etc/multi-user.target.wants/real.service");
	link_to("../../lib/getty@.service",
	    "lib/multi-user.target.wants/getty@tty1.service");
	link_to("x", "run/multi-user.target.wants/not-a-unit");
	assert_int_equal(unit_dir_list(&up, "multi-user.target", ".wants",
	    &v), 0);
	assert_int_equal(strv_len(v), 2);
	assert_string_equal(v[0], "getty@tty1.service");
	assert_string_equal(v[1], "real.service");
	strv_free(v);
	assert_string_equal(errs, "");

	unit_path_free(&up);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_syntax),
		cmocka_unit_test(test_unit_names),
		cmocka_unit_test(test_unit_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
