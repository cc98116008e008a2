/*
 * Running sqv and gpgv beside the archive check (see sig_verifier.h).
 *
 * Design note. Each verifier gets a fixed argv naming only /proc/self/fd
 * paths:
 *   sqv --keyring /proc/self/fd/4 [--not-before T] /proc/self/fd/3 /proc/self/fd/0
 *   gpgv --homedir /nonexistent --status-fd 1 --keyring /proc/self/fd/4
 *        /proc/self/fd/3 /proc/self/fd/0
 * fd 0: a pipe carrying the signed bytes, which the archive check tees
 * while it reads them anyway (no second pass); fd 3 and 4: sealed memfd
 * copies of the signature and the keyring (gpgv's converted to binary);
 * fd 1 and 2: pipes back to the checker, read with a cap (gpgv's stderr
 * is /dev/null: its free text is never read). Two verifiers because
 * neither answers both questions: sqv (memory-safe, current algorithm
 * policy, a pass without free text) judges the key at the signature's
 * time, which the signer chooses; gpgv judges it at the present, and is
 * trusted only to refuse (sig_now.c).
 *
 * MUST: start before the checker's seccomp filter (which forbids fork and
 * exec); fail closed: a tool that cannot be confined exits before execve
 * and the checker refuses.
 * MUST NOT: give a verifier any fd but its own, or a byte of the upload
 * the archive check did not read itself.
 */
#define _GNU_SOURCE
#include "sig_verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sig_confine.h"
#include "sig_keyring.h"
#include "sig_now.h"

/* Where each fd sits in a verifier. */
enum { V_DATA = 0, V_OUT = 1, V_ERR = 2, V_SIG = 3, V_KEYRING = 4, V_NFDS = 5 };

/* Captured output beyond this is read and dropped (and the answer is then no pass). */
#define CAPTURE_MAX 8192
/* Pipe size asked for the signed bytes, so the processes block each other less. */
#define TEE_PIPE_SIZE (1024 * 1024)

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

/*
 * One verifier on the sealed signature and keyring: its data pipe, its
 * stdout pipe, and its stderr pipe (for gpgv /dev/null: never read).
 */
static int verifier_spawn(int sig, int keyring, enum sig_tool tool, const struct sandbox_limits *c,
			  const char *path, char *const argv[], struct sig_pipes *p, struct pst_err *e)
{
	int child[V_NFDS] = { -1, -1, -1, sig, keyring };
	int data[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t pid;

	if (pipe2(data, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
	    (tool == SIG_TOOL_GNUPG ? (err[0] = -1, err[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0
			 : pipe2(err, O_CLOEXEC) != 0)) {
		int saved = errno;

		close_all((int[]){ data[0], data[1], out[0], out[1], err[0], err[1] }, 6);
		return pst_fail(e, saved, "cannot make the verifier's pipes: %s", strerror(saved));
	}
	(void)fcntl(data[1], F_SETPIPE_SZ, TEE_PIPE_SIZE);   /* a smaller pipe only costs time */
	child[V_DATA] = data[0];
	child[V_OUT] = out[1];
	child[V_ERR] = err[1];
	pid = sig_confined_spawn(child, V_NFDS, c, tool, path, argv, e);
	close_all(child, 3);
	if (pid < 0) {
		close_all((int[]){ data[1], out[0], err[0] }, 3);
		return pid;
	}
	*p = (struct sig_pipes){ pid, data[1], out[0], err[0] };
	return 0;
}

static int sqv_start(int sig, int keyring, const struct sandbox_limits *c, unsigned max_age,
		     struct sig_pipes *p, struct pst_err *e)
{
	char not_before[32];
	char *const argv[] = { (char *)"sqv", (char *)"--keyring", (char *)"/proc/self/fd/4",
			       (char *)"/proc/self/fd/3", (char *)"/proc/self/fd/0", NULL };
	/* Older signatures refused: a key that expired or was replaced since cannot back-date one. */
	char *const argv_max_age[] = { (char *)"sqv", (char *)"--keyring", (char *)"/proc/self/fd/4",
				       (char *)"--not-before", not_before, (char *)"/proc/self/fd/3",
				       (char *)"/proc/self/fd/0", NULL };

	not_before_text(max_age, not_before);
	return verifier_spawn(sig, keyring, SIG_TOOL_SQV, c, SIG_VERIFIER_PATH,
			      not_before[0] != '\0' ? argv_max_age : argv, p, e);
}

static int gpgv_start(int sig, int keyring, const struct sandbox_limits *c, struct sig_pipes *p,
		      struct pst_err *e)
{
	char *const argv[] = { (char *)"gpgv", (char *)"--homedir", (char *)"/nonexistent",
			       (char *)"--status-fd", (char *)"1", (char *)"--keyring",
			       (char *)"/proc/self/fd/4", (char *)"/proc/self/fd/3",
			       (char *)"/proc/self/fd/0", NULL };
	int binary = sig_keyring_binary(keyring, c, e);
	int rc;

	/* Not armor gpg reads: gpgv gets it as it is, so sqv's answer names the keyring's
	 * problem, and a keyring only sqv reads is refused by gpgv's missing key. */
	if (binary == -EBADMSG)
		binary = fcntl(keyring, F_DUPFD_CLOEXEC, 0);
	if (binary < 0)
		return binary;
	rc = verifier_spawn(sig, binary, SIG_TOOL_GNUPG, c, SIG_NOW_VERIFIER_PATH, argv, p, e);
	close(binary);
	return rc;
}

/* A verifier started in vain (the other could not start): ended and reaped. */
static void verifier_abandon(struct sig_pipes *p)
{
	int status;

	close_all((int[]){ p->data_fd, p->out_fd, p->err_fd }, 3);
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
}

int sig_verifier_start(int sig_fd, int keyring_fd, const struct sandbox_limits *c,
		       unsigned max_age, struct sig_verifier *v, struct pst_err *e)
{
	int sig, keyring, rc;

	sig = sig_memfd_copy(sig_fd, "signature", CHECK_SIGNATURE_MAX, e);
	if (sig == -EFBIG)
		return pst_fail(e, EFBIG, "the signature file is larger than %d bytes: a detached "
				"signature is a few hundred bytes (make it with gpg --detach-sign)",
				CHECK_SIGNATURE_MAX);
	if (sig < 0)
		return sig;
	keyring = sig_memfd_copy(keyring_fd, "keyring", SIG_KEYRING_MAX, e);
	if (keyring < 0) {
		close(sig);
		if (keyring == -EFBIG)
			return pst_fail(e, EMSGSIZE, "your OpenPGP keyring on this server is larger "
					"than %d bytes: the server's admins must trim it; your "
					"upload is not at fault", SIG_KEYRING_MAX);
		return keyring;
	}
	rc = sqv_start(sig, keyring, c, max_age, &v->sqv, e);
	if (rc == 0) {
		rc = gpgv_start(sig, keyring, c, &v->now, e);
		if (rc < 0)
			verifier_abandon(&v->sqv);
	}
	close(sig);
	close(keyring);
	return rc;
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

/* Read every open capture until all reach their end. */
static void captures_drain(const int *fds, struct capture *c, int n)
{
	struct pollfd p[3];
	bool any = true;
	int i;

	while (any) {
		for (i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = c[i].open ? fds[i] : -1, .events = POLLIN };
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		any = false;
		for (i = 0; i < n; i++) {
			if (p[i].revents != 0)
				capture_read(fds[i], &c[i]);
			any = any || c[i].open;
		}
	}
}

static bool reaped(pid_t pid, int *status)
{
	pid_t got;

	do
		got = waitpid(pid, status, 0);
	while (got < 0 && errno == EINTR);
	return got == pid;
}

enum { C_SQV_OUT, C_SQV_ERR, C_NOW_OUT, C_COUNT };

void sig_verifier_finish(const struct sig_verifier *v, enum check_signature_kind kind,
			 struct sig_result *r)
{
	static struct capture cap[C_COUNT];
	const int fds[C_COUNT] = { CHECK_VOUT_FD, CHECK_VERR_FD, CHECK_NOW_OUT_FD };
	int sqv_status = 0, now_status = 0, i;
	bool collected;

	close(CHECK_TEE_FD);
	close(CHECK_NOW_TEE_FD);
	for (i = 0; i < C_COUNT; i++)
		cap[i].open = true;
	captures_drain(fds, cap, C_COUNT);
	collected = reaped(v->sqv.pid, &sqv_status);
	collected = reaped(v->now.pid, &now_status) && collected;   /* both reaped, whatever */
	for (i = 0; i < C_COUNT; i++)
		collected = collected && !cap[i].open;
	memset(r, 0, sizeof(*r));
	if (!collected) {
		r->outcome = CHECK_INTERNAL;
		strcpy(r->message, "the signature verifiers' answers could not be collected");
		return;
	}
	sig_verdict_read(kind, sqv_status, cap[C_SQV_OUT].buf, cap[C_SQV_OUT].len,
			 cap[C_SQV_ERR].buf, cap[C_SQV_ERR].len,
			 cap[C_SQV_OUT].cut || cap[C_SQV_ERR].cut, r);
	if (r->outcome == CHECK_PASS) {
		char signer[sizeof(r->signer)];

		memcpy(signer, r->signer, sizeof(signer));
		sig_now_read(now_status, cap[C_NOW_OUT].buf, cap[C_NOW_OUT].len, cap[C_NOW_OUT].cut,
			     signer, r);
	}
}
