/*
 * A CI token's claims on any bytes, for a GitLab and a GitHub issuer: no
 * crash, no leak; a refusal has a message and leaves no identity behind;
 * an accepted token has every identity text printable and within its size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oidc_claims.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, const struct oidc_issuer *is)
{
	struct oidc_claims c;
	struct pst_err e = { "" };

	if (oidc_claims_check((const char *)data, size, is, 1800000000, &c, &e) != 0) {
		if (e.msg[0] == '\0' || c.project[0] != '\0' || c.jti[0] != '\0')
			abort();
		return;
	}
	if (!str_is_printable(c.project) || !str_is_printable(c.ref) || !str_is_printable(c.user) ||
	    c.project[0] == '\0' || c.jti[0] == '\0' || c.exp <= c.iat)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct oidc_issuer gitlab = {
		"gitlab", "https://gitlab.example.org", "https://release.example.org", OIDC_GITLAB,
		60, 3600,
	};
	static const struct oidc_issuer github = {
		"github", "https://token.actions.githubusercontent.com", "https://release.example.org",
		OIDC_GITHUB, 60, 3600,
	};

	check(data, size, &gitlab);
	check(data, size, &github);
	return 0;
}
