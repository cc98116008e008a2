/*
 * Run one command on a session channel and pass bytes through: from an
 * input fd to the channel, the channel's stdout and stderr to a sink, then
 * its exit status back. No pty is asked for: postern has no interactive
 * use, and rsync's protocol needs a clean 8-bit pipe. Several channels may
 * run one after the other on one session, always from this one thread.
 *
 * libssh may already hold channel data it read from the socket, so every
 * round first drains both streams and only then waits in poll(). Input is
 * never read faster than the peer's window allows, so a command that stops
 * reading cannot make us block in a write while its output piles up.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "client.h"
#include "server_lines.h"

#define RELAY_BUF (64 * 1024)

int fd_write_full(int fd, const char *buf, size_t len)
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

/* Move what libssh holds for stdout and stderr to the sink.
 * Returns 1 when something moved, 0 when nothing was waiting. */
static int drain_once(ssh_channel ch, const struct relay_io *io, char *buf, struct pst_err *e)
{
	int moved = 0;

	for (int is_stderr = 0; is_stderr <= 1; is_stderr++) {
		int n = ssh_channel_read_nonblocking(ch, buf, RELAY_BUF, is_stderr);
		if (n == SSH_ERROR)
			return pst_fail(e, EIO, "connection lost: %s",
					ssh_get_error(ssh_channel_get_session(ch)));
		if (n <= 0)
			continue;
		if (io->sink(io->ctx, is_stderr != 0, buf, (size_t)n, e) < 0)
			return -EIO;
		moved = 1;
	}
	return moved;
}

static int drain(ssh_channel ch, const struct relay_io *io, char *buf, struct pst_err *e)
{
	int rc;

	while ((rc = drain_once(ch, io, buf, e)) > 0)
		;
	return rc;
}

static int send_eof(ssh_channel ch, struct pst_err *e)
{
	if (ssh_channel_send_eof(ch) != SSH_OK)
		return pst_fail(e, EIO, "cannot send end of input: %s",
				ssh_get_error(ssh_channel_get_session(ch)));
	return 0;
}

/* One read from the input to the channel, never more than the window
 * holds; at end of input, send EOF once. */
static int forward_input(ssh_channel ch, int in_fd, char *buf, bool *in_open, struct pst_err *e)
{
	uint32_t window = ssh_channel_window_size(ch);
	ssize_t n = read(in_fd, buf, window < RELAY_BUF ? window : RELAY_BUF);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n > 0) {
		if (ssh_channel_write(ch, buf, (uint32_t)n) == n)
			return 0;
		/* The command ended without reading all its input: not our
		 * failure; stop sending and report its exit status. */
		if (ssh_channel_is_closed(ch) || ssh_channel_is_eof(ch)) {
			*in_open = false;
			return 0;
		}
		return pst_fail(e, EIO, "cannot send input: %s",
				ssh_get_error(ssh_channel_get_session(ch)));
	}
	*in_open = false;
	return send_eof(ch, e);
}

static int pump(ssh_session s, ssh_channel ch, const struct relay_io *io, struct pst_err *e)
{
	static char buf[RELAY_BUF];
	bool in_open = io->in_fd >= 0;
	int rc;

	if (!in_open && send_eof(ch, e) < 0)
		return -EIO;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = ssh_get_fd(s), .events = POLLIN },
			{ .fd = io->in_fd, .events = POLLIN },
		};
		bool want_input;

		rc = drain(ch, io, buf, e);
		if (rc < 0)
			return rc;
		if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch))
			return 0;
		/* With the window full, only the peer's next packet (an adjust,
		 * output, or the close) can move things on. */
		want_input = in_open && ssh_channel_window_size(ch) > 0;
		if (poll(pfd, want_input ? 2 : 1, -1) < 0 && errno != EINTR)
			return pst_fail(e, errno, "poll: %s", strerror(errno));
		if ((pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0 && !ssh_is_connected(s))
			return pst_fail(e, ECONNRESET, "connection lost");
		if (want_input && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
			rc = forward_input(ch, io->in_fd, buf, &in_open, e);
			if (rc < 0)
				return rc;
		}
	}
}

/* The remote command's exit status, or -1 when it sent none: killed by a
 * signal, or the connection dropped. Waits for the status (blocking
 * session), as both libssh calls do. */
static int remote_exit_status(ssh_channel ch)
{
#if HAVE_SSH_CHANNEL_GET_EXIT_STATE
	uint32_t code = 0;
	char *signal = NULL;
	int core_dumped = 0;
	int status = -1;

	if (ssh_channel_get_exit_state(ch, &code, &signal, &core_dumped) == SSH_OK &&
	    signal == NULL && code <= 255)
		status = (int)code;
	ssh_string_free_char(signal);
	return status;
#else
	return ssh_channel_get_exit_status(ch);
#endif
}

int relay_channel_run(ssh_session s, const char *command, const struct relay_io *io,
		      struct pst_err *e)
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
		rc = pump(s, ch, io, e);
	if (rc == 0) {
		status = remote_exit_status(ch);
		rc = status >= 0 ? status :
			pst_fail(e, EPROTO, "the command ended without an exit status "
				 "(killed by a signal, or the connection dropped)");
	}
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return rc;
}

/* The remote stderr, a line at a time: it is text for a person. */
struct stderr_lines {
	char buf[4096];
	size_t len;
};

/* One line made printable (server_text_printable), then its newline. */
static int stderr_emit(struct stderr_lines *l, struct pst_err *e)
{
	char shown[sizeof(l->buf)];

	l->buf[l->len] = '\0';
	l->len = 0;
	server_text_printable(shown, sizeof(shown), l->buf);
	if (fd_write_full(STDERR_FILENO, shown, strlen(shown)) < 0 ||
	    fd_write_full(STDERR_FILENO, "\n", 1) < 0)
		return pst_fail(e, errno, "cannot write the command's errors: %s", strerror(errno));
	return 0;
}

/*
 * Output of the one-command mode: the remote stdout to ours untouched (it
 * is rsync's protocol), its stderr line by line through the safe-text rule,
 * so a hostile server cannot drive the maintainer's terminal.
 */
static int sink_to_stdio(void *ctx, bool is_stderr, const char *buf, size_t n, struct pst_err *e)
{
	struct stderr_lines *l = ctx;
	size_t i;
	int rc = 0;

	if (!is_stderr) {
		if (fd_write_full(STDOUT_FILENO, buf, n) < 0)
			return pst_fail(e, errno, "cannot write the command's output: %s",
					strerror(errno));
		return 0;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		if (buf[i] == '\n' || l->len == sizeof(l->buf) - 1)
			rc = stderr_emit(l, e);
		if (buf[i] != '\n')
			l->buf[l->len++] = buf[i];
	}
	return rc;
}

int relay_run(ssh_session s, const char *command, struct pst_err *e)
{
	static struct stderr_lines lines;
	const struct relay_io io = { .in_fd = STDIN_FILENO, .sink = sink_to_stdio, .ctx = &lines };
	int rc = relay_channel_run(s, command, &io, e);
	struct pst_err ignored;

	if (lines.len > 0)
		(void)stderr_emit(&lines, &ignored);
	return rc;
}
