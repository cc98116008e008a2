/*
 * From one input line to one audit record we are willing to count.
 *
 * This is postern-audit's decision function. It MUST only accept a line
 * that common/audit.c could have written under the program the schema says
 * emits that event; everything else that looks like a record is
 * SUSPICIOUS, with a reason, and is never counted:
 *   - a line that is not syslog / not a journal entry at all (a record
 *     split by a raw newline, a truncated line, garbage);
 *   - a record with a raw or rsyslog-escaped (#ooo) control character,
 *     invalid UTF-8, or anything else audit.c never writes;
 *   - "event=" under a tag that is not one of ours, or an event under a
 *     program that does not emit it, or an event the schema does not know;
 *   - in the journal, a record whose sender uid (journald's _UID, which the
 *     kernel vouches for) is not one that program runs as.
 * Lines of the postern sshd itself (tag rules->sshd_tag) become sshd_*
 * records when sshd_log.c knows the sentence; in the journal only from
 * uid 0, as sshd logs through its privileged monitor. From OpenSSH 9.8 on
 * a connection logs under the tag sshd-session (sshd-auth for OpenSSH
 * 10's pre-authentication process), whichever sshd accepted it: with
 * rules->sshd_ports, such a line is the postern sshd's only when its
 * connection came in on one of those ports; a connection whose port is
 * unknown (its first line rotated away, LogLevel below VERBOSE) is not
 * counted. Without sshd_ports, every sshd-session line is read.
 * A syslog file cannot say who wrote a line (logger -t postern-shell works
 * for anyone), so its records are accepted but never "verified".
 */
#ifndef POSTERN_AUDIT_TRAIL_H
#define POSTERN_AUDIT_TRAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "fields.h"
#include "sshd_log.h"
#include "timefmt.h"

#define TRAIL_TEXT_MAX 256
#define TRAIL_SSHD_PORTS_MAX 16

enum trail_source {
	TRAIL_SYSLOG,
	TRAIL_JOURNAL,
};

struct trail_rules {
	struct year_rule years;
	long daemon_uid;            /* the postern user's uid, or -1 */
	const char *shell_exe;      /* where postern-shell is installed */
	/* The uid of a login name on the audited host, or -1. */
	long (*uid_of_user)(const char *user);
	const char *sshd_tag;       /* syslog tag of the postern sshd, or NULL: no sshd line */
	unsigned sshd_ports[TRAIL_SSHD_PORTS_MAX]; /* the postern sshd's ports */
	size_t sshd_nports;         /* 0: every sshd-session line is its */
	struct sshd_sessions *sshd; /* what earlier sshd lines said, or NULL */
};

struct trail_record {
	int64_t time_us;
	char host[TRAIL_TEXT_MAX];
	char service[TRAIL_TEXT_MAX];  /* PAM service of pam_postern, or "" */
	long pid;
	unsigned emitter;              /* enum emitter */
	bool verified;                 /* journal entry from a trusted uid */
	struct audit_fields f;
	/* The five leading fields, pointing into f. */
	const char *event, *user, *from, *port, *sid;
};

enum trail_verdict {
	TRAIL_RECORD,       /* r is filled; trail_record_free() it */
	TRAIL_OTHER,        /* a line that is not an audit record: ignore */
	TRAIL_SUSPICIOUS,   /* why says what is wrong */
};

enum trail_verdict trail_read_line(const char *line, size_t len,
				   enum trail_source source,
				   const struct trail_rules *rules,
				   struct trail_record *r, struct pst_err *why);

void trail_record_free(struct trail_record *r);

#endif
