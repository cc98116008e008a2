/*
 * One DOAP file through libxml2 in a confined child (doap_confined.h).
 *
 * MUST: have the child drop to the parse user and enter the sandbox before
 * it reads a byte of the file; treat anything but a clean exit with a
 * well-formed answer as "this file cannot be used".
 * MUST NOT: let the child's answer be larger than DOAP_ANSWER_MAX in
 * memory, or wait for a child that will not end.
 */
#define _GNU_SOURCE
#include "doap_confined.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "doap_answer.h"
#include "sandbox.h"

/* libxml2 needs a few MiB for a 1 MiB document; this leaves it ample room. */
#define DOAP_PARSE_MEMORY (256ull << 20)
#define DOAP_PARSE_CPU 10

int doap_parser_init(struct doap_parser *p, const char *user, struct pst_err *e)
{
	const struct passwd *pw;

	memset(p, 0, sizeof(*p));
	xmlInitParser();   /* its one-time setup before the sandbox, never inside */
	if (geteuid() != 0)
		return 0;
	pw = getpwnam(user);
	if (pw == NULL || pw->pw_uid == 0)
		return pst_fail(e, EINVAL, "doap_parse_user %s: no such user, or root: DOAP files "
				"are not parsed (set doap_parse_user to an unprivileged user)", user);
	p->drop = true;
	p->uid = pw->pw_uid;
	p->gid = pw->pw_gid;
	return 0;
}

static int drop_to(const struct doap_parser *p)
{
	uid_t r, ef, s;

	if (!p->drop)
		return 0;
	if (setgroups(0, NULL) != 0 || setresgid(p->gid, p->gid, p->gid) != 0 ||
	    setresuid(p->uid, p->uid, p->uid) != 0)
		return -1;
	if (getresuid(&r, &ef, &s) != 0 || r != p->uid || ef != p->uid || s != p->uid)
		return -1;
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Up to cap bytes of fd; *len > max when there was more than max. */
static int read_upto(int fd, char *buf, size_t cap, size_t *len)
{
	*len = 0;
	while (*len < cap) {
		ssize_t n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

static void answer(int rc, const struct doap_maintainers *dm, const struct pst_err *e)
{
	char *buf;
	size_t len;

	if (doap_answer_encode(rc, dm, e, &buf, &len) < 0 ||
	    write_all(SANDBOX_OUT_FD, buf, len) < 0)
		_exit(1);
	_exit(rc < 0 ? 2 : 0);
}

/* In the child: fds 0 (answer) and 1 (the file) are in place. Never returns. */
static void parse_child(const struct doap_parser *p, const char *name)
{
	static const struct sandbox_limits limits = {
		.memory = DOAP_PARSE_MEMORY, .cpu_seconds = DOAP_PARSE_CPU,
	};
	struct doap_maintainers dm = { 0 };
	struct pst_err e;
	char *buf;
	size_t len;
	int abi, rc;

	if (drop_to(p) < 0) {
		pst_fail(&e, EPERM, "%s: the DOAP parser cannot become its user: not parsed", name);
		answer(-EPERM, NULL, &e);
	}
	if (sandbox_enter(&limits, &abi, &e) < 0) {
		pst_err_prefix(&e, "%s: the DOAP parser cannot confine itself", name);
		answer(-EPERM, NULL, &e);
	}
	buf = malloc(DOAP_FILE_MAX + 1);
	if (buf == NULL || read_upto(SANDBOX_IN_FD, buf, DOAP_FILE_MAX + 1, &len) < 0)
		rc = pst_fail(&e, EIO, "%s: cannot read it", name);
	else if (len > DOAP_FILE_MAX)
		rc = pst_fail(&e, EFBIG, "%s: larger than %d bytes", name, DOAP_FILE_MAX);
	else
		rc = doap_parse(buf, len, name, &dm, &e);
	answer(rc, &dm, &e);
}

/* fds 0 and 1 of the child become out and in, whatever numbers they had. */
static int place_fds(int out, int in)
{
	int o = fcntl(out, F_DUPFD, 3), i = fcntl(in, F_DUPFD, 3);

	if (o < 0 || i < 0 || dup2(o, SANDBOX_OUT_FD) < 0 || dup2(i, SANDBOX_IN_FD) < 0)
		return -1;
	return 0;
}

static int why_stopped(int status, const char *name, struct pst_err *e)
{
	if (WIFSIGNALED(status))
		return pst_fail(e, EPERM, "%s: the DOAP parser was stopped by signal %d (%s): "
				"the file is not used", name, WTERMSIG(status),
				WTERMSIG(status) == SIGSYS ? "a system call its sandbox forbids"
				: WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL
				? "out of CPU time, or killed"
				: strsignal(WTERMSIG(status)));
	return pst_fail(e, EPROTO, "%s: the DOAP parser failed (status %d): the file is not used",
			name, WEXITSTATUS(status));
}

static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int doap_parse_confined(const struct doap_parser *p, int fd, const char *name,
			struct doap_maintainers *dm, struct pst_err *e)
{
	char *buf = malloc(DOAP_ANSWER_MAX + 1);
	size_t len = 0;
	int pipefd[2], status = 0, rc;
	pid_t pid;

	dm->v = NULL;
	dm->n = 0;
	if (buf == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		free(buf);
		return pst_fail(e, errno, "%s: cannot start the DOAP parser: %s", name, strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		if (place_fds(pipefd[1], fd) < 0)
			_exit(1);
		parse_child(p, name);
	}
	close(pipefd[1]);
	if (pid < 0) {
		rc = pst_fail(e, errno, "%s: cannot start the DOAP parser: %s", name, strerror(errno));
		close(pipefd[0]);
		free(buf);
		return rc;
	}
	rc = read_upto(pipefd[0], buf, DOAP_ANSWER_MAX + 1, &len);
	close(pipefd[0]);
	if (rc < 0 || len > DOAP_ANSWER_MAX)
		kill(pid, SIGKILL);
	if (reap(pid, &status) < 0)
		rc = pst_fail(e, errno, "%s: lost the DOAP parser: %s", name, strerror(errno));
	else if (rc < 0 || len > DOAP_ANSWER_MAX)
		rc = pst_fail(e, EPROTO, "%s: the DOAP parser's answer was unreadable or too large",
			      name);
	else if (WIFEXITED(status) && WEXITSTATUS(status) <= 2 && len > 0)
		rc = doap_answer_decode(buf, len, name, dm, e);
	else
		rc = why_stopped(status, name, e);
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		doap_maintainers_free(dm);
		rc = why_stopped(status, name, e);
	}
	free(buf);
	return rc;
}
