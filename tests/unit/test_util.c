/* test_util.c - durations, argv splitting, signals, JSON strings */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

static void
test_duration_valid(void **state)
{
	static const struct { const char *in; uint32_t ms; } t[] = {
		{ "0", 0 }, { "100ms", 100 }, { "5", 5000 }, { "5s", 5000 },
		{ "1.5s", 1500 }, { "2m", 120000 }, { "0.25", 250 },
		{ "1.0005s", 1000 }, { "4294967295ms", UINT32_MAX },
		{ "1h", 3600000 }, { "1h30m", 5400000 }, { "1d", 86400000 },
		{ "2m30s", 150000 }, { "1s500ms", 1500 }, { "250000us", 250 },
		{ "1d2h3m4s5ms", 93784005 }, { "0.5h", 1800000 },
		/* systemd.time(7)'s names, blanks between terms */
		{ "1w", 604800000 }, { "1 s", 1000 }, { "1h 5m", 3900000 },
		{ "1min 30sec", 90000 }, { "2 weeks", 1209600000 },
		{ "1M", 2629800000U }, { "12hr", 43200000 },
		{ "3 days 1 hour", 262800000 }, { "5msec", 5 },
	};
	uint32_t	ms;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(parse_duration(t[i].in, &ms), 0);
		assert_int_equal(ms, t[i].ms);
	}
}

static void
test_duration_invalid(void **state)
{
	static const char *const bad[] = {
		"", "s", "-1", "1m1h", "1h1h", "1h5", "1h 5", "1min 1h",
		"1hm", "1 week 1 weeks", "1Min", " 1s", "1s ", "1.s", ".5", "1e3", "10 ", "ms",
		"1ss", "0x10",
	};
	uint32_t	ms;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(parse_duration(bad[i], &ms), -EINVAL);
	assert_int_equal(parse_duration("4294967296ms", &ms), -ERANGE);
	assert_int_equal(parse_duration("71583m", &ms), -ERANGE);
	assert_int_equal(parse_duration("99999999999999999999", &ms), -ERANGE);
}

static void
test_format_duration(void **state)
{
	char	b[32];

	(void)state;
	format_duration(b, sizeof(b), 450);
	assert_string_equal(b, "450ms");
	format_duration(b, sizeof(b), 12345);
	assert_string_equal(b, "12.3s");
	format_duration(b, sizeof(b), 243000);
	assert_string_equal(b, "4m03s");
	format_duration(b, sizeof(b), 7500000);
	assert_string_equal(b, "2h05m");
	format_duration(b, sizeof(b), 3 * 86400000LL + 4 * 3600000LL);
	assert_string_equal(b, "3d04h");
}

/* Split and compare with a NULL-terminated expectation. */
static void
check_split(const char *in, const char *const *want)
{
	char		**argv = NULL;
	const char	 *why = NULL;
	size_t		  i;

	assert_int_equal(argv_split(in, &argv, &why), 0);
	for (i = 0; want[i]; i++) {
		assert_non_null(argv[i]);
		assert_string_equal(argv[i], want[i]);
	}
	assert_null(argv[i]);
	strv_free(argv);
}

static void
test_argv_split(void **state)
{
	(void)state;
	check_split("/bin/echo a b", (const char *[]){ "/bin/echo", "a", "b",
	    NULL });
	check_split("  sh  -c \t \"echo 'x y'\"  ", (const char *[]){ "sh",
	    "-c", "echo 'x y'", NULL });
	check_split("a\\ b c", (const char *[]){ "a b", "c", NULL });
	check_split("say \"a \\\"quoted\\\" word\"", (const char *[]){ "say",
	    "a \"quoted\" word", NULL });
	check_split("x \"\" y", (const char *[]){ "x", "", "y", NULL });
	check_split("pre\"mid dle\"post", (const char *[]){ "premid dlepost",
	    NULL });
	check_split("back\\\\slash", (const char *[]){ "back\\slash", NULL });
	/* systemd's rules: single quotes, escapes, quotes in a word. */
	check_split("/bin/sh -c 'echo a; echo b'", (const char *[]){
	    "/bin/sh", "-c", "echo a; echo b", NULL });
	check_split("'it''s' \"don't\"", (const char *[]){ "its", "don't",
	    NULL });
	check_split("a\\tb \\x41\\s 'x\\ny' --opt=\"a b\"", (const char *[]){
	    "a\tb", "A ", "x\ny", "--opt=a b", NULL });
	check_split("$VAR ${X}y $$", (const char *[]){ "$VAR", "${X}y", "$$",
	    NULL });
}

static void
test_argv_split_errors(void **state)
{
	char		**argv = NULL;
	const char	 *why = NULL;

	(void)state;
	assert_int_equal(argv_split("echo \"open", &argv, &why), -EINVAL);
	assert_string_equal(why, "unterminated quote (\")");
	assert_int_equal(argv_split("echo 'open", &argv, &why), -EINVAL);
	assert_string_equal(why, "unterminated quote (')");
	assert_int_equal(argv_split("echo x\\", &argv, &why), -EINVAL);
	assert_string_equal(why, "trailing backslash");
	assert_int_equal(argv_split("   ", &argv, &why), -EINVAL);
	assert_string_equal(why, "empty command");
	assert_int_equal(argv_split("", &argv, &why), -EINVAL);
	assert_null(argv);
}

static void
test_signals(void **state)
{
	(void)state;
	assert_int_equal(signal_parse("TERM"), SIGTERM);
	assert_int_equal(signal_parse("SIGTERM"), SIGTERM);
	assert_int_equal(signal_parse("hup"), SIGHUP);
	assert_int_equal(signal_parse("9"), SIGKILL);
	assert_int_equal(signal_parse("0"), -EINVAL);
	assert_int_equal(signal_parse("65"), -EINVAL);
	assert_int_equal(signal_parse("SIGFOO"), -EINVAL);
	assert_int_equal(signal_parse(""), -EINVAL);
	assert_string_equal(signal_name(SIGUSR1), "USR1");
	assert_null(signal_name(0));
}

/* Where UTF-8 stops: overlong forms, surrogates and cut sequences. */
static void
test_utf8_valid_len(void **state)
{
	(void)state;
	assert_int_equal(utf8_valid_len("", 0), 0);
	assert_int_equal(utf8_valid_len("exec = x\n", 9), 9);
	assert_int_equal(utf8_valid_len("caf\xc3\xa9 \xe2\x82\xac", 9), 9);
	assert_int_equal(utf8_valid_len("\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(utf8_valid_len("ab\xff", 3), 2);
	assert_int_equal(utf8_valid_len("a\xc0\xaf", 3), 1);	/* overlong / */
	assert_int_equal(utf8_valid_len("\xed\xa0\x80", 3), 0);	/* surrogate */
	assert_int_equal(utf8_valid_len("ab\xe2\x82", 4), 2);	/* cut short */
	assert_int_equal(utf8_valid_len("\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
}

static void
test_json_str(void **state)
{
	struct buf	b = { 0 };

	(void)state;
	buf_json_str(&b, "a\"b\\c\nd\x01");
	assert_string_equal(b.data, "\"a\\\"b\\\\c\\nd\\u0001\"");
	b.len = 0;
	buf_json_str(&b, NULL);
	assert_string_equal(b.data, "null");
	buf_free(&b);
}

static void
test_parse_u64(void **state)
{
	uint64_t	v;

	(void)state;
	assert_int_equal(parse_u64("42", 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_u64("101", 100, &v), -ERANGE);
	assert_int_equal(parse_u64("4x", 100, &v), -EINVAL);
	assert_int_equal(parse_u64("", 100, &v), -EINVAL);
	assert_int_equal(parse_u64("-1", 100, &v), -EINVAL);
	assert_int_equal(parse_u64("99999999999999999999999", UINT64_MAX, &v),
	    -ERANGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_valid),
		cmocka_unit_test(test_duration_invalid),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_argv_split),
		cmocka_unit_test(test_argv_split_errors),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_utf8_valid_len),
		cmocka_unit_test(test_parse_u64),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
