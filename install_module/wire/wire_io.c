/*
 * Moves wire.h messages over the Unix socket, with the upload's fd (wire_io.h).
 * It must never keep an fd it did not expect: extra ones are closed.
 */
#define _GNU_SOURCE
#include "wire_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "text.h"
#include "text_show.h"

#define WIRE_MAX_FDS 4

int wire_send_request(int sock, const struct wire_request *r, int passfd, int sigfd,
		      struct pst_err *e)
{
	uint8_t buf[WIRE_REQUEST_MAX];
	int pass[2] = { passfd, sigfd };
	size_t npass = passfd < 0 ? 0 : r->sig != WIRE_SIG_NONE ? 2 : 1;
	union {
		char space[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	size_t len = wire_request_encode(r, buf, sizeof(buf));
	ssize_t n;

	if (len == 0)
		return pst_fail(e, EINVAL, "the request cannot be encoded (name too long or invalid)");
	if (r->sig != WIRE_SIG_NONE && (passfd < 0 || sigfd < 0))
		return pst_fail(e, EINVAL, "a signed request needs the upload and the signature");
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (npass > 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.space;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * npass);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * npass);
		memcpy(CMSG_DATA(c), pass, sizeof(int) * npass);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return pst_fail(e, errno, "cannot send the request: %s", strerror(errno));
	if ((size_t)n != len)
		return pst_fail(e, EIO, "the request was sent only in part");
	return 0;
}

static void close_fds(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Collect SCM_RIGHTS fds of one received message into fds[*nfds]; false on overflow. */
static bool collect_fds(struct msghdr *msg, int *fds, size_t *nfds)
{
	struct cmsghdr *c;
	size_t i;
	size_t count;
	bool ok = true;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < WIRE_MAX_FDS)
				fds[(*nfds)++] = fd;
			else {
				close(fd);
				ok = false;
			}
		}
	}
	return ok && (msg->msg_flags & MSG_CTRUNC) == 0;
}

/* Make the next read on sock wait no later than deadline; false once it has passed. */
static bool wait_until(int sock, const struct timespec *deadline)
{
	struct timespec now;
	struct timeval left;
	long long ms;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return false;
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	if (ms <= 0)
		return false;
	left.tv_sec = (time_t)(ms / 1000);
	left.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	return setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &left, sizeof(left)) == 0;
}

/* Read exactly want bytes into buf+*got before deadline, gathering passed fds. */
static int recv_exact(int sock, uint8_t *buf, size_t *got, size_t want, int *fds,
		      size_t *nfds, const struct timespec *deadline, struct pst_err *e)
{
	union {
		char space[CMSG_SPACE(sizeof(int) * WIRE_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr msg;
	ssize_t n;

	while (*got < want) {
		if (!wait_until(sock, deadline))
			return pst_fail(e, EPROTO, "reading the request failed: timed out");
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = buf + *got;
		iov.iov_len = want - *got;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.space;
		msg.msg_controllen = sizeof(ctl.space);
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pst_fail(e, EPROTO, "reading the request failed: %s",
					errno == EAGAIN ? "timed out" : strerror(errno));
		if (!collect_fds(&msg, fds, nfds))
			return pst_fail(e, EPROTO, "too many file descriptors passed");
		if (n == 0)
			return pst_fail(e, EPROTO, "connection closed after %zu of %zu request bytes",
					*got, want);
		*got += (size_t)n;
	}
	return 0;
}

/* How many fds r takes: exactly two when signed, else at most one. */
static int check_fd_count(const struct wire_request *r, size_t nfds, struct pst_err *e)
{
	if (r->sig != WIRE_SIG_NONE && nfds != 2)
		return pst_fail(e, EPROTO, "%zu file descriptors passed with a signed install, expected two (the upload, then its signature)",
				nfds);
	if (r->sig == WIRE_SIG_NONE && nfds > 1)
		return pst_fail(e, EPROTO, "%zu file descriptors passed, at most one expected", nfds);
	return 0;
}

int wire_recv_request(int sock, struct wire_request *r, struct wire_fds *fds_out,
		      unsigned timeout_sec, struct pst_err *e)
{
	struct timespec deadline;
	uint8_t buf[WIRE_REQUEST_MAX];
	int fds[WIRE_MAX_FDS];
	size_t nfds = 0;
	size_t got = 0;
	size_t body_len;
	int rc;

	fds_out->upload = -1;
	fds_out->sig = -1;
	if (clock_gettime(CLOCK_MONOTONIC, &deadline) != 0)
		return pst_fail(e, errno, "no monotonic clock: %s", strerror(errno));
	deadline.tv_sec += (time_t)timeout_sec;
	rc = recv_exact(sock, buf, &got, WIRE_HEADER_LEN, fds, &nfds, &deadline, e);
	if (rc == 0)
		rc = wire_header_body_len(buf, got, &body_len, e);
	if (rc == 0)
		rc = recv_exact(sock, buf, &got, WIRE_HEADER_LEN + body_len, fds, &nfds, &deadline, e);
	if (rc == 0)
		rc = wire_request_decode(buf, got, r, e);
	if (rc == 0)
		rc = check_fd_count(r, nfds, e);
	if (rc < 0) {
		close_fds(fds, nfds);
		return rc;
	}
	fds_out->upload = nfds >= 1 ? fds[0] : -1;
	fds_out->sig = nfds == 2 ? fds[1] : -1;
	return 0;
}

int wire_send_msg(int sock, enum wire_msg type, const char *fmt, ...)
{
	uint8_t frame[3 + WIRE_TEXT_MAX + 1];
	va_list ap;
	int n;
	size_t len;
	size_t off = 0;
	ssize_t w;

	va_start(ap, fmt);
	n = vsnprintf((char *)frame + 3, WIRE_TEXT_MAX + 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	len = (size_t)n > WIRE_TEXT_MAX ? WIRE_TEXT_MAX : (size_t)n;
	frame[0] = (uint8_t)type;
	frame[1] = (uint8_t)(len >> 8);
	frame[2] = (uint8_t)len;
	while (off < len + 3) {
		w = send(sock, frame + off, len + 3 - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += (size_t)w;
	}
	return 0;
}

static int read_full(int sock, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(sock, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return got == 0 ? -ECONNRESET : -EPROTO;
		got += (size_t)n;
	}
	return 0;
}

int wire_recv_msg(int sock, int *type, char *text, size_t cap, struct pst_err *e)
{
	uint8_t hdr[3];
	uint8_t body[WIRE_TEXT_MAX];
	size_t len;
	int rc;

	rc = read_full(sock, hdr, sizeof(hdr));
	if (rc == -ECONNRESET)
		return pst_fail(e, ECONNRESET, "the release daemon closed the connection");
	if (rc < 0)
		return pst_fail(e, -rc, "reading the release daemon's answer failed: %s",
				strerror(-rc));
	len = ((size_t)hdr[1] << 8) | hdr[2];
	if (len > WIRE_TEXT_MAX || cap == 0)
		return pst_fail(e, EPROTO, "the release daemon sent an over-long message");
	rc = read_full(sock, body, len);
	if (rc < 0)
		return pst_fail(e, EPROTO, "the release daemon's message was cut short");
	/* The one safe-text rule (text_show.h): C1 and bidi too, not only C0. */
	text_safe_copy(text, cap, (const char *)body, len, TEXT_REPLACE);
	*type = hdr[0];
	return 0;
}

int wire_connect(const char *path, const char *what_to_do, struct pst_err *e)
{
	struct sockaddr_un addr;
	int fd;

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	if (path == NULL || !str_copy(addr.sun_path, sizeof(addr.sun_path), path))
		return pst_fail(e, EINVAL, "paths.socket in postern.yaml is not a usable socket "
				"path: %s", what_to_do);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pst_fail(e, errno, "cannot create a socket (%s): %s", strerror(errno),
				what_to_do);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int err = errno;

		close(fd);
		return pst_fail(e, err, "the release daemon is not reachable at %s (%s): %s",
				path, strerror(err), what_to_do);
	}
	return fd;
}
