/*
 * A CI token's claims (oidc_claims.h). The JSON is read once into facts;
 * then each row of the table below is one rule over those facts, in the
 * order a person would check them; the first that fails is the answer.
 *
 * MUST: refuse duplicate keys, non-string identities, control characters
 * and over-long texts; compare iss and aud byte for byte.
 * MUST NOT: accept a token without exp, iat or jti.
 */
#include "oidc_claims.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "text.h"

struct facts {
	json_t *root;
	const struct oidc_issuer *is;
	time_t now;
	struct oidc_claims *out;
};

/* One rule: NULL when it holds, else the sentence (in why, or a constant). */
typedef const char *rule_fn(const struct facts *f, char *why, size_t size);

static bool has_int(const struct facts *f, const char *key, int64_t *v)
{
	json_t *j = json_object_get(f->root, key);

	if (!json_is_integer(j))
		return false;
	*v = (int64_t)json_integer_value(j);
	return true;
}

static const char *rule_issuer(const struct facts *f, char *why, size_t size)
{
	const char *iss = json_string_value(json_object_get(f->root, "iss"));

	if (iss != NULL && strcmp(iss, f->is->issuer) == 0)
		return NULL;
	snprintf(why, size, "the token's issuer is not %s", f->is->issuer);
	return why;
}

/* "aud" is the audience itself, or an array holding only it (RFC 7519 4.1.3). */
static const char *rule_audience(const struct facts *f, char *why, size_t size)
{
	json_t *aud = json_object_get(f->root, "aud");

	if (json_is_array(aud) && json_array_size(aud) == 1)
		aud = json_array_get(aud, 0);
	if (json_is_string(aud) && strcmp(json_string_value(aud), f->is->audience) == 0)
		return NULL;
	snprintf(why, size, "the token's audience is not %s (set the job's id_tokens aud to it)",
		 f->is->audience);
	return why;
}

static const char *rule_times_present(const struct facts *f, char *why, size_t size)
{
	int64_t v;

	(void)why; (void)size;
	if (!has_int(f, "exp", &f->out->exp) || !has_int(f, "iat", &f->out->iat))
		return "the token has no exp or no iat";
	if (json_object_get(f->root, "nbf") != NULL && !has_int(f, "nbf", &v))
		return "the token's nbf is not a number";
	return NULL;
}

static const char *rule_not_expired(const struct facts *f, char *why, size_t size)
{
	if (f->out->exp + (int64_t)f->is->skew > (int64_t)f->now)
		return NULL;
	snprintf(why, size, "the token expired %lld seconds ago (run the job again)",
		 (long long)((int64_t)f->now - f->out->exp));
	return why;
}

static const char *rule_already_valid(const struct facts *f, char *why, size_t size)
{
	int64_t nbf = f->out->iat;

	(void)has_int(f, "nbf", &nbf);
	if (nbf < f->out->iat)
		nbf = f->out->iat;
	if (nbf <= (int64_t)f->now + (int64_t)f->is->skew)
		return NULL;
	snprintf(why, size, "the token is not valid for another %lld seconds (is the server's or "
		 "the issuer's clock wrong?)", (long long)(nbf - (int64_t)f->now));
	return why;
}

static const char *rule_lifetime(const struct facts *f, char *why, size_t size)
{
	if (f->out->exp > f->out->iat && f->out->exp - f->out->iat <= (int64_t)f->is->max_lifetime)
		return NULL;
	snprintf(why, size, "the token lives longer than %u seconds (exp - iat); ask for a "
		 "shorter-lived token", f->is->max_lifetime);
	return why;
}

/* A claim that must be a printable string of at most size - 1 bytes. */
static int take_text(const struct facts *f, const char *key, char *dst, size_t size,
		     bool required)
{
	json_t *j = json_object_get(f->root, key);
	const char *s = json_string_value(j);

	dst[0] = '\0';
	if (j == NULL && !required)
		return 0;
	if (s == NULL || s[0] == '\0' || strlen(s) >= size || !str_is_printable(s))
		return -1;
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static const char *rule_jti(const struct facts *f, char *why, size_t size)
{
	(void)why; (void)size;
	return take_text(f, "jti", f->out->jti, sizeof(f->out->jti), true) == 0 ? NULL
		: "the token has no usable jti (a printable string)";
}

/* Claims GitLab and GitHub name differently: { gitlab, github, field, size }. */
struct claim_map {
	const char *gitlab, *github;
	size_t offset, size;
	bool required;
};

#define FIELD(f) offsetof(struct oidc_claims, f), sizeof(((struct oidc_claims *)0)->f)
static const struct claim_map identity[] = {
	{ "project_path", "repository",   FIELD(project),     true },
	{ "ref",          "ref",          FIELD(ref),         true },
	{ "ref_type",     "ref_type",     FIELD(ref_type),    true },
	{ "pipeline_id",  "run_id",       FIELD(pipeline),    true },
	{ "job_id",       "run_attempt",  FIELD(job),         true },
	{ "sha",          "sha",          FIELD(sha),         true },
	{ "user_login",   "actor",        FIELD(user),        true },
	{ NULL,           "workflow_ref", FIELD(workflow),    true },
	{ NULL,           "environment",  FIELD(environment), false },
};

static const char *rule_identity(const struct facts *f, char *why, size_t size)
{
	bool github = f->is->forge == OIDC_GITHUB;
	size_t i;

	for (i = 0; i < sizeof(identity) / sizeof(identity[0]); i++) {
		const char *key = github ? identity[i].github : identity[i].gitlab;
		char *dst = (char *)f->out + identity[i].offset;
		if (key != NULL && take_text(f, key, dst, identity[i].size, identity[i].required) < 0) {
			snprintf(why, size, "the token's %s claim is missing or not a short printable "
				 "string", key);
			return why;
		}
	}
	return NULL;
}

/* GitLab and GitHub both say "true" or "false", as a string. */
static const char *rule_ref(const struct facts *f, char *why, size_t size)
{
	const char *prot = json_string_value(json_object_get(f->root, "ref_protected"));
	static const char tags[] = "refs/tags/";
	char *ref = f->out->ref;

	(void)why; (void)size;
	if (prot == NULL || (strcmp(prot, "true") != 0 && strcmp(prot, "false") != 0))
		return "the token's ref_protected claim is not \"true\" or \"false\"";
	f->out->ref_protected = strcmp(prot, "true") == 0;
	if (f->is->forge == OIDC_GITHUB && strncmp(ref, tags, sizeof(tags) - 1) == 0)
		memmove(ref, ref + sizeof(tags) - 1, strlen(ref + sizeof(tags) - 1) + 1);
	return NULL;
}

/* The rules, in order; errno: EACCES for a token that is fine but not now. */
static const struct { const char *name; rule_fn *fn; int err; } rules[] = {
	{ "issuer",        rule_issuer,        EINVAL },
	{ "audience",      rule_audience,      EINVAL },
	{ "times present", rule_times_present, EINVAL },
	{ "not expired",   rule_not_expired,   EACCES },
	{ "already valid", rule_already_valid, EACCES },
	{ "lifetime",      rule_lifetime,      EINVAL },
	{ "jti",           rule_jti,           EINVAL },
	{ "identity",      rule_identity,      EINVAL },
	{ "ref",           rule_ref,           EINVAL },
};

int oidc_claims_check(const char *json, size_t len, const struct oidc_issuer *is, time_t now,
		      struct oidc_claims *out, struct pst_err *e)
{
	struct facts f = { NULL, is, now, out };
	char why[PST_ERR_MAX - 32];
	json_error_t jerr;
	const char *bad = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (len > OIDC_CLAIMS_MAX)
		return pst_fail(e, EINVAL, "the token's claims are larger than %d bytes",
				OIDC_CLAIMS_MAX);
	f.root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(f.root)) {
		json_decref(f.root);
		return pst_fail(e, EINVAL, "the token's claims are not a JSON object");
	}
	for (i = 0; bad == NULL && i < sizeof(rules) / sizeof(rules[0]); i++)
		bad = rules[i].fn(&f, why, sizeof(why));
	json_decref(f.root);
	if (bad == NULL)
		return 0;
	i--;
	memset(out, 0, sizeof(*out));
	return pst_fail(e, rules[i].err, "%s", bad);
}
