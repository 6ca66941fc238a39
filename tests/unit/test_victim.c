/* test_victim.c - whom the low-memory killer picks */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util.h"
#include "victim.h"

static void
test_priority_then_size(void **state)
{
	const struct victim	v[] = {
		{ 10, 900 << 20 },	/* big, but less important to keep */
		{ 50, 20 << 20 },
		{ 50, 40 << 20 },	/* highest priority, then the biggest */
		{ -1, 2000 << 20 },	/* never */
		{ 0, 1 << 20 },
	};

	(void)state;
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v)), 2);
	assert_int_equal(victim_pick(v, 2), 1);
	assert_int_equal(victim_pick(v, 1), 0);
}

static void
test_never_and_none(void **state)
{
	const struct victim	v[] = { { -1, 100 }, { -1, 200 } };
	const struct victim	z[] = { { 0, 0 }, { 0, 0 } };

	(void)state;
	assert_int_equal(victim_pick(v, ARRAY_SIZE(v)), -1);
	assert_int_equal(victim_pick(v, 0), -1);
	assert_int_equal(victim_pick(z, ARRAY_SIZE(z)), 0);	/* first */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_priority_then_size),
		cmocka_unit_test(test_never_and_none),
	};

	return cmocka_run_group_tests_name("victim", tests, NULL, NULL);
}
