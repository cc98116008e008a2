/*
 * Refreshing an issuer's JWKS file (postern-ci --refresh-jwks, from a
 * timer; never while answering a request): the issuer's OpenID discovery
 * document, <issuer>/.well-known/openid-configuration, names its jwks_uri;
 * both come over https only (libcurl, certificates checked, no redirects,
 * time and size capped). The discovery document must name exactly the
 * configured issuer (OpenID Connect Discovery 1.0, 4.3), and the JWKS must
 * pass oidc_jwks_parse before it replaces the file, atomically; a failure
 * of any step leaves the old file in place.
 */
#ifndef POSTERN_CI_JWKS_REFRESH_H
#define POSTERN_CI_JWKS_REFRESH_H

#include <stdbool.h>

#include "errmsg.h"
#include "policy.h"

struct jwks_fetch {
	const char *cacert;     /* a CA bundle for a forge with its own CA, or NULL: the system's */
	long timeout;           /* seconds for each transfer */
};

/*
 * Fetch, check and install is's JWKS. 0 with *changed telling whether the
 * file was rewritten (and *nkeys how many signing keys it holds), or -errno
 * with e saying which step failed.
 */
int jwks_refresh(const struct policy_ci_issuer *is, const struct jwks_fetch *f, bool *changed,
		 size_t *nkeys, struct pst_err *e);

#endif
