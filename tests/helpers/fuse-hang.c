/*
 * fuse-hang.c - a FUSE file system that never answers a read.
 *
 *   fuse-hang MOUNTPOINT [exec|flush]
 *
 * Mounts a file system with one file, MOUNTPOINT/file (1 MiB, read-only),
 * and serves it straight from /dev/fuse: lookups, attributes and opens
 * are answered, reads are not.  A process that reads the file, or faults
 * on a mapping of it, then waits in the kernel, uninterruptibly once we
 * have taken its request: a hung network mount, on demand.  Each read
 * taken prints "read held" on stdout.  SIGTERM answers the held reads
 * with EIO, unmounts and exits.  For the guest tests (a victim whose
 * mmap_lock is held, a spawn stuck on a hung mount).  With "exec" the
 * file is executable, so that an execve() of it waits on its first read.
 * With "flush" reads are answered (zeros) and the FLUSH of every close
 * is not ("flush held"): a close(2) of the file never returns, and no
 * signal ends that wait (the notify drainer's test).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_INO	2
#define FILE_SIZE	(1 << 20)
#define HELD_MAX	64

static unsigned	file_mode = 0444;
static int	hold_flush;

static int	fuse_fd = -1;
static uint64_t	held[HELD_MAX];
static int	nheld;

/* Answer request unique with error, and payload (if any). */
static void
reply(uint64_t unique, int error, const void *data, size_t len)
{
	char			 buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header	*out = (void *)buf;

	if (len > 256)
		len = 256;
	out->len = (uint32_t)(sizeof(*out) + len);
	out->error = -error;
	out->unique = unique;
	if (len)
		memcpy(buf + sizeof(*out), data, len);
	if (write(fuse_fd, buf, out->len) < 0 && errno != ENOENT)
		perror("fuse-hang: reply");
}

static void
fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	if (ino == FILE_INO) {
		a->mode = S_IFREG | file_mode;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	} else {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	}
	a->blksize = 4096;
}

/* One request from the kernel. */
static void
serve(const char *req, size_t len)
{
	const struct fuse_in_header	*in = (const void *)req;
	const char			*arg = req + sizeof(*in);

	if (len < sizeof(*in))
		return;
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in	*ii = (const void *)arg;
		struct fuse_init_out		 io;

		memset(&io, 0, sizeof(io));
		io.major = FUSE_KERNEL_VERSION;
		io.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor :
		    FUSE_KERNEL_MINOR_VERSION;
		io.max_readahead = ii->max_readahead;
		io.max_write = 4096;
		reply(in->unique, 0, &io, sizeof(io));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out	eo;

		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "file") != 0) {
			reply(in->unique, ENOENT, NULL, 0);
			break;
		}
		memset(&eo, 0, sizeof(eo));
		eo.nodeid = FILE_INO;
		eo.entry_valid = eo.attr_valid = 3600;
		fill_attr(&eo.attr, FILE_INO);
		reply(in->unique, 0, &eo, sizeof(eo));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out	ao;

		memset(&ao, 0, sizeof(ao));
		ao.attr_valid = 3600;
		fill_attr(&ao.attr, in->nodeid);
		reply(in->unique, 0, &ao, sizeof(ao));
		break;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out	oo = { .fh = 1 };

		reply(in->unique, 0, &oo, sizeof(oo));
		break;
	}
	case FUSE_READ:
		if (hold_flush) {
			static const char	zeros[256];

			reply(in->unique, 0, zeros, sizeof(zeros));
		} else if (nheld < HELD_MAX) {
			held[nheld++] = in->unique;
			printf("read held\n");
			fflush(stdout);
		} else {
			reply(in->unique, EIO, NULL, 0);
		}
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;			/* no answer expected (or given) */
	case FUSE_FLUSH:
		if (hold_flush && nheld < HELD_MAX) {
			held[nheld++] = in->unique;
			printf("flush held\n");
			fflush(stdout);
			break;
		}
		reply(in->unique, 0, NULL, 0);
		break;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		reply(in->unique, 0, NULL, 0);
		break;
	default:
		reply(in->unique, ENOSYS, NULL, 0);
	}
}

int
main(int argc, char **argv)
{
	static char	buf[FUSE_MIN_READ_BUFFER + 65536];
	struct pollfd	pfd[2];
	char		opts[128];
	sigset_t	set;
	ssize_t		n;
	int		i;

	if (argc == 3 && strcmp(argv[2], "exec") == 0)
		file_mode = 0555;
	else if (argc == 3 && strcmp(argv[2], "flush") == 0)
		hold_flush = 1;
	else if (argc != 2) {
		fprintf(stderr, "usage: fuse-hang MOUNTPOINT [exec|flush]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pfd[1].fd = signalfd(-1, &set, SFD_CLOEXEC);
	if ((fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
		perror("fuse-hang: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,"
	    "group_id=0,allow_other", fuse_fd);
	mkdir(argv[1], 0755);
	if (mount("fuse-hang", argv[1], "fuse", MS_NOSUID | MS_NODEV,
	    opts) < 0) {
		perror("fuse-hang: mount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	pfd[0].fd = fuse_fd;
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		n = read(fuse_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT ||
		    errno == EAGAIN))
			continue;
		if (n <= 0)
			break;		/* unmounted */
		serve(buf, (size_t)n);
	}
	for (i = 0; i < nheld; i++)
		reply(held[i], EIO, NULL, 0);
	umount2(argv[1], MNT_DETACH);
	return 0;
}
