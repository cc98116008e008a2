/*
 * The ABI between OpenSSH and a FIDO security-key middleware, as
 * OpenSSH's PROTOCOL.u2f ("SSH U2F/FIDO middleware API") and its sk-api.h
 * define it: our own declarations of it, for postern_sk_test.c only.
 *
 * OpenSSH dlopen()s the library named by SecurityKeyProvider (ssh,
 * ssh-add), SSH_SK_PROVIDER or `ssh-keygen -w`, inside ssh-sk-helper, and
 * refuses it unless sk_api_version() has exactly the major half it was
 * built with. Major 0x000a is that of OpenSSH 9.1 up to 10.x (the latest
 * checked), so of Debian 12 (9.2p1) and Debian 13 (10.0p1); the ABI has not
 * changed in between. Since major 5 (OpenSSH 8.3) sk_sign() is given the
 * message itself, and the middleware hashes it. Every number and struct
 * layout here must stay bit for bit what OpenSSH expects: they are not
 * ours to choose.
 *
 * Memory: whatever a call hands back (responses, their buffers, the
 * resident-key array) OpenSSH releases with free(), so it must come from
 * malloc()/calloc().
 */
#ifndef POSTERN_SK_MIDDLEWARE_API_H
#define POSTERN_SK_MIDDLEWARE_API_H

#include <stddef.h>
#include <stdint.h>

#define SK_API_VERSION_MAJOR 0x000a0000u

/* Request flags (sk_enroll, sk_sign) and, with the same bits, the
 * authenticator's flags byte in a signature. */
#define SK_FLAG_USER_PRESENCE 0x01u
#define SK_FLAG_USER_VERIFICATION 0x04u
#define SK_FLAG_FORCE_OPERATION 0x10u
#define SK_FLAG_RESIDENT_KEY 0x20u

/* The `alg` argument. */
#define SK_ALG_ECDSA_P256 0x00u
#define SK_ALG_ED25519 0x01u

/* What the calls return: 0 is success. */
#define SK_ERR_GENERAL (-1)
#define SK_ERR_UNSUPPORTED (-2)
#define SK_ERR_PIN_REQUIRED (-3)
#define SK_ERR_DEVICE_NOT_FOUND (-4)
#define SK_ERR_CREDENTIAL_EXISTS (-5)

struct sk_enroll_response {
	uint8_t flags;
	uint8_t *public_key;
	size_t public_key_len;
	uint8_t *key_handle;
	size_t key_handle_len;
	uint8_t *signature;
	size_t signature_len;
	uint8_t *attestation_cert;
	size_t attestation_cert_len;
	uint8_t *authdata;
	size_t authdata_len;
};

struct sk_sign_response {
	uint8_t flags;
	uint32_t counter;
	uint8_t *sig_r;
	size_t sig_r_len;
	uint8_t *sig_s;
	size_t sig_s_len;
};

struct sk_resident_key {
	uint32_t alg;
	size_t slot;
	char *application;
	struct sk_enroll_response key;
	uint8_t flags;
	uint8_t *user_id;
	size_t user_id_len;
};

/* A NULL-terminated array of these comes with each call. */
struct sk_option {
	char *name;
	char *value;
	uint8_t required;
};

uint32_t sk_api_version(void);

int sk_enroll(uint32_t alg, const uint8_t *challenge, size_t challenge_len,
	      const char *application, uint8_t flags, const char *pin,
	      struct sk_option **options, struct sk_enroll_response **enroll_response);

int sk_sign(uint32_t alg, const uint8_t *data, size_t data_len, const char *application,
	    const uint8_t *key_handle, size_t key_handle_len, uint8_t flags, const char *pin,
	    struct sk_option **options, struct sk_sign_response **sign_response);

int sk_load_resident_keys(const char *pin, struct sk_option **options,
			  struct sk_resident_key ***rks, size_t *nrks);

#endif
