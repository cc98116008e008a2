/*
 * A CI token (oidc_token.h).
 *
 * MUST: pick the key by kid and insist that its type matches the header's
 * alg before cjose verifies anything (RFC 8725 3.1: the algorithm comes
 * from the key postern trusts, not from the token); refuse any token that
 * is not exactly three base64url parts.
 * MUST NOT: look at the claims before the signature verified.
 */
#include "oidc_token.h"

#include <errno.h>
#include <string.h>

#include <cjose/cjose.h>
#include <jansson.h>

/* Three base64url parts joined by two dots, nothing else, each one cjose
 * decodes without aborting (oidc_base64url_ok). */
static bool compact_form(const char *t, size_t len)
{
	const char *dot1 = memchr(t, '.', len);
	const char *dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - t)) : NULL;

	return dot2 != NULL && oidc_base64url_ok(t, (size_t)(dot1 - t)) &&
	       oidc_base64url_ok(dot1 + 1, (size_t)(dot2 - dot1 - 1)) &&
	       oidc_base64url_ok(dot2 + 1, len - (size_t)(dot2 + 1 - t));
}

static enum oidc_alg header_alg(const char *alg)
{
	if (alg != NULL && strcmp(alg, "RS256") == 0)
		return OIDC_RS256;
	if (alg != NULL && strcmp(alg, "ES256") == 0)
		return OIDC_ES256;
	return 0;
}

/* The key the header points to, refused unless it is of the header's alg. */
static const struct oidc_key *header_key(cjose_jws_t *jws, const struct oidc_jwks *keys,
					 const char *issuer, int *rc, struct pst_err *e)
{
	cjose_header_t *h = cjose_jws_get_protected(jws);
	cjose_err err;
	const char *alg = h ? cjose_header_get(h, "alg", &err) : NULL;
	const char *kid = h ? cjose_header_get(h, "kid", &err) : NULL;
	const struct oidc_key *k;

	if (header_alg(alg) == 0) {
		*rc = pst_fail(e, EINVAL, "the token is not signed with RS256 or ES256");
		return NULL;
	}
	/* jansson, not cjose_header_get: "crit" is an array, which that does not return. */
	if (json_object_get((json_t *)h, "crit") != NULL) {
		*rc = pst_fail(e, EINVAL, "the token has critical header extensions postern does "
			       "not know");
		return NULL;
	}
	k = kid ? oidc_jwks_find(keys, kid) : NULL;
	if (k == NULL) {
		*rc = pst_fail(e, ENOKEY, "the token's signing key is not among %s's keys (the "
			       "admin refreshes them: postern-ci --refresh-jwks)", issuer);
		return NULL;
	}
	if (k->alg != header_alg(alg)) {
		*rc = pst_fail(e, EINVAL, "the token's algorithm does not match its key");
		return NULL;
	}
	return k;
}

int oidc_token_verify(const char *token, size_t len, const struct oidc_issuer *is,
		      const struct oidc_jwks *keys, time_t now, struct oidc_claims *out,
		      struct pst_err *e)
{
	const struct oidc_key *k;
	cjose_jws_t *jws;
	cjose_err err;
	uint8_t *claims = NULL;
	size_t claims_len = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (len > OIDC_TOKEN_MAX || !compact_form(token, len))
		return pst_fail(e, EINVAL, "the bearer token is not a JWT (three base64url parts)");
	jws = cjose_jws_import(token, len, &err);
	if (jws == NULL)
		return pst_fail(e, EINVAL, "the bearer token cannot be read: %s", err.message);
	k = header_key(jws, keys, is->name, &rc, e);
	if (k != NULL && !cjose_jws_verify(jws, k->jwk, &err))
		rc = pst_fail(e, EINVAL, "the token's signature does not verify");
	if (k != NULL && rc == 0 && !cjose_jws_get_plaintext(jws, &claims, &claims_len, &err))
		rc = pst_fail(e, EINVAL, "the token has no claims");
	if (k != NULL && rc == 0)
		rc = oidc_claims_check((const char *)claims, claims_len, is, now, out, e);
	cjose_jws_release(jws);
	return rc;
}
