/*
 * Running sqv beside the archive check (see sig_verifier.h).
 *
 * Design note. sqv gets a fixed argv naming only /proc/self/fd paths:
 *   sqv --keyring /proc/self/fd/4 /proc/self/fd/3 /proc/self/fd/0
 * fd 0: a pipe carrying the signed bytes, which the archive check tees
 * while it reads them anyway (no second pass); fd 3 and 4: sealed memfd
 * copies of the signature and the keyring (reopening the daemon's own
 * files by /proc would need its permissions); fd 1 and 2: pipes back to
 * the checker, read with a cap. Its environment is LC_ALL=C and nothing
 * else; it runs with no_new_privs, rlimits (memory, CPU, no files written,
 * no processes, few fds), an alarm at the time limit, Landlock allowing
 * only reads and execution under /usr, /lib* and /etc/ld.so.cache (it can
 * write nothing anywhere), and a seccomp filter that kills it at any
 * network, signal-sending, tracing or cross-process memory call, and at
 * io_uring (which would do them past seccomp): a compromised sqv can
 * neither forge syslog records nor signal other uploads' checks running
 * under the same uid, with or without systemd's own sandbox. A deny-list,
 * not an allow-list: sqv is Sequoia's Rust binary, whose calls change with
 * its releases and are not ours to pin; what it must never do is listed.
 *
 * MUST: start before the checker's seccomp filter (which forbids fork and
 * exec); fail closed: a child that cannot be confined exits 125 before
 * execve and the checker refuses.
 * MUST NOT: give the verifier any fd but those five, or a byte of the
 * upload the archive check did not read itself.
 */
#define _GNU_SOURCE
#include "sig_verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

/* Where each fd sits in the verifier. */
enum { V_DATA = 0, V_OUT = 1, V_ERR = 2, V_SIG = 3, V_KEYRING = 4, V_NFDS = 5 };

/* Captured output beyond this is read and dropped (and the answer is then no pass). */
#define CAPTURE_MAX 8192
/* fds the verifier may hold: its five, the dynamic loader's, sqv's own opens. */
#define VERIFIER_NOFILE 32
/* Pipe size asked for the signed bytes, so the two processes block each other less. */
#define TEE_PIPE_SIZE (1024 * 1024)

static const char *const readable_trees[] = { "/usr", "/lib", "/lib64", "/etc/ld.so.cache" };

/* A sealed, read-only-from-now-on memfd copy of at most cap bytes of fd. */
static int memfd_copy(int fd, const char *name, size_t cap, struct pst_err *e)
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
static int verifier_landlock(void)
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

/* The calls no verifier needs, each of which a compromised one could abuse. */
static const int verifier_forbidden[] = {
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

static int verifier_seccomp(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	size_t i;
	int rc = 0;

	if (ctx == NULL)
		return -ENOMEM;
	for (i = 0; rc == 0 && i < sizeof(verifier_forbidden) / sizeof(verifier_forbidden[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, verifier_forbidden[i], 0);
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
static void verifier_exec(int *fds, const struct sandbox_limits *c, char *not_before)
{
	char *const argv[] = { (char *)"sqv", (char *)"--keyring", (char *)"/proc/self/fd/4",
			       (char *)"/proc/self/fd/3", (char *)"/proc/self/fd/0", NULL };
	/* Older signatures refused: a key that expired or was replaced since cannot back-date one. */
	char *const argv_max_age[] = { (char *)"sqv", (char *)"--keyring", (char *)"/proc/self/fd/4",
				       (char *)"--not-before", not_before, (char *)"/proc/self/fd/3",
				       (char *)"/proc/self/fd/0", NULL };
	char *const envp[] = { (char *)"LC_ALL=C", NULL };
	sigset_t none;

	sigemptyset(&none);
	if (fds_place(fds, V_NFDS) != 0 || signal(SIGPIPE, SIG_DFL) == SIG_ERR ||
	    sigprocmask(SIG_SETMASK, &none, NULL) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || verifier_landlock() != 0 ||
	    sandbox_rlimits_set(c, VERIFIER_NOFILE, NULL) != 0 || verifier_seccomp() != 0)
		_exit(SIG_VERIFIER_SETUP_FAILED);
	/* Wall-clock bound: an alarm survives execve, and its default action ends sqv. */
	alarm(c->cpu_seconds);
	execve(SIG_VERIFIER_PATH, not_before[0] != '\0' ? argv_max_age : argv, envp);
	_exit(SIG_VERIFIER_EXEC_FAILED);
}

static void close_all(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* now - max_age in ISO 8601 (UTC), sqv's format; "" for no limit. */
static void not_before_text(unsigned max_age, char out[32])
{
	time_t t = time(NULL) - (time_t)max_age;
	struct tm tm;

	out[0] = '\0';
	if (max_age > 0 && gmtime_r(&t, &tm) != NULL)
		strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int sig_verifier_start(int sig_fd, int keyring_fd, const struct sandbox_limits *c,
		       unsigned max_age, struct sig_verifier *v, struct pst_err *e)
{
	int child[V_NFDS] = { -1, -1, -1, -1, -1 };
	char not_before[32];
	int data[2], out[2], err[2];
	pid_t pid;

	child[V_SIG] = memfd_copy(sig_fd, "signature", CHECK_SIGNATURE_MAX, e);
	if (child[V_SIG] == -EFBIG)
		return pst_fail(e, EFBIG, "the signature file is larger than %d bytes: a detached "
				"signature is a few hundred bytes (make it with gpg --detach-sign)",
				CHECK_SIGNATURE_MAX);
	if (child[V_SIG] < 0)
		return child[V_SIG];
	child[V_KEYRING] = memfd_copy(keyring_fd, "keyring", SIG_KEYRING_MAX, e);
	if (child[V_KEYRING] < 0) {
		close(child[V_SIG]);
		if (child[V_KEYRING] == -EFBIG)
			return pst_fail(e, EMSGSIZE, "your OpenPGP keyring on this server is larger "
					"than %d bytes: the server's admins must trim it; your "
					"upload is not at fault", SIG_KEYRING_MAX);
		return child[V_KEYRING];
	}
	if (pipe2(data, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
		close_all(child, V_NFDS);
		return pst_fail(e, errno, "cannot make the verifier's pipes: %s", strerror(errno));
	}
	(void)fcntl(data[1], F_SETPIPE_SZ, TEE_PIPE_SIZE);   /* a smaller pipe only costs time */
	child[V_DATA] = data[0];
	child[V_OUT] = out[1];
	child[V_ERR] = err[1];
	not_before_text(max_age, not_before);
	pid = fork();
	if (pid == 0)
		verifier_exec(child, c, not_before);
	close_all(child, V_NFDS);
	if (pid < 0) {
		close_all((int[]){ data[1], out[0], err[0] }, 3);
		return pst_fail(e, errno, "cannot start the signature verifier: %s", strerror(errno));
	}
	v->pid = pid;
	v->data_fd = data[1];
	v->out_fd = out[0];
	v->err_fd = err[0];
	return 0;
}

struct capture {
	char buf[CAPTURE_MAX];
	size_t len;
	bool cut;
	bool open;
};

static void capture_read(int fd, struct capture *c)
{
	char scratch[4096];
	ssize_t n;
	size_t room = sizeof(c->buf) - c->len;

	n = read(fd, room > 0 ? c->buf + c->len : scratch, room > 0 ? room : sizeof(scratch));
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		c->open = false;
		return;
	}
	if (room > 0)
		c->len += (size_t)n;
	else
		c->cut = true;
}

void sig_verifier_finish(const struct sig_verifier *v, enum check_signature_kind kind,
			 struct sig_result *r)
{
	static struct capture out, err;
	struct pollfd p[2];
	int status = 0;
	pid_t got;

	close(CHECK_TEE_FD);
	out.open = err.open = true;
	while (out.open || err.open) {
		p[0] = (struct pollfd){ .fd = out.open ? CHECK_VOUT_FD : -1, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = err.open ? CHECK_VERR_FD : -1, .events = POLLIN };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents != 0)
			capture_read(CHECK_VOUT_FD, &out);
		if (p[1].revents != 0)
			capture_read(CHECK_VERR_FD, &err);
	}
	do
		got = waitpid(v->pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got != v->pid || out.open || err.open) {
		memset(r, 0, sizeof(*r));
		r->outcome = CHECK_INTERNAL;
		strcpy(r->message, "the signature verifier's answer could not be collected");
		return;
	}
	sig_verdict_read(kind, status, out.buf, out.len, err.buf, err.len, out.cut || err.cut, r);
}
