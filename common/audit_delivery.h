/*
 * Can this program's audit records reach a log daemon, and may it go on
 * when they cannot? (docs/AUDIT.md, "When records cannot be delivered")
 *
 * syslog(3) sends to /dev/log and reports nothing: with no syslog daemon
 * and no journal behind that socket (a container, a Debian 12 host without
 * rsyslog, a crashed daemon) every record is dropped in silence. So before
 * an operation, a program probes /dev/log the way syslog(3) connects to
 * it, and decides by the rule below. This only looks: it never diverts,
 * drops or rewrites a record, and it sends nothing to the log.
 */
#ifndef POSTERN_AUDIT_DELIVERY_H
#define POSTERN_AUDIT_DELIVERY_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

/* What audit.on_failure in postern.yaml says. */
enum audit_on_failure {
	AUDIT_ON_FAILURE_REFUSE = 0,   /* the default */
	AUDIT_ON_FAILURE_CONTINUE,
};

/* What the operation about to run does. */
enum audit_operation {
	AUDIT_OP_READ,     /* a login, list, status, check, explain... */
	AUDIT_OP_CHANGE,   /* install, delete, enrol, revoke, unlock, import-doap... */
};

/*
 * Connect to /dev/log as syslog(3) does (a datagram socket, then a stream
 * one) and close again. true when something listens there; receiver then
 * names it ("the journal" when /dev/log leads to systemd-journald's socket,
 * else "a syslog daemon"). false with why saying what is wrong (missing,
 * refusing connections, not writable by this user, not a socket).
 */
bool audit_delivery_probe(char *receiver, size_t receiver_len, struct pst_err *why);

/*
 * The rule, for one operation of prog: 0 when records can be delivered.
 * When they cannot, a change is refused (-EPIPE, e says what is missing
 * and how to fix it; the caller changes nothing) unless on_failure is
 * CONTINUE; anything else goes on, and the first time in this process one
 * warning is written to stderr ("prog: warning: ...").
 */
int audit_delivery_check(const char *prog, enum audit_operation op,
			 enum audit_on_failure on_failure, struct pst_err *e);

#endif
