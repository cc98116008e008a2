/*
 * An issuer's JWKS on any bytes, and a token checked against it: no crash,
 * no leak; a refused JWKS has a message and no keys; a kept key has a kid
 * and one algorithm. The first line of the input, when it holds a JWKS,
 * may be followed by a token on the second, which must then be refused or
 * accepted without harm.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oidc_jwks.h"
#include "oidc_token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct oidc_issuer is = {
		"gitlab", "https://gitlab.example.org", "https://release.example.org", OIDC_GITLAB,
		60, 3600,
	};
	const uint8_t *nl = memchr(data, '\n', size);
	size_t jlen = nl ? (size_t)(nl - data) : size;
	struct oidc_jwks k;
	struct oidc_claims c;
	struct pst_err e = { "" };
	size_t i;

	if (oidc_jwks_parse((const char *)data, jlen, "fuzz.jwks", &k, &e) != 0) {
		if (e.msg[0] == '\0' || k.n != 0)
			abort();
		return 0;
	}
	for (i = 0; i < k.n; i++)
		if (k.v[i].kid[0] == '\0' || (k.v[i].alg != OIDC_RS256 && k.v[i].alg != OIDC_ES256))
			abort();
	if (nl != NULL &&
	    oidc_token_verify((const char *)nl + 1, size - jlen - 1, &is, &k, 1800000000, &c, &e) != 0 &&
	    e.msg[0] == '\0')
		abort();
	oidc_jwks_free(&k);
	return 0;
}
