/*
 * Confining the OpenPGP tools (see sig_confine.h).
 *
 * Design note. A deny-list, not an allow-list: sqv is Sequoia's Rust
 * binary and gpgv GnuPG's, whose calls change with their releases and are
 * not ours to pin; what they must never do is listed. Landlock lets them
 * read only the system's libraries and write nothing anywhere, rlimits
 * allow no file writes and no processes, and the alarm bounds wall-clock
 * time (it survives execve, and its default action ends the tool). The
 * same confinement applies with or without systemd's own sandbox.
 *
 * MUST: confine before execve, and exit SIG_VERIFIER_SETUP_FAILED when any
 * step fails: an unconfined tool never runs.
 */
#define _GNU_SOURCE
#include "sig_confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"

/* fds a tool may hold: its own, the dynamic loader's, the tool's own opens. */
#define CONFINED_NOFILE 32
/* The most fds a tool is given. */
#define CONFINED_FDS_MAX 8

static const char *const readable_trees[] = { "/usr", "/lib", "/lib64", "/etc/ld.so.cache" };

int sig_memfd_copy(int fd, const char *name, size_t cap, struct pst_err *e)
{
	static char buf[64 * 1024];
	int m = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t total = 0;
	ssize_t n;

	if (m < 0)
		return pst_fail(e, errno, "cannot make a memfd: %s", strerror(errno));
	for (;;) {
		n = pread(fd, buf, sizeof(buf), (off_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		if (total > cap) {
			close(m);
			return -EFBIG;
		}
		if (write(m, buf, (size_t)n) != n) {
			close(m);
			return pst_fail(e, EIO, "cannot copy the %s", name);
		}
	}
	if (n < 0) {
		int err = errno;

		close(m);
		return pst_fail(e, err, "cannot read the %s: %s", name, strerror(err));
	}
	if (fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(m);
		return pst_fail(e, errno, "cannot seal the %s copy: %s", name, strerror(errno));
	}
	return m;
}

/* Landlock: read and execute under readable_trees, nothing else, no write anywhere. */
static int confine_landlock(void)
{
	const __u64 read_exec = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
				LANDLOCK_ACCESS_FS_READ_DIR;
	struct landlock_ruleset_attr attr;
	struct landlock_path_beneath_attr rule = { .allowed_access = read_exec };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	struct stat st;
	size_t i;
	int rs, rc = 0;

	if (abi < 0)
		return (errno == ENOSYS || errno == EOPNOTSUPP) ? 0 : -1;
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = sandbox_landlock_all_fs((int)abi);
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return -1;
	for (i = 0; i < sizeof(readable_trees) / sizeof(readable_trees[0]) && rc == 0; i++) {
		rule.parent_fd = open(readable_trees[i], O_PATH | O_CLOEXEC);
		if (rule.parent_fd < 0)
			continue;   /* /lib64 exists on some architectures only */
		rule.allowed_access = fstat(rule.parent_fd, &st) == 0 && S_ISDIR(st.st_mode)
			? read_exec : LANDLOCK_ACCESS_FS_READ_FILE;
		rc = (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
		close(rule.parent_fd);
	}
	if (rc == 0)
		rc = (int)syscall(SYS_landlock_restrict_self, rs, 0);
	close(rs);
	return rc;
}

/* The calls none of the tools needs, each of which a compromised one could abuse. */
static const int confine_forbidden[] = {
	/* the network, and the syslog socket: no forged audit records */
	SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
	SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(sendto),
	SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg),
	/* signals to other processes (the other checks run as the same uid) */
	SCMP_SYS(kill), SCMP_SYS(tkill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal),
	SCMP_SYS(pidfd_getfd),
	/* other processes' memory */
	SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
	/* io_uring runs operations the filter never sees */
	SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
	/* kernel surfaces no verifier needs */
	SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(keyctl),
	SCMP_SYS(add_key), SCMP_SYS(request_key),
};

/*
 * GnuPG's tools look up their user, and glibc first tries nscd's socket:
 * for them socket() fails with EACCES (the lookup then finds nothing, as
 * Landlock hides /etc/passwd) rather than killing them. Every call that
 * would use a socket (connect, sendto, ...) still kills.
 */
static int confine_seccomp(enum sig_tool tool)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	size_t i;
	int rc = 0;

	if (ctx == NULL)
		return -ENOMEM;
	for (i = 0; rc == 0 && i < sizeof(confine_forbidden) / sizeof(confine_forbidden[0]); i++)
		rc = seccomp_rule_add(ctx, tool == SIG_TOOL_GNUPG && confine_forbidden[i] == SCMP_SYS(socket)
				      ? SCMP_ACT_ERRNO(EACCES) : SCMP_ACT_KILL_PROCESS,
				      confine_forbidden[i], 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

/* fds[i] becomes fd i: first all above the targets, then into place, so none is clobbered. */
static int fds_place(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int high = fcntl(fds[i], F_DUPFD_CLOEXEC, 64);

		if (high < 0)
			return -1;
		fds[i] = high;
	}
	for (i = 0; i < n; i++)
		if (dup2(fds[i], i) != i)
			return -1;
	fds_close_from(n);
	return 0;
}

/* The child: never returns. */
static void confined_exec(int *fds, int n, const struct sandbox_limits *c, enum sig_tool tool,
			  const char *path, char *const argv[])
{
	char *const envp[] = { (char *)"LC_ALL=C", NULL };
	sigset_t none;

	sigemptyset(&none);
	if (fds_place(fds, n) != 0 || signal(SIGPIPE, SIG_DFL) == SIG_ERR ||
	    signal(SIGALRM, SIG_DFL) == SIG_ERR || sigprocmask(SIG_SETMASK, &none, NULL) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || confine_landlock() != 0 ||
	    sandbox_rlimits_set(c, CONFINED_NOFILE, NULL) != 0 || confine_seccomp(tool) != 0)
		_exit(SIG_VERIFIER_SETUP_FAILED);
	alarm(c->cpu_seconds);
	execve(path, argv, envp);
	_exit(SIG_VERIFIER_EXEC_FAILED);
}

pid_t sig_confined_spawn(const int *fds, int n, const struct sandbox_limits *c, enum sig_tool tool,
			 const char *path, char *const argv[], struct pst_err *e)
{
	int mine[CONFINED_FDS_MAX];
	pid_t pid;

	if (n > CONFINED_FDS_MAX)
		return pst_fail(e, EINVAL, "internal error: too many fds for %s", path);
	memcpy(mine, fds, (size_t)n * sizeof(mine[0]));
	pid = fork();
	if (pid == 0)
		confined_exec(mine, n, c, tool, path, argv);
	if (pid < 0)
		return pst_fail(e, errno, "cannot start %s: %s", path, strerror(errno));
	return pid;
}
