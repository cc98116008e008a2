/*
 * May this CI job release this file? The rule table of a CI release, over
 * plain facts (a verified token's claims, the issuer's name, the release's
 * module and version, the policy), no I/O, so that every rule is tested
 * without a server. Each row, in order:
 *
 *   rule            holds when                               else  HTTP
 *   project         modules.M.ci lists issuer and project    refused 403
 *   tag             ref_type is "tag"                        refused 403
 *   protected       ref_protected is true                    refused 403
 *   version         the tag is the version, or "v" + it      refused 403
 *
 * The human rules (maintainer, release team, open) do not apply to a CI
 * identity: it may release only what the policy binds it to.
 */
#ifndef POSTERN_CI_RULES_H
#define POSTERN_CI_RULES_H

#include <stddef.h>

#include "oidc_claims.h"
#include "policy.h"

#define CI_UPLOADER_MAX (8 + 64 + OIDC_TEXT_MAX)

struct ci_release {
	const char *issuer;            /* ci.issuers name the token was checked against */
	const struct oidc_claims *job; /* the verified claims */
	const char *module, *version;  /* of the release (release_name_parse) */
};

struct ci_verdict {
	bool allowed;
	int http_status;          /* 200 or the refusal's */
	const char *rule;         /* the rule that refused, or NULL */
	char why[1536];           /* the sentence for the job's log and the audit record */
};

void ci_release_decide(const struct policy *p, const struct ci_release *r, struct ci_verdict *v);

/* "ci:<issuer>/<project>", the uploader the ledger, log and audit record. */
void ci_uploader_name(const struct ci_release *r, char *out, size_t size);

#endif
