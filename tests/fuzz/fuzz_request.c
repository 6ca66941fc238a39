/*
 * fuzz_request.c - what the daemon does with bytes from a client:
 * frames, the request's words, the arguments.
 */
#include "fuzz.h"
#include "proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_frame	 f;
	struct ctl_args		 a;
	char			*argv[CTL_ARGS_MAX], err[256];
	uint8_t			*copy = malloc(size + 1);
	int			 n, argc;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);	/* ctl_req_get points into it */
	n = ctl_frame_get(copy, size, CTL_REQ_MAX, &f);
	if (n > 0 && f.type == CTL_REQUEST &&
	    (argc = ctl_req_get(&f, argv, CTL_ARGS_MAX)) > 0)
		ctl_args_parse(argc, argv, &a, err, sizeof(err));
	free(copy);
	return 0;
}
