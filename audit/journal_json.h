/*
 * One entry of `journalctl -o json`: one JSON object per line, every field
 * a string, or an array of byte values when journald found it not to be
 * printable UTF-8, or an array of either when the entry holds the field
 * more than once.
 *
 * The fields that start with "_" are added by journald itself from the
 * kernel's view of the sender (SCM_CREDENTIALS, /proc): a client cannot set
 * them. Those are what make the journal trustworthy where a syslog file is
 * not; SYSLOG_IDENTIFIER and MESSAGE are still the sender's word.
 */
#ifndef POSTERN_AUDIT_JOURNAL_JSON_H
#define POSTERN_AUDIT_JOURNAL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

#define JOURNAL_TEXT_MAX 256

struct journal_entry {
	int64_t time_us;                /* __REALTIME_TIMESTAMP */
	char host[JOURNAL_TEXT_MAX];    /* _HOSTNAME, or "-" */
	char tag[JOURNAL_TEXT_MAX];     /* SYSLOG_IDENTIFIER, or "" */
	char exe[JOURNAL_TEXT_MAX];     /* _EXE, or "" */
	long pid;                       /* _PID, or -1 */
	long uid;                       /* _UID, or -1 */
	char *msg;                      /* MESSAGE, may hold any byte */
	size_t msg_len;
};

/*
 * Returns 0, or -EINVAL with e saying what is wrong (not JSON, not an
 * object, a field given twice, a timestamp or id that is not a number).
 * j needs journal_entry_free() either way.
 */
int journal_entry_parse(struct journal_entry *j, const char *line, size_t len,
			struct pst_err *e);

void journal_entry_free(struct journal_entry *j);

#endif
