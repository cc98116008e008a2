/* An issuer's JWKS (oidc_jwks.h): jansson for the JSON, cjose for each key. */
#include "oidc_jwks.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "text.h"

/* The algorithm a key of this kty/crv/alg may verify; 0: not one postern uses. */
static enum oidc_alg key_alg(json_t *key)
{
	const char *kty = json_string_value(json_object_get(key, "kty"));
	const char *crv = json_string_value(json_object_get(key, "crv"));

	if (kty != NULL && strcmp(kty, "RSA") == 0)
		return OIDC_RS256;
	if (kty != NULL && strcmp(kty, "EC") == 0 && crv != NULL && strcmp(crv, "P-256") == 0)
		return OIDC_ES256;
	return 0;
}

/* A key's own "use" and "alg", when present, must agree with what it is used for. */
static const char *key_mismatch(json_t *key, enum oidc_alg alg)
{
	json_t *use = json_object_get(key, "use"), *a = json_object_get(key, "alg");
	const char *want = alg == OIDC_RS256 ? "RS256" : "ES256";

	if (use != NULL && (!json_is_string(use) || strcmp(json_string_value(use), "sig") != 0))
		return "its \"use\" is not \"sig\"";
	if (a != NULL && (!json_is_string(a) || strcmp(json_string_value(a), want) != 0))
		return alg == OIDC_RS256 ? "an RSA key whose \"alg\" is not RS256"
					 : "a P-256 key whose \"alg\" is not ES256";
	return NULL;
}

/* Strict base64url (RFC 7515 2: no padding), and never a length cjose's
 * decoder would assert on (one character past a multiple of four aborts
 * libcjose 0.6 instead of failing). */
bool oidc_base64url_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len % 4 == 1)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_'))
			return false;
	return true;
}

/* The members cjose decodes: present and strict base64url; no private part. */
static const char *key_material_bad(json_t *key, enum oidc_alg alg)
{
	static const char *const rsa[] = { "n", "e", NULL }, *const ec[] = { "x", "y", NULL };
	static const char *const private_parts[] = { "d", "p", "q", "dp", "dq", "qi", "oth", NULL };
	const char *const *m;

	for (m = private_parts; *m != NULL; m++)
		if (json_object_get(key, *m) != NULL)
			return "it holds a private key part: publish only the public key";
	for (m = alg == OIDC_RS256 ? rsa : ec; *m != NULL; m++) {
		json_t *v = json_object_get(key, *m);
		if (!json_is_string(v) || !oidc_base64url_ok(json_string_value(v), json_string_length(v)))
			return alg == OIDC_RS256 ? "its \"n\" or \"e\" is not base64url"
						 : "its \"x\" or \"y\" is not base64url";
	}
	return NULL;
}

static int add_key(struct oidc_jwks *out, json_t *key, size_t i, const char *name,
		   struct pst_err *e)
{
	const char *kid = json_string_value(json_object_get(key, "kid"));
	enum oidc_alg alg = key_alg(key);
	const char *why;
	struct oidc_key *k;
	cjose_err err;

	if (alg == 0)
		return 0;
	if (kid == NULL || kid[0] == '\0' || strlen(kid) > OIDC_KID_MAX || !str_is_printable(kid))
		return pst_fail(e, EINVAL, "%s: key %zu has no usable \"kid\" (a printable string "
				"of at most %d bytes)", name, i, OIDC_KID_MAX);
	if (oidc_jwks_find(out, kid) != NULL)
		return pst_fail(e, EINVAL, "%s: two keys have the kid %s", name, kid);
	if ((why = key_mismatch(key, alg)) != NULL || (why = key_material_bad(key, alg)) != NULL)
		return pst_fail(e, EINVAL, "%s: key %s: %s", name, kid, why);
	if (out->n == OIDC_JWKS_KEYS_MAX)
		return pst_fail(e, EINVAL, "%s: more than %d signing keys", name, OIDC_JWKS_KEYS_MAX);
	k = &out->v[out->n];
	k->jwk = cjose_jwk_import_json((cjose_header_t *)key, &err);
	if (k->jwk == NULL)
		return pst_fail(e, EINVAL, "%s: key %s cannot be imported: %s", name, kid, err.message);
	out->n++;
	if (alg == OIDC_RS256 && cjose_jwk_get_keysize(k->jwk, &err) < OIDC_RSA_BITS_MIN)
		return pst_fail(e, EINVAL, "%s: key %s: an RSA key of fewer than %d bits", name, kid,
				OIDC_RSA_BITS_MIN);
	memcpy(k->kid, kid, strlen(kid) + 1);
	k->alg = alg;
	return 0;
}

int oidc_jwks_parse(const char *text, size_t len, const char *name, struct oidc_jwks *out,
		    struct pst_err *e)
{
	json_error_t jerr;
	json_t *root, *keys;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (len > OIDC_JWKS_FILE_MAX)
		return pst_fail(e, EINVAL, "%s: larger than %d bytes", name, OIDC_JWKS_FILE_MAX);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return pst_fail(e, EINVAL, "%s:%d:%d: not JSON: %s", name, jerr.line, jerr.column,
				jerr.text);
	keys = json_object_get(root, "keys");
	if (!json_is_object(root) || !json_is_array(keys))
		rc = pst_fail(e, EINVAL, "%s: not a JWKS (an object with a \"keys\" array)", name);
	for (i = 0; rc == 0 && i < json_array_size(keys); i++) {
		json_t *key = json_array_get(keys, i);
		rc = json_is_object(key) ? add_key(out, key, i, name, e)
			: pst_fail(e, EINVAL, "%s: key %zu is not an object", name, i);
	}
	if (rc == 0 && out->n == 0)
		rc = pst_fail(e, EINVAL, "%s: no RS256 or ES256 signing key in it", name);
	json_decref(root);
	if (rc < 0)
		oidc_jwks_free(out);
	return rc;
}

const struct oidc_key *oidc_jwks_find(const struct oidc_jwks *k, const char *kid)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (strcmp(k->v[i].kid, kid) == 0)
			return &k->v[i];
	return NULL;
}

void oidc_jwks_free(struct oidc_jwks *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		cjose_jwk_release(k->v[i].jwk);
	memset(k, 0, sizeof(*k));
}
