/*
 * OpenSSH's own log lines for the postern sshd, read as audit records.
 *
 * Some refusals never reach pam_postern or postern-shell: a client that has
 * the key but not the code and gives up (key-only), a user sshd itself
 * turns away (AllowGroups, unknown name), a refused -L forward, an sftp
 * subsystem request, a connection dropped before authentication. Only sshd
 * logs those, in English sentences. This reader knows a fixed set of them
 * (OpenSSH 9.x, LogLevel VERBOSE or INFO) and turns each into the fields of
 * an sshd_* event (docs/AUDIT.md); every other sshd line is not a record.
 *
 * Like every input it is text anyone can send under the tag postern-sshd
 * (logger -t): it only splits, never trusts, and a line it recognises that
 * holds a byte audit.c could not escape-free show is refused by the caller.
 * Forwards and subsystem requests do not name the client address: sshd's
 * earlier lines for the same process ("Accepted ... for USER from ADDR port
 * PORT", "User child is on pid N") do, so a small table remembers them.
 */
#ifndef POSTERN_AUDIT_SSHD_LOG_H
#define POSTERN_AUDIT_SSHD_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define SSHD_SESSIONS_MAX 512
#define SSHD_TEXT_MAX 256
#define SSHD_EXTRA_MAX 3

/* sshd processes seen so far: pid -> who and from where. */
struct sshd_session {
	long pid;
	char host[SSHD_TEXT_MAX];
	char user[SSHD_TEXT_MAX];
	char from[64];
	char port[8];
	char key[SSHD_TEXT_MAX];      /* key of a "Partial publickey", or "" */
};

struct sshd_sessions {
	struct sshd_session s[SSHD_SESSIONS_MAX];
	size_t next;                  /* ring: the oldest is overwritten */
};

struct sshd_event {
	const char *event;            /* "sshd_auth_incomplete", ... */
	char user[SSHD_TEXT_MAX];     /* "-" when unknown */
	char from[64];
	char port[8];
	size_t nextra;
	const char *extra_key[SSHD_EXTRA_MAX];
	char extra_value[SSHD_EXTRA_MAX][SSHD_TEXT_MAX];
};

/*
 * Read one message (msg, NUL-terminated, no raw control characters) that
 * sshd process pid on host logged. Returns true and fills ev when it is
 * one of the refusals; lines that name a session update sessions (NULL:
 * no memory across lines).
 */
bool sshd_log_read(struct sshd_sessions *sessions, const char *host, long pid,
		   const char *msg, struct sshd_event *ev);

#endif
