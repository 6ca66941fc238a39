/*
 * rawsys.h - system calls for a spawn child that shares our memory.
 *
 * Until it execs, a CLONE_VM child (spawn.c) runs in our address space
 * on a stack of its own, but with our thread's TLS: libc's wrappers
 * would write errno, which is our thread's.  RAWSYS() makes the call
 * with the syscall instruction and returns -errno on failure, touching
 * nothing but its arguments.  Elsewhere than x86-64 every spawn is
 * fork-style, and syscall(2) is safe.
 */
#ifndef PIDVISOR_RAWSYS_H
#define PIDVISOR_RAWSYS_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
__attribute__((always_inline))
static inline long
rawsys6(long n, long a, long b, long c, long d, long e)
{
	register long	r10 __asm__("r10") = d;
	register long	r8 __asm__("r8") = e;
	long		ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"(n), "D"(a), "S"(b),
	    "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
	return ret;
}
#else
static inline long
rawsys6(long n, long a, long b, long c, long d, long e)
{
	long	ret = syscall(n, a, b, c, d, e);

	return ret < 0 ? -errno : ret;
}
#endif

#define RAWSYS_(n, a, b, c, d, e, ...) rawsys6((long)(n), (long)(a), \
	(long)(b), (long)(c), (long)(d), (long)(e))
#define RAWSYS(...)	RAWSYS_(__VA_ARGS__, 0, 0, 0, 0, 0, 0)

#endif
