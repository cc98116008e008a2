/*
 * The environment: postern-shell copies the three variables it has a use
 * for, then clears its own environment, and builds the one for rrsync from
 * nothing. A client can influence the environment sshd hands over
 * (AcceptEnv, PermitUserEnvironment), so none of it is trusted as is.
 */
#ifndef POSTERN_RSHELL_ENV_H
#define POSTERN_RSHELL_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

#define ENV_LANG_DEFAULT "C.UTF-8"

struct shell_inherited {
	char *ssh_connection;    /* SSH_CONNECTION when well formed, else NULL */
	char *lang;              /* LANG when a valid, installed UTF-8 locale (or C, POSIX), else NULL */
	char *original_command;  /* SSH_ORIGINAL_COMMAND as given, or NULL */
	char unsafe[64];         /* the first loader variable found, or "" */
};

/*
 * Copy what postern-shell uses out of envp and note any variable the
 * dynamic loader or libc acts on before main() could refuse it (LD_PRELOAD
 * and the others glibc drops for set-uid programs). Returns 0 or -ENOMEM.
 */
int shell_env_take(const char *const envp[], struct shell_inherited *in);
void shell_env_release(struct shell_inherited *in);

/* The name of the first such loader variable in envp, copied into out, or false. */
bool env_find_unsafe(const char *const envp[], char *out, size_t outlen);

/* A locale name like C, POSIX, C.UTF-8, en_GB.UTF-8 or sr_RS@latin (syntax only). */
bool lang_name_valid(const char *lang);

/* "ADDR PORT ADDR PORT" with IPv4/IPv6 addresses and decimal ports. */
bool ssh_connection_valid(const char *value);

struct shell_account {
	const char *user;
	const char *home;
};

/*
 * The environment rrsync runs in: PATH=/usr/bin:/bin, HOME, USER, LOGNAME,
 * LANG, SSH_CONNECTION (when known), SSH_ORIGINAL_COMMAND and
 * PYTHONNOUSERSITE=1 (rrsync is Python: no code from HOME). Returns 0 or
 * -errno.
 */
int shell_env_build(struct spawn_env *env, const struct shell_account *acct,
		    const struct shell_inherited *in, const char *original_command);

#endif
