/*
 * Where the one-time code comes from: the terminal (echo off), the first
 * line of a file, or the first line a command prints.
 *
 * The code command is the maintainer's own program (oathtool, a password
 * manager, a hardware token tool) run as the maintainer on their machine,
 * so it inherits their environment: it may need HOME, DISPLAY or an agent
 * socket. What it never gets is our stdin, which belongs to rsync, or any fd
 * of ours above 2; and its words go to execve as they are, never to a shell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "server_lines.h"
#include "spawn.h"

#define CODE_LINE_MAX 256
#define CODE_WORDS_MAX 64

extern char **environ;

bool code_is_plausible(const char *code)
{
	size_t n = strlen(code);

	if (n == 0 || n > CODE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (code[i] <= ' ' || code[i] >= 0x7f)
			return false;
	return true;
}

int code_command_split(const char *cmd, char ***argv_out, struct pst_err *e)
{
	char **argv = calloc(CODE_WORDS_MAX + 1, sizeof(*argv));
	size_t n = 0;
	const char *p = cmd;

	if (argv == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	while (*p != '\0') {
		size_t wl;
		while (*p == ' ' || *p == '\t')
			p++;
		wl = strcspn(p, " \t");
		if (wl == 0)
			break;
		if (n == CODE_WORDS_MAX || (argv[n] = strndup(p, wl)) == NULL)
			break;
		n++;
		p += wl;
	}
	if (*p != '\0' || n == 0) {
		for (size_t i = 0; i < n; i++)
			free(argv[i]);
		free(argv);
		return pst_fail(e, EINVAL, "--code-command: %s (need a program and at most %d words)",
				n == 0 ? "empty command" : "too many words", CODE_WORDS_MAX);
	}
	*argv_out = argv;
	return 0;
}

static void free_words(char **argv)
{
	for (size_t i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* execve, looking the program up in PATH when it has no slash; no shell
 * fallback for scripts without a #! line. Returns only on failure. */
static void exec_program(char **argv)
{
	const char *path = getenv("PATH");
	char full[PATH_MAX];

	if (strchr(argv[0], '/') != NULL) {
		execve(argv[0], argv, environ);
		return;
	}
	if (path == NULL || path[0] == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path != '\0') {
		size_t dl = strcspn(path, ":");
		if (dl > 0 && snprintf(full, sizeof(full), "%.*s/%s", (int)dl, path, argv[0]) <
				      (int)sizeof(full))
			execve(full, argv, environ);
		path += dl;
		if (*path == ':')
			path++;
	}
	errno = ENOENT;
}

static void child_exec(char **argv, int out)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	fds_close_from(3);
	exec_program(argv);
	fprintf(stderr, "postern-client: --code-command: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static ssize_t read_some(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		ssize_t r = read(fd, buf + n, len - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

static int code_from_command(const char *cmd, char *buf, size_t len, struct pst_err *e)
{
	char **argv;
	int pfd[2], status = 0, rc;
	ssize_t n;
	pid_t pid;

	rc = code_command_split(cmd, &argv, e);
	if (rc < 0)
		return rc;
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		free_words(argv);
		return pst_fail(e, errno, "--code-command: pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0)
		child_exec(argv, pfd[1]);
	close(pfd[1]);
	n = pid < 0 ? -errno : read_some(pfd[0], buf, len - 1);
	close(pfd[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = 0;
	if (pid < 0 || n < 0)
		rc = pst_fail(e, EIO, "--code-command: %s: cannot run it", argv[0]);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = pst_fail(e, EIO, "--code-command: %s failed (status %d): no code",
			      argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	else
		buf[n] = '\0';
	free_words(argv);
	return rc;
}

static int code_from_file(const char *path, char *buf, size_t len, struct pst_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return pst_fail(e, errno, "--code-file %s: %s", path, strerror(errno));
	n = read_some(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return pst_fail(e, (int)-n, "--code-file %s: %s", path, strerror((int)-n));
	buf[n] = '\0';
	return 0;
}

/* Keep the first line; a server prompt is shown with anything unprintable
 * replaced, so a hostile server cannot drive the terminal. */
static void first_line(char *buf)
{
	buf[strcspn(buf, "\r\n")] = '\0';
}

int code_obtain(const struct client_opts *o, const char *prompt, char *code, size_t len,
		struct pst_err *e)
{
	char line[CODE_LINE_MAX], shown[128];
	int rc;

	switch (o->code_source) {
	case CODE_FROM_FILE:
		rc = code_from_file(o->code_arg, line, sizeof(line), e);
		break;
	case CODE_FROM_COMMAND:
		rc = code_from_command(o->code_arg, line, sizeof(line), e);
		break;
	case CODE_FROM_TTY:
	default:
		server_text_printable(shown, sizeof(shown), prompt);
		rc = tty_ask(shown[0] != '\0' ? shown : "Verification code: ", false,
			     line, sizeof(line), e);
		if (rc < 0)
			pst_err_prefix(e, "cannot ask for the code (use --code-command or --code-file)");
		break;
	}
	if (rc < 0)
		return rc;
	first_line(line);
	if (!code_is_plausible(line) || strlen(line) >= len) {
		explicit_bzero(line, sizeof(line));
		return pst_fail(e, EINVAL, "the code must be 1-%d printable characters without "
				"spaces (got something else; nothing was sent)", CODE_MAX);
	}
	memcpy(code, line, strlen(line) + 1);
	explicit_bzero(line, sizeof(line));
	return 0;
}
