/*
 * One user's TOTP enrolment: the in-memory record and its text form, the
 * file <store>/<user> described in docs/TOTP.md.
 *
 * The parser MUST refuse anything it does not fully understand (unknown or
 * repeated fields, a version other than TOTP_RECORD_VERSION, NUL bytes,
 * over-long lines, out-of-range numbers): a record it cannot read denies the
 * login instead of being half-trusted. A fuzzer drives it with any bytes.
 */
#ifndef POSTERN_TOTP_RECORD_H
#define POSTERN_TOTP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

#define TOTP_RECORD_VERSION 1
#define TOTP_RECORD_MAX 8192        /* bytes of the text form */
#define TOTP_SECRET_MIN 10          /* 80 bits, RFC 4226's minimum... */
#define TOTP_SECRET_MAX 64          /* ...and SHA-512's block output */
#define TOTP_KEYS_MAX 16
#define TOTP_RECOVERY_MAX 10
#define TOTP_FPR_MAX 64             /* "SHA256:" + 43 base64 characters */
#define TOTP_HASH_MAX 128           /* a yescrypt hash is about 73 */

enum totp_alg {
	TOTP_SHA1,
	TOTP_SHA256,
	TOTP_SHA512,
};

struct totp_record {
	enum totp_alg alg;
	unsigned digits;            /* 6 or 8 */
	unsigned period;            /* 30 or 60 seconds */
	unsigned char secret[TOTP_SECRET_MAX];
	size_t secret_len;
	int64_t created;            /* seconds since the epoch */
	uint64_t last_step;         /* last accepted time step; 0: none yet */
	int64_t last_success;       /* 0: never */
	unsigned failures;          /* consecutive failed attempts */
	int64_t locked_until;       /* 0: not locked */
	char keys[TOTP_KEYS_MAX][TOTP_FPR_MAX];   /* bound "SHA256:..." fingerprints */
	size_t nkeys;
	char recovery[TOTP_RECOVERY_MAX][TOTP_HASH_MAX];  /* unused codes, hashed */
	size_t nrecovery;
};

const char *totp_alg_name(enum totp_alg alg);
bool totp_alg_parse(const char *name, enum totp_alg *out);

/* Secret length getrandom() should produce for alg: its HMAC output size. */
size_t totp_alg_secret_len(enum totp_alg alg);

/* True when s is "SHA256:" followed by 43 unpadded base64 characters. */
bool totp_fingerprint_valid(const char *s);

/*
 * A number as the records write it: decimal digits, no sign, no leading
 * zero, at most max. 0, or -EINVAL/-ERANGE with *why the message.
 */
int record_decimal(const char *v, uint64_t max, uint64_t *out, const char **why);

/* True when s is a yescrypt hash as crypt(3) writes one ("$y$..."). */
bool totp_hash_valid(const char *s);

/* Parse the text form; r is wiped first and on error. */
int totp_record_parse(const char *buf, size_t len, struct totp_record *r,
		      struct pst_err *e);

/*
 * Write the text form into out (outlen >= TOTP_RECORD_MAX is always
 * enough). Returns its length, or -errno when r is not valid.
 */
int totp_record_format(const struct totp_record *r, char *out, size_t outlen,
		       struct pst_err *e);

/* Overwrite the secret and every hash, so no copy outlives its use. */
void totp_record_wipe(struct totp_record *r);

#endif
