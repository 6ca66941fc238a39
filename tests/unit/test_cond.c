/*
 * test_cond.c - systemd's conditions (cond.c): what a test's line may
 * be, the names systemd gives them, and the checker's exit statuses
 * (which one failed, '!', '|', conditions before assertions) on files
 * made here.
 */
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

#include "cond.h"

static char	dir[64];

static int
setup(void **state)
{
	char	path[128];
	FILE	*f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pv-cond.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/file", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("x\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/empty", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fclose(f);
	snprintf(path, sizeof(path), "%s/sub", dir);
	if (mkdir(path, 0755) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/link", dir);
	return symlink("file", path);
}

static int
teardown(void **state)
{
	char	cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_cond_parse(void **state)
{
	char	why[512];

	(void)state;
	assert_null(cond_parse("path_exists /etc", why, sizeof(why)));
	assert_null(cond_parse("path_exists |!/etc", why, sizeof(why)));
	assert_null(cond_parse("first_boot no", why, sizeof(why)));
	assert_null(cond_parse("capability CAP_SYS_ADMIN", why, sizeof(why)));
	assert_null(cond_parse("virtualization !container", why, sizeof(why)));
	assert_null(cond_parse("needs_update /etc", why, sizeof(why)));
	assert_non_null(cond_parse("path_exists etc", why, sizeof(why)));
	assert_string_equal(why, "path_exists: 'etc' is not an absolute path");
	assert_non_null(cond_parse("no_such /etc", why, sizeof(why)));
	assert_non_null(cond_parse("path_exists", why, sizeof(why)));
	assert_non_null(cond_parse("path_exists |!", why, sizeof(why)));
	assert_non_null(cond_parse("ac_power maybe", why, sizeof(why)));
	assert_non_null(cond_parse("needs_update /usr", why, sizeof(why)));
	assert_non_null(cond_parse("security grsec", why, sizeof(why)));
	assert_non_null(cond_parse("capability CAP_NOPE", why, sizeof(why)));
}

static void
test_cond_names(void **state)
{
	char	t[64];

	(void)state;
	assert_int_equal(cond_from_systemd("PathExists", t, sizeof(t)), 0);
	assert_string_equal(t, "path_exists");
	assert_int_equal(cond_from_systemd("ACPower", t, sizeof(t)), 0);
	assert_string_equal(t, "ac_power");
	assert_int_equal(cond_from_systemd("DirectoryNotEmpty", t, sizeof(t)),
	    0);
	assert_string_equal(t, "directory_not_empty");
	assert_int_equal(cond_from_systemd("OSRelease", t, sizeof(t)), -1);
	assert_string_equal(cond_systemd_name("file_not_empty", 14),
	    "FileNotEmpty");
	assert_null(cond_systemd_name("file", 4));
}

/* The checker's status for pairs of kind and line ("%s": dir). */
static int
check(int n, ...)
{
	char	*argv[16], lines[8][256];
	va_list	 ap;
	int	 i;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		argv[2 * i] = va_arg(ap, char *);
		snprintf(lines[i], sizeof(lines[i]), va_arg(ap, char *), dir);
		argv[2 * i + 1] = lines[i];
	}
	va_end(ap);
	return cond_main(2 * n, argv);
}

static void
test_cond_check(void **state)
{
	(void)state;
	assert_int_equal(check(1, "condition", "path_exists %s/file"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "path_exists %s/none"),
	    COND_FAILED);
	assert_int_equal(check(2, "condition", "path_exists %s/file",
	    "condition", "path_exists !%s/file"), COND_FAILED + 1);
	assert_int_equal(check(1, "condition", "file_not_empty %s/empty"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "file_not_empty %s/link"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "path_is_symbolic_link "
	    "%s/link"), COND_HELD);
	assert_int_equal(check(1, "condition", "path_is_directory %s/link"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "directory_not_empty %s/sub"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "directory_not_empty %s"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "path_exists_glob %s/f*"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "path_exists_glob %s/q*"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "file_is_executable %s/file"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "path_is_mount_point /"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "path_is_mount_point %s/sub"),
	    COND_FAILED);
	assert_int_equal(check(1, "condition", "path_is_mount_point /proc"),
	    COND_HELD);
	/* '|': one of them; the others all. */
	assert_int_equal(check(3, "condition", "path_exists |%s/none",
	    "condition", "path_exists |%s/file", "condition",
	    "path_exists %s/sub"), COND_HELD);
	assert_int_equal(check(2, "condition", "path_exists |%s/none",
	    "condition", "path_exists |!%s/file"), COND_TRIGGERS);
	/* Conditions first: a skip is not a failure. */
	assert_int_equal(check(2, "assert", "path_exists %s/none",
	    "condition", "path_exists %s/none"), COND_FAILED);
	assert_int_equal(check(2, "assert", "path_exists %s/file",
	    "assert", "path_exists %s/none"), COND_ASSERT_FAILED + 1);
	assert_int_equal(check(1, "assert", "path_exists |%s/none"),
	    COND_ASSERT_TRIGGERS);
	assert_int_equal(check(1, "condition", "environment "
	    "PV_COND_TEST=1"), COND_FAILED);
	setenv("PV_COND_TEST", "1", 1);
	assert_int_equal(check(1, "condition", "environment "
	    "PV_COND_TEST=1"), COND_HELD);
	assert_int_equal(check(1, "condition", "environment PV_COND_TEST"),
	    COND_HELD);
	assert_int_equal(check(1, "condition", "environment PV_COND"),
	    COND_FAILED);
	assert_int_equal(check(1, "bogus", "path_exists /"), COND_USAGE);
	assert_int_equal(check(1, "condition", "path_exists nope"),
	    COND_USAGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cond_parse),
		cmocka_unit_test(test_cond_names),
		cmocka_unit_test(test_cond_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
