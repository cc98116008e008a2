/*
 * libpostern-sk-test.so: a FIDO security key in software, for tests only.
 *
 * TEST ONLY: NEVER INSTALL IT, NEVER USE IT OUTSIDE THE TEST SUITE. Its key
 * handle carries the private key in the clear (OpenSSH keeps the handle in
 * the private key file), so a "security key" made with it is a software
 * key that claims to be hardware, and it reports whatever flags it is told
 * to (user present, user verified) without anyone touching anything. meson
 * builds it as a module that is never installed; no package may ship it.
 *
 * What it is for: tests of sshd (and later pam_postern) with
 * sk-ssh-ed25519@openssh.com and sk-ecdsa-sha2-nistp256@openssh.com keys on
 * machines without hardware. It implements OpenSSH's security-key
 * middleware API (sk_middleware_api.h) with libcrypto, and its signatures
 * are real FIDO/U2F-style ones, so what checks them is OpenSSH's own code:
 *
 *   blob = SHA256(application) || flags || counter (uint32, big endian)
 *          || SHA256(message)                  69 bytes; no extensions
 *   Ed25519:     PureEdDSA over the blob itself; sig_r = the 64 bytes.
 *   ECDSA P-256: ECDSA with SHA-256 over the blob, i.e. over SHA256(blob);
 *                sig_r, sig_s = r and s, unsigned big endian.
 *
 * That is the blob PROTOCOL.u2f ("SSH U2F signatures") describes and that
 * OpenSSH's ssh-ed25519-sk.c / ssh-ecdsa-sk.c rebuild to verify (9.2 and
 * 10.x alike); tests/sk/test-sk-provider.sh has ssh-keygen -Y verify
 * accept it and refuse it over a tampered message, and sshd accept it.
 *
 * Behaviour comes from the environment, read at every call (OpenSSH runs
 * the library in ssh-sk-helper, which inherits the caller's environment):
 *   POSTERN_SK_TEST_FLAGS        the flags byte of every signature, 0..255
 *                                in C syntax; default 0x05 (user present |
 *                                user verified); 0x01: touched, no PIN/UV;
 *                                0x00: not even touched.
 *   POSTERN_SK_TEST_COUNTER      a fixed signature counter (to show a
 *                                counter going backwards); wins over:
 *   POSTERN_SK_TEST_COUNTER_FILE a file holding the counter in decimal
 *                                (missing or empty: 0); each signature uses
 *                                the next value and writes it back
 *                                atomically, under a lock on FILE.lock.
 *                                Without either the counter is always 1.
 *   POSTERN_SK_TEST_DEBUG        set: why a call failed, on stderr.
 * A malformed value fails the call (SK_ERR_GENERAL); it never falls back to
 * a default, so a typo cannot turn a refusal test into a pass.
 *
 * Left out, on purpose: resident keys (enrolment with the resident flag is
 * SK_ERR_UNSUPPORTED; sk_load_resident_keys finds none); attestation (the
 * enrolment response has no signature, certificate or authenticator data);
 * PINs (any PIN is accepted and ignored) and the flags OpenSSH requests
 * when signing (the reported flags are the environment's: deciding what
 * they mean is sshd's job, which the tests are about). Like a real key's
 * credential, a key handle works only for the application it was made for;
 * unlike one, it carries no MAC (a corrupted private key in it signs, but
 * nothing verifies the result).
 *
 * MUST: write nothing on stdout (in ssh-sk-helper that is OpenSSH's
 * protocol channel); fail with the API's codes, never abort; hand back only
 * malloc()ed memory (OpenSSH free()s it), free everything else, and wipe
 * private-key bytes before freeing them.
 */
#include "sk_middleware_api.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "sk_test_settings.h"

#define SHA256_LEN 32
#define SIGNED_BLOB_LEN (SHA256_LEN + 1 + 4 + SHA256_LEN)
#define ED25519_PUBLIC_LEN 32
/* 0x04 || X || Y: OpenSSH reads only the uncompressed form. */
#define P256_PUBLIC_LEN 65

/* Key handle: magic, alg, SHA256(application), the DER private key. */
static const uint8_t handle_magic[4] = {'P', 'S', 'K', '1'};
#define HANDLE_ALG_AT sizeof(handle_magic)
#define HANDLE_APP_AT (HANDLE_ALG_AT + 1)
#define HANDLE_KEY_AT (HANDLE_APP_AT + SHA256_LEN)
/* Far above a DER Ed25519 or P-256 key: a longer handle is not one of ours. */
#define HANDLE_MAX_LEN 1024

/* --- requests --------------------------------------------------------------------- */

static bool alg_supported(uint32_t alg)
{
	if (alg != SK_ALG_ED25519 && alg != SK_ALG_ECDSA_P256) {
		SK_DEBUG("algorithm %" PRIu32 " is not supported", alg);
		return false;
	}
	return true;
}

/* PROTOCOL.u2f: an unknown option may be ignored unless it is required.
 * "device" and "user" are known; one fake device without resident keys
 * needs neither. */
static bool options_supported(struct sk_option **options)
{
	size_t i;

	for (i = 0; options != NULL && options[i] != NULL; i++) {
		const char *name = options[i]->name;

		if (name == NULL) {
			SK_DEBUG("an option without a name");
			return false;
		}
		if (options[i]->required && strcmp(name, "device") != 0 && strcmp(name, "user") != 0) {
			SK_DEBUG("required option \"%s\" is not supported", name);
			return false;
		}
	}
	return true;
}

/* --- keys and key handles ------------------------------------------------------------ */

static int sha256(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	return EVP_Digest(data, len, out, NULL, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

static EVP_PKEY *key_generate(uint32_t alg)
{
	if (alg == SK_ALG_ED25519)
		return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static bool key_is_alg(EVP_PKEY *key, uint32_t alg)
{
	char curve[32];
	size_t len;

	if (alg == SK_ALG_ED25519)
		return EVP_PKEY_is_a(key, "ED25519");
	return EVP_PKEY_is_a(key, "EC") &&
	       EVP_PKEY_get_group_name(key, curve, sizeof(curve), &len) == 1 &&
	       strcmp(curve, "prime256v1") == 0;
}

static void buffer_free(uint8_t *buf, size_t len)
{
	if (buf == NULL)
		return;
	OPENSSL_cleanse(buf, len);
	free(buf);
}

/* The public key as OpenSSH takes it: Ed25519's 32 bytes, or P-256's
 * uncompressed point. */
static int public_key_export(uint32_t alg, EVP_PKEY *key, uint8_t **out, size_t *out_len)
{
	size_t want = alg == SK_ALG_ED25519 ? ED25519_PUBLIC_LEN : P256_PUBLIC_LEN;
	size_t len = 0;
	uint8_t *buf = malloc(want);

	if (buf == NULL)
		return -1;
	if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, buf, want,
					    &len) != 1 ||
	    len != want || (alg == SK_ALG_ECDSA_P256 && buf[0] != 0x04)) {
		SK_DEBUG("cannot export the public key");
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

static int key_handle_make(uint32_t alg, const char *application, EVP_PKEY *key, uint8_t **out,
			   size_t *out_len)
{
	int der_len = i2d_PrivateKey(key, NULL);
	uint8_t *handle, *p;
	size_t len;

	if (der_len <= 0 || (size_t)der_len > HANDLE_MAX_LEN - HANDLE_KEY_AT)
		return -1;
	len = HANDLE_KEY_AT + (size_t)der_len;
	if ((handle = malloc(len)) == NULL)
		return -1;
	memcpy(handle, handle_magic, sizeof(handle_magic));
	handle[HANDLE_ALG_AT] = (uint8_t)alg;
	p = handle + HANDLE_KEY_AT;
	if (sha256(application, strlen(application), handle + HANDLE_APP_AT) != 0 ||
	    i2d_PrivateKey(key, &p) != der_len) {
		buffer_free(handle, len);
		return -1;
	}
	*out = handle;
	*out_len = len;
	return 0;
}

static bool key_handle_is_for(const uint8_t *handle, size_t len, uint32_t alg, const char *application)
{
	uint8_t app_hash[SHA256_LEN];

	if (handle == NULL || len <= HANDLE_KEY_AT || len > HANDLE_MAX_LEN ||
	    memcmp(handle, handle_magic, sizeof(handle_magic)) != 0) {
		SK_DEBUG("not a key handle of this library");
		return false;
	}
	if (handle[HANDLE_ALG_AT] != alg) {
		SK_DEBUG("the key handle is for another algorithm");
		return false;
	}
	if (sha256(application, strlen(application), app_hash) != 0 ||
	    CRYPTO_memcmp(app_hash, handle + HANDLE_APP_AT, SHA256_LEN) != 0) {
		SK_DEBUG("the key handle belongs to another application");
		return false;
	}
	return true;
}

static EVP_PKEY *key_handle_open(const uint8_t *handle, size_t len, uint32_t alg, const char *application)
{
	const unsigned char *der = handle + HANDLE_KEY_AT;
	EVP_PKEY *key;

	if (!key_handle_is_for(handle, len, alg, application))
		return NULL;
	key = d2i_AutoPrivateKey(NULL, &der, (long)(len - HANDLE_KEY_AT));
	if (key == NULL || der != handle + len || !key_is_alg(key, alg)) {
		SK_DEBUG("the key handle holds no usable key");
		EVP_PKEY_free(key);
		return NULL;
	}
	return key;
}

/* --- signatures ----------------------------------------------------------------------- */

static int signed_blob(const char *application, uint8_t flags, uint32_t counter, const uint8_t *message,
		       size_t message_len, uint8_t blob[SIGNED_BLOB_LEN])
{
	uint8_t *at = blob + SHA256_LEN;

	if (sha256(application, strlen(application), blob) != 0)
		return -1;
	*at++ = flags;
	*at++ = (uint8_t)(counter >> 24);
	*at++ = (uint8_t)(counter >> 16);
	*at++ = (uint8_t)(counter >> 8);
	*at++ = (uint8_t)counter;
	return sha256(message, message_len, at);
}

/* md NULL: Ed25519, which hashes inside the algorithm; else ECDSA over md. */
static int digest_sign(EVP_PKEY *key, const EVP_MD *md, const uint8_t *blob, size_t blob_len,
		       uint8_t **sig, size_t *sig_len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int rc = -1;

	*sig = NULL;
	if (ctx != NULL && EVP_DigestSignInit(ctx, NULL, md, NULL, key) == 1 &&
	    EVP_DigestSign(ctx, NULL, sig_len, blob, blob_len) == 1 && (*sig = malloc(*sig_len)) != NULL &&
	    EVP_DigestSign(ctx, *sig, sig_len, blob, blob_len) == 1)
		rc = 0;
	if (rc != 0) {
		free(*sig);
		*sig = NULL;
	}
	EVP_MD_CTX_free(ctx);
	return rc;
}

static int bignum_export(const BIGNUM *n, uint8_t **out, size_t *out_len)
{
	int len = BN_num_bytes(n);

	if (len <= 0 || (*out = malloc((size_t)len)) == NULL)
		return -1;
	*out_len = (size_t)BN_bn2bin(n, *out);
	return 0;
}

/* libcrypto gives ECDSA signatures in DER; OpenSSH wants r and s apart. */
static int ecdsa_split(const uint8_t *der, size_t der_len, struct sk_sign_response *resp)
{
	const unsigned char *p = der;
	ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	const BIGNUM *r, *s;
	int rc = -1;

	if (sig == NULL)
		return -1;
	ECDSA_SIG_get0(sig, &r, &s);
	if (bignum_export(r, &resp->sig_r, &resp->sig_r_len) == 0 &&
	    bignum_export(s, &resp->sig_s, &resp->sig_s_len) == 0)
		rc = 0;
	ECDSA_SIG_free(sig);
	return rc;
}

static int blob_sign(uint32_t alg, EVP_PKEY *key, const uint8_t *blob, struct sk_sign_response *resp)
{
	uint8_t *sig;
	size_t sig_len;
	int rc;

	if (alg == SK_ALG_ED25519)
		return digest_sign(key, NULL, blob, SIGNED_BLOB_LEN, &resp->sig_r, &resp->sig_r_len);
	if (digest_sign(key, EVP_sha256(), blob, SIGNED_BLOB_LEN, &sig, &sig_len) != 0)
		return -1;
	rc = ecdsa_split(sig, sig_len, resp);
	free(sig);
	return rc;
}

/* --- the API ------------------------------------------------------------------------- */

static void enroll_response_free(struct sk_enroll_response *resp)
{
	if (resp == NULL)
		return;
	buffer_free(resp->public_key, resp->public_key_len);
	buffer_free(resp->key_handle, resp->key_handle_len);
	free(resp);
}

static void sign_response_free(struct sk_sign_response *resp)
{
	if (resp == NULL)
		return;
	buffer_free(resp->sig_r, resp->sig_r_len);
	buffer_free(resp->sig_s, resp->sig_s_len);
	free(resp);
}

uint32_t sk_api_version(void)
{
	return SK_API_VERSION_MAJOR;
}

/* The challenge would only be signed into an attestation, and there is
 * none; the PIN is not checked (see the head comment). */
int sk_enroll(uint32_t alg, const uint8_t *challenge, size_t challenge_len, const char *application,
	      uint8_t flags, const char *pin, struct sk_option **options,
	      struct sk_enroll_response **enroll_response)
{
	struct sk_enroll_response *resp = NULL;
	EVP_PKEY *key = NULL;
	int rc = SK_ERR_GENERAL;

	(void)challenge;
	(void)challenge_len;
	(void)pin;
	if (enroll_response == NULL || application == NULL)
		return SK_ERR_GENERAL;
	*enroll_response = NULL;
	if (!alg_supported(alg) || !options_supported(options))
		return SK_ERR_UNSUPPORTED;
	if (flags & SK_FLAG_RESIDENT_KEY) {
		SK_DEBUG("resident keys are not supported");
		return SK_ERR_UNSUPPORTED;
	}
	if ((resp = calloc(1, sizeof(*resp))) == NULL || (key = key_generate(alg)) == NULL ||
	    public_key_export(alg, key, &resp->public_key, &resp->public_key_len) != 0 ||
	    key_handle_make(alg, application, key, &resp->key_handle, &resp->key_handle_len) != 0) {
		SK_DEBUG("cannot make a key");
		goto out;
	}
	/* What OpenSSH records in the key file and asks for at each signature. */
	resp->flags = flags & (SK_FLAG_USER_PRESENCE | SK_FLAG_USER_VERIFICATION);
	*enroll_response = resp;
	resp = NULL;
	rc = 0;
out:
	EVP_PKEY_free(key);
	enroll_response_free(resp);
	return rc;
}

/* The requested flags and the PIN are ignored: the flags reported are the
 * environment's (see the head comment). */
int sk_sign(uint32_t alg, const uint8_t *data, size_t data_len, const char *application,
	    const uint8_t *key_handle, size_t key_handle_len, uint8_t flags, const char *pin,
	    struct sk_option **options, struct sk_sign_response **sign_response)
{
	struct sk_sign_response *resp = NULL;
	uint8_t blob[SIGNED_BLOB_LEN];
	EVP_PKEY *key = NULL;
	int rc = SK_ERR_GENERAL;

	(void)flags;
	(void)pin;
	if (sign_response == NULL || application == NULL || (data == NULL && data_len != 0))
		return SK_ERR_GENERAL;
	*sign_response = NULL;
	if (!alg_supported(alg) || !options_supported(options))
		return SK_ERR_UNSUPPORTED;
	/* As a real key does when it holds no such credential. */
	if ((key = key_handle_open(key_handle, key_handle_len, alg, application)) == NULL)
		return SK_ERR_DEVICE_NOT_FOUND;
	/* Flags before the counter: a bad setting must not use up a value. */
	if ((resp = calloc(1, sizeof(*resp))) == NULL || sk_settings_flags(&resp->flags) != 0 ||
	    sk_settings_counter(&resp->counter) != 0 ||
	    signed_blob(application, resp->flags, resp->counter, data, data_len, blob) != 0 ||
	    blob_sign(alg, key, blob, resp) != 0) {
		SK_DEBUG("cannot sign");
		goto out;
	}
	*sign_response = resp;
	resp = NULL;
	rc = 0;
out:
	EVP_PKEY_free(key);
	sign_response_free(resp);
	return rc;
}

int sk_load_resident_keys(const char *pin, struct sk_option **options, struct sk_resident_key ***rks,
			  size_t *nrks)
{
	(void)pin;
	if (rks == NULL || nrks == NULL)
		return SK_ERR_GENERAL;
	*rks = NULL;
	*nrks = 0;
	if (!options_supported(options))
		return SK_ERR_UNSUPPORTED;
	return 0;
}
