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

/* --release: one status per way a release can end (postern-client(1)). */
#define RELEASE_EXIT_OK 0               /* every file installed (or, --dry-run, would be) */
#define RELEASE_EXIT_INSTALL_REFUSED 1  /* uploaded; the server refused some or all */
#define RELEASE_EXIT_LOCAL_REFUSED 2    /* a file failed the local checks; nothing sent */
#define RELEASE_EXIT_LOGIN_FAILED 3     /* connection, host key, key or code */
#define RELEASE_EXIT_UPLOAD_FAILED 4    /* rsync failed; nothing was installed */

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
	bool release;                 /* --release: operands are files */
	bool dry_run;                 /* --release --dry-run */
	bool quiet;                   /* -q: results only */
	char **files;                 /* --release: the FILE operands */
	size_t n_files;
};

/* hostkey.c: known_hosts check; first use asks on the tty or needs accept_new. */
int hostkey_verify(ssh_session s, const struct client_opts *o, struct pst_err *e);

/* code.c: the one-time code from the chosen source, checked, NUL-terminated. */
int code_obtain(const struct client_opts *o, const char *prompt, char *code, size_t len,
		struct pst_err *e);
/* A code as the server may accept it: 1..CODE_MAX printable ASCII, no space. */
bool code_is_plausible(const char *code);
/* Split a --code-command into words on blanks: no quoting, no expansion. */
int code_command_split(const char *cmd, char ***argv_out, struct pst_err *e);

/* tty.c: the controlling terminal, for prompts even when stdin is rsync's pipe. */
int tty_ask(const char *prompt, bool echo, char *buf, size_t len, struct pst_err *e);

/* auth.c: public key first, then the code through keyboard-interactive. */
int auth_login(ssh_session s, const struct client_opts *o, struct pst_err *e);

/* session.c: connect, check the host key and log in; session_end() frees. */
int session_login(const struct client_opts *o, ssh_session *out, struct pst_err *e);
void session_end(ssh_session s);

/* relay.c: run commands on channels of one session, one after the other. */
struct relay_io {
	int in_fd;     /* sent to the command's stdin; -1: none (EOF at once) */
	/* Gets the command's output as it comes; returns 0 or -1 with e filled. */
	int (*sink)(void *ctx, bool is_stderr, const char *buf, size_t n, struct pst_err *e);
	void *ctx;
};
/* Run command; returns its exit status (0..255) or -errno. */
int relay_channel_run(ssh_session s, const char *command, const struct relay_io *io,
		      struct pst_err *e);
/* The one-command mode: our stdin, stdout and stderr. */
int relay_run(ssh_session s, const char *command, struct pst_err *e);
int fd_write_full(int fd, const char *buf, size_t len);

/* release.c: postern-client --release; returns a RELEASE_EXIT_* status. */
int release_main(const struct client_opts *o);

/* rsync_relay.c: the relay between rsync and a channel (see there). */
#define RSYNC_RELAY_FD 3
/* The relay mode rsync starts as its remote shell; returns our exit status. */
int rsync_relay_child(int argc, char **argv);
/* Upload paths with rsync over a channel of s; returns rsync's exit status
 * or -errno. progress: ask rsync for --info=progress2. sent[i] becomes true
 * when rsync really sent paths[i] (it skips a name already on the server). */
int rsync_upload(ssh_session s, char *const paths[], size_t n, bool progress, bool *sent,
		 struct pst_err *e);

#endif
