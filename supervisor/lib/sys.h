/*
 * sys.h - the pidfd system calls and reboot(2), and a way past memcheck.
 *
 * Each returns like syscall(2): the result, or -1 with errno set.
 *
 * valgrind has no wrapper for pidfd_send_signal, process_mrelease or
 * reboot (none in 3.19, Debian 12's, nor in 3.24), nor 3.19 for
 * pidfd_open, and answers them with ENOSYS.  None of these reads or
 * writes our memory (the siginfo is always NULL), so the memcheck build
 * (-DPV_MEMCHECK, make memcheck) makes them on the real CPU through a
 * client request, and memcheck misses nothing it could have checked.
 * Other builds call syscall(2) and nothing else.
 */
#ifndef PIDVISOR_SYS_H
#define PIDVISOR_SYS_H

#include <errno.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease	448
#endif

#ifdef PV_MEMCHECK
#if !defined(__x86_64__)
#error "PV_MEMCHECK: the native system calls are written for x86-64"
#endif
#include <linux/reboot.h>
#include <valgrind/valgrind.h>

/* On the real CPU (a client request): no libc, no errno. */
static inline long
sys_native(long nr, long a, long b, long c, long d)
{
	long			ret;
	register long		r10 __asm__("r10") = d;

	__asm__ volatile ("syscall" : "=a"(ret)
	    : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
	    : "rcx", "r11", "memory");
	return ret;
}

static inline long
sys_native_open(long tid, long pid, long flags)
{
	(void)tid;
	return sys_native(SYS_pidfd_open, pid, flags, 0, 0);
}

static inline long
sys_native_signal(long tid, long pidfd, long sig, long flags)
{
	(void)tid;
	/* pidfd_send_signal(pidfd, sig, NULL, flags) */
	return sys_native(SYS_pidfd_send_signal, pidfd, sig, 0, flags);
}

static inline long
sys_native_mrelease(long tid, long pidfd, long flags)
{
	(void)tid;
	return sys_native(SYS_process_mrelease, pidfd, flags, 0, 0);
}

static inline long
sys_native_reboot(long tid, long cmd)
{
	(void)tid;
	return sys_native(SYS_reboot, LINUX_REBOOT_MAGIC1,
	    LINUX_REBOOT_MAGIC2, cmd, 0);
}

static inline long
sys_result(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
#endif

/* Under memcheck, make the call natively (its arguments are not
 * evaluated in other builds). */
#ifdef PV_MEMCHECK
#define SYS_NATIVE_UNDER_VALGRIND(call) do {				\
	if (RUNNING_ON_VALGRIND)					\
		return sys_result((long)(call));			\
} while (0)
#else
#define SYS_NATIVE_UNDER_VALGRIND(call) do { } while (0)
#endif

static inline long
sys_pidfd_open(pid_t pid, unsigned int flags)
{
	SYS_NATIVE_UNDER_VALGRIND(VALGRIND_NON_SIMD_CALL2(sys_native_open,
	    pid, flags));
	return syscall(SYS_pidfd_open, pid, flags);
}

static inline long
sys_pidfd_send_signal(int pidfd, int sig, unsigned int flags)
{
	SYS_NATIVE_UNDER_VALGRIND(VALGRIND_NON_SIMD_CALL3(sys_native_signal,
	    pidfd, sig, flags));
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, flags);
}

static inline long
sys_process_mrelease(int pidfd, unsigned int flags)
{
	SYS_NATIVE_UNDER_VALGRIND(VALGRIND_NON_SIMD_CALL2(sys_native_mrelease,
	    pidfd, flags));
	return syscall(SYS_process_mrelease, pidfd, flags);
}

/* reboot(2) as glibc's reboot(cmd) calls it. */
static inline int
sys_reboot(int cmd)
{
	SYS_NATIVE_UNDER_VALGRIND(VALGRIND_NON_SIMD_CALL1(sys_native_reboot,
	    cmd));
	return reboot(cmd);
}

#endif
