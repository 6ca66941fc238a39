/*
 * cond.c - systemd's Condition*= and Assert*= tests (systemd.unit(5),
 * as systemd 252 checks them for the system manager), kept by the keys
 * `condition` and `assert` as "TEST ARG".  They are checked off the
 * loop: a start's first hook is this program again (cond_main(), by
 * `pidvisor --test-conditions`), whose exit status says which one did
 * not hold; a test may stat a path on a FUSE mount or read a file that
 * never answers, and that must not hold up the loop.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sys/capability.h>

#include "cond.h"
#include "util.h"

enum cond_arg { ARG_PATH, ARG_BOOL, ARG_WORD, ARG_VIRT, ARG_SECURITY,
	ARG_CAP, ARG_UPDATE };

struct cond_test {
	const char	*name;
	const char	*systemd;
	uint8_t		 arg;
	int		(*test)(const char *arg);	/* 1, 0, or -errno */
};

static int
t_path_exists(const char *a)
{
	return access(a, F_OK) == 0;
}

static int
t_path_exists_glob(const char *a)
{
	glob_t	g;
	int	rc;

	memset(&g, 0, sizeof(g));
	rc = glob(a, GLOB_NOSORT | GLOB_BRACE, NULL, &g);
	globfree(&g);
	return rc == 0;
}

static int
t_path_is_directory(const char *a)
{
	struct stat	st;

	return stat(a, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
t_path_is_symbolic_link(const char *a)
{
	struct stat	st;

	return lstat(a, &st) == 0 && S_ISLNK(st.st_mode);
}

/* A mount point: its mount is not its parent's (statx's mount ID). */
static int
t_path_is_mount_point(const char *a)
{
	struct statx	sx, px;
	char		parent[PATH_MAX + 4];

	if (statx(AT_FDCWD, a, 0, STATX_MNT_ID, &sx) < 0)
		return 0;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return -ENOSYS;
	if (!S_ISDIR(sx.stx_mode))	/* a file bind-mounted over */
		return (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ?
		    !!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) : 0;
	if (snprintf(parent, sizeof(parent), "%s/..", a) >=
	    (int)sizeof(parent))
		return -ENAMETOOLONG;
	if (statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &px) < 0)
		return -errno;
	if (sx.stx_mnt_id != px.stx_mnt_id)
		return 1;
	/* "/" is its own parent. */
	return sx.stx_dev_major == px.stx_dev_major &&
	    sx.stx_dev_minor == px.stx_dev_minor && sx.stx_ino == px.stx_ino;
}

static int
t_path_is_read_write(const char *a)
{
	struct statvfs	sv;

	return statvfs(a, &sv) == 0 && !(sv.f_flag & ST_RDONLY);
}

/* Hidden files and backups do not count, as systemd's dir_is_empty(). */
static bool
cond_ignored_name(const char *n)
{
	static const char *const ends[] = { "~", ".rpmnew", ".rpmsave",
	    ".rpmorig", ".dpkg-old", ".dpkg-new", ".dpkg-tmp", ".dpkg-dist",
	    ".dpkg-bak", ".dpkg-backup", ".dpkg-remove", ".ucf-new",
	    ".ucf-old", ".ucf-dist", ".swp", ".bak", ".old", ".new" };
	size_t	len = strlen(n), i, l;

	if (n[0] == '.')
		return true;
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		l = strlen(ends[i]);
		if (len > l && strcmp(n + len - l, ends[i]) == 0)
			return true;
	}
	return false;
}

static int
t_directory_not_empty(const char *a)
{
	DIR		*d = opendir(a);
	struct dirent	*e;
	int		 found = 0;

	if (d == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		found = !cond_ignored_name(e->d_name);
	closedir(d);
	return found;
}

static int
t_file_not_empty(const char *a)
{
	struct stat	st;

	return stat(a, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int
t_file_is_executable(const char *a)
{
	struct stat	st;

	return stat(a, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 0111) != 0;
}

/*
 * The kernel's command line: a word with '=' must be there as it is; a
 * word without, as a word or the name of one (WORD=...).  Quotes group
 * a word as the kernel reads them.
 */
static int
t_kernel_command_line(const char *a)
{
	char	line[4096], *p, *w;
	ssize_t	n = read_small(AT_FDCWD, "/proc/cmdline", line,
		    sizeof(line) - 1);
	size_t	alen = strlen(a);
	bool	has_eq = strchr(a, '=') != NULL;

	if (n < 0)
		return (int)n;
	line[n] = '\0';
	for (p = line; *p != '\0';) {
		char	word[4096], *o = word;
		bool	q = false;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		for (w = p; *w != '\0' && (q || !isspace((unsigned char)*w));
		    w++) {
			if (*w == '"')
				q = !q;
			else if (o < word + sizeof(word) - 1)
				*o++ = *w;
		}
		*o = '\0';
		p = w;
		if (strcmp(word, a) == 0 || (!has_eq &&
		    (size_t)(o - word) > alen && word[alen] == '=' &&
		    strncmp(word, a, alen) == 0))
			return 1;
	}
	return 0;
}

/* The first line of a small file, trimmed; "" if none. */
static void
cond_line(const char *path, char *out, size_t n)
{
	ssize_t	r = read_small(AT_FDCWD, path, out, n - 1);

	out[r > 0 ? r : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* The container we run in, as systemd names them; "" if none. */
static void
cond_container(char *out, size_t n)
{
	struct buf	b = { 0 };
	size_t		i;

	out[0] = '\0';
	cond_line("/run/systemd/container", out, n);
	if (out[0] != '\0')
		return;
	/* PID 1's environment (ours, when we are PID 1). */
	if (read_file(AT_FDCWD, "/proc/1/environ", 1 << 16, &b) >= 0 &&
	    buf_add(&b, "", 1) >= 0) {
		for (i = 0; i < b.len; i += strlen(b.data + i) + 1)
			if (strncmp(b.data + i, "container=", 10) == 0) {
				snprintf(out, n, "%s", b.data + i + 10);
				break;
			}
		buf_free(&b);
		if (out[0] != '\0')
			return;
	}
	if (access("/run/.containerenv", F_OK) == 0)
		snprintf(out, n, "podman");
	else if (access("/.dockerenv", F_OK) == 0)
		snprintf(out, n, "docker");
}

/* The hypervisor we run on, as systemd names them; "" if none. */
static void
cond_vm(char *out, size_t n)
{
	static const struct { const char *dmi, *name; } dmi[] = {
		{ "KVM", "kvm" }, { "OpenStack", "kvm" }, { "QEMU", "qemu" },
		{ "VMware", "vmware" }, { "VMW", "vmware" },
		{ "innotek GmbH", "oracle" }, { "VirtualBox", "oracle" },
		{ "Xen", "xen" }, { "Bochs", "bochs" },
		{ "Parallels", "parallels" }, { "BHYVE", "bhyve" },
		{ "Hyper-V", "microsoft" }, { "Apple Virtualization", "apple" },
		{ "Google Compute Engine", "google" }, { "Amazon EC2", "amazon" },
	};
	static const char *const files[] = {
		"/sys/class/dmi/id/product_name",
		"/sys/class/dmi/id/sys_vendor",
		"/sys/class/dmi/id/board_vendor",
		"/sys/class/dmi/id/bios_vendor",
	};
	char	line[256];
	size_t	i, j;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		cond_line(files[i], line, sizeof(line));
		for (j = 0; j < ARRAY_SIZE(dmi); j++)
			if (strncmp(line, dmi[j].dmi, strlen(dmi[j].dmi)) == 0) {
				snprintf(out, n, "%s", dmi[j].name);
				return;
			}
	}
	/* No DMI (a guest without it): the CPU says a hypervisor runs it. */
	{
		struct buf	b = { 0 };

		if (read_file(AT_FDCWD, "/proc/cpuinfo", 1 << 20, &b) >= 0 &&
		    buf_add(&b, "", 1) >= 0 &&
		    strstr(b.data, " hypervisor") != NULL)
			snprintf(out, n, "vm-other");
		buf_free(&b);
	}
}

/* Do we run in a user namespace that maps less than all of the IDs? */
static bool
cond_private_users(void)
{
	char	line[256];
	unsigned long a, b, c;

	cond_line("/proc/self/uid_map", line, sizeof(line));
	if (sscanf(line, "%lu %lu %lu", &a, &b, &c) != 3)
		return false;
	return !(a == 0 && b == 0 && c == 4294967295UL);
}

static int
t_virtualization(const char *a)
{
	char	ct[64], vm[64];
	int	yes = sd_bool(a);

	cond_container(ct, sizeof(ct));
	if (strcmp(a, "private-users") == 0)
		return cond_private_users();
	if (strcmp(a, "container") == 0)
		return ct[0] != '\0';
	if (ct[0] != '\0' && strcmp(a, ct) == 0)
		return 1;
	cond_vm(vm, sizeof(vm));
	if (strcmp(a, "vm") == 0)
		return vm[0] != '\0';
	if (yes >= 0)
		return (ct[0] != '\0' || vm[0] != '\0') == yes;
	return vm[0] != '\0' && strcmp(a, vm) == 0;
}

/* A host name (a glob), or a machine ID. */
static int
t_host(const char *a)
{
	char	host[256], id[64];

	if (strlen(a) == 32 && strspn(a, "0123456789abcdefABCDEF") == 32) {
		cond_line("/etc/machine-id", id, sizeof(id));
		return strcasecmp(id, a) == 0;
	}
	if (gethostname(host, sizeof(host)) < 0)
		return -errno;
	host[sizeof(host) - 1] = '\0';
	return fnmatch(a, host, FNM_CASEFOLD) == 0;
}

/* The manager's user: a name, a number, or @system (UID < 1000). */
static int
t_user(const char *a)
{
	uid_t		 uid = getuid();
	struct passwd	*pw;
	uint64_t	 n;

	if (strcmp(a, "@system") == 0)
		return uid < 1000;
	if (parse_u64(a, UINT32_MAX, &n) == 0)
		return uid == (uid_t)n;
	/* cppcheck-suppress getpwnamCalled ; the checker: one thread */
	return (pw = getpwnam(a)) != NULL && pw->pw_uid == uid;
}

static int
t_group(const char *a)
{
	gid_t		 v[256];
	struct group	*gr;
	uint64_t	 n;
	gid_t		 gid;
	int		 i, k;

	if (parse_u64(a, UINT32_MAX, &n) == 0)
		gid = (gid_t)n;
	/* cppcheck-suppress getgrnamCalled ; the checker: one thread */
	else if ((gr = getgrnam(a)) != NULL)
		gid = gr->gr_gid;
	else
		return 0;
	if (gid == getgid() || gid == getegid())
		return 1;
	k = getgroups((int)ARRAY_SIZE(v), v);
	for (i = 0; i < k; i++)
		if (v[i] == gid)
			return 1;
	return 0;
}

/* In our bounding set (the manager's: systemd's meaning). */
static int
t_capability(const char *a)
{
	cap_value_t	c;
	int		r;

	if (cap_from_name(a, &c) < 0)
		return -EINVAL;
	if ((r = prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0)) < 0)
		return -errno;
	return r == 1;
}

static int
t_security(const char *a)
{
	char	line[16];

	if (strcmp(a, "selinux") == 0)
		return access("/sys/fs/selinux/enforce", F_OK) == 0;
	if (strcmp(a, "apparmor") == 0) {
		cond_line("/sys/module/apparmor/parameters/enabled", line,
		    sizeof(line));
		return line[0] == 'Y';
	}
	if (strcmp(a, "smack") == 0)
		return access("/sys/fs/smackfs", F_OK) == 0;
	if (strcmp(a, "tomoyo") == 0)
		return access("/sys/kernel/security/tomoyo/version", F_OK) == 0;
	if (strcmp(a, "ima") == 0)
		return access("/sys/kernel/security/ima", F_OK) == 0;
	if (strcmp(a, "audit") == 0)	/* the kernel's audit is built */
		return access("/proc/self/loginuid", F_OK) == 0;
	if (strcmp(a, "tpm2") == 0)
		return access("/sys/class/tpmrm/tpmrm0", F_OK) == 0;
	if (strcmp(a, "uefi-secureboot") == 0) {
		struct buf	b = { 0 };
		int		on = 0;

		if (read_file(AT_FDCWD, "/sys/firmware/efi/efivars/SecureBoot-"
		    "8be4df61-93ca-11d2-aa0d-00e098032b8c", 64, &b) >= 0 &&
		    b.len == 5)
			on = b.data[4] == 1;
		buf_free(&b);
		return on;
	}
	return 0;
}

/*
 * The first boot: systemd.condition-first-boot= on the command line,
 * or systemd's own mark, or no machine ID yet (what systemd marks).
 */
static int
t_first_boot(const char *a)
{
	char	id[64];
	int	yes = sd_bool(a), on;

	if (t_kernel_command_line("systemd.condition-first-boot=1") ||
	    t_kernel_command_line("systemd.condition-first-boot=yes"))
		return yes == 1;
	if (t_kernel_command_line("systemd.condition-first-boot=0") ||
	    t_kernel_command_line("systemd.condition-first-boot=no"))
		return yes == 0;
	cond_line("/etc/machine-id", id, sizeof(id));
	on = access("/run/systemd/first-boot", F_OK) == 0 || id[0] == '\0' ||
	    strcmp(id, "uninitialized") == 0;
	return on == yes;
}

/* /usr changed after ARG/.updated was stamped (or it never was). */
static int
t_needs_update(const char *a)
{
	struct stat	usr, upd;
	char		path[64];

	if (stat("/usr", &usr) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/.updated", a);
	if (stat(path, &upd) < 0)
		return 1;
	if (upd.st_mtim.tv_nsec == 0)	/* a file system of seconds */
		return usr.st_mtim.tv_sec > upd.st_mtim.tv_sec;
	return usr.st_mtim.tv_sec > upd.st_mtim.tv_sec ||
	    (usr.st_mtim.tv_sec == upd.st_mtim.tv_sec &&
	    usr.st_mtim.tv_nsec > upd.st_mtim.tv_nsec);
}

/* On mains power: some mains supply online, or no supply known. */
static int
t_ac_power(const char *a)
{
	DIR		*d = opendir("/sys/class/power_supply");
	struct dirent	*e;
	char		 path[512], line[32];
	bool		 mains = false, online = false;
	int		 yes = sd_bool(a);

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/power_supply/%s/type",
		    e->d_name);
		cond_line(path, line, sizeof(line));
		if (strcmp(line, "Mains") != 0)
			continue;
		mains = true;
		snprintf(path, sizeof(path),
		    "/sys/class/power_supply/%s/online", e->d_name);
		cond_line(path, line, sizeof(line));
		online |= line[0] == '1';
	}
	if (d != NULL)
		closedir(d);
	return (!mains || online) == yes;
}

/* NAME or NAME=VALUE in the manager's environment (ours). */
static int
t_environment(const char *a)
{
	extern char	**environ;
	size_t		  len = strlen(a), i;
	bool		  eq = strchr(a, '=') != NULL;

	for (i = 0; environ && environ[i]; i++)
		if (eq ? strcmp(environ[i], a) == 0 :
		    strncmp(environ[i], a, len) == 0 && environ[i][len] == '=')
			return 1;
	return 0;
}

static int
t_credential(const char *a)
{
	const char	*dir = getenv("CREDENTIALS_DIRECTORY");
	char		 path[PATH_MAX];

	if (strchr(a, '/') != NULL || strcmp(a, ".") == 0 ||
	    strcmp(a, "..") == 0)
		return 0;
	if (dir != NULL && snprintf(path, sizeof(path), "%s/%s", dir, a) <
	    (int)sizeof(path) && access(path, F_OK) == 0)
		return 1;
	snprintf(path, sizeof(path), "/run/credentials/@system/%s", a);
	return access(path, F_OK) == 0;
}

static const struct cond_test cond_tests[] = {
	{ "path_exists", "PathExists", ARG_PATH, t_path_exists },
	{ "path_exists_glob", "PathExistsGlob", ARG_PATH,
	    t_path_exists_glob },
	{ "path_is_directory", "PathIsDirectory", ARG_PATH,
	    t_path_is_directory },
	{ "path_is_symbolic_link", "PathIsSymbolicLink", ARG_PATH,
	    t_path_is_symbolic_link },
	{ "path_is_mount_point", "PathIsMountPoint", ARG_PATH,
	    t_path_is_mount_point },
	{ "path_is_read_write", "PathIsReadWrite", ARG_PATH,
	    t_path_is_read_write },
	{ "directory_not_empty", "DirectoryNotEmpty", ARG_PATH,
	    t_directory_not_empty },
	{ "file_not_empty", "FileNotEmpty", ARG_PATH, t_file_not_empty },
	{ "file_is_executable", "FileIsExecutable", ARG_PATH,
	    t_file_is_executable },
	{ "kernel_command_line", "KernelCommandLine", ARG_WORD,
	    t_kernel_command_line },
	{ "virtualization", "Virtualization", ARG_VIRT, t_virtualization },
	{ "host", "Host", ARG_WORD, t_host },
	{ "user", "User", ARG_WORD, t_user },
	{ "group", "Group", ARG_WORD, t_group },
	{ "capability", "Capability", ARG_CAP, t_capability },
	{ "security", "Security", ARG_SECURITY, t_security },
	{ "first_boot", "FirstBoot", ARG_BOOL, t_first_boot },
	{ "needs_update", "NeedsUpdate", ARG_UPDATE, t_needs_update },
	{ "ac_power", "ACPower", ARG_BOOL, t_ac_power },
	{ "environment", "Environment", ARG_WORD, t_environment },
	{ "credential", "Credential", ARG_WORD, t_credential },
};

static const struct cond_test *
cond_find(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cond_tests); i++)
		if (strlen(cond_tests[i].name) == len &&
		    strncmp(cond_tests[i].name, name, len) == 0)
			return &cond_tests[i];
	return NULL;
}

const char *
cond_systemd_name(const char *test, size_t len)
{
	const struct cond_test	*t = cond_find(test, len);

	return t ? t->systemd : NULL;
}

/* ConditionNAME's NAME as TEST: 0, or -1 if we know no such test. */
int
cond_from_systemd(const char *name, char *out, size_t n)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cond_tests); i++)
		if (strcmp(cond_tests[i].systemd, name) == 0) {
			snprintf(out, n, "%s", cond_tests[i].name);
			return 0;
		}
	return -1;
}

/* Split a line: its test, its flags, its argument (after them). */
static const struct cond_test *
cond_split(const char *line, bool *trigger, bool *negate, const char **arg)
{
	size_t	len = strcspn(line, " \t");
	const char *a = line + len;

	while (*a == ' ' || *a == '\t')
		a++;
	*trigger = *a == '|';
	a += *trigger;
	*negate = *a == '!';
	a += *negate;
	*arg = a;
	return cond_find(line, len);
}

const char *
cond_parse(const char *line, char *why, size_t n)
{
	static const char *const sec[] = { "selinux", "apparmor", "tomoyo",
	    "smack", "ima", "audit", "tpm2", "uefi-secureboot" };
	const struct cond_test	*t;
	const char		*a;
	bool			 trig, neg;
	cap_value_t		 c;
	size_t			 i;

	if ((t = cond_split(line, &trig, &neg, &a)) == NULL) {
		snprintf(why, n, "unknown test '%.*s' (path_exists, "
		    "path_exists_glob, path_is_directory, "
		    "path_is_symbolic_link, path_is_mount_point, "
		    "path_is_read_write, directory_not_empty, file_not_empty, "
		    "file_is_executable, kernel_command_line, virtualization, "
		    "host, user, group, capability, security, first_boot, "
		    "needs_update, ac_power, environment, credential)",
		    (int)strcspn(line, " \t"), line);
		return why;
	}
	if (*a == '\0') {
		snprintf(why, n, "%s: no argument (TEST [|][!]ARGUMENT)",
		    t->name);
		return why;
	}
	switch (t->arg) {
	case ARG_PATH:
		if (a[0] != '/') {
			snprintf(why, n, "%s: '%s' is not an absolute path",
			    t->name, a);
			return why;
		}
		break;
	case ARG_BOOL:
		if (sd_bool(a) < 0) {
			snprintf(why, n, "%s: '%s' is not yes or no", t->name, a);
			return why;
		}
		break;
	case ARG_UPDATE:
		if (strcmp(a, "/etc") != 0 && strcmp(a, "/var") != 0) {
			snprintf(why, n, "%s: '%s' is neither /etc nor /var",
			    t->name, a);
			return why;
		}
		break;
	case ARG_CAP:
		if (cap_from_name(a, &c) < 0) {
			snprintf(why, n, "%s: unknown capability '%s'",
			    t->name, a);
			return why;
		}
		break;
	case ARG_SECURITY:
		for (i = 0; i < ARRAY_SIZE(sec); i++)
			if (strcmp(a, sec[i]) == 0)
				break;
		if (i == ARRAY_SIZE(sec)) {
			snprintf(why, n, "%s: unknown '%s' (selinux, apparmor, "
			    "tomoyo, smack, ima, audit, tpm2, "
			    "uefi-secureboot)", t->name, a);
			return why;
		}
		break;
	}
	return NULL;
}

/* Does one hold?  A test that cannot tell does not (systemd's way). */
static bool
cond_holds(const char *line)
{
	const struct cond_test	*t;
	const char		*a;
	bool			 trig, neg;
	int			 r;

	if ((t = cond_split(line, &trig, &neg, &a)) == NULL)
		return false;
	r = t->test(a);
	if (r < 0) {
		fprintf(stderr, "%s: cannot tell: %s\n", line, strerror(-r));
		return false;
	}
	return (r > 0) != neg;
}

/*
 * Check one kind's lines: every one without '|' must hold, and one of
 * those with, if any; first/triggers: the exit statuses of their miss.
 */
static int
cond_check(int argc, char **argv, const char *kind, int first, int triggers)
{
	bool	trig, neg, any_trig = false, one_trig = false;
	const char *a;
	int	i, k = 0;

	for (i = 0; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], kind) != 0)
			continue;
		cond_split(argv[i + 1], &trig, &neg, &a);
		if (trig) {
			any_trig = true;
			if (!one_trig && cond_holds(argv[i + 1]))
				one_trig = true;
		} else if (!cond_holds(argv[i + 1])) {
			printf("%s not met: %s\n", *kind == 'a' ? "assertion" :
			    kind, argv[i + 1]);
			return first + (k < COND_MAX - 1 ? k : COND_MAX - 1);
		}
		k++;
	}
	if (any_trig && !one_trig) {
		printf("no %s with '|' held\n", *kind == 'a' ? "assertion" :
		    kind);
		return triggers;
	}
	return COND_HELD;
}

int
cond_main(int argc, char **argv)
{
	char	why[512];
	int	i, rc;

	if (argc % 2 != 0)
		return COND_USAGE;
	for (i = 0; i < argc; i += 2)
		if ((strcmp(argv[i], "condition") != 0 &&
		    strcmp(argv[i], "assert") != 0) ||
		    cond_parse(argv[i + 1], why, sizeof(why)) != NULL) {
			fprintf(stderr, "pidvisor: --test-conditions: %s %s\n",
			    argv[i], argv[i + 1]);
			return COND_USAGE;
		}
	if ((rc = cond_check(argc, argv, "condition", COND_FAILED,
	    COND_TRIGGERS)) != COND_HELD)
		return rc;
	return cond_check(argc, argv, "assert", COND_ASSERT_FAILED,
	    COND_ASSERT_TRIGGERS);
}
