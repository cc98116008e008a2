/*
 * The fields of one audit record, "event=E user=U ... key="quoted value"",
 * parsed back exactly as docs/AUDIT.md defines them.
 *
 * This parser reads text that anyone able to write to syslog controls, so
 * it accepts only what common/audit.c can produce and refuses everything
 * else with a reason: a raw control character, a byte that is not UTF-8, an
 * invisible line or bidi control, an unterminated quote, an unknown escape,
 * a double space, an over-long value. A record it accepts can be shown on a
 * terminal as is: values keep their \xNN escapes as text ("display form"),
 * only \" becomes ", and \\ stays \\ so the two cannot be confused.
 */
#ifndef POSTERN_AUDIT_FIELDS_H
#define POSTERN_AUDIT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

/* The five leading fields, 32 key/value pairs and truncated=yes, with room. */
#define FIELDS_MAX 48
#define FIELDS_KEY_MAX 32
/* Same limits as common/audit.h, without the terminating NUL. */
#define FIELDS_RECORD_MAX 2047
#define FIELDS_VALUE_MAX 512

struct audit_fields {
	size_t count;
	const char *key[FIELDS_MAX];
	const char *value[FIELDS_MAX];  /* display form */
	char *text;                     /* owns every key and value */
};

/*
 * Parse the len bytes of msg. Returns 0, or -EINVAL with e saying what is
 * wrong and at which byte (counted from 1). f needs fields_free() either way.
 */
int fields_parse(struct audit_fields *f, const char *msg, size_t len,
		 struct pst_err *e);

void fields_free(struct audit_fields *f);

/* The display value of key, or NULL when the record has no such field. */
const char *fields_get(const struct audit_fields *f, const char *key);

#endif
