/*
 * SHA-256 and base64 come from nettle, linked into pam_postern.so: the
 * module then asks the dynamic linker for nothing of libcrypto's, whose
 * symbol tables and code pages each fresh sshd login process would
 * otherwise fault in (about nine page faults, the largest part of a login's
 * cost in bench/totp). postern-totp links the same code dynamically.
 */
#include "ssh_key.h"

#include <errno.h>
#include <nettle/base64.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SSH_BLOB_MAX 16384

static bool type_valid(const char *t, size_t n)
{
	size_t i;

	if (n == 0 || n >= SSH_TYPE_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') ||
		      t[i] == '-' || t[i] == '@' || t[i] == '.'))
			return false;
	return true;
}

static bool is_b64_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

/*
 * Canonical base64 only, as sshd writes it: whole groups of four, the
 * alphabet, '=' only as the padding at the end (nettle's decoder would
 * skip white space; none is allowed here).
 */
static int b64_decode(const char *b64, size_t len, unsigned char *out, size_t outmax)
{
	struct base64_decode_ctx ctx;
	size_t pad = 0;
	size_t n = outmax;
	size_t i;

	if (len == 0 || len % 4 != 0 || len / 4 * 3 > outmax)
		return -1;
	if (b64[len - 1] == '=')
		pad++;
	if (pad == 1 && b64[len - 2] == '=')
		pad++;
	for (i = 0; i < len - pad; i++)
		if (!is_b64_char(b64[i]))
			return -1;
	base64_decode_init(&ctx);
	if (base64_decode_update(&ctx, &n, out, len, b64) != 1 ||
	    base64_decode_final(&ctx) != 1 || n > INT32_MAX)
		return -1;
	return (int)n;
}

/* The blob's first field is a uint32-length string naming the key type. */
static bool blob_has_type(const unsigned char *blob, size_t len, const char *type)
{
	size_t tlen = strlen(type);
	uint32_t n;

	if (len < 4)
		return false;
	n = (uint32_t)blob[0] << 24 | (uint32_t)blob[1] << 16 | (uint32_t)blob[2] << 8 | blob[3];
	return n == tlen && len - 4 >= tlen && memcmp(blob + 4, type, tlen) == 0;
}

/* Ed25519, ECDSA and RSA keys up to 4096 bits: the blob fits on the stack. */
#define SSH_BLOB_SMALL 1024

static int fingerprint_blob(const char *type, const unsigned char *blob, int blen,
			    unsigned char digest[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx ctx;

	if (blen < 0 || !blob_has_type(blob, (size_t)blen, type))
		return -1;
	sha256_init(&ctx);
	sha256_update(&ctx, (size_t)blen, blob);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
	return 0;
}

int ssh_key_fingerprint(const char *type, const char *b64, char *out, struct pst_err *e)
{
	size_t b64len = strlen(b64);
	size_t max = b64len / 4 * 3 < SSH_BLOB_MAX ? b64len / 4 * 3 : SSH_BLOB_MAX;
	/* Not malloc(): in sshd's PAM child that costs copy-on-write faults. */
	unsigned char small[SSH_BLOB_SMALL];
	unsigned char *blob = max < sizeof(small) ? small : malloc(max + 1);
	unsigned char digest[SHA256_DIGEST_SIZE];
	char enc[BASE64_ENCODE_RAW_LENGTH(SHA256_DIGEST_SIZE)];
	int rc;
	size_t n;

	if (blob == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	rc = fingerprint_blob(type, blob, b64_decode(b64, b64len, blob, max), digest);
	if (blob != small)
		free(blob);
	if (rc < 0)
		return pst_fail(e, EINVAL, "not a valid %s public key", type);
	base64_encode_raw(enc, sizeof(digest), digest);
	n = sizeof(enc);
	while (n > 0 && enc[n - 1] == '=')
		n--;
	memcpy(out, "SHA256:", 7);
	memcpy(out + 7, enc, n);
	out[7 + n] = '\0';
	return 0;
}

/* Split "a b c": pointers into a copy of the line, words separated by one space. */
static int key_from_words(char *type, char *b64, struct ssh_keys *out, struct pst_err *e)
{
	size_t i;
	int rc;

	if (!type_valid(type, strlen(type)))
		return pst_fail(e, EINVAL, "'%.40s' is not an SSH key type", type);
	if (out->n == SSH_KEYS_MAX)
		return pst_fail(e, E2BIG, "more than %d keys", SSH_KEYS_MAX);
	rc = ssh_key_fingerprint(type, b64, out->fpr[out->n], e);
	if (rc < 0)
		return rc;
	for (i = 0; i < out->n; i++)
		if (strcmp(out->fpr[i], out->fpr[out->n]) == 0)
			return 0;
	memcpy(out->type[out->n], type, strlen(type) + 1);
	out->n++;
	return 0;
}

static int each_line(const char *text, size_t max, struct ssh_keys *out, struct pst_err *e,
		     int (*fn)(char *line, struct ssh_keys *out, struct pst_err *e))
{
	size_t len = strnlen(text, max + 1);
	char *copy;
	char *line;
	char *save = NULL;
	int rc = 0;

	if (len > max)
		return pst_fail(e, EFBIG, "more than %zu bytes", max);
	copy = strdup(text);
	if (copy == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	for (line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
	     line = strtok_r(NULL, "\n", &save))
		rc = fn(line, out, e);
	free(copy);
	return rc;
}

static int auth_info_line(char *line, struct ssh_keys *out, struct pst_err *e)
{
	char *type;
	char *b64;
	char *end;

	if (strncmp(line, "publickey ", 10) != 0)
		return 0;
	type = line + 10;
	b64 = strchr(type, ' ');
	if (b64 == NULL)
		return pst_fail(e, EINVAL, "publickey line without a key");
	*b64++ = '\0';
	/* sshd appends its own description after the key (a certificate's ID,
	 * serial and CA): not ours to interpret. */
	end = strchr(b64, ' ');
	if (end != NULL)
		*end = '\0';
	return key_from_words(type, b64, out, e);
}

int ssh_auth_info_keys(const char *info, struct ssh_keys *out, struct pst_err *e)
{
	memset(out, 0, sizeof(*out));
	if (info == NULL)
		return 0;
	return each_line(info, SSH_AUTH_INFO_MAX, out, e, auth_info_line);
}

static int pubkey_line(char *line, struct ssh_keys *out, struct pst_err *e)
{
	char *type = line + strspn(line, " \t");
	char *b64;
	char *end;

	if (*type == '\0' || *type == '#')
		return 0;
	b64 = strpbrk(type, " \t");
	if (b64 == NULL)
		return pst_fail(e, EINVAL, "'%.40s': a key line needs a type and a key", type);
	*b64++ = '\0';
	b64 += strspn(b64, " \t");
	end = strpbrk(b64, " \t\r");
	if (end != NULL)
		*end = '\0';
	if (!type_valid(type, strlen(type)))
		return pst_fail(e, EINVAL, "'%.40s' is not a key type (authorized_keys options are not accepted)",
				type);
	return key_from_words(type, b64, out, e);
}

int ssh_pubkey_text_keys(const char *text, struct ssh_keys *out, struct pst_err *e)
{
	return each_line(text, 1 << 20, out, e, pubkey_line);
}
