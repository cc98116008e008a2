/*
 * The claims of a CI job's OIDC ID token (the JWS payload, JSON), checked
 * against the issuer postern.yaml names, one rule per row of a table
 * (oidc_claims.c): issuer and audience exact, the token's times within a
 * small skew of now and its lifetime capped, a jti present, and the job's
 * identity in the claims its forge uses (GitLab's id_tokens, or GitHub
 * Actions'), read into one shape.
 */
#ifndef POSTERN_CI_OIDC_CLAIMS_H
#define POSTERN_CI_OIDC_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "errmsg.h"

#define OIDC_CLAIMS_MAX (16 * 1024)
#define OIDC_TEXT_MAX 255

enum oidc_forge {
	OIDC_GITLAB = 1,
	OIDC_GITHUB,
};

struct oidc_issuer {
	const char *name;          /* ci.issuers.NAME */
	const char *issuer;        /* "iss", exactly */
	const char *audience;      /* "aud", exactly */
	enum oidc_forge forge;
	unsigned skew;             /* seconds of clock difference allowed */
	unsigned max_lifetime;     /* exp - iat at most this */
};

/* The job, whichever forge: texts are printable, at most OIDC_TEXT_MAX bytes. */
struct oidc_claims {
	char jti[OIDC_TEXT_MAX + 1];
	char project[OIDC_TEXT_MAX + 1];     /* GitLab project_path, GitHub repository */
	char ref[OIDC_TEXT_MAX + 1];         /* the tag or branch name, without refs/tags/ */
	char ref_type[16];                   /* "tag", "branch" */
	bool ref_protected;
	char pipeline[32];                   /* GitLab pipeline_id, GitHub run_id */
	char job[32];                        /* GitLab job_id, GitHub run_attempt */
	char sha[65];
	char user[OIDC_TEXT_MAX + 1];        /* GitLab user_login, GitHub actor */
	char workflow[OIDC_TEXT_MAX + 1];    /* GitHub workflow_ref ("" on GitLab) */
	char environment[OIDC_TEXT_MAX + 1]; /* GitHub environment, "" when none */
	int64_t exp, iat;
};

/*
 * Check len bytes of JSON claims from issuer is at time now. 0 with out
 * filled, or -EINVAL (-EACCES for a token that is well formed but not
 * acceptable now: expired, not yet valid) with e saying which claim.
 */
int oidc_claims_check(const char *json, size_t len, const struct oidc_issuer *is, time_t now,
		      struct oidc_claims *out, struct pst_err *e);

#endif
