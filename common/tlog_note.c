/*
 * Signed notes and checkpoints (tlog_note.h). Parsers are strict: a value
 * is accepted only in the one spelling we would write, so two different
 * texts never verify as the same note.
 */
#include "tlog_note.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"

#define ALG_ED25519 0x01
#define SIG_LEN 64
#define SIG_PREFIX "\xe2\x80\x94 "     /* U+2014 EM DASH, then a space */
#define SKEY_PREFIX "PRIVATE+KEY+"

bool tlog_name_ok(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > TLOG_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._-/:", c) != NULL) || c == '\0')
			return false;
	}
	return true;
}

static void key_id(const char *name, const unsigned char pub[32], unsigned char id[4])
{
	unsigned char md[EVP_MAX_MD_SIZE], alg = ALG_ED25519;
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	memset(id, 0, 4);
	if (ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
	    EVP_DigestUpdate(ctx, name, strlen(name)) == 1 &&
	    EVP_DigestUpdate(ctx, "\n", 1) == 1 && EVP_DigestUpdate(ctx, &alg, 1) == 1 &&
	    EVP_DigestUpdate(ctx, pub, 32) == 1 && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 &&
	    mdlen == 32)
		memcpy(id, md, 4);
	EVP_MD_CTX_free(ctx);
}

static int public_from_seed(const unsigned char seed[32], unsigned char pub[32], struct pst_err *e)
{
	EVP_PKEY *pk = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	size_t len = 32;
	int ok = pk != NULL && EVP_PKEY_get_raw_public_key(pk, pub, &len) == 1 && len == 32;

	EVP_PKEY_free(pk);
	return ok ? 0 : pst_fail(e, EINVAL, "libcrypto could not derive an Ed25519 public key");
}

static int set_key(const char *name, size_t name_len, struct tlog_vkey *k, struct pst_err *e)
{
	if (!tlog_name_ok(name, name_len))
		return pst_fail(e, EINVAL, "a log key's name must be 1 to %d letters, digits or "
				"'._-/:'", TLOG_NAME_MAX);
	memcpy(k->name, name, name_len);
	k->name[name_len] = '\0';
	return 0;
}

int tlog_keygen(const char *name, struct tlog_skey *k, struct pst_err *e)
{
	EVP_PKEY *pk;
	size_t len = sizeof(k->seed);
	int rc;

	memset(k, 0, sizeof(*k));
	rc = set_key(name, strlen(name), &k->vkey, e);
	if (rc < 0)
		return rc;
	pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (pk == NULL || EVP_PKEY_get_raw_private_key(pk, k->seed, &len) != 1 || len != 32) {
		EVP_PKEY_free(pk);
		tlog_skey_wipe(k);
		return pst_fail(e, EIO, "libcrypto could not make an Ed25519 key");
	}
	EVP_PKEY_free(pk);
	rc = public_from_seed(k->seed, k->vkey.pub, e);
	if (rc < 0) {
		tlog_skey_wipe(k);
		return rc;
	}
	key_id(k->vkey.name, k->vkey.pub, k->vkey.id);
	return 0;
}

void tlog_skey_wipe(struct tlog_skey *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

static void key_text(const char *name, const unsigned char id[4], const unsigned char raw[32],
		     char *out)
{
	unsigned char with_alg[33];
	char idhex[9], b64[45];

	with_alg[0] = ALG_ED25519;
	memcpy(with_alg + 1, raw, 32);
	hex_lower(id, 4, idhex);
	tlog_b64_encode(with_alg, sizeof(with_alg), b64);
	OPENSSL_cleanse(with_alg, sizeof(with_alg));
	sprintf(out, "%s+%s+%s", name, idhex, b64);
	OPENSSL_cleanse(b64, sizeof(b64));
}

void tlog_vkey_format(const struct tlog_vkey *k, char out[TLOG_VKEY_MAX])
{
	key_text(k->name, k->id, k->pub, out);
}

void tlog_skey_format(const struct tlog_skey *k, char out[TLOG_SKEY_MAX])
{
	memcpy(out, SKEY_PREFIX, strlen(SKEY_PREFIX));
	key_text(k->vkey.name, k->vkey.id, k->seed, out + strlen(SKEY_PREFIX));
}

/* name+hexid+base64(0x01||raw): the name, the id as written and the 32 raw bytes. */
static int split_key(const char *s, size_t len, struct tlog_vkey *k, unsigned char raw[32],
		     unsigned char id[4], struct pst_err *e)
{
	const char *p1 = memchr(s, '+', len), *p2;
	unsigned char dec[33];
	size_t n = 0, i;
	int rc;

	p2 = p1 == NULL ? NULL : memchr(p1 + 1, '+', len - (size_t)(p1 + 1 - s));
	if (p1 == NULL || p2 == NULL || p2 - p1 != 9)
		return pst_fail(e, EINVAL, "a log key is <name>+<8 hex digits>+<base64>; "
				"copy it again from the log's vkey file");
	rc = set_key(s, (size_t)(p1 - s), k, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < 4; i++) {
		unsigned v;
		char two[3] = {p1[1 + 2 * i], p1[2 + 2 * i], '\0'};

		if (strspn(two, "0123456789abcdef") != 2 || sscanf(two, "%2x", &v) != 1)
			return pst_fail(e, EINVAL, "a log key's id must be 8 lowercase hex digits");
		id[i] = (unsigned char)v;
	}
	if (!tlog_b64_decode(p2 + 1, len - (size_t)(p2 + 1 - s), dec, sizeof(dec), &n) ||
	    n != 33 || dec[0] != ALG_ED25519) {
		OPENSSL_cleanse(dec, sizeof(dec));
		return pst_fail(e, EINVAL, "a log key must end in the base64 of an Ed25519 key "
				"(algorithm byte 1 and 32 bytes)");
	}
	memcpy(raw, dec + 1, 32);
	OPENSSL_cleanse(dec, sizeof(dec));
	return 0;
}

int tlog_vkey_parse(const char *s, size_t len, struct tlog_vkey *k, struct pst_err *e)
{
	unsigned char id[4];
	int rc;

	memset(k, 0, sizeof(*k));
	rc = split_key(s, len, k, k->pub, id, e);
	if (rc < 0)
		return rc;
	key_id(k->name, k->pub, k->id);
	if (memcmp(id, k->id, 4) != 0)
		return pst_fail(e, EINVAL, "the log key's id does not match its name and key; "
				"the key was altered or mistyped");
	return 0;
}

int tlog_skey_parse(const char *s, size_t len, struct tlog_skey *k, struct pst_err *e)
{
	size_t pl = strlen(SKEY_PREFIX);
	unsigned char id[4];
	int rc;

	memset(k, 0, sizeof(*k));
	if (len <= pl || memcmp(s, SKEY_PREFIX, pl) != 0)
		return pst_fail(e, EINVAL, "a log signing key starts with %s", SKEY_PREFIX);
	rc = split_key(s + pl, len - pl, &k->vkey, k->seed, id, e);
	if (rc == 0)
		rc = public_from_seed(k->seed, k->vkey.pub, e);
	if (rc == 0) {
		key_id(k->vkey.name, k->vkey.pub, k->vkey.id);
		if (memcmp(id, k->vkey.id, 4) != 0)
			rc = pst_fail(e, EINVAL, "the log signing key's id does not match its key; "
				      "the key file is damaged");
	}
	if (rc < 0)
		tlog_skey_wipe(k);
	return rc;
}

/* Non-empty lines of printable ASCII, the last one ended by a newline. */
static int body_ok(const char *body, size_t len, struct pst_err *e)
{
	size_t i;

	if (len == 0 || body[len - 1] != '\n')
		return pst_fail(e, EINVAL, "a note's text must end in a newline");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)body[i];

		if (c == '\n' ? (i == 0 || body[i - 1] == '\n') : (c < 0x20 || c > 0x7e))
			return pst_fail(e, EINVAL, "a note's text must be non-empty lines of "
					"printable ASCII (byte %zu is not)", i);
	}
	return 0;
}

static int ed25519(bool sign, const unsigned char *key, const char *body, size_t len,
		   unsigned char sig[SIG_LEN])
{
	EVP_PKEY *pk = sign ? EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, key, 32)
			    : EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, key, 32);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t siglen = SIG_LEN;
	int ok = 0;

	if (pk != NULL && ctx != NULL) {
		if (sign)
			ok = EVP_DigestSignInit(ctx, NULL, NULL, NULL, pk) == 1 &&
			     EVP_DigestSign(ctx, sig, &siglen, (const unsigned char *)body, len) == 1 &&
			     siglen == SIG_LEN;
		else
			ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pk) == 1 &&
			     EVP_DigestVerify(ctx, sig, SIG_LEN, (const unsigned char *)body, len) == 1;
	}
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return ok;
}

int tlog_note_sign(const struct tlog_skey *k, const char *body, size_t len, char *out,
		   size_t outlen, struct pst_err *e)
{
	unsigned char sig[4 + SIG_LEN];
	char b64[4 * ((sizeof(sig) + 2) / 3) + 1];
	int rc = body_ok(body, len, e), w;

	if (rc < 0)
		return rc;
	memcpy(sig, k->vkey.id, 4);
	if (!ed25519(true, k->seed, body, len, sig + 4))
		return pst_fail(e, EIO, "libcrypto could not make an Ed25519 signature");
	tlog_b64_encode(sig, sizeof(sig), b64);
	w = snprintf(out, outlen, "%.*s\n" SIG_PREFIX "%s %s\n", (int)len, body, k->vkey.name, b64);
	if (w < 0 || (size_t)w >= outlen)
		return pst_fail(e, E2BIG, "a signed note would not fit in %zu bytes", outlen);
	return w;
}

/* One signature line (without its newline): 1 verified, 0 not k's, -errno bad. */
static int check_sig_line(const struct tlog_vkey *k, const char *line, size_t len,
			  const char *body, size_t body_len, struct pst_err *e)
{
	size_t pl = strlen(SIG_PREFIX), nl = strlen(k->name), n = 0;
	const char *sp = NULL;
	unsigned char sig[96];

	if (len > pl && memcmp(line, SIG_PREFIX, pl) == 0)
		sp = memchr(line + pl, ' ', len - pl);
	/* As Go's note.Open: any line that is not a signature makes the note malformed. */
	if (sp == NULL || !tlog_name_ok(line + pl, (size_t)(sp - line) - pl) ||
	    !tlog_b64_decode(sp + 1, len - (size_t)(sp + 1 - line), sig, sizeof(sig), &n) || n < 5)
		return pst_fail(e, EINVAL, "a note's signature line must be \"— <name> <base64>\"");
	if ((size_t)(sp - line) - pl != nl || memcmp(line + pl, k->name, nl) != 0 ||
	    memcmp(sig, k->id, 4) != 0)
		return 0;
	if (n != 4 + SIG_LEN || !ed25519(false, k->pub, body, body_len, sig + 4))
		return pst_fail(e, EBADMSG, "the note's signature by %s does not verify: the text "
				"was altered after signing, or it was signed by another key", k->name);
	return 1;
}

int tlog_note_open(const struct tlog_vkey *k, const char *note, size_t len, struct pst_err *e)
{
	const char *split = NULL, *p, *end = note + len, *nl;
	size_t body_len, lines = 0;
	int rc, found = 0;

	if (len > TLOG_NOTE_MAX || len < 2 || note[len - 1] != '\n')
		return pst_fail(e, EINVAL, "a signed note is at most %d bytes and ends in a newline",
				TLOG_NOTE_MAX);
	for (p = note; p + 1 < end; p++)
		if (p[0] == '\n' && p[1] == '\n')
			split = p;
	if (split == NULL)
		return pst_fail(e, EINVAL, "a signed note needs a blank line before its signatures");
	body_len = (size_t)(split - note) + 1;
	rc = body_ok(note, body_len, e);
	if (rc < 0)
		return rc;
	for (p = split + 2; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (++lines > TLOG_NOTE_SIGS_MAX)
			return pst_fail(e, EINVAL, "a note with more than %d signatures is refused",
					TLOG_NOTE_SIGS_MAX);
		rc = check_sig_line(k, p, (size_t)(nl - p), note, body_len, e);
		if (rc < 0)
			return rc;
		found |= rc;
	}
	if (!found)
		return pst_fail(e, EPERM, "the note is not signed by the log key %s (id %02x%02x%02x%02x)",
				k->name, k->id[0], k->id[1], k->id[2], k->id[3]);
	return (int)body_len;
}

int tlog_checkpoint_format(const struct tlog_checkpoint *c, char *out, size_t outlen,
			   struct pst_err *e)
{
	char root[45];
	int w;

	if (!tlog_name_ok(c->origin, strlen(c->origin)))
		return pst_fail(e, EINVAL, "a log's origin must be a plain word");
	tlog_hash_b64(&c->root, root);
	w = snprintf(out, outlen, "%s\n%llu\n%s\n", c->origin, (unsigned long long)c->size, root);
	if (w < 0 || (size_t)w >= outlen)
		return pst_fail(e, E2BIG, "a checkpoint does not fit in %zu bytes", outlen);
	return w;
}

static bool parse_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

int tlog_checkpoint_parse(const char *body, size_t len, struct tlog_checkpoint *c,
			  struct pst_err *e)
{
	const char *line[3], *end = body + len, *nl;
	size_t ll[3], i;
	const char *p = body;
	int rc = body_ok(body, len, e);

	if (rc < 0)
		return rc;
	memset(c, 0, sizeof(*c));
	for (i = 0; i < 3; i++) {
		nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		if (nl == NULL)
			return pst_fail(e, EINVAL, "a checkpoint has an origin, a size and a root hash line");
		line[i] = p;
		ll[i] = (size_t)(nl - p);
		p = nl + 1;
	}
	if (!tlog_name_ok(line[0], ll[0]))
		return pst_fail(e, EINVAL, "the checkpoint's origin is not a plain word");
	memcpy(c->origin, line[0], ll[0]);
	if (!parse_size(line[1], ll[1], &c->size))
		return pst_fail(e, EINVAL, "the checkpoint's size is not a decimal number");
	if (!tlog_hash_from_b64(line[2], ll[2], &c->root))
		return pst_fail(e, EINVAL, "the checkpoint's root is not the base64 of 32 bytes");
	return 0;
}
