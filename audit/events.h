/* The events of docs/AUDIT.md and which program may emit each. */
#ifndef POSTERN_AUDIT_EVENTS_H
#define POSTERN_AUDIT_EVENTS_H

#include <stddef.h>

enum emitter {
	EMIT_PAM = 1 << 0,       /* pam_postern, inside sshd */
	EMIT_SHELL = 1 << 1,     /* postern-shell */
	EMIT_INSTALLD = 1 << 2,  /* postern-installd */
	EMIT_TOTP = 1 << 3,      /* postern-totp */
	EMIT_POLICY = 1 << 4,    /* postern-policy */
	EMIT_SSHD = 1 << 5,      /* OpenSSH's own lines for the postern sshd (sshd_log.h) */
	EMIT_CI = 1 << 6,        /* postern-ci, the CI release front-end */
};

struct event_info {
	const char *name;
	unsigned emitters;       /* enum emitter bits */
};

/* NULL when name is not an event of the schema. */
const struct event_info *event_find(const char *name);

/* The whole table, in the order of docs/AUDIT.md. */
const struct event_info *event_table(size_t *count);

/* The emitter a syslog tag names ("postern-shell"...), or 0. */
unsigned emitter_of_tag(const char *tag);

/* "pam_postern", "postern-shell", ..., "sshd" for one emitter bit. */
const char *emitter_name(unsigned emitter);

#endif
