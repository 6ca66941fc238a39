/*
 * preload.c - an attacker's /etc/ld.so.preload library
 * (tests/host/test_security.sh, t_sec_hook_userns_setuid): loaded into a
 * set-user-ID program, it proves that program runs with euid 0 by
 * writing $PV_PWN, and exits 0 in its place; elsewhere it does nothing.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void
preload_pwn(void)
{
	const char	*path = getenv("PV_PWN");
	int		 fd;

	if (geteuid() != 0 || getuid() == 0)
		return;
	if (path != NULL &&
	    (fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) >= 0) {
		if (write(fd, "euid 0\n", 7) < 0)
			_exit(1);
		close(fd);
	}
	_exit(0);
}
