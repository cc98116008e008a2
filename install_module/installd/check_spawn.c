/*
 * The daemon's side of the checker boundary (see check_spawn.h).
 *
 * MUST: hand the checker read-only fds only (the upload, and for a signed
 * one its signature and the uploader's keyring), with O_CLOEXEC copies on our
 * side; wait a bounded time; accept exactly one verdict record and parse
 * it strictly; treat silence, a short, long or malformed record, or a
 * connection that ends first as a refusal.
 * MUST NOT: take anything from the verdict but its outcome, its counts, its
 * message, the NEWS excerpt (cleaned again by the parser) and the signer's
 * fingerprint (only on a pass of a signed request, and then required): where and
 * what to write is decided by the daemon alone.
 */
#define _GNU_SOURCE
#include "check_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "upload_stage.h"

static int checker_connect(const char *path, struct pst_err *e)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return pst_fail(e, ENAMETOOLONG, "the checker socket path is too long");
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pst_fail(e, errno, "cannot make a socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int err = errno;

		close(fd);
		return pst_fail(e, err, "cannot reach the archive checker at %s: %s (is "
				"postern-check.socket running?)", path, strerror(err));
	}
	return fd;
}

/* The request with nfds (1 or 3) fds attached. */
static int request_send(int sock, const int *fds, size_t nfds, const struct check_request *req,
			struct pst_err *e)
{
	unsigned char buf[CHECK_REQUEST_SIZE];
	union { struct cmsghdr h; char b[CMSG_SPACE(3 * sizeof(int))]; } ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.b, .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *c;
	ssize_t n;

	if (nfds < 1 || nfds > 3 || !check_request_encode(req, buf))
		return pst_fail(e, EINVAL, "the checker request cannot be encoded");
	memset(ctl.b, 0, sizeof(ctl.b));
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL)
		return pst_fail(e, EINVAL, "no room to pass the upload's fd");
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(buf))
		return pst_fail(e, n < 0 ? errno : EPIPE, "cannot send the archive checker its request: %s",
				n < 0 ? strerror(errno) : "short write");
	return 0;
}

static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms > 3600000 ? 3600000 : (int)ms;
}

/* One message, exactly one verdict record long, before the deadline. */
static int verdict_receive(int sock, unsigned seconds, struct check_verdict *v, struct pst_err *e)
{
	static unsigned char buf[CHECK_VERDICT_SIZE + 1];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct timespec deadline;
	ssize_t n;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)seconds;
	do
		r = poll(&p, 1, ms_left(&deadline));
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return pst_fail(e, ETIMEDOUT, "the archive checker gave no verdict within %u seconds",
				seconds);
	if (r < 0)
		return pst_fail(e, errno, "waiting for the archive checker failed: %s", strerror(errno));
	do
		n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return pst_fail(e, EPIPE, "the archive checker stopped without a verdict (it crashed "
				"or was killed for breaking its limits or its sandbox)");
	if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
		return pst_fail(e, EBADMSG, "the archive checker sent an oversized verdict");
	if (check_verdict_parse(buf, (size_t)n, v, e) < 0) {
		pst_err_prefix(e, "the archive checker sent a malformed verdict");
		return -EBADMSG;
	}
	return 0;
}

int check_spawn_run(const char *socket_path, int staging_fd, const struct check_request *req,
		    const struct check_signature *sig, struct check_verdict *v, struct pst_err *e)
{
	int fds[3] = { upload_stage_reopen_readonly(staging_fd, e), -1, -1 };
	size_t nfds = req->sig_kind == CHECK_SIG_NONE ? 1 : 3;
	int sock;
	int rc;

	if (fds[0] < 0)
		return fds[0];
	if (nfds == 3) {
		if (sig == NULL || sig->kind != req->sig_kind || sig->sig_fd < 0 || sig->keyring_fd < 0) {
			close(fds[0]);
			return pst_fail(e, EINVAL, "internal error: a signed check without its fds");
		}
		fds[1] = sig->sig_fd;
		fds[2] = sig->keyring_fd;
	}
	sock = checker_connect(socket_path, e);
	if (sock < 0) {
		close(fds[0]);
		return sock;
	}
	rc = request_send(sock, fds, nfds, req, e);
	close(fds[0]);
	if (rc == 0)
		rc = verdict_receive(sock, req->limits.time_limit + CHECK_SPAWN_MARGIN_SEC, v, e);
	close(sock);
	return rc;
}

/* A signed request's pass names its signer; nothing else does (the parser saw to the latter). */
static int signer_check(const struct check_request *req, const struct check_verdict *v,
			struct pst_err *e)
{
	if (v->outcome != CHECK_PASS)
		return 0;
	if (req->sig_kind != CHECK_SIG_NONE && v->signer[0] == '\0')
		return pst_fail(e, EBADMSG, "the archive checker sent a malformed verdict: a pass "
				"of a signed upload without its signer");
	if (req->sig_kind == CHECK_SIG_NONE && v->signer[0] != '\0')
		return pst_fail(e, EBADMSG, "the archive checker sent a malformed verdict: a signer "
				"for an unsigned upload");
	return 0;
}

int check_spawn_upload(const char *socket_path, int staging_fd, const struct release_name *rn,
		       const struct upload_limits *limits, uint64_t size,
		       const struct check_signature *sig, struct check_verdict *v,
		       struct pst_err *e)
{
	struct check_request req;
	int rc;

	memset(&req, 0, sizeof(req));
	if (sig != NULL && (sig->kind < CHECK_SIG_NONE || sig->kind > CHECK_SIG_TAR))
		return pst_fail(e, EINVAL, "internal error: an unknown signature kind");
	req.sig_kind = sig != NULL ? sig->kind : CHECK_SIG_NONE;
	req.sig_max_age = sig != NULL ? sig->max_age : 0;
	if (!str_copy(req.module, sizeof(req.module), rn->module) ||
	    !str_copy(req.version, sizeof(req.version), rn->version))
		return pst_fail(e, EINVAL, "module or version too long for the checker");
	req.compression = rn->compression;
	req.limits = *limits;
	rc = check_spawn_run(socket_path, staging_fd, &req, sig, v, e);
	if (rc == -EPIPE || rc == -ETIMEDOUT)
		return -EBADMSG;
	if (rc < 0)
		return rc;
	if (signer_check(&req, v, e) < 0)
		return -EBADMSG;
	switch (v->outcome) {
	case CHECK_PASS:
		break;
	case CHECK_REFUSED:
		return pst_fail(e, EBADMSG, "%s", v->message);
	case CHECK_INTERNAL:
		return pst_fail(e, EIO, "the archive checker failed: %s", v->message);
	}
	if (v->compressed != size)
		return pst_fail(e, EBADMSG, "the archive checker read %llu bytes of the %llu staged",
				(unsigned long long)v->compressed, (unsigned long long)size);
	return 0;
}
