/*
 * Runs other programs from an argv array with an environment built from
 * nothing (spawn.h). It must never use a shell or pass on an fd above 2.
 */
#define _GNU_SOURCE
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

static void child_exec(const char *const argv[], char *const envp[])
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0)
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
		child_exec(argv, envp);
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
