/*
 * Questions to the user go to the controlling terminal, never to stdin or
 * stdout: as rsync's transport those carry rsync's protocol. A typed code
 * is read with echo off, and the terminal is restored even on ^C.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "client.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* Catch the signals that would kill us with echo still off; no SA_RESTART,
 * so the read returns EINTR and we restore the terminal first. */
static void catch_signals(struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };

	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static ssize_t read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	char c;

	for (;;) {
		ssize_t r = read(fd, &c, 1);
		if (r < 0)
			return -errno;
		if (r == 0 || c == '\n')
			break;
		if (n + 1 >= len)
			return -E2BIG;
		buf[n++] = c;
	}
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return (ssize_t)n;
}

int tty_ask(const char *prompt, bool echo, char *buf, size_t len, struct pst_err *e)
{
	struct sigaction old[3];
	struct termios saved, quiet;
	bool restore = false;
	ssize_t n;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return pst_fail(e, errno, "no terminal to ask on (/dev/tty: %s)", strerror(errno));
	interrupted = 0;
	catch_signals(old);
	if (!echo && tcgetattr(fd, &saved) == 0) {
		quiet = saved;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		restore = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
	}
	n = write(fd, prompt, strlen(prompt));
	if (n >= 0)
		n = read_line(fd, buf, len);
	if (restore) {
		tcsetattr(fd, TCSAFLUSH, &saved);
		if (write(fd, "\n", 1) < 0)
			n = -errno;
	}
	restore_signals(old);
	close(fd);
	if (interrupted)
		return pst_fail(e, EINTR, "interrupted");
	if (n < 0)
		return pst_fail(e, (int)-n, "cannot read the answer from the terminal: %s",
				strerror((int)-n));
	return 0;
}
