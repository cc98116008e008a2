/*
 * postern-installd's listening socket: taken from systemd or bound (0660, owner
 * set), a stale one replaced. It must never remove a socket another daemon answers on.
 */
#define _GNU_SOURCE
#include "installd_setup.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"

#define SD_LISTEN_FDS_START 3
#define LISTEN_BACKLOG 64

static int check_listening_unix(int fd, struct pst_err *e)
{
	int type = 0;
	int listening = 0;
	struct sockaddr_un addr;
	socklen_t len = sizeof(type);
	socklen_t alen = sizeof(addr);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
		return pst_fail(e, ENOTSOCK, "the socket from systemd is not a stream socket");
	len = sizeof(listening);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
		return pst_fail(e, EINVAL, "the socket from systemd is not listening (use Accept=no)");
	if (getsockname(fd, (struct sockaddr *)&addr, &alen) != 0 || addr.sun_family != AF_UNIX)
		return pst_fail(e, EAFNOSUPPORT, "the socket from systemd is not a Unix socket");
	return 0;
}

int installd_socket_from_systemd(struct pst_err *e)
{
	const char *pid = getenv("LISTEN_PID");
	const char *fds = getenv("LISTEN_FDS");
	int rc;

	if (pid == NULL || fds == NULL) {
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		return 0;
	}
	rc = (!str_is_digits(pid) || strtol(pid, NULL, 10) != (long)getpid()) ? 0 : 1;
	if (rc == 1 && strcmp(fds, "1") != 0)
		rc = pst_fail(e, EINVAL, "systemd passed %s sockets, expected exactly 1", fds);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (rc <= 0)
		return rc;
	rc = check_listening_unix(SD_LISTEN_FDS_START, e);
	return rc < 0 ? rc : SD_LISTEN_FDS_START;
}

/* True when a daemon answers on addr. */
static bool socket_alive(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return alive;
}

static int clear_stale(const struct sockaddr_un *addr, struct pst_err *e)
{
	struct stat st;

	if (lstat(addr->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : pst_fail(e, errno, "%s: %s", addr->sun_path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return pst_fail(e, EEXIST, "%s exists and is not a socket (remove it)", addr->sun_path);
	if (socket_alive(addr))
		return pst_fail(e, EADDRINUSE, "%s: another postern-installd is listening there",
				addr->sun_path);
	if (unlink(addr->sun_path) != 0)
		return pst_fail(e, errno, "%s: cannot remove the stale socket: %s", addr->sun_path,
				strerror(errno));
	return 0;
}

int installd_socket_bind(const char *path, uid_t uid, gid_t gid, struct pst_err *e)
{
	struct sockaddr_un addr;
	mode_t old_umask;
	int fd;
	int rc;

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	if (path[0] != '/' || !str_copy(addr.sun_path, sizeof(addr.sun_path), path))
		return pst_fail(e, EINVAL, "%s: not an absolute socket path that fits", path);
	rc = clear_stale(&addr, e);
	if (rc < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pst_fail(e, errno, "socket: %s", strerror(errno));
	old_umask = umask(0117);
	rc = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old_umask);
	if (rc != 0 || listen(fd, LISTEN_BACKLOG) != 0 ||
	    lchown(path, uid, gid) != 0) {
		rc = pst_fail(e, errno, "%s: cannot listen: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	return fd;
}

int installd_drop_privileges(uid_t uid, gid_t gid, struct pst_err *e)
{
	if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		return pst_fail(e, errno, "cannot drop privileges: %s", strerror(errno));
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return pst_fail(e, EPERM, "privileges could be regained after dropping them");
	return 0;
}
