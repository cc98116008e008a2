/*
 * Runs other programs from an argv array with an environment built from
 * nothing (spawn.h). It must never use a shell or pass on an fd above 2.
 */
#define _GNU_SOURCE
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int env_key_valid(const char *k)
{
	if (k == NULL || !((*k >= 'A' && *k <= 'Z') || *k == '_'))
		return 0;
	for (k++; *k != '\0'; k++) {
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_'))
			return 0;
	}
	return 1;
}

int spawn_env_add(struct spawn_env *env, const char *key, const char *value)
{
	size_t len;
	char **bigger;
	char *var;

	if (!env_key_valid(key) || value == NULL)
		return -EINVAL;
	if (env->n + 2 > env->cap) {
		size_t cap = env->cap ? env->cap * 2 : 16;
		bigger = realloc(env->vars, cap * sizeof(*bigger));
		if (bigger == NULL)
			return -ENOMEM;
		env->vars = bigger;
		env->cap = cap;
	}
	len = strlen(key) + 1 + strlen(value) + 1;
	var = malloc(len);
	if (var == NULL)
		return -ENOMEM;
	strcpy(var, key);
	strcat(var, "=");
	strcat(var, value);
	env->vars[env->n++] = var;
	env->vars[env->n] = NULL;
	return 0;
}

char *const *spawn_env_array(struct spawn_env *env)
{
	static char *const empty[] = { NULL };

	return env->n == 0 ? empty : env->vars;
}

void spawn_env_free(struct spawn_env *env)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		free(env->vars[i]);
	free(env->vars);
	env->vars = NULL;
	env->n = env->cap = 0;
}

void fds_close_from(int lowfd)
{
	DIR *d;
	struct dirent *de;
	int fd;

	if (close_range((unsigned)lowfd, ~0U, 0) == 0)
		return;
	d = opendir("/proc/self/fd");
	if (d == NULL) {
		for (fd = lowfd; fd < 65536; fd++)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		fd = atoi(de->d_name);
		if (fd >= lowfd && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/* out < 0: stdout on /dev/null, stderr inherited; else stdout on out and
 * stderr on err, or on /dev/null when err < 0 (a captured program's chatter
 * is nobody's to read unless the caller asked for it). */
static void child_exec(const char *const argv[], char *const envp[], int out, int err)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out < 0 ? devnull : out, 1) < 0 ||
	    (out >= 0 && dup2(err < 0 ? devnull : err, 2) < 0))
		_exit(126);
	fds_close_from(3);
	signal(SIGPIPE, SIG_DFL);
	execve(argv[0], (char *const *)argv, envp);
	_exit(127); /* fail safe */
}

int spawn_wait(const char *const argv[], char *const envp[], unsigned timeout_sec,
	       int *status, struct pst_err *e)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	unsigned long waited_ms = 0;
	pid_t pid;
	pid_t r;

	if (argv == NULL || argv[0] == NULL || argv[0][0] != '/')
		return pst_fail(e, EINVAL, "a program to run must be given by absolute path");
	pid = fork();
	if (pid < 0)
		return pst_fail(e, errno, "%s: cannot fork: %s", argv[0], strerror(errno));
	if (pid == 0)
		child_exec(argv, envp, -1, -1);
	for (;;) {
		r = waitpid(pid, status, timeout_sec ? WNOHANG : 0);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return pst_fail(e, errno, "%s: wait failed: %s", argv[0], strerror(errno));
		if (timeout_sec && waited_ms >= timeout_sec * 1000UL) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return pst_fail(e, ETIMEDOUT, "%s: killed after %u seconds", argv[0],
					timeout_sec);
		}
		if (timeout_sec) {
			nanosleep(&tick, NULL);
			waited_ms += 20;
		}
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child's stdout until EOF, the cap or the deadline: 0, -EFBIG, -ETIMEDOUT or -errno. */
static int read_until(int fd, long long deadline, char *out, size_t cap, size_t *len)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	ssize_t n;

	*len = 0;
	for (;;) {
		long long left = deadline - now_ms();
		int ready = left > 0 ? poll(&pfd, 1, (int)left) : 0;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -errno;
		if (ready == 0)
			return -ETIMEDOUT;
		n = read(fd, out + *len, cap - *len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		*len += (size_t)n;
		if (*len == cap)
			return -EFBIG;
	}
}

/* spawn_capture with the child's stderr on err (-1: /dev/null). */
static int capture_to(const char *const argv[], char *const envp[], unsigned timeout_sec,
		      char *out, size_t cap, size_t *len, int err, int *status,
		      struct pst_err *e)
{
	int pipefd[2], rc;
	pid_t pid;

	if (argv == NULL || argv[0] == NULL || argv[0][0] != '/' || cap == 0)
		return pst_fail(e, EINVAL, "a program to run must be given by absolute path");
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return pst_fail(e, errno, "%s: pipe: %s", argv[0], strerror(errno));
	pid = fork();
	if (pid < 0) {
		rc = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return pst_fail(e, rc, "%s: cannot fork: %s", argv[0], strerror(rc));
	}
	if (pid == 0)
		child_exec(argv, envp, pipefd[1], err);
	close(pipefd[1]);
	rc = read_until(pipefd[0], now_ms() + timeout_sec * 1000LL, out, cap, len);
	close(pipefd[0]);
	if (rc < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (rc == -ETIMEDOUT)
		return pst_fail(e, ETIMEDOUT, "%s: killed after %u seconds", argv[0], timeout_sec);
	if (rc == -EFBIG)
		return pst_fail(e, EFBIG, "%s: printed more than %zu bytes", argv[0], cap);
	if (rc < 0)
		return pst_fail(e, -rc, "%s: reading its output: %s", argv[0], strerror(-rc));
	return 0;
}

int spawn_capture(const char *const argv[], char *const envp[], unsigned timeout_sec,
		  char *out, size_t cap, size_t *len, int *status, struct pst_err *e)
{
	return capture_to(argv, envp, timeout_sec, out, cap, len, -1, status, e);
}

/* What the child said on stderr, from the start of the memfd: NUL-terminated. */
static void diag_read(int fd, char *diag, size_t diagcap)
{
	ssize_t n = pread(fd, diag, diagcap - 1, 0);

	diag[n > 0 ? (size_t)n : 0] = '\0';
}

int spawn_capture_diag(const char *const argv[], char *const envp[], unsigned timeout_sec,
		       char *out, size_t cap, size_t *len, char *diag, size_t diagcap,
		       int *status, struct pst_err *e)
{
	/* A memfd, not a pipe: a child that fills its stderr cannot block
	 * while the parent is still reading its stdout. */
	int fd = memfd_create("spawn-stderr", MFD_CLOEXEC);
	int rc;

	if (diagcap == 0)
		return pst_fail(e, EINVAL, "spawn_capture_diag: no room for the diagnostics");
	diag[0] = '\0';
	if (fd < 0)
		return pst_fail(e, errno, "cannot make a memfd for a program's stderr: %s",
				strerror(errno));
	rc = capture_to(argv, envp, timeout_sec, out, cap, len, fd, status, e);
	diag_read(fd, diag, diagcap);
	close(fd);
	return rc;
}
