/*
 * The upload of --release: the real rsync client, whose transport is a
 * channel of our already logged-in session. No second login, no control
 * socket on disk.
 *
 * We start rsync with -e "<this program> --rsync-relay" and fd 3 one end of
 * a socketpair. rsync runs that as its remote shell; the relay sends us the
 * command rsync wants run and, as SCM_RIGHTS, its own stdin and stdout (the
 * pipes to rsync), then waits. We run the command on a channel with those
 * pipes as its input and output, so the bytes never pass through the relay,
 * and send the command's exit status back for the relay to exit with.
 *
 * rsync also writes the name of each file it really sent to a log in a
 * private directory of ours (--log-file stays on this side; rsync opens it
 * by name, without following links, so no /dev/fd path): the server's rrsync
 * never replaces a file already waiting in incoming, and rsync skips such a
 * file without a word, so this is how we learn that it was not sent.
 *
 * The relay MUST NOT open a connection or read anything but fd 3; the parent
 * MUST run only an rsync server command, and never leaves the relay waiting:
 * when it ends, fd 3 closes and the relay exits 255.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "spawn.h"

#define RELAY_COMMAND_MAX 4096
#define RSYNC_DEST "postern-relay:"
#define SENT_MARK "postern-sent:"
#define SENT_LOG_MAX (1024 * 1024)

/* --- the relay, as rsync's remote shell ---------------------------------- */

static int send_request(int sock, const char *command)
{
	int fds[2] = { STDIN_FILENO, STDOUT_FILENO };
	char ctl[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = { .iov_base = (void *)command, .iov_len = strlen(command) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Our copies of the pipes must go, or rsync would never see their end. */
static void drop_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

int rsync_relay_child(int argc, char **argv)
{
	char command[RELAY_COMMAND_MAX];
	int type = 0, i = 0;
	socklen_t tl = sizeof(type);
	size_t len = 0;
	unsigned char status;

	if (getsockopt(RSYNC_RELAY_FD, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    type != SOCK_SEQPACKET) {
		fprintf(stderr, "postern-client: --rsync-relay is only for the rsync that "
			"postern-client --release starts\n");
		return CLIENT_EXIT_FAILURE;
	}
	/* rsync calls us as: [-l USER] HOST COMMAND... ; we only need COMMAND. */
	if (i + 1 < argc && strcmp(argv[i], "-l") == 0)
		i += 2;
	i++;
	command[0] = '\0';
	for (; i < argc; i++) {
		int n = snprintf(command + len, sizeof(command) - len, "%s%s", len ? " " : "", argv[i]);
		if (n < 0 || (size_t)n >= sizeof(command) - len) {
			fprintf(stderr, "postern-client: the rsync command is too long\n");
			return CLIENT_EXIT_FAILURE;
		}
		len += (size_t)n;
	}
	if (len == 0 || send_request(RSYNC_RELAY_FD, command) < 0) {
		fprintf(stderr, "postern-client: cannot reach the postern-client that started rsync\n");
		return CLIENT_EXIT_FAILURE;
	}
	drop_stdio();
	while (read(RSYNC_RELAY_FD, &status, 1) < 0)
		if (errno != EINTR)
			return CLIENT_EXIT_FAILURE;
	return status;
}

/* --- the parent: rsync, then the channel --------------------------------- */

/* The -e value: this very program, quoted for rsync's word splitting. */
static int relay_command(char *out, size_t len, struct pst_err *e)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return pst_fail(e, errno, "cannot find my own program (/proc/self/exe): %s",
				strerror(errno));
	exe[n] = '\0';
	if (strchr(exe, '\'') != NULL || strchr(exe, '\\') != NULL)
		return pst_fail(e, EINVAL, "%s: my program's path has a quote or backslash, which "
				"rsync -e cannot carry; install postern-client elsewhere", exe);
	if (snprintf(out, len, "'%s' --rsync-relay", exe) >= (int)len)
		return pst_fail(e, ENAMETOOLONG, "%s: path too long", exe);
	return 0;
}

/* rsync reads "a:b" as a remote path; "./a:b" and "/a:b" are local. */
static char *local_arg(const char *path)
{
	char *s = NULL;

	if (path[0] == '/')
		return strdup(path);
	return asprintf(&s, "./%s", path) < 0 ? NULL : s;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

static char **rsync_argv(const char *rsh, const char *log, char *const paths[], size_t n,
			 bool progress)
{
	char **argv = calloc(n + 10, sizeof(*argv));
	size_t k = 0;

	if (argv == NULL)
		return NULL;
	argv[k++] = strdup("rsync");
	argv[k++] = strdup("-e");
	argv[k++] = strdup(rsh);
	/* Quiet is rsync's default; --info=progress2 stays on this side, while
	 * other --info values go to the server, which refuses them. */
	if (progress)
		argv[k++] = strdup("--info=progress2");
	if (asprintf(&argv[k++], "--log-file=%s", log) < 0)
		argv[k - 1] = NULL;
	argv[k++] = strdup("--log-file-format=" SENT_MARK "%n");
	argv[k++] = strdup("--");
	for (size_t i = 0; i < n; i++)
		argv[k++] = local_arg(paths[i]);
	argv[k++] = strdup(RSYNC_DEST);
	for (size_t i = 0; i < k; i++) {
		if (argv[i] == NULL) {
			for (size_t j = 0; j < k; j++)
				free(argv[j]);
			free(argv);
			return NULL;
		}
	}
	return argv;
}

static void rsync_exec(char **argv, int sock)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	/* sock is above RSYNC_RELAY_FD (the parent moved it), so dup2 cannot
	 * close it by accident. */
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(sock, RSYNC_RELAY_FD) < 0)
		_exit(127);
	fds_close_from(RSYNC_RELAY_FD + 1);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "postern-client: cannot run rsync: %s\n", strerror(errno));
	_exit(127);
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct relay_request {
	char command[RELAY_COMMAND_MAX + 1];
	int in_fd, out_fd;      /* rsync's output, rsync's input */
};

/* 1 with req filled; 0 when rsync ended without asking; -errno. */
static int recv_request(int sock, struct relay_request *req, struct pst_err *e)
{
	char ctl[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = req->command, .iov_len = RELAY_COMMAND_MAX };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n == 0 ? 0 : pst_fail(e, errno, "relay: %s", strerror(errno));
	c = CMSG_FIRSTHDR(&msg);
	if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return pst_fail(e, EPROTO, "relay: the request came without rsync's pipes");
	memcpy(&req->in_fd, CMSG_DATA(c), sizeof(int));
	memcpy(&req->out_fd, CMSG_DATA(c) + sizeof(int), sizeof(int));
	req->command[n] = '\0';
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
	    strncmp(req->command, "rsync --server ", 15) != 0 ||
	    strstr(req->command, " --sender") != NULL) {
		close(req->in_fd);
		close(req->out_fd);
		return pst_fail(e, EPROTO, "relay: rsync asked for something other than an upload");
	}
	return 1;
}

struct upload_sink {
	int out_fd;
};

static int sink_to_rsync(void *ctx, bool is_stderr, const char *buf, size_t n, struct pst_err *e)
{
	struct upload_sink *u = ctx;

	/* The server's rsync messages go to our stderr, as with ssh. */
	if (fd_write_full(is_stderr ? STDERR_FILENO : u->out_fd, buf, n) < 0 && !is_stderr)
		return pst_fail(e, EPIPE, "rsync stopped reading: %s", strerror(errno));
	return 0;
}

static int serve_relay(ssh_session s, int sock, struct pst_err *e)
{
	struct relay_request req;
	struct upload_sink sink;
	struct relay_io io;
	unsigned char status;
	int rc = recv_request(sock, &req, e);

	if (rc <= 0)
		return rc;
	sink.out_fd = req.out_fd;
	io = (struct relay_io){ .in_fd = req.in_fd, .sink = sink_to_rsync, .ctx = &sink };
	rc = relay_channel_run(s, req.command, &io, e);
	close(req.out_fd);
	close(req.in_fd);
	status = rc >= 0 && rc <= 255 ? (unsigned char)rc : 255;
	if (send(sock, &status, 1, MSG_NOSIGNAL) != 1 && rc >= 0)
		rc = pst_fail(e, errno, "relay: cannot tell rsync how it ended: %s", strerror(errno));
	return rc < 0 ? rc : 1;
}

/* Mark sent[i] for each path whose last component rsync logged as sent. */
static void read_sent_log(int log, char *const paths[], size_t n, bool *sent)
{
	char *buf = malloc(SENT_LOG_MAX + 1);
	ssize_t len;

	if (buf == NULL)
		return;
	len = pread(log, buf, SENT_LOG_MAX, 0);
	buf[len > 0 ? len : 0] = '\0';
	for (char *line = buf, *next; line != NULL && *line != '\0'; line = next) {
		char *mark;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		mark = strstr(line, SENT_MARK);
		if (mark == NULL)
			continue;
		mark += strlen(SENT_MARK);
		for (size_t i = 0; i < n; i++) {
			const char *slash = strrchr(paths[i], '/');
			if (strcmp(slash != NULL ? slash + 1 : paths[i], mark) == 0)
				sent[i] = true;
		}
	}
	free(buf);
}

/* The log of sent files: <dir>/sent.log in a new 0700 directory of ours. */
struct sent_log {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	int fd;
};

static int sent_log_create(struct sent_log *l, struct pst_err *e)
{
	const char *base = getenv("XDG_RUNTIME_DIR");

	if (base == NULL || base[0] != '/')
		base = getenv("TMPDIR");
	if (base == NULL || base[0] != '/')
		base = "/tmp";
	if (snprintf(l->dir, sizeof(l->dir), "%s/postern-client.XXXXXX", base) >= (int)sizeof(l->dir) ||
	    mkdtemp(l->dir) == NULL)
		return pst_fail(e, errno, "cannot make a private directory in %s: %s", base,
				strerror(errno));
	snprintf(l->path, sizeof(l->path), "%s/sent.log", l->dir);
	l->fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (l->fd < 0) {
		int err = errno;
		rmdir(l->dir);
		return pst_fail(e, err, "%s: %s", l->path, strerror(err));
	}
	return 0;
}

static void sent_log_remove(struct sent_log *l)
{
	close(l->fd);
	unlink(l->path);
	rmdir(l->dir);
}

static int start_rsync(char **argv, int *sock, pid_t *pid, struct pst_err *e)
{
	int sv[2], moved;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return pst_fail(e, errno, "socketpair: %s", strerror(errno));
	moved = fcntl(sv[1], F_DUPFD_CLOEXEC, RSYNC_RELAY_FD + 1);
	close(sv[1]);
	if (moved < 0) {
		close(sv[0]);
		return pst_fail(e, errno, "fcntl: %s", strerror(errno));
	}
	fflush(NULL);
	*pid = fork();
	if (*pid == 0)
		rsync_exec(argv, moved);
	close(moved);
	if (*pid < 0) {
		close(sv[0]);
		return pst_fail(e, errno, "cannot start rsync: %s", strerror(errno));
	}
	*sock = sv[0];
	return 0;
}

int rsync_upload(ssh_session s, char *const paths[], size_t n, bool progress, bool *sent,
		 struct pst_err *e)
{
	char rsh[PATH_MAX + 32];
	struct sent_log log;
	char **argv;
	int sock = -1, rc, status;
	pid_t pid = -1;

	rc = relay_command(rsh, sizeof(rsh), e);
	if (rc < 0 || (rc = sent_log_create(&log, e)) < 0)
		return rc;
	argv = rsync_argv(rsh, log.path, paths, n, progress);
	rc = argv != NULL ? start_rsync(argv, &sock, &pid, e) : pst_fail(e, ENOMEM, "out of memory");
	if (argv != NULL)
		free_argv(argv);
	if (rc < 0) {
		sent_log_remove(&log);
		return rc;
	}
	rc = serve_relay(s, sock, e);
	/* Closing our end releases a relay still waiting: it exits 255. */
	close(sock);
	if (rc < 0)
		kill(pid, SIGTERM);
	status = wait_child(pid);
	read_sent_log(log.fd, paths, n, sent);
	sent_log_remove(&log);
	if (rc < 0)
		return rc;
	if (status < 0)
		return pst_fail(e, -status, "cannot wait for rsync: %s", strerror(-status));
	if (rc == 0 && status == 0)
		return pst_fail(e, EPROTO, "rsync ended without starting its transfer");
	return status;
}
