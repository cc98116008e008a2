/*
 * An OIDC issuer's signing keys (JWKS, RFC 7517), as postern-ci keeps them
 * in a root-owned file per issuer: parsed with jansson and imported with
 * cjose. Only keys that can sign what postern accepts are kept: RSA of at
 * least 2048 bits (RS256) and EC P-256 (ES256), each with a unique kid.
 * Keys of other types are skipped; anything malformed refuses the file.
 */
#ifndef POSTERN_CI_OIDC_JWKS_H
#define POSTERN_CI_OIDC_JWKS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjose/cjose.h>

#include "errmsg.h"

#define OIDC_JWKS_FILE_MAX (256 * 1024)
#define OIDC_JWKS_KEYS_MAX 32
#define OIDC_KID_MAX 128
#define OIDC_RSA_BITS_MIN 2048

enum oidc_alg {
	OIDC_RS256 = 1,
	OIDC_ES256,
};

struct oidc_key {
	char kid[OIDC_KID_MAX + 1];
	enum oidc_alg alg;      /* the one algorithm this key may verify */
	cjose_jwk_t *jwk;
};

struct oidc_jwks {
	struct oidc_key v[OIDC_JWKS_KEYS_MAX];
	size_t n;
};

/* Parse len bytes of text (name for messages). 0, or -EINVAL with e filled. */
int oidc_jwks_parse(const char *text, size_t len, const char *name, struct oidc_jwks *out,
		    struct pst_err *e);

/* The key named kid, or NULL. */
const struct oidc_key *oidc_jwks_find(const struct oidc_jwks *k, const char *kid);

void oidc_jwks_free(struct oidc_jwks *k);

/* len bytes of s are unpadded base64url that cjose can decode without
 * aborting (its decoder asserts on a length of 4n + 1). */
bool oidc_base64url_ok(const char *s, size_t len);

#endif
