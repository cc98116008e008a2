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
 *
 * From OpenSSH 9.8 on, every sshd's connections log under the tag
 * sshd-session, the postern sshd's and the admins' alike; only the port the
 * connection came in on tells them apart. So the table also remembers that
 * port, from the first line of each connection ("Connection from A port P
 * on L port LP", LogLevel VERBOSE), and every record carries it for
 * trail.c to decide. An entry is freed by the line that ends its
 * connection and reset by a new "Connection from" for its pid (pid reuse);
 * the table has a fixed size, the oldest entry of a connection not logged
 * in giving way when it is full (else the oldest), so memory stays flat
 * over any log.
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
	bool used;
	bool accepted;                /* logged in: the last entry to be evicted */
	long pid;
	long parent;                  /* a user child's monitor pid, or 0 */
	unsigned long seq;            /* when the entry was made */
	unsigned lport;               /* port the connection came in on, 0: unknown */
	char host[SSHD_TEXT_MAX];
	char user[SSHD_TEXT_MAX];
	char from[64];
	char port[8];
	char key[SSHD_TEXT_MAX];      /* key of a "Partial publickey", or "" */
};

struct sshd_sessions {
	struct sshd_session s[SSHD_SESSIONS_MAX];
	unsigned long seq;            /* entries made so far: the full table evicts the oldest */
};

struct sshd_event {
	const char *event;            /* "sshd_auth_incomplete", ... */
	unsigned lport;               /* the connection's local port, 0: unknown */
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
 * one of the refusals; lines that name a session, start or end a
 * connection update sessions (NULL: no memory across lines).
 */
bool sshd_log_read(struct sshd_sessions *sessions, const char *host, long pid,
		   const char *msg, struct sshd_event *ev);

#endif
