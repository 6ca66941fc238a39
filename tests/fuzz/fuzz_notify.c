/* fuzz_notify.c - an sd_notify datagram. */
#include "fuzz.h"
#include "notifymsg.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct notify_msg	m;

	if (notify_parse((const char *)data, size, &m) == 0 && m.status)
		(void)memchr(m.status, '\n', m.status_len);
	return 0;
}
