/* test_svclog.c - the ring buffer of lines and the line format */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "svclog.h"

struct seen {
	char	text[64][128];
	size_t	n;
	uint64_t seq[64];
};

static void
collect(const struct svclog_line *l, void *arg)
{
	struct seen	*s = arg;

	snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)l->len,
	    l->text);
	s->seq[s->n++] = l->seq;
}

static void
push(struct svclog_ring *r, uint64_t seq, const char *text)
{
	struct svclog_line	l = {
		.ts_ms = 1000 * (int64_t)seq, .seq = seq, .pid = 42,
		.stream = STREAM_OUT, .len = (uint32_t)strlen(text),
		.text = text,
	};

	ring_push(r, &l);
}

static void
test_ring_keeps_the_newest(void **state)
{
	struct svclog_ring	*r = ring_new(512);
	struct seen	 s = { 0 };
	char		 line[64];
	uint64_t	 i;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "line %03llu", (unsigned long long)i);
		push(r, i, line);
	}
	/* Records wrapped round many times; the newest are whole and in order. */
	assert_true(ring_count(r) > 5 && ring_count(r) < 20);
	ring_walk(r, SIZE_MAX, collect, &s);
	assert_int_equal(s.n, ring_count(r));
	assert_string_equal(s.text[s.n - 1], "line 099");
	for (i = 1; i < s.n; i++)
		assert_int_equal(s.seq[i], s.seq[i - 1] + 1);

	memset(&s, 0, sizeof(s));
	ring_walk(r, 3, collect, &s);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.text[0], "line 097");
	assert_string_equal(s.text[2], "line 099");
	memset(&s, 0, sizeof(s));
	ring_walk(r, 0, collect, &s);
	assert_int_equal(s.n, 0);
	ring_free(r);
}

static void
test_ring_long_line(void **state)
{
	struct svclog_ring	*r = ring_new(256);
	struct seen	 s = { 0 };
	char		 big[1024];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	push(r, 0, "short");
	push(r, 1, big);		/* cut to what fits; evicts "short" */
	assert_int_equal(ring_count(r), 1);
	ring_walk(r, SIZE_MAX, collect, &s);
	assert_int_equal(s.seq[0], 1);
	push(r, 2, "after");
	memset(&s, 0, sizeof(s));
	ring_walk(r, SIZE_MAX, collect, &s);
	assert_string_equal(s.text[s.n - 1], "after");
	ring_free(r);
	assert_null(ring_new(8));
	assert_int_equal(ring_count(NULL), 0);
}

static void
test_format(void **state)
{
	struct svclog_line	l = {
		.ts_ms = 1764753011123LL, .seq = 7, .pid = 99,
		.stream = STREAM_ERR, .len = 8, .text = "a \"b\"\x01\xff!",
	};
	struct buf	b = { 0 };

	(void)state;
	/* For a terminal, control bytes and what is not UTF-8 escaped;
	 * for a file, the bytes. */
	svclog_format(&b, "web", &l, SVCLOG_TEXT);
	buf_add(&b, "", 1);
	assert_string_equal(b.data, "2025-12-03T09:10:11.123Z web[99] stderr: "
	    "a \"b\"\\x01\\xff!\n");
	b.len = 0;
	svclog_format(&b, "web", &l, SVCLOG_FILE);
	assert_int_equal(b.len, 41 + 8 + 1);
	assert_memory_equal(b.data + 41, "a \"b\"\x01\xff!\n", 9);
	b.len = 0;
	svclog_format(&b, "web", &l, SVCLOG_JSON);
	assert_string_equal(b.data, "{\"time\":\"2025-12-03T09:10:11.123Z\","
	    "\"service\":\"web\",\"pid\":99,\"stream\":\"stderr\",\"seq\":7,"
	    "\"line\":\"a \\\"b\\\"\\u0001\\ufffd!\"}");
	buf_free(&b);
}

/* What a terminal would act on is escaped; the rest of UTF-8 is kept. */
static void
test_escape(void **state)
{
	static const char	in[] = "ok\t\x1b]0;title\x07 \xc2\x9b"
				    "31m \xc3\xa9\xe2\x82\xac \x7f\xc3";
	struct buf		b = { 0 };

	(void)state;
	assert_int_equal(buf_add_escaped(&b, in, sizeof(in) - 1), 0);
	buf_add(&b, "", 1);
	assert_string_equal(b.data, "ok\t\\x1b]0;title\\x07 \\xc2\\x9b"
	    "31m \xc3\xa9\xe2\x82\xac \\x7f\\xc3");
	buf_free(&b);
}

static void
test_json_utf8(void **state)
{
	struct buf	b = { 0 };

	(void)state;
	buf_json_strn(&b, "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 12);
	assert_string_equal(b.data, "\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	b.len = 0;
	/* Overlong, surrogate, truncated, stray continuation: replaced. */
	buf_json_strn(&b, "\xc0\xaf|\xed\xa0\x80|\xe2\x82|\x80", 11);
	assert_string_equal(b.data, "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	    "\\ufffd\\ufffd|\\ufffd\"");
	buf_free(&b);
}

static void
test_parse_size(void **state)
{
	uint64_t	v;

	(void)state;
	assert_int_equal(parse_size("64k", 1ULL << 40, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size("1M", 1ULL << 40, &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(parse_size("2G", 1ULL << 40, &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(parse_size("4096", 1ULL << 40, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("1T", 1ULL << 40, &v), -EINVAL);
	assert_int_equal(parse_size("k", 1ULL << 40, &v), -EINVAL);
	assert_int_equal(parse_size("1kb", 1ULL << 40, &v), -EINVAL);
	assert_int_equal(parse_size("17M", 16 << 20, &v), -ERANGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_keeps_the_newest),
		cmocka_unit_test(test_ring_long_line),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_parse_size),
	};

	return cmocka_run_group_tests_name("svclog", tests, NULL, NULL);
}
