/*
 * The decision: does this typed input log this user in now?
 *
 * totp_verify() is the only function that answers that. It MUST refuse
 * while the record is locked, even a right code; accept a TOTP code only
 * for a time step strictly newer than the last accepted one; accept a
 * recovery code only once (its hash leaves the record); count every refusal
 * and start a lockout at max_failures. It updates the record in memory; the
 * caller writes it back under the same lock it read it with, and MUST NOT
 * report success when that write fails (the step would be replayable).
 */
#ifndef POSTERN_TOTP_VERIFY_H
#define POSTERN_TOTP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "totp_record.h"

#define CODE_INPUT_MAX 64            /* longer input is refused unread */
#define RECOVERY_CODE_LEN 19         /* "abcd-efgh-ijkl-mnop" */

enum code_kind {
	CODE_INVALID,
	CODE_TOTP,                   /* exactly `digits` ASCII digits */
	CODE_RECOVERY,               /* 16 of [a-z2-7], optionally in dashed groups of 4 */
};

/*
 * Classify typed input before any other use of it. For a recovery code,
 * norm (at least RECOVERY_CODE_LEN + 1 bytes) gets the canonical lowercase
 * dashed form that was hashed at enrolment; for a TOTP code, the digits.
 */
enum code_kind code_input_check(const char *input, unsigned digits, char *norm,
				size_t normlen);

struct totp_policy {
	unsigned window;             /* time steps accepted on each side of now */
	unsigned max_failures;
	unsigned lockout;            /* seconds */
};

enum totp_verdict {
	TOTP_ACCEPT_CODE,
	TOTP_ACCEPT_RECOVERY,
	TOTP_REJECT_BAD_INPUT,
	TOTP_REJECT_BAD_CODE,
	TOTP_REJECT_REPLAY,
	TOTP_REJECT_LOCKED,
	TOTP_ERROR,                  /* liboath or libcrypt failed: deny */
};

struct totp_outcome {
	uint64_t step;               /* the accepted time step (codes only) */
	bool lockout_started;        /* this refusal started a lockout */
};

enum totp_verdict totp_verify(struct totp_record *r, const char *input, time_t now,
			      const struct totp_policy *p, struct totp_outcome *out);

/* Hash a canonical recovery code with yescrypt into out (TOTP_HASH_MAX). */
int recovery_hash(const char *code, char *out, size_t outlen);

#endif
