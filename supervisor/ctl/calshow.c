/*
 * calshow.c - pidvisorctl calendar EXPR...: each expression's normalized
 * form and next elapses, in the lines and format of systemd 252's
 * `systemd-analyze calendar`, without asking pidvisor; a wrong one also
 * says where it is wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calendar.h"
#include "calshow.h"
#include "proto.h"
#include "tz.h"
#include "util.h"

/* calendar EXPR... [--iterations N] [--base-time TIME]: its exit code. */
int
calshow(const struct ctl_args *a)
{
	struct tz	local;
	struct buf	out = { 0 }, err = { 0 };
	int64_t		now = real_us(), base = now;
	int		i, rc = 0;

	if (tz_local(&local) < 0) {
		fprintf(stderr, "pidvisorctl: %s\n", strerror(ENOMEM));
		return CTL_EFAIL;
	}
	if (a->base_time != NULL && calendar_parse_time(a->base_time, &local,
	    &base, now) < 0) {
		fprintf(stderr, "pidvisorctl: --base-time: '%s' is not a time "
		    "(YYYY-MM-DD HH:MM:SS [ZONE], @SECONDS or now)\n",
		    a->base_time);
		tz_free(&local);
		return CTL_EUSAGE;
	}
	for (i = 0; i < a->npos; i++) {
		if (i > 0)
			printf("\n");
		out.len = err.len = 0;
		rc |= calendar_describe(&out, &err, a->pos[i], &local, base,
		    now, a->iterations);
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		fwrite(err.data ? err.data : "", 1, err.len, stderr);
	}
	buf_free(&out);
	buf_free(&err);
	tz_free(&local);
	return rc ? CTL_EFAIL : 0;
}
