/*
 * A hostile client for the process tests: speaks to postern-installd the
 * way the real client must not, and prints the daemon's final frame.
 *
 *   installd-abuse SOCKET passfd FILE NAME     install NAME, passing FILE opened O_RDONLY|O_NONBLOCK
 *   installd-abuse SOCKET passdir DIR NAME     install NAME, passing a directory fd
 *   installd-abuse SOCKET grow FILE NAME       install NAME, appending to FILE while it is read
 *   installd-abuse SOCKET shrink FILE NAME     install NAME, truncating FILE while it is read
 *   installd-abuse SOCKET garbage              random bytes instead of a request
 *   installd-abuse SOCKET badlen               a header announcing a huge body
 *   installd-abuse SOCKET short                half a header, then close
 *   installd-abuse SOCKET twofds FILE NAME     two fds with one request
 *   installd-abuse SOCKET signedonefd FILE NAME  a signed install (.asc) with no signature fd
 *   installd-abuse SOCKET sigpass FILE SIG NAME  a signed install (.asc): FILE, then SIG, both opened O_RDONLY
 *   installd-abuse SOCKET fdwithlist FILE      an fd with a list request
 *   installd-abuse SOCKET silent               connect and say nothing
 *   installd-abuse SOCKET trickle              send a request one byte every 4 seconds
 *   installd-abuse SOCKET hold N               open N connections at once, say nothing on
 *                                              any, print each one's final frame
 *
 * Exit status: 0 when the daemon answered with a refusal or error frame
 * (or closed the connection on us for the no-answer cases), 1 when it
 * answered ok, 2 on usage or setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "text.h"
#include "wire.h"
#include "wire_io.h"

static int connect_to(const char *path)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	if (fd < 0 || !str_copy(addr.sun_path, sizeof(addr.sun_path), path) ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		perror("installd-abuse: connect");
		exit(2);
	}
	return fd;
}

static void request(struct wire_request *r, enum wire_op op, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	str_copy(r->name, sizeof(r->name), name);
	str_copy(r->from, sizeof(r->from), "local");
	str_copy(r->port, sizeof(r->port), "-");
	str_copy(r->sid, sizeof(r->sid), "abcdef0123456789");
}

/* Print every frame; return the final type (0: connection closed without one). */
static int answer(int sock)
{
	char text[WIRE_TEXT_MAX + 1];
	int type = 0;

	while (!wire_msg_is_final(type)) {
		if (wire_recv_msg(sock, &type, text, sizeof(text), NULL) < 0) {
			printf("closed\n");
			return 0;
		}
		printf("%c %s\n", type, text);
		fflush(stdout);
	}
	return type;
}

static int send_raw(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		char space[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg;
	struct cmsghdr *c;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.space;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* Change FILE (append or truncate) while the daemon reads it. */
static int mutate_while_read(int sock, const char *file, bool grow)
{
	struct wire_request r;
	int fd = open_or_die(file, O_RDONLY);
	int wfd = open_or_die(file, O_WRONLY | O_APPEND);
	char junk[65536];
	int i;

	memset(junk, 'x', sizeof(junk));
	request(&r, WIRE_OP_INSTALL, strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
	if (wire_send_request(sock, &r, fd, -1, NULL) < 0)
		return 2;
	for (i = 0; i < 200; i++) {
		if (grow ? write(wfd, junk, sizeof(junk)) < 0 : ftruncate(wfd, 1024 * (200 - i)) < 0)
			break;
		usleep(1000);
	}
	return answer(sock) == WIRE_MSG_OK ? 1 : 0;
}

static int install_with_fds(int sock, const char *name, const int *fds, size_t nfds,
			    enum wire_signature sig)
{
	struct wire_request r;
	uint8_t buf[WIRE_REQUEST_MAX];
	size_t len;

	request(&r, WIRE_OP_INSTALL, name);
	r.sig = sig;
	len = wire_request_encode(&r, buf, sizeof(buf));
	if (len == 0 || send_raw(sock, buf, len, fds, nfds) < 0)
		return 2;
	return answer(sock) == WIRE_MSG_OK ? 1 : 0;
}

static int garbage(int sock, const char *mode)
{
	uint8_t buf[512];
	struct wire_request r;
	size_t len, i;

	if (strcmp(mode, "silent") == 0)
		return answer(sock) == WIRE_MSG_OK ? 1 : 0;
	if (strcmp(mode, "trickle") == 0) {
		request(&r, WIRE_OP_LIST_MINE, "");
		len = wire_request_encode(&r, buf, sizeof(buf));
		for (i = 0; i < len && send(sock, buf + i, 1, MSG_NOSIGNAL) == 1; i++)
			sleep(4);
		return answer(sock) == WIRE_MSG_OK ? 1 : 0;
	}
	if (strcmp(mode, "short") == 0) {
		send_raw(sock, "PSTN\1", 5, NULL, 0);
		shutdown(sock, SHUT_WR);
		return answer(sock) == WIRE_MSG_OK ? 1 : 0;
	}
	if (strcmp(mode, "badlen") == 0) {
		request(&r, WIRE_OP_LIST_MINE, "");
		wire_request_encode(&r, buf, sizeof(buf));
		buf[8] = 0x7f;
		send_raw(sock, buf, WIRE_HEADER_LEN, NULL, 0);
		return answer(sock) == WIRE_MSG_OK ? 1 : 0;
	}
	if (getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return 2;
	send_raw(sock, buf, sizeof(buf), NULL, 0);
	return answer(sock) == WIRE_MSG_OK ? 1 : 0;
}

/* N idle connections, all open together: what does the daemon answer each? */
static int hold(const char *path, const char *count)
{
	int socks[200];
	long n = strtol(count, NULL, 10);
	int status = 0;

	if (n < 1 || n > (long)(sizeof(socks) / sizeof(socks[0])))
		return 2;
	for (long i = 0; i < n; i++)
		socks[i] = connect_to(path);
	printf("connected %ld\n", n);
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		if (answer(socks[i]) == WIRE_MSG_OK)
			status = 1;
		close(socks[i]);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct wire_request r;
	int fds[2];
	int sock;

	if (argc < 3)
		return 2;
	if (argc == 4 && strcmp(argv[2], "hold") == 0)
		return hold(argv[1], argv[3]);
	sock = connect_to(argv[1]);
	if (argc == 3)
		return garbage(sock, argv[2]);
	if (strcmp(argv[2], "fdwithlist") == 0) {
		fds[0] = open_or_die(argv[3], O_RDONLY);
		request(&r, WIRE_OP_LIST_MINE, "");
		if (wire_send_request(sock, &r, fds[0], -1, NULL) < 0)
			return 2;
		return answer(sock) == WIRE_MSG_OK ? 1 : 0;
	}
	if (argc == 6 && strcmp(argv[2], "sigpass") == 0) {
		fds[0] = open_or_die(argv[3], O_RDONLY | O_NONBLOCK);
		fds[1] = open_or_die(argv[4], O_RDONLY | O_NONBLOCK);
		return install_with_fds(sock, argv[5], fds, 2, WIRE_SIG_ASC);
	}
	if (argc != 5)
		return 2;
	if (strcmp(argv[2], "grow") == 0 || strcmp(argv[2], "shrink") == 0)
		return mutate_while_read(sock, argv[3], strcmp(argv[2], "grow") == 0);
	if (strcmp(argv[2], "passdir") == 0)
		fds[0] = open_or_die(argv[3], O_RDONLY | O_DIRECTORY);
	else
		fds[0] = open_or_die(argv[3], O_RDONLY | O_NONBLOCK);
	if (strcmp(argv[2], "twofds") == 0) {
		fds[1] = fds[0];
		return install_with_fds(sock, argv[4], fds, 2, WIRE_SIG_NONE);
	}
	if (strcmp(argv[2], "signedonefd") == 0)
		return install_with_fds(sock, argv[4], fds, 1, WIRE_SIG_ASC);
	return install_with_fds(sock, argv[4], fds, 1, WIRE_SIG_NONE);
}
