/*
 * A CI job's OIDC ID token (a JWS in compact form, RFC 7515/7519), verified
 * strictly: the header names an algorithm postern accepts (RS256 or ES256;
 * never "none", never HMAC, no "crit") and a kid of the issuer's JWKS whose
 * key is of that algorithm's type; cjose checks the signature; then the
 * claims go through oidc_claims_check.
 */
#ifndef POSTERN_CI_OIDC_TOKEN_H
#define POSTERN_CI_OIDC_TOKEN_H

#include <stddef.h>
#include <time.h>

#include "errmsg.h"
#include "oidc_claims.h"
#include "oidc_jwks.h"

#define OIDC_TOKEN_MAX (32 * 1024)

/*
 * 0 with out filled; else -EINVAL (malformed, or a signature that does not
 * verify), -EACCES (valid but not now) or -ENOKEY (kid not in keys), with
 * e saying what was wrong and what to do.
 */
int oidc_token_verify(const char *token, size_t len, const struct oidc_issuer *is,
		      const struct oidc_jwks *keys, time_t now, struct oidc_claims *out,
		      struct pst_err *e);

#endif
