/* fuzz_reply.c - what pidvisorctl does with bytes from the daemon. */
#include "fuzz.h"
#include "proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_frame	 f;
	const char		*msg;
	size_t			 off = 0;
	int			 n, code;

	while ((n = ctl_frame_get(data + off, size - off, CTL_FRAME_MAX,
	    &f)) > 0) {
		if (f.type == CTL_END && ctl_end_get(&f, &code, &msg) == 0)
			(void)strlen(msg);
		off += (size_t)n;
	}
	return 0;
}
