/*
 * Run the command on one session channel and pass bytes through: our stdin
 * to the channel, its stdout and stderr to ours, then its exit status back
 * as ours. No pty is asked for: postern has no interactive use, and rsync's
 * protocol needs a clean 8-bit pipe.
 *
 * libssh may already hold channel data it read from the socket, so every
 * round first drains both streams and only then waits in poll().
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

#define RELAY_BUF (64 * 1024)

static int fd_write_full(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Move what libssh holds for stdout and stderr to fds 1 and 2.
 * Returns 1 when something moved, 0 when nothing was waiting. */
static int drain_once(ssh_channel ch, char *buf, struct pst_err *e)
{
	int moved = 0;

	for (int is_stderr = 0; is_stderr <= 1; is_stderr++) {
		int n = ssh_channel_read_nonblocking(ch, buf, RELAY_BUF, is_stderr);
		if (n == SSH_ERROR)
			return pst_fail(e, EIO, "connection lost: %s",
					ssh_get_error(ssh_channel_get_session(ch)));
		if (n <= 0)
			continue;
		if (fd_write_full(is_stderr ? STDERR_FILENO : STDOUT_FILENO, buf, (size_t)n) < 0)
			return pst_fail(e, errno, "cannot write the command's %s: %s",
					is_stderr ? "errors" : "output", strerror(errno));
		moved = 1;
	}
	return moved;
}

static int drain(ssh_channel ch, char *buf, struct pst_err *e)
{
	int rc;

	while ((rc = drain_once(ch, buf, e)) > 0)
		;
	return rc;
}

/*
 * One read from stdin to the channel, never more than the peer's window
 * holds, so the write cannot block waiting for a window adjust that a
 * command which stopped reading will never send; at end of input, send
 * EOF once.
 */
static int forward_stdin(ssh_channel ch, char *buf, bool *stdin_open, struct pst_err *e)
{
	uint32_t window = ssh_channel_window_size(ch);
	ssize_t n = read(STDIN_FILENO, buf, window < RELAY_BUF ? window : RELAY_BUF);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n > 0) {
		if (ssh_channel_write(ch, buf, (uint32_t)n) == n)
			return 0;
		/* The command ended without reading all its input: not our
		 * failure; stop sending and report its exit status. */
		if (ssh_channel_is_closed(ch) || ssh_channel_is_eof(ch)) {
			*stdin_open = false;
			return 0;
		}
		return pst_fail(e, EIO, "cannot send input: %s",
				ssh_get_error(ssh_channel_get_session(ch)));
	}
	*stdin_open = false;
	if (ssh_channel_send_eof(ch) != SSH_OK)
		return pst_fail(e, EIO, "cannot send end of input: %s",
				ssh_get_error(ssh_channel_get_session(ch)));
	return 0;
}

static int pump(ssh_session s, ssh_channel ch, struct pst_err *e)
{
	static char buf[RELAY_BUF];
	bool stdin_open = true;
	int rc;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = ssh_get_fd(s), .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		bool want_stdin;

		rc = drain(ch, buf, e);
		if (rc < 0)
			return rc;
		if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch))
			return 0;
		/* With the window full, only the peer's next packet (an adjust,
		 * output, or the close) can move things on. */
		want_stdin = stdin_open && ssh_channel_window_size(ch) > 0;
		if (poll(pfd, want_stdin ? 2 : 1, -1) < 0 && errno != EINTR)
			return pst_fail(e, errno, "poll: %s", strerror(errno));
		if (want_stdin && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
			rc = forward_stdin(ch, buf, &stdin_open, e);
			if (rc < 0)
				return rc;
		}
	}
}

int relay_run(ssh_session s, const char *command, struct pst_err *e)
{
	ssh_channel ch = ssh_channel_new(s);
	int rc, status;

	if (ch == NULL)
		return pst_fail(e, ENOMEM, "cannot create a channel");
	if (ssh_channel_open_session(ch) != SSH_OK) {
		rc = pst_fail(e, EIO, "the server refused a session: %s", ssh_get_error(s));
		ssh_channel_free(ch);
		return rc;
	}
	rc = ssh_channel_request_exec(ch, command) == SSH_OK ? 0 :
		pst_fail(e, EIO, "the server refused to run the command: %s", ssh_get_error(s));
	if (rc == 0)
		rc = pump(s, ch, e);
	if (rc == 0) {
		status = ssh_channel_get_exit_status(ch);
		rc = status >= 0 ? status :
			pst_fail(e, EPROTO, "the command ended without an exit status "
				 "(killed by a signal, or the connection dropped)");
	}
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return rc;
}
