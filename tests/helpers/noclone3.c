/*
 * noclone3.c - run a command where clone3(2) answers ENOSYS, as it does
 * in seccomp sandboxes that refuse what they cannot inspect, under
 * valgrind and before Linux 5.3:
 *
 *   noclone3 COMMAND [ARG...]
 *
 * The filter is inherited across fork and exec; glibc falls back to
 * clone(2) by itself, and pidvisor is expected to as well.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_clone3
#define __NR_clone3	435
#endif

int
main(int argc, char **argv)
{
	struct sock_filter	filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: noclone3 COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("noclone3: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("noclone3: exec");
	return 127;
}
