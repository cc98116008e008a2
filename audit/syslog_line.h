/*
 * One line of a syslog file, split into time, host, tag, pid and message.
 * Three layouts are read, the ones rsyslog writes to /var/log/auth.log:
 *
 *   Dec  3 06:34:25 host tag[pid]: message            (traditional; no year)
 *   2026-12-03T06:34:25.123+00:00 host tag[pid]: msg  (RSYSLOG_FileFormat)
 *   <38>1 2026-12-03T06:34:25Z host tag pid - - msg   (RFC 5424)
 *
 * Nothing here is trustworthy: any local user can send any of these with
 * logger(1). The reader only splits; deciding what to believe is trail.c's.
 */
#ifndef POSTERN_AUDIT_SYSLOG_LINE_H
#define POSTERN_AUDIT_SYSLOG_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "timefmt.h"

#define SYSLOG_HOST_MAX 256
#define SYSLOG_TAG_MAX 64

struct syslog_line {
	int64_t time_us;
	char host[SYSLOG_HOST_MAX];
	char tag[SYSLOG_TAG_MAX];
	long pid;                 /* -1 when the line has none */
	const char *msg;          /* points into the line */
	size_t msg_len;
};

/* Returns 0, or -EINVAL with e saying why the line is not a syslog line. */
int syslog_line_parse(struct syslog_line *l, const char *line, size_t len,
		      const struct year_rule *years, struct pst_err *e);

#endif
