/*
 * fuzz_notifymsg.c - the ancillary data of a datagram on the notify
 * socket, as recvmsg() would hand it over: whatever the headers' lengths
 * say, nothing past the buffer is read, and every fd is counted once.
 * The first byte says how many fds the caller takes at most.
 */
#include <sys/socket.h>

#include "fuzz.h"
#include "notifymsg.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msghdr		 mh = { 0 };
	const struct ucred	*cred;
	int			 fds[253];
	size_t			 nfds, extra, max;
	void			*ctl;

	if (size < 1)
		return 0;
	max = data[0] % (sizeof(fds) / sizeof(*fds) + 1);
	/* Aligned as the kernel's control buffer is (C11: the size a
	 * multiple of the alignment). */
	if ((ctl = aligned_alloc(sizeof(size_t), (size / sizeof(size_t) + 1) *
	    sizeof(size_t))) == NULL)
		return 0;
	memcpy(ctl, data + 1, size - 1);
	mh.msg_control = size > 1 ? ctl : NULL;
	mh.msg_controllen = size - 1;
	cred = notify_cmsgs(&mh, fds, max, &nfds, &extra);
	if (nfds > max || (cred && ((const char *)cred < (char *)ctl ||
	    (const char *)(cred + 1) > (char *)ctl + size - 1)))
		abort();
	free(ctl);
	return 0;
}
