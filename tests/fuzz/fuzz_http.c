/* fuzz_http.c - a request's head as metrics_listen reads it. */
#include <assert.h>

#include "fuzz.h"
#include "httpd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool	head;
	int	st;

	/* The connection's buffer holds at most HTTPD_REQ_MAX. */
	if (size > HTTPD_REQ_MAX)
		size = HTTPD_REQ_MAX;
	st = http_parse((const char *)data, size, &head);
	assert(st == 0 || st == 200 || st == 400 || st == 404 ||
	    st == 405 || st == 431 || st == 505);
	assert(st != 0 || size < HTTPD_REQ_MAX);
	assert(!head || st == 200 || st == 404);	/* HEAD: no body */
	return 0;
}
