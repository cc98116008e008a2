/*
 * postern-check: decodes one uploaded tarball, confined, and says whether
 * it obeys every archive rule. It is started once per upload as its own
 * system user, its socket on fd 0 (systemd's postern-check.socket with
 * Accept=yes, or an equivalent activator), and reads from it one request
 * with the read-only staging fd attached (and for a signed upload the
 * signature's and the uploader's keyring's); starts the OpenPGP verifier
 * beside itself when there is a signature (sig_verifier.h), then enters its
 * sandbox, checks, and writes one verdict record back (wire/check_wire.h).
 *
 * MUST: enter the sandbox before the first byte of the upload is read;
 * answer every request with exactly one verdict, or die trying.
 * MUST NOT: write anything anywhere but the verdict (and the signed bytes
 * to the verifier), or hold any fd but the socket and the upload (and the
 * verifier's three pipes) while decoding; pass a signed upload without the
 * verifier's word that the signature is good.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"
#include "check_wire.h"
#include "sig_verifier.h"
#include "spawn.h"
#include "tarball.h"
#include "text.h"
#include "text_show.h"

#define PROG "postern-check"

static void usage(FILE *to, int status)
{
	fprintf(to,
		"usage: " PROG "\n"
		"       " PROG " --seccomp-selftest=open|socket|execve\n"
		"Checks one release tarball for postern-installd: the request and the\n"
		"upload's fd arrive on the socket at fd 0, the verdict goes back there.\n"
		"--seccomp-selftest enters the sandbox, then tries the call: it must be\n"
		"killed by SIGSYS (exit status 3 means the call was allowed).\n");
	exit(status);
}

/* Enter the sandbox with default limits and try a forbidden call. */
static void selftest(const char *call)
{
	const struct sandbox_limits c = { 64ull << 20, 5, false };
	struct pst_err e;
	int abi;

	if (sandbox_enter(&c, &abi, &e) < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		exit(1);
	}
	if (strcmp(call, "open") == 0)
		(void)!openat(AT_FDCWD, "postern-check-selftest", O_WRONLY | O_CREAT | O_EXCL, 0600);
	else if (strcmp(call, "socket") == 0)
		(void)!socket(AF_INET, SOCK_STREAM, 0);
	else if (strcmp(call, "execve") == 0)
		execve("/bin/true", (char *const[]){ (char *)"true", NULL }, (char *const[]){ NULL });
	exit(3);
}

static const char *parse_options(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "seccomp-selftest", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *test = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		if (c == 'h')
			usage(stdout, 0);
		else if (c == 's' && (strcmp(optarg, "open") == 0 || strcmp(optarg, "socket") == 0 ||
				      strcmp(optarg, "execve") == 0))
			test = optarg;
		else
			usage(stderr, 2);
	}
	if (optind != argc)
		usage(stderr, 2);
	return test;
}

/*
 * The fds passed with msg into fds[0..max-1]; returns how many there were.
 * When there were more than max, all are closed and the count is still
 * returned (so the caller refuses).
 */
static size_t passed_fds(struct msghdr *msg, int *fds, size_t max)
{
	struct cmsghdr *c;
	size_t i, count, seen = 0;
	int one;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++, seen++) {
			memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (seen < max)
				fds[seen] = one;
			else
				close(one);
		}
	}
	if (seen > max)
		for (i = 0; i < max; i++)
			close(fds[i]);
	return seen;
}

static bool regular_read_only(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fl >= 0 && (fl & O_ACCMODE) == O_RDONLY;
}

/*
 * One request message with exactly one fd (unsigned) or three (upload,
 * signature, keyring), each a regular file opened read-only. fds[] gets
 * them, -1 for those not passed.
 */
static int request_receive(struct check_request *req, int fds[3], struct pst_err *e)
{
	unsigned char buf[CHECK_REQUEST_SIZE + 1];
	union { struct cmsghdr h; char b[CMSG_SPACE(4 * sizeof(int))]; } ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
	size_t got, want, i;
	ssize_t n;

	fds[0] = fds[1] = fds[2] = -1;
	do
		n = recvmsg(SANDBOX_OUT_FD, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return pst_fail(e, errno, "cannot read the request: %s", strerror(errno));
	got = passed_fds(&m, fds, 3);
	if (got > 3)
		fds[0] = fds[1] = fds[2] = -1;
	if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || (got != 1 && got != 3))
		return pst_fail(e, EBADMSG, "the request must come with one fd, or three for a "
				"signed upload");
	if (check_request_parse(buf, (size_t)n, req, e) < 0)
		return -EBADMSG;
	want = req->sig_kind == CHECK_SIG_NONE ? 1 : 3;
	if (got != want)
		return pst_fail(e, EBADMSG, "the request came with %zu fds, its signature kind wants "
				"%zu", got, want);
	for (i = 0; i < want; i++)
		if (!regular_read_only(fds[i]))
			return pst_fail(e, EBADMSG, "the upload, its signature and the keyring must "
					"be regular files opened read-only");
	return 0;
}

static int verdict_send(const struct check_verdict *v)
{
	unsigned char buf[CHECK_VERDICT_SIZE];

	if (!check_verdict_encode(v, buf))
		return -1;
	return write(SANDBOX_OUT_FD, buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0 : -1;
}

/*
 * A refusal's reason as the verdict carries it: printable
 * (common/text_show.h: libarchive's messages may quote member names), cut
 * to fit at a character boundary.
 */
static void message_clean(const char *msg, char *out, size_t cap)
{
	text_safe_copy(out, cap, msg, strlen(msg), TEXT_REPLACE);
}

static void verdict_from(struct check_verdict *v, int rc, const struct tarball_result *r,
			 const struct pst_err *e)
{
	memset(v, 0, sizeof(*v));
	if (rc == 0) {
		v->outcome = CHECK_PASS;
		v->compressed = r->compressed_size;
		v->uncompressed = r->uncompressed_size;
		v->members = r->members;
		v->has_news = r->has_news;
		str_copy(v->news, sizeof(v->news), r->news_head);
		return;
	}
	v->outcome = (rc == -EBADMSG || rc == -EFBIG || rc == -ETIMEDOUT || rc == -EMSGSIZE)
		? CHECK_REFUSED : CHECK_INTERNAL;
	message_clean(e->msg, v->message, sizeof(v->message));
	if (v->message[0] == '\0')
		str_copy(v->message, sizeof(v->message), "the archive cannot be checked");
}

/* A passing archive passes only with a good signature too; its refusal comes first. */
static void verdict_signed(struct check_verdict *v, const struct sig_result *s)
{
	if (v->outcome != CHECK_PASS)
		return;
	if (s->outcome == CHECK_PASS) {
		str_copy(v->signer, sizeof(v->signer), s->signer);
		return;
	}
	memset(v, 0, sizeof(*v));
	v->outcome = s->outcome;
	message_clean(s->message, v->message, sizeof(v->message));
}

/* The check proper, inside the sandbox; verifier NULL for an unsigned upload. */
static int check(const struct check_request *req, const struct sig_verifier *verifier,
		 struct check_verdict *v)
{
	const struct tarball_expect x = { req->module, req->version, req->compression,
					  &req->limits };
	enum tarball_tee tee = TARBALL_TEE_NONE;
	const struct sandbox_limits c = { req->limits.check_memory, req->limits.time_limit + 1,
					     verifier != NULL };
	static struct tarball_result r;
	static struct sig_result sig;
	struct pst_err e;
	int abi = 0;
	int rc = sandbox_enter(&c, &abi, &e);

	if (verifier != NULL)
		tee = req->sig_kind == CHECK_SIG_TAR ? TARBALL_TEE_TAR : TARBALL_TEE_UPLOAD;
	if (rc == 0)
		rc = tarball_check_tee(SANDBOX_IN_FD, &x, tee,
				       (const int[]){ CHECK_TEE_FD, CHECK_NOW_TEE_FD }, &r, &e);
	verdict_from(v, rc, &r, &e);
	if (verifier != NULL) {
		sig_verifier_finish(verifier, req->sig_kind, &sig);
		verdict_signed(v, &sig);
	}
	return verdict_send(v);
}

/* fd becomes target (closed first if open); the old fd is closed. */
static int fd_move(int fd, int target)
{
	if (fd == target)
		return 0;
	if (dup2(fd, target) != target)
		return -1;
	close(fd);
	return 0;
}

/* The verifiers' fds to CHECK_TEE_FD and on, in the order sandbox.h gives. */
static int verifier_fds_place(struct sig_verifier *v, struct pst_err *e)
{
	int *const fds[] = { &v->sqv.data_fd, &v->sqv.out_fd, &v->sqv.err_fd, &v->now.data_fd,
			     &v->now.out_fd };
	const int n = (int)(sizeof(fds) / sizeof(fds[0]));
	int high[sizeof(fds) / sizeof(fds[0])], i, failed = 0;

	for (i = 0; i < n; i++) {
		high[i] = fcntl(*fds[i], F_DUPFD_CLOEXEC, 64);
		failed |= high[i] < 0;
		close(*fds[i]);
	}
	for (i = 0; i < n; i++) {
		if (failed || fd_move(high[i], CHECK_TEE_FD + i) != 0)
			return pst_fail(e, EMFILE, "cannot place the verifiers' fds");
		*fds[i] = CHECK_TEE_FD + i;
	}
	return 0;
}

/*
 * Before the sandbox: the upload to SANDBOX_IN_FD; for a signed upload,
 * the verifier started and its fds moved to CHECK_TEE_FD and on. A refusal
 * of the signature file (oversized) or keyring is returned like the
 * archive's (e filled).
 */
static int setup(const struct check_request *req, int fds[3], struct sig_verifier *verifier,
		 struct pst_err *e)
{
	const struct sandbox_limits c = { req->limits.check_memory, req->limits.time_limit + 1,
					     true };
	int rc;

	if (fd_move(fds[0], SANDBOX_IN_FD) != 0)
		return pst_fail(e, errno, "cannot place the upload's fd: %s", strerror(errno));
	fds[0] = SANDBOX_IN_FD;
	if (req->sig_kind == CHECK_SIG_NONE)
		return 0;
	rc = sig_verifier_start(fds[1], fds[2], &c, req->sig_max_age, verifier, e);
	close(fds[1]);
	close(fds[2]);
	if (rc < 0)
		return rc;
	/* A verifier that stops reading must not kill the check: the tee's write fails with EPIPE. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return pst_fail(e, errno, "cannot ignore SIGPIPE");
	return verifier_fds_place(verifier, e);
	return 0;
}

int main(int argc, char **argv)
{
	const char *test = parse_options(argc, argv);
	static struct check_verdict v;
	static struct sig_verifier verifier;
	struct check_request req;
	struct pst_err e;
	int fds[3], rc;

	if (test != NULL)
		selftest(test);
	/*
	 * Loaded now, while files can still be opened: glibc keeps the locale
	 * data, and tarball_check()'s own newlocale() finds it there.
	 */
	(void)newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (sandbox_landlock_abi() == 0)
		fprintf(stderr, PROG ": this kernel has no Landlock: the check runs confined by "
			"seccomp and its limits only\n");
	rc = request_receive(&req, fds, &e);
	if (rc == 0)
		rc = setup(&req, fds, &verifier, &e);
	if (rc < 0) {
		verdict_from(&v, rc == -EFBIG || rc == -EMSGSIZE ? rc : -EIO, NULL, &e);
		verdict_send(&v);
		/* _exit: the locale loaded above is kept on purpose (a leak checker would say otherwise). */
		_exit(1);
	}
	/* _exit: no atexit handler (libcrypto's, a sanitizer's) runs inside the sandbox. */
	_exit(check(&req, req.sig_kind != CHECK_SIG_NONE ? &verifier : NULL, &v) == 0 ? 0 : 1);
}
