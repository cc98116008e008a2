/*
 * One-time codes a person types at the code prompt: recovery codes and
 * invite codes, "abcd-efgh-ijkl-mnop" (80 bits from getrandom), kept only as
 * yescrypt hashes. Shared by postern-totp and pam_postern.so, which hashes
 * the recovery codes of a user completing an invited enrolment.
 */
#ifndef POSTERN_RECOVERY_CODES_H
#define POSTERN_RECOVERY_CODES_H

#include <stddef.h>

#include "errmsg.h"
#include "totp_record.h"

#define RECOVERY_CODES 10
#define ONE_TIME_CODE_SIZE 24       /* RECOVERY_CODE_LEN and its NUL, rounded up */

/* A fresh code, dashed, into code. */
int one_time_code_new(char code[ONE_TIME_CODE_SIZE], struct pst_err *e);

/* n fresh codes into codes and their hashes into r's recovery list. */
int recovery_codes_new(struct totp_record *r, char codes[][ONE_TIME_CODE_SIZE], size_t n,
		       struct pst_err *e);

/* True when code matches hash (a yescrypt hash); false on any failure. */
bool one_time_code_matches(const char *code, const char *hash);

#endif
