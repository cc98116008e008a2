/*
 * One user's invite: the record <store>/.invite/<user> (docs/TOTP.md,
 * "Invites"). An invite lets a maintainer who has an ssh key but no second
 * factor yet log in once, to an enrolment-only session, with a one-time
 * code an admin gave them; the first login with a code from the secret
 * shown there (or with the security key used for the invite) completes the
 * enrolment and uses the invite up.
 *
 *   version 1
 *   created 1796000000
 *   expires 1796604800
 *   hash $y$...
 *   failures 0
 *   admitted 0
 *   key sk-ssh-ed25519@openssh.com SHA256:...     (optional)
 *
 * Every line but the last is required, in this order. hash is the yescrypt
 * hash of the invite code (never the code); admitted is when the invite
 * login happened (0: not yet); key is the security key sshd accepted for
 * that login, which the user may make their factor.
 *
 * The parser MUST refuse anything it does not fully understand (another
 * version, a line out of order, unknown or repeated lines, NUL bytes,
 * over-long lines, out-of-range numbers): an unreadable invite denies. A
 * fuzzer drives it with any bytes.
 */
#ifndef POSTERN_INVITE_RECORD_H
#define POSTERN_INVITE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "sk_record.h"
#include "totp_record.h"

#define INVITE_RECORD_VERSION 1
#define INVITE_RECORD_MAX 1024
#define INVITE_CODE_LEN 19          /* "abcd-efgh-ijkl-mnop", as a recovery code */

struct invite_record {
	int64_t created;
	int64_t expires;
	char hash[TOTP_HASH_MAX];
	unsigned failures;
	int64_t admitted;              /* 0: the invite login has not happened */
	char key_type[SK_TYPE_MAX];    /* "" when the invite login used no security key */
	char key_fpr[TOTP_FPR_MAX];
};

/* Parse the text form; r is cleared first and on error. */
int invite_record_parse(const char *buf, size_t len, struct invite_record *r,
			struct pst_err *e);

/* Write the text form into out; its length, or -errno when r is not valid. */
int invite_record_format(const struct invite_record *r, char *out, size_t outlen,
			 struct pst_err *e);

#endif
