/*
 * Structured audit records: one syslog line per security decision,
 *
 *   event=NAME user=U from=ADDR port=P sid=S key=value key="quoted value" ...
 *
 * This file MUST make every record parse back into exactly the fields that
 * were given: a value can never end its field early, start a new field or a
 * new line. So: values that are not plain ASCII words are quoted; inside
 * quotes '"' and '\' are backslash-escaped; every control character (C0, DEL,
 * C1), every Unicode line separator or bidi control, every byte that is not
 * valid UTF-8, and '#' (rsyslog's own escape character) is written as \xNN. Records are capped at AUDIT_RECORD_MAX
 * bytes; a record that had to be cut ends in "truncated=yes".
 *
 * There is deliberately no switch (environment variable, file, option) that
 * diverts records elsewhere at run time: tests capture them by giving the
 * process its own /dev/log in a private mount namespace, which needs the
 * privilege that would make diverting pointless (tests/common/syslog-capture).
 * The only redirection is audit_set_writer(), a call compiled into the
 * program, which pam_postern uses to log in pam_syslog()'s format.
 */
#ifndef POSTERN_AUDIT_H
#define POSTERN_AUDIT_H

#include <stddef.h>
#include <syslog.h>

#include "postern_limits.h"

#define AUDIT_RECORD_MAX 2048
#define AUDIT_VALUE_MAX 512

/*
 * The user a record names is the one claimed, valid or not: a refused login
 * is logged with the name it tried before name_is_user() refuses it. So it
 * may be longer than a valid name (NAME_USER_MAX), to show what was tried;
 * a longer one still is logged as "(over-long)", never cut.
 */
#define AUDIT_USER_MAX 63
_Static_assert(AUDIT_USER_MAX >= NAME_USER_MAX, "every valid user name must be logged as it is");

/*
 * Who and where: carried by every record. The client_* fields are what a
 * client claimed about its own session to a daemon that cannot verify it
 * (postern-installd learns only uid and pid, from SO_PEERCRED): when
 * client_session is set, they are written as client_from, client_port and
 * client_session right after sid, and from, port, sid are the daemon's own.
 */
struct audit_session {
	char user[AUDIT_USER_MAX + 1];
	char from[64];
	char port[8];
	char sid[20];
	char client_from[64];
	char client_port[8];
	char client_session[20];
};

/*
 * Fill s for user (NULL: "-") from an SSH_CONNECTION value
 * ("client_addr client_port server_addr server_port"). The session id is
 * the first 16 hex digits of SHA-256(boot id, SSH_CONNECTION): sshd's PAM
 * stage and the login shell see the same SSH_CONNECTION for one connection,
 * so their records share it. Without a valid SSH_CONNECTION (a local admin
 * tool) from is "local", port "-", and the id is derived from the boot id,
 * the pid and the time, so it names this one invocation.
 */
void audit_session_init(struct audit_session *s, const char *user,
			const char *ssh_connection);

/*
 * Write value, quoted and escaped as described above, into out (NUL
 * terminated). Returns the length written. A value that does not fit in
 * min(outlen, AUDIT_VALUE_MAX) is cut at an escape boundary and ends in "...".
 */
size_t audit_escape(char *out, size_t outlen, const char *value, int *truncated);

/*
 * Format one record into out. kv is a NULL-terminated array of key, value,
 * key, value...; keys are [a-z][a-z0-9_]*, a NULL value is written as "-".
 * Returns the record's length.
 */
size_t audit_format(char *out, size_t outlen, const char *event,
		    const struct audit_session *s, const char *const kv[]);

/*
 * Emit a record at LOG_AUTHPRIV with the given priority (LOG_NOTICE for
 * refusals, LOG_INFO for successes). The variadic part is key, value, ...,
 * NULL, at most 32 pairs.
 */
void audit_emit(int priority, const char *event, const struct audit_session *s,
		...) __attribute__((sentinel));
void audit_emitv(int priority, const char *event, const struct audit_session *s,
		 const char *const kv[]);

typedef void audit_writer_fn(int priority, const char *record, void *arg);

/* Route records through fn instead of syslog(3); NULL restores syslog. */
void audit_set_writer(audit_writer_fn *fn, void *arg);

#endif
