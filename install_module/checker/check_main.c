/*
 * postern-check: decodes one uploaded tarball, confined, and says whether
 * it obeys every archive rule. It is started once per upload as its own
 * system user, its socket on fd 0 (systemd's postern-check.socket with
 * Accept=yes, or an equivalent activator), and reads from it one request
 * with the read-only staging fd attached; then it enters its sandbox,
 * checks, and writes one verdict record back (wire/check_wire.h).
 *
 * MUST: enter the sandbox before the first byte of the upload is read;
 * answer every request with exactly one verdict, or die trying.
 * MUST NOT: write anything anywhere but the verdict, or hold any fd but
 * the socket and the upload while decoding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_sandbox.h"
#include "check_wire.h"
#include "spawn.h"
#include "tarball.h"
#include "text.h"

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
	const struct check_confinement c = { 64ull << 20, 5 };
	struct pst_err e;
	int abi;

	if (check_sandbox_enter(&c, &abi, &e) < 0) {
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

/* The one fd passed with msg, or -1 when there were none or several (all closed then). */
static int passed_fd(struct msghdr *msg)
{
	struct cmsghdr *c;
	size_t i, count, seen = 0;
	int fd = -1, one;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++, seen++) {
			memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (seen == 0)
				fd = one;
			else
				close(one);
		}
	}
	if (seen > 1 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* One request message with exactly one fd: a regular file opened read-only. */
static int request_receive(struct check_request *req, int *input, struct pst_err *e)
{
	unsigned char buf[CHECK_REQUEST_SIZE + 1];
	union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
	struct stat st;
	ssize_t n;
	int fl;

	*input = -1;
	do
		n = recvmsg(CHECK_CONN_FD, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return pst_fail(e, errno, "cannot read the request: %s", strerror(errno));
	*input = passed_fd(&m);
	if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || *input < 0)
		return pst_fail(e, EBADMSG, "the request must come with exactly one fd");
	if (check_request_parse(buf, (size_t)n, req, e) < 0)
		return -EBADMSG;
	fl = fcntl(*input, F_GETFL);
	if (fstat(*input, &st) != 0 || !S_ISREG(st.st_mode) || fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
		return pst_fail(e, EBADMSG, "the upload must be a regular file opened read-only");
	return 0;
}

static int verdict_send(const struct check_verdict *v)
{
	unsigned char buf[CHECK_VERDICT_SIZE];

	if (!check_verdict_encode(v, buf))
		return -1;
	return write(CHECK_CONN_FD, buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0 : -1;
}

/*
 * A refusal's reason as the verdict carries it: one line of valid UTF-8
 * without control characters (libarchive's messages may quote member
 * names), cut to fit at a character boundary.
 */
static void message_clean(const char *msg, char *out, size_t cap)
{
	size_t i = 0, o = 0, seq, len = strlen(msg);

	while (i < len) {
		seq = utf8_seq_len((const unsigned char *)msg + i, len - i);
		if (seq == 0)
			seq = 1;
		if (o + (seq == 1 ? 1 : seq) >= cap)
			break;
		if (seq == 1 && ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] >= 0x7f))
			out[o++] = '?';
		else {
			memcpy(out + o, msg + i, seq);
			o += seq;
		}
		i += seq;
	}
	out[o] = '\0';
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
	v->outcome = (rc == -EBADMSG || rc == -EFBIG || rc == -ETIMEDOUT) ? CHECK_REFUSED
		: CHECK_INTERNAL;
	message_clean(e->msg, v->message, sizeof(v->message));
	if (v->message[0] == '\0')
		str_copy(v->message, sizeof(v->message), "the archive cannot be checked");
}

/* The check proper, inside the sandbox. */
static int check(const struct check_request *req, struct check_verdict *v)
{
	const struct tarball_expect x = { req->module, req->version, req->compression,
					  &req->limits };
	const struct check_confinement c = { req->limits.check_memory, req->limits.time_limit + 1 };
	static struct tarball_result r;
	struct pst_err e;
	int abi = 0;
	int rc = check_sandbox_enter(&c, &abi, &e);

	if (rc == 0)
		rc = tarball_check(CHECK_INPUT_FD, &x, &r, &e);
	verdict_from(v, rc, &r, &e);
	return verdict_send(v);
}

int main(int argc, char **argv)
{
	const char *test = parse_options(argc, argv);
	static struct check_verdict v;
	struct check_request req;
	struct pst_err e;
	int input;

	if (test != NULL)
		selftest(test);
	/*
	 * Loaded now, while files can still be opened: glibc keeps the locale
	 * data, and tarball_check()'s own newlocale() finds it there.
	 */
	(void)newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (check_landlock_abi() == 0)
		fprintf(stderr, PROG ": this kernel has no Landlock: the check runs confined by "
			"seccomp and its limits only\n");
	if (request_receive(&req, &input, &e) < 0 ||
	    (input != CHECK_INPUT_FD && dup2(input, CHECK_INPUT_FD) != CHECK_INPUT_FD &&
	     pst_fail(&e, errno, "cannot place the upload's fd: %s", strerror(errno)) < 0)) {
		verdict_from(&v, -EIO, NULL, &e);
		verdict_send(&v);
		return 1;
	}
	if (input != CHECK_INPUT_FD)
		close(input);
	/* _exit: no atexit handler (libcrypto's, a sanitizer's) runs inside the sandbox. */
	_exit(check(&req, &v) == 0 ? 0 : 1);
}
