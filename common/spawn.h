/*
 * Running other programs: argv arrays and an environment built from
 * nothing, never a string handed to a shell, never an inherited fd above 2.
 */
#ifndef POSTERN_SPAWN_H
#define POSTERN_SPAWN_H

#include <stddef.h>

#include "errmsg.h"

struct spawn_env {
	char **vars;     /* "KEY=value" strings, NULL-terminated */
	size_t n;
	size_t cap;
};

/* Add KEY=value; key must be [A-Z_][A-Z0-9_]*. Returns 0 or -errno. */
int spawn_env_add(struct spawn_env *env, const char *key, const char *value);

/* The NULL-terminated array for execve (never NULL, even when empty). */
char *const *spawn_env_array(struct spawn_env *env);

void spawn_env_free(struct spawn_env *env);

/* Close every fd >= lowfd. */
void fds_close_from(int lowfd);

/*
 * fork + execve(argv[0], argv, envp) with stdin and stdout on /dev/null and
 * fds above 2 closed; wait at most timeout_sec seconds (0: no limit), then
 * SIGKILL. *status gets the waitpid status. Returns 0 when the child was
 * started and reaped, -errno otherwise (a timeout is -ETIMEDOUT).
 */
int spawn_wait(const char *const argv[], char *const envp[], unsigned timeout_sec,
	       int *status, struct pst_err *e);

/*
 * spawn_wait with stdout read into out instead of /dev/null (at most cap
 * bytes; more is -EFBIG) and stderr on /dev/null; the child is killed when
 * it has not finished printing within timeout_sec seconds (-ETIMEDOUT).
 * *len gets the bytes read, *status the waitpid status. Returns 0 when the
 * child was started, read and reaped, -errno otherwise.
 */
int spawn_capture(const char *const argv[], char *const envp[], unsigned timeout_sec,
		  char *out, size_t cap, size_t *len, int *status, struct pst_err *e);

/*
 * spawn_capture with the child's stderr kept too: its first diagcap - 1
 * bytes go to diag, NUL-terminated (empty when it said nothing), so that a
 * caller can say why a program failed in the program's own words.
 */
int spawn_capture_diag(const char *const argv[], char *const envp[], unsigned timeout_sec,
		       char *out, size_t cap, size_t *len, char *diag, size_t diagcap,
		       int *status, struct pst_err *e);

#endif
