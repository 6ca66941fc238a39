/* test_proto.c - control frames, requests, arguments; sd_notify datagrams */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "notifymsg.h"
#include "proto.h"

static void
test_frame_roundtrip(void **state)
{
	struct buf		b = { 0 };
	struct ctl_frame	f;
	const char		*msg;
	int			code, n;

	(void)state;
	assert_int_equal(ctl_frame_put(&b, CTL_OUTPUT, "hello", 5), 0);
	assert_int_equal(ctl_end_put(&b, CTL_ENOSVC, "no such service"), 0);
	n = ctl_frame_get(b.data, b.len, CTL_FRAME_MAX, &f);
	assert_int_equal(n, CTL_HDR_SIZE + 5);
	assert_int_equal(f.type, CTL_OUTPUT);
	assert_memory_equal(f.payload, "hello", 5);
	n = ctl_frame_get(b.data + n, b.len - (size_t)n, CTL_FRAME_MAX, &f);
	assert_true(n > 0);
	assert_int_equal(ctl_end_get(&f, &code, &msg), 0);
	assert_int_equal(code, CTL_ENOSVC);
	assert_string_equal(msg, "no such service");
	buf_free(&b);
}

/* Every proper prefix of a frame asks for more; none is misread. */
static void
test_frame_truncated(void **state)
{
	struct buf		b = { 0 };
	struct ctl_frame	f;
	size_t			i;

	(void)state;
	ctl_frame_put(&b, CTL_OUTPUT, "0123456789", 10);
	for (i = 0; i < b.len; i++)
		assert_int_equal(ctl_frame_get(b.data, i, CTL_FRAME_MAX, &f), 0);
	assert_int_equal(ctl_frame_get(b.data, b.len, CTL_FRAME_MAX, &f),
	    (int)b.len);
	buf_free(&b);
}

/* An oversized length is refused from the header alone. */
static void
test_frame_oversized(void **state)
{
	uint8_t			hdr[CTL_HDR_SIZE] = { CTL_VERSION, CTL_REQUEST };
	uint32_t		len = CTL_REQ_MAX + 1;
	struct ctl_frame	f;

	(void)state;
	memcpy(hdr + 4, &len, sizeof(len));
	assert_int_equal(ctl_frame_get(hdr, sizeof(hdr), CTL_REQ_MAX, &f),
	    -EMSGSIZE);
	len = UINT32_MAX;
	memcpy(hdr + 4, &len, sizeof(len));
	assert_int_equal(ctl_frame_get(hdr, sizeof(hdr), CTL_REQ_MAX, &f),
	    -EMSGSIZE);
	len = CTL_REQ_MAX;
	memcpy(hdr + 4, &len, sizeof(len));
	assert_int_equal(ctl_frame_get(hdr, sizeof(hdr), CTL_REQ_MAX, &f), 0);
}

static void
test_frame_bad_header(void **state)
{
	uint8_t			h[CTL_HDR_SIZE] = { 0 };
	struct ctl_frame	f;

	(void)state;
	h[0] = CTL_VERSION + 1;
	h[1] = CTL_REQUEST;
	assert_int_equal(ctl_frame_get(h, sizeof(h), 100, &f), -EPROTO);
	h[0] = CTL_VERSION;
	h[1] = 0;
	assert_int_equal(ctl_frame_get(h, sizeof(h), 100, &f), -EPROTO);
	h[1] = 99;
	assert_int_equal(ctl_frame_get(h, sizeof(h), 100, &f), -EPROTO);
	h[1] = CTL_REQUEST;
	h[2] = 1;
	assert_int_equal(ctl_frame_get(h, sizeof(h), 100, &f), -EPROTO);
	/* "GET / HTTP/1.1" is not a frame either. */
	assert_int_equal(ctl_frame_get("GET / HTTP/1.1\r\n", 16, 100, &f),
	    -EPROTO);
}

static void
test_request(void **state)
{
	char *const		 in[] = { "start", "web", "--wait" };
	char			*argv[CTL_ARGS_MAX];
	struct buf		 b = { 0 };
	struct ctl_frame	 f;

	(void)state;
	assert_int_equal(ctl_req_put(&b, 3, in), 0);
	assert_true(ctl_frame_get(b.data, b.len, CTL_REQ_MAX, &f) > 0);
	assert_int_equal(ctl_req_get(&f, argv, CTL_ARGS_MAX), 3);
	assert_string_equal(argv[0], "start");
	assert_string_equal(argv[1], "web");
	assert_string_equal(argv[2], "--wait");
	assert_int_equal(ctl_req_get(&f, argv, 2), -E2BIG);
	buf_free(&b);
}

static void
test_request_malformed(void **state)
{
	struct ctl_frame	f = { .type = CTL_REQUEST };
	char			*argv[4];
	char			big[CTL_REQ_MAX + 10];
	char			*huge[] = { big };
	struct buf		b = { 0 };

	(void)state;
	f.payload = "status";		/* no NUL at the end */
	f.len = 6;
	assert_int_equal(ctl_req_get(&f, argv, 4), -EBADMSG);
	f.len = 0;
	assert_int_equal(ctl_req_get(&f, argv, 4), -EBADMSG);
	f.type = CTL_OUTPUT;
	f.payload = "status";
	f.len = 7;
	assert_int_equal(ctl_req_get(&f, argv, 4), -EBADMSG);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(ctl_req_put(&b, 1, huge), -EMSGSIZE);
	assert_int_equal(b.len, 0);
}

static void
test_end_malformed(void **state)
{
	struct ctl_frame	f = { .type = CTL_END };
	const char		*msg;
	int			 code;

	(void)state;
	f.payload = "\0\0\0";
	f.len = 3;
	assert_int_equal(ctl_end_get(&f, &code, &msg), -EBADMSG);
	f.payload = "\0\0\0\0ab";	/* message without its NUL */
	f.len = 6;
	assert_int_equal(ctl_end_get(&f, &code, &msg), -EBADMSG);
}

/*
 * Parse argv given as a string with single spaces; a->pos point into
 * the copy, kept until the next call (NULL: free it).
 */
static int
args(const char *line, struct ctl_args *a, char *err)
{
	static char	*copy;
	char		*argv[CTL_ARGS_MAX], *p;
	int		 argc = 0;

	free(copy);
	copy = NULL;
	if (line == NULL)
		return 0;
	copy = strdup(line);
	for (p = strtok(copy, " "); p; p = strtok(NULL, " "))
		argv[argc++] = p;
	return ctl_args_parse(argc, argv, a, err, 256);
}

static void
test_args(void **state)
{
	struct ctl_args	a;
	char		err[256];

	(void)state;
	assert_int_equal(args("status", &a, err), 0);
	assert_int_equal(a.verb, VERB_STATUS);
	assert_int_equal(a.npos, 0);
	assert_int_equal(args("status web --json", &a, err), 0);
	assert_true(a.json);
	assert_int_equal(a.npos, 1);
	assert_int_equal(args("restart web --wait --timeout=2s", &a, err), 0);
	assert_true(a.wait);
	assert_int_equal(a.timeout, 2000);
	assert_int_equal(args("wait web ready", &a, err), 0);
	assert_int_equal(a.timeout, CTL_WAIT_DEFAULT);

	assert_int_equal(args("logs web -n 20 -f --json", &a, err), 0);
	assert_int_equal(a.verb, VERB_LOGS);
	assert_int_equal(a.lines, 20);
	assert_true(a.follow && a.json);
	assert_int_equal(args("logs web", &a, err), 0);
	assert_int_equal(a.lines, UINT32_MAX);
	assert_false(a.follow);
	assert_int_equal(args("logs web -n", &a, err), -EINVAL);
	assert_non_null(strstr(err, "-n needs a number of lines"));
	assert_int_equal(args("logs web -n x", &a, err), -EINVAL);
	assert_int_equal(args("status -f", &a, err), -EINVAL);
	assert_int_equal(args("reload web --wait", &a, err), -EINVAL);
	assert_int_equal(args("reload web db --timeout=5s", &a, err), 0);
	assert_int_equal(a.npos, 2);
	assert_int_equal(a.timeout, 5000);

	assert_int_equal(args("frobnicate", &a, err), -EINVAL);
	assert_string_equal(err, "unknown verb 'frobnicate'");
	assert_int_equal(args("start", &a, err), -EINVAL);
	assert_non_null(strstr(err, "missing arguments; usage: start NAME"));
	assert_int_equal(args("signal a TERM x", &a, err), -EINVAL);
	assert_non_null(strstr(err, "too many arguments"));
	/* Several names, and options before the verb. */
	assert_int_equal(args("start a b c --wait", &a, err), 0);
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[2], "c");
	assert_int_equal(args("--json status a b", &a, err), 0);
	assert_int_equal(a.verb, VERB_STATUS);
	assert_true(a.json);
	assert_int_equal(a.npos, 2);
	assert_string_equal(a.pos[0], "a");
	assert_int_equal(args("-n 5 logs web", &a, err), 0);
	assert_int_equal(a.verb, VERB_LOGS);
	assert_int_equal(a.lines, 5);
	assert_string_equal(a.pos[0], "web");
	assert_int_equal(args("--json", &a, err), -EINVAL);
	assert_string_equal(err, "no verb given");
	assert_int_equal(args("--wait status", &a, err), -EINVAL);
	assert_non_null(strstr(err, "unknown option '--wait'"));
	assert_int_equal(args("status --wait", &a, err), -EINVAL);
	assert_non_null(strstr(err, "unknown option '--wait'"));
	/* Every option takes its value either way. */
	assert_int_equal(args("start a --wait --timeout 2s", &a, err), 0);
	assert_int_equal(a.timeout, 2000);
	assert_int_equal(a.npos, 1);
	assert_int_equal(args("--timeout 1h30m reload a", &a, err), 0);
	assert_int_equal(a.verb, VERB_RELOAD);
	assert_int_equal(a.timeout, 5400000);
	assert_int_equal(args("logs web -n7", &a, err), 0);
	assert_int_equal(a.lines, 7);
	assert_int_equal(args("logs web --lines=8", &a, err), 0);
	assert_int_equal(a.lines, 8);
	assert_int_equal(args("logs web --lines 9", &a, err), 0);
	assert_int_equal(a.lines, 9);
	assert_int_equal(args("reexec --binary=/x", &a, err), 0);
	assert_string_equal(a.binary, "/x");
	assert_int_equal(args("reexec --binary /y", &a, err), 0);
	assert_string_equal(a.binary, "/y");
	/* The client waits for --timeout where the daemon does. */
	assert_int_equal(args("reload web", &a, err), 0);
	assert_true(ctl_args_wait(&a));
	assert_int_equal(args("reload", &a, err), 0);
	assert_false(ctl_args_wait(&a));
	assert_int_equal(args("start a", &a, err), 0);
	assert_false(ctl_args_wait(&a));
	assert_int_equal(args("start a --wait", &a, err), 0);
	assert_true(ctl_args_wait(&a));
	assert_int_equal(args("start a --timeout", &a, err), -EINVAL);
	assert_non_null(strstr(err, "invalid timeout ''"));
	assert_int_equal(args("start a --timeout=soon", &a, err), -EINVAL);
	assert_int_equal(args("start a --timeout=0", &a, err), -EINVAL);
	assert_int_equal(args("signal a", &a, err), -EINVAL);
	assert_int_equal(args("version x", &a, err), -EINVAL);
	assert_int_equal(ctl_args_parse(0, NULL, &a, err, sizeof(err)),
	    -EINVAL);
	args(NULL, &a, err);
}

static void
test_notify(void **state)
{
	struct notify_msg	m;
	const char		*msg = "READY=1\nSTATUS=Serving 3 clients\n"
				    "MAINPID=7\nWATCHDOG=1";

	(void)state;
	assert_int_equal(notify_parse(msg, strlen(msg), &m), 0);
	assert_true(m.ready);
	assert_true(m.watchdog);
	assert_false(m.stopping);
	assert_int_equal(m.status_len, strlen("Serving 3 clients"));
	assert_memory_equal(m.status, "Serving 3 clients", m.status_len);

	assert_int_equal(notify_parse("STOPPING=1", 10, &m), 0);
	assert_true(m.stopping);
	assert_false(m.ready);
	assert_int_equal(notify_parse("READY=0\nWATCHDOG=trigger", 24, &m), 0);
	assert_false(m.ready);
	assert_true(m.watchdog_trigger);
	assert_int_equal(notify_parse("STATUS=", 7, &m), 0);
	assert_int_equal(m.status_len, 0);
	assert_non_null(m.status);
}

static void
test_notify_malformed(void **state)
{
	struct notify_msg	m;
	char			big[NOTIFY_MSG_MAX + 1];

	(void)state;
	assert_int_equal(notify_parse("", 0, &m), -EBADMSG);
	assert_int_equal(notify_parse("READY=1\0x", 9, &m), -EBADMSG);
	assert_int_equal(notify_parse("READY", 5, &m), -EBADMSG);
	assert_int_equal(notify_parse("READY=1\ngarbage", 15, &m), -EBADMSG);
	memset(big, 'a', sizeof(big));
	memcpy(big, "STATUS=", 7);
	assert_int_equal(notify_parse(big, sizeof(big), &m), -EBADMSG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_frame_truncated),
		cmocka_unit_test(test_frame_oversized),
		cmocka_unit_test(test_frame_bad_header),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_request_malformed),
		cmocka_unit_test(test_end_malformed),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_notify),
		cmocka_unit_test(test_notify_malformed),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
