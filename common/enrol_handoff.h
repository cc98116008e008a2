/*
 * What pam_postern hands postern-shell about an enrolment by invite, in the
 * login handoff file (login_proof.h, login_handoff_write):
 *
 *   after the invite login:      uri otpauth://totp/...
 *                                key sk-ssh-ed25519@openssh.com SHA256:...   (optional)
 *   after the completing login:  recovery abcd-efgh-ijkl-mnop    (one line per code)
 *
 * The key line names the security key the invite login used, which the user
 * can make their factor instead of the app. The parser MUST refuse anything
 * else (unknown or out-of-place lines, bytes outside each field's alphabet,
 * over-long lines, no newline at the end): the shell prints these fields to
 * a terminal. A fuzzer drives it with any bytes.
 */
#ifndef POSTERN_ENROL_HANDOFF_H
#define POSTERN_ENROL_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

#define HANDOFF_URI_MAX 512
#define HANDOFF_KEY_TYPE_MAX 64
#define HANDOFF_KEY_FPR_MAX 64
#define HANDOFF_CODES_MAX 10
#define HANDOFF_CODE_SIZE 24

struct enrol_handoff {
	char uri[HANDOFF_URI_MAX];             /* "" after the completing login */
	char key_type[HANDOFF_KEY_TYPE_MAX];   /* "" for none */
	char key_fpr[HANDOFF_KEY_FPR_MAX];
	char codes[HANDOFF_CODES_MAX][HANDOFF_CODE_SIZE];
	size_t ncodes;
};

/* The text form into out: its length, or -errno (-EINVAL when h is not valid). */
int enrol_handoff_format(const struct enrol_handoff *h, char *out, size_t outlen,
			 struct pst_err *e);

/* Parse the text form; h is wiped first and on error. */
int enrol_handoff_parse(const char *buf, size_t len, struct enrol_handoff *h,
			struct pst_err *e);

/* Overwrite the URI (the secret) and the codes. */
void enrol_handoff_wipe(struct enrol_handoff *h);

#endif
