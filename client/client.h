/*
 * postern-client: the maintainer's side of a postern login, on libssh.
 *
 * One connection: check the server's host key against known_hosts, log in
 * with the SSH key, answer the keyboard-interactive code prompt, run one
 * command and relay stdin, stdout, stderr and the exit status. It is small
 * on purpose, so that it can be rsync's -e transport.
 *
 * It runs as the maintainer, unprivileged, on the maintainer's machine. It
 * MUST NOT print or log the code, keep it longer than the login needs, or
 * let a code command read the data on stdin (that is rsync's stream).
 */
#ifndef POSTERN_CLIENT_H
#define POSTERN_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <libssh/libssh.h>

#include "errmsg.h"

/* Status for every failure of the client itself, as ssh(1) does. */
#define CLIENT_EXIT_FAILURE 255

/* Longest code (TOTP or recovery) the client will send, without the NUL. */
#define CODE_MAX 64

enum code_source {
	CODE_FROM_TTY,
	CODE_FROM_FILE,
	CODE_FROM_COMMAND,
};

struct client_opts {
	const char *host;
	const char *user;             /* NULL: the local user name */
	unsigned port;                /* 0: 22 */
	const char *identity;         /* NULL: ssh-agent and ~/.ssh/id_* */
	const char *known_hosts;      /* NULL: ~/.ssh/known_hosts */
	enum code_source code_source;
	const char *code_arg;         /* the file or the command */
	bool accept_new;
	int verbosity;
	char *command;                /* the remote command, words joined by spaces */
};

/* hostkey.c: known_hosts check; first use asks on the tty or needs accept_new. */
int hostkey_verify(ssh_session s, const struct client_opts *o, struct pst_err *e);

/* code.c: the one-time code from the chosen source, checked, NUL-terminated. */
int code_obtain(const struct client_opts *o, const char *prompt, char *code, size_t len,
		struct pst_err *e);
/* A code as the server may accept it: 1..CODE_MAX printable ASCII, no space. */
bool code_is_plausible(const char *code);
/* The server's prompt as shown on the terminal: printable ASCII only, so a
 * hostile server cannot send terminal escapes. DST is always terminated. */
void code_prompt_printable(char *dst, size_t len, const char *src);
/* Split a --code-command into words on blanks: no quoting, no expansion. */
int code_command_split(const char *cmd, char ***argv_out, struct pst_err *e);

/* tty.c: the controlling terminal, for prompts even when stdin is rsync's pipe. */
int tty_ask(const char *prompt, bool echo, char *buf, size_t len, struct pst_err *e);

/* auth.c: public key first, then the code through keyboard-interactive. */
int auth_login(ssh_session s, const struct client_opts *o, struct pst_err *e);

/* relay.c: run the command; returns its exit status or -errno. */
int relay_run(ssh_session s, const char *command, struct pst_err *e);

#endif
