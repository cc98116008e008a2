/*
 * One user's security keys (FIDO2 keys of OpenSSH's sk-* types): the
 * record <store>/.sk/<user> described in docs/TOTP.md, "Security keys".
 *
 *   version 1
 *   require security-key
 *   key sk-ssh-ed25519@openssh.com SHA256:... CREATED LAST_USED COMMENT
 *
 * "require security-key" (optional) makes a code not enough for this user.
 * A key line names the key by its type and OpenSSH fingerprint; CREATED and
 * LAST_USED are seconds since the epoch (0: never used); COMMENT is one
 * word of [A-Za-z0-9._@+:=-], or "-" for none.
 *
 * The parser MUST refuse anything it does not fully understand (unknown or
 * repeated lines, another version, a key type that is not a security key,
 * a fingerprint twice, NUL bytes, over-long lines): a record it cannot read
 * denies the login. A fuzzer drives it with any bytes.
 */
#ifndef POSTERN_SK_RECORD_H
#define POSTERN_SK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "totp_record.h"

#define SK_RECORD_VERSION 1
#define SK_RECORD_MAX 4096
#define SK_KEYS_MAX 8
#define SK_TYPE_MAX 40
#define SK_COMMENT_MAX 64

struct sk_key {
	char type[SK_TYPE_MAX];        /* one of sk_key_type_valid's */
	char fpr[TOTP_FPR_MAX];        /* "SHA256:..." of the public key blob */
	int64_t created;
	int64_t last_used;             /* 0: never */
	char comment[SK_COMMENT_MAX + 1];   /* "" for none */
};

struct sk_record {
	bool require;                  /* codes are not enough for this user */
	struct sk_key keys[SK_KEYS_MAX];
	size_t nkeys;
};

/* sk-ssh-ed25519@openssh.com or sk-ecdsa-sha2-nistp256@openssh.com. */
bool sk_key_type_valid(const char *type);

/* A comment as the record keeps it: one word of the alphabet above. */
bool sk_comment_valid(const char *comment);

/* The key with fingerprint fpr, or NULL. */
struct sk_key *sk_record_find(struct sk_record *r, const char *fpr);

/* Parse the text form; r is cleared first and on error. */
int sk_record_parse(const char *buf, size_t len, struct sk_record *r, struct pst_err *e);

/* Write the text form into out (SK_RECORD_MAX is always enough): its length, or -errno. */
int sk_record_format(const struct sk_record *r, char *out, size_t outlen, struct pst_err *e);

#endif
